"""The public calls that score and evaluate: `score_pairs`, `evaluate`, `matched_pairs`, `robustness`."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Mapping

from fairpairs import arguments as check
from fairpairs.errors import Param, UsageError, UsageTypeError
from fairpairs.io.progress import takes_progress
from fairpairs.api.common import DEFAULT_NORMALIZE, is_scorer, items, normalize_names, read_paths, read_sets, resolve_models
from fairpairs.analysis.config import EvaluationConfig, RobustnessConfig

if TYPE_CHECKING:   # (for readers and type checkers only: nothing heavy is imported at run time)
    import pandas as pd
    from fairpairs.analysis.evaluation import Report
    from fairpairs.scoring import Scorer


def score_pairs(scorer: "Scorer", pairs, normalize: Iterable[str] | str = DEFAULT_NORMALIZE, *,
                columns=None, unigrams=None, cache_dir: str | os.PathLike | None = None,
                length_params=None) -> "pd.DataFrame":
    """Score both sentences of every pair with `scorer` (`Scorer.from_pretrained(...)`): one row per
    pair, in input order, with set, uid, pair_id, the sentences, len_good/len_bad (the scorer's
    tokens), split (A=U, A>U, A<U), <norm>_good and <norm>_bad for each normalisation (lp: the
    summed natural-log probability), and correct (the first normalisation's good score is strictly
    higher). With `cache_dir`, scores are read from and written to the score cache `evaluate` uses
    (keyed by the model's content and the settings): sentences scored before are not scored again.
    `length_params` (for tcf_lp): a `fairpairs fit-length` file or a dict (default: the bundled
    ones); only the entry fitted for this scorer's model is used."""
    from fairpairs.analysis.evaluation import Settings, cached_scores, pair_scores, scorer_settings
    from fairpairs.analysis.frames import pairs_frame
    from fairpairs.analysis.sampling import sentences_of
    from fairpairs.scoring.fingerprint import model_fingerprint
    from fairpairs.scoring.morcela import check_scorer
    from fairpairs.scoring.normalize import needing
    from fairpairs.scoring.unigrams import load_unigrams

    check_scorer(scorer)
    norms = normalize_names(normalize)
    if "slor" in norms:
        load_unigrams(unigrams)            # (checked before anything is scored)
    lkey = _length_settings(norms, length_params, [scorer])
    frame = pairs_frame(read_sets(pairs, columns, "pairs", "pairs"))
    sentences = sentences_of(frame)
    settings = scorer_settings(scorer, Settings(normalize=norms, unigrams=unigrams, length_params=lkey))
    if cache_dir is not None:
        if not getattr(scorer, "name", ""):
            raise UsageError(Param("cache_dir"), ": the scorer has no name to key its cached scores by")
        cache = _claim_cache(cache_dir, pairs)
        scores, _ = cached_scores(scorer.name, sentences, settings, Path(cache), lambda m, s: scorer,
                                  fingerprint=model_fingerprint(scorer))
    else:
        kwargs = {"unigrams": unigrams} if needing(norms, "unigrams") else {}
        if needing(norms, "length_params"):
            kwargs["length_params"] = settings.length_spec()
        scores = scorer.score(sentences, normalize=settings.scorer_normalize(), **kwargs)
    ps = pair_scores(frame, scores, getattr(scorer, "name", ""), norms)
    first = ps[ps["normalization"] == norms[0]].reset_index(drop=True)
    out = first[["set", "uid", "pair_id", "model", "sentence_good", "sentence_bad", "len_good", "len_bad",
                 "split"]].copy()
    for norm in norms:
        part = ps[ps["normalization"] == norm].reset_index(drop=True)
        out[f"{norm}_good"] = part["score_good"].to_numpy()
        out[f"{norm}_bad"] = part["score_bad"].to_numpy()
    out["correct"] = (first["outcome"] == 1).to_numpy()
    return out


@takes_progress
def evaluate(data=None, models: "Iterable[str | Scorer] | str | Scorer | None" = None, *,
             normalize: Iterable[str] | str = EvaluationConfig.normalize,
             pll: str = EvaluationConfig.pll, unigrams: str | None = None, cache_dir: str | os.PathLike | None = None,
             split_tokenizer: str | None = None, device: str = EvaluationConfig.device, dtype: str | None = None,
             device_map: str | None = None, batch_tokens: int | None = None, columns=None,
             load_scorer: Callable | None = None, on_load: Callable[[str], None] | None = None,
             paradigms: str | Iterable[str] | None = None, phenomenon: str | None = None,
             pairs: int | None = None, seed: int | None = None, strategy: str | None = None,
             run_dir: str | os.PathLike | None = None, length_params=None,
             target_halfwidth: float | None = None, max_sentences: int | None = None,
             equal_rate: float | None = None, placebo: int | None = None) -> "Report | None":
    """Score every set of `data` (e.g. ``{"original": orig, "debiased": pairs}``, or a run folder)
    with each model and analyse how token-length bias changes accuracy and rankings: the
    `fairpairs.analysis.evaluation.Report` that `fp.write_report` saves (`fairpairs evaluate` calls this). A
    model is a name or a `Scorer` already loaded (used as it is, never loaded again); a model is
    known by its content (`scoring.fingerprint`), so one given twice (a Scorer and its name, or two
    aliases) is scored once, with a `FairpairsWarning`. `length_params` (for tcf_lp): a `fairpairs
    fit-length` file or a dict (default: the bundled ones); each model uses only its own entry. Scores are
    cached under `cache_dir` when given, in the cache `score_pairs` uses; `on_load(model)` is called before
    a model is loaded (a model whose scores are cached is not loaded). `device_map` spreads each
    model over the visible GPUs. Under a multi-process launch (torchrun, accelerate launch; see
    docs/scaling.md) every rank calls this, the ranks share the scoring, and rank 0 alone gets the
    report (the others get None). Every setting is checked first, by `analysis.config.EvaluationConfig`
    (its defaults and help texts; `fairpairs evaluate` builds the same object from its options).

    Without `data`, the pairs are generated first (`generate_run`), length-controlled for the
    tokenizer of every model in `models`, with `paradigms` (default all), `phenomenon`, `pairs` (per
    paradigm and set; default 20), `seed` (default 0) and `strategy` (default search), into `run_dir`
    (default: a new temporary folder, kept): `pairs` per paradigm, or (default) the size planned for
    `target_halfwidth` (a proportion, default 0.10) within `max_sentences`, scored in a stratified
    sample (`equal_rate`) with `placebo` placebo contexts per paradigm (docs/evaluation.md, "The
    designed evaluation"); the report's first lines say for which tokenizers, the seed, the design and
    the `fairpairs generate` command that writes the same pairs. Every model named is found first.
    With `data`, the generation settings are errors (``seed: only without data``): the pairs exist. With a run folder as `data`, a model whose
    tokenizer its debiased set is not controlled for gets a `FairpairsWarning` and a line in the report."""
    config = EvaluationConfig(
        data_given=data is not None, normalize=normalize, pll=pll, unigrams=unigrams, cache_dir=cache_dir,
        split_tokenizer=split_tokenizer, device=device, dtype=dtype, device_map=device_map,
        batch_tokens=batch_tokens, length_params=length_params, paradigms=paradigms, phenomenon=phenomenon,
        pairs=pairs, seed=seed, strategy=strategy, run_dir=run_dir, target_halfwidth=target_halfwidth,
        max_sentences=max_sentences, equal_rate=equal_rate, placebo=placebo)
    return evaluate_with(data, models, config, columns=columns, load_scorer=load_scorer, on_load=on_load)


def evaluate_with(data, models, config: EvaluationConfig, *, columns=None, load_scorer: Callable | None = None,
                  on_load: Callable[[str], None] | None = None) -> "Report | None":
    """`fp.evaluate` with its settings checked already (`config`; `evaluate_into` writes the report
    of the same call): the models are checked and found (without data, before the pairs are
    generated), the data read or generated, the sets scored and analysed."""
    from fairpairs.analysis.evaluation import evaluate_sets as run
    from fairpairs.api.design import record_design, scoring_design, timed_loader
    from fairpairs.api.inputs import evaluation_data
    from fairpairs.scoring.models import model_notes, remembering

    names = _distinct_models(resolve_models(_model_list(models)))     # (each name resolved once, here)
    settings = config.scoring_settings(_length_settings(config.normalize, config.length_params, names))
    tokenizers = _tokenizers(names, data, config.cache_dir)
    data, sets, prepared, plan = evaluation_data(data, tokenizers, columns, config)
    samples, placebo_set = scoring_design(data, sets, tokenizers, plan, config.equal_rate, config.placebo, config.seed)
    if config.cache_dir is not None:   # a score cache of ours (its marker), never inside what `data` reads
        _claim_cache(config.cache_dir, data)
    if load_scorer is None:
        load_scorer = _loader(on_load, device=config.device, batch_tokens=config.batch_tokens,
                              device_map=config.device_map)
    extra = 0 if placebo_set is None else len(set(placebo_set["sentence_bad"]))
    load_scorer, identities = remembering(timed_loader(load_scorer, samples, extra))
    report = run(sets, names, settings, None if config.cache_dir is None else Path(config.cache_dir),
                 split_tokenizer=config.split_tokenizer, load_scorer=load_scorer, balance=prepared.balance,
                 samples=samples, placebo=placebo_set)
    if report is not None:   # (once the models have scored: a run that fails says only why)
        report.notes += prepared.notes() + model_notes(names, identities, settings.dtype)
        record_design(report, plan, samples, sets)
    return report


def _loader(on_load, **options):
    """The default `load_scorer` of `evaluate`: `on_load(model)`, then the model loaded with `options`."""
    from fairpairs.analysis.evaluation import default_loader

    def load(model, s):
        if on_load is not None:
            on_load(model)
        return default_loader(model, s, **options)
    return load


def _tokenizers(names: list, data, cache_dir) -> list[str]:
    """The tokenizer name of each model (a Scorer's name); without `data` (the pairs are generated
    for them), every model must have one and be found here (`scoring.availability`: its weights, or
    its config on the Hub), and `cache_dir` is checked before anything is generated."""
    tokenizers = [n if isinstance(n, str) else str(getattr(n, "name", "") or "") for n in names]
    if data is None and not all(tokenizers):
        raise UsageError(Param("models"), ": a Scorer without a name has no tokenizer to generate pairs for; give data")
    if data is None:
        _check_loadable([n for n in names if isinstance(n, str)])
    if cache_dir is not None and data is None:    # (before the pairs are generated: a folder that cannot be the cache)
        from fairpairs.io.files import check_output_folder

        check_output_folder(check.path(cache_dir, "cache_dir", exists=False), "cache_dir", kind="cache",
                            action="write into")
    return tokenizers


def _check_loadable(models: list[str]) -> None:
    """Every model name can be loaded here (`scoring.availability.check_loadable`), in the order
    given; errors name the parameter `models`."""
    from fairpairs.errors import FairpairsError
    from fairpairs.scoring.availability import check_loadable

    for model in models:
        try:
            check_loadable(model)
        except FairpairsError as exc:
            raise exc.with_param("model", "models") from None


def _model_list(models) -> list:
    """evaluate's models (names or loaded Scorers), each once, checked."""
    if models is None:
        raise UsageError(Param("models"), ": give at least one model")
    given = [models] if isinstance(models, (str, os.PathLike)) or is_scorer(models) else \
        items(models, "models", "a model name, a Scorer or a list of them")
    given = [os.fspath(m) if isinstance(m, os.PathLike) else m for m in given]   # (names, or loaded Scorers)
    check.names([m for m in given if not is_scorer(m)], "models")
    if not given or not all(is_scorer(n) or n.strip() for n in given):
        raise UsageError(Param("models"), ": give at least one model")
    return list(dict.fromkeys(given))


def matched_pairs(data, *, columns=None) -> "pd.DataFrame":
    """The matched contexts of `data` (a run folder of `fairpairs generate`, or original and
    debiased sets as `fp.evaluate` takes them), joined exactly as the evaluation report joins them
    (docs/evaluation.md, "Matched contexts"): one row per context in both sets with uid, draw,
    sentence_good, the original and debiased pair_id and bad sentence, `changed` and `matched_by`.
    Its length per paradigm is the report's n_matched; data without both sets is a UsageError."""
    from fairpairs.analysis.draws import attach_draws
    from fairpairs.analysis.effects import DEBIASED, ORIGINAL, matched_table

    sets = read_sets(data, columns, "pairs", "data")
    if not {ORIGINAL, DEBIASED} <= set(sets):
        raise UsageError(Param("data"), f": holds the set(s) {', '.join(sets)}; matched pairs join an {ORIGINAL} and a "
                         f"{DEBIASED} set (a run folder, or {{'{ORIGINAL}': ..., '{DEBIASED}': ...}})", value=data)
    return matched_table(attach_draws(sets, data))


def _length_settings(norms, spec, models) -> str | None:
    """Before any model is loaded or anything scored: when `norms` need length parameters, the
    entry of `spec` (a file, a dict, or None for the bundled file) for every one of `models` (names
    or Scorers; an error naming both models when one has none); and what the score cache keys the
    parameters by (the parameters' JSON; None for the bundled file, or when no score needs them)."""
    import json

    from fairpairs.scoring.length import load_length_params, params_document
    from fairpairs.scoring.normalize import needing

    if spec is not None and not isinstance(spec, (str, os.PathLike, Mapping)):
        raise UsageTypeError(Param("length_params"), f": expected a file path or a dict, not {type(spec).__name__}")
    if not needing(norms, "length_params"):
        return None
    for model in models:
        load_length_params(spec if isinstance(spec, (str, os.PathLike)) or spec is None else dict(spec), model)
    return None if spec is None else json.dumps(params_document(spec), sort_keys=True)


def _distinct_models(models: list) -> list:
    """`models` with each model once, by content (`scoring.fingerprint.model_fingerprint`): a
    Scorer and its model's name, or two aliases of one model, are one model (the first given is
    kept, with a FairpairsWarning naming both). Scorers built by hand without a known fingerprint
    are told apart by object."""
    import warnings

    from fairpairs.errors import FairpairsWarning
    from fairpairs.scoring.fingerprint import model_fingerprint, short

    seen: dict[str, object] = {}
    out = []
    for m in models:
        key = model_fingerprint(m)
        if key.startswith("name:"):
            key = f"object:{id(m)}"
        if key in seen:
            def shown(x):
                return repr(x) if isinstance(x, str) else f"Scorer {getattr(x, 'name', '') or '(unnamed)'!r}"

            warnings.warn(FairpairsWarning(Param("models"), f": {shown(m)} is the same model as {shown(seen[key])} "
                                           f"(config and weights {short(key)}); scoring it once"), stacklevel=3)
            continue
        seen[key] = m
        out.append(m)
    return out


@takes_progress
def robustness(data, models: Iterable[str] | str, *, cache_dir: str | os.PathLike | None = None,
               length_params=None, morcela_params=None, pll: str = RobustnessConfig.pll,
               device: str = RobustnessConfig.device, batch_tokens: int | None = None, columns=None,
               load_scorer: Callable | None = None) -> "pd.DataFrame":
    """How far each acceptability score depends on token length (`fairpairs robustness`;
    docs/robustness.md): one row per model, set and score with the accuracy of the whole set and
    of its A=U / A>U / A<U splits (by the model's own tokenizer; Wilson intervals), the length gap
    (A>U - A<U accuracy, Newcombe's interval for two independent proportions), the A=U fidelity (the
    score's A=U accuracy minus LP's on the same pairs, Newcombe's paired interval and the exact McNemar
    p) and, for a run folder, the score's accuracy on the original set minus LP's on the matched
    debiased contexts (paired, the same) and the score's own effect of control per direction. A
    figure from fewer than `MIN_PAIRS` (10) pairs stays in the table; the markdown says "too few
    pairs" there, as the evaluation report does. `length_params`: a `fairpairs fit-length` file or a dict
    (default: the bundled parameters, for smollm2-135m; a file's entry is used only for the model
    it was fitted for, and a model it has none for is an error); `morcela_params`: as for `Scorer.score` (MORCELA is left out
    without them). Scores are cached under `cache_dir` when given. The settings are checked first (`analysis.config.RobustnessConfig`)."""
    from fairpairs.analysis.evaluation import default_loader
    from fairpairs.analysis.score_robustness import run

    given = [models] if isinstance(models, (str, os.PathLike)) else \
        items(models, "models", "a model name or a list of them")
    names = check.names([os.fspath(m) if isinstance(m, os.PathLike) else m for m in given], "models")
    if not names or not all(n.strip() for n in names):
        raise UsageError(Param("models"), ": give at least one model")
    names = list(dict.fromkeys(names))
    config = RobustnessConfig(pll=pll, device=device, batch_tokens=batch_tokens, cache_dir=cache_dir,
                              length_params=length_params, morcela_params=morcela_params)
    names = resolve_models(names)
    if morcela_params is not None:
        from fairpairs.scoring.morcela import load_params

        morcela_params = load_params(morcela_params)
    if length_params is not None:     # every model's entry, before anything is scored
        from fairpairs.scoring.length import load_length_params, params_document

        spec = params_document(length_params)     # (read and checked once; named by its path in errors)
        for name in names:
            load_length_params(length_params if isinstance(length_params, (str, os.PathLike)) else spec, name)
        length_params = length_params if isinstance(length_params, (str, os.PathLike)) else spec
    from fairpairs.analysis.draws import attach_draws

    sets = attach_draws(read_sets(data, columns, "pairs", "data"), data)   # contexts matched as evaluate matches them
    if cache_dir is not None:
        _claim_cache(cache_dir, data)
    if load_scorer is None:
        def load_scorer(model, s):
            return default_loader(model, s, device=config.device, batch_tokens=config.batch_tokens)
    return run(sets, names, None if cache_dir is None else Path(cache_dir), load_scorer, length_params=length_params,
               morcela_params=morcela_params, pll=config.pll)


def _claim_cache(cache_dir, data) -> Path:
    """`cache_dir` as a score cache of ours (fairpairs.io.files.claim_folder): absent, empty or a
    cache fairpairs wrote, never in or over what `data` reads."""
    from fairpairs.io.files import claim_folder

    reads = read_paths(data)
    return claim_folder(check.path(cache_dir, "cache_dir", exists=False), "cache_dir", inputs=reads, reads=reads,
                        kind="cache")
