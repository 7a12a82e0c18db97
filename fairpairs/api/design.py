"""The designed one-step evaluation (issue 44): a pilot run measures how often each model's
tokenizer makes a context unequal, the plan (`fairpairs.analysis.design`) sets the pairs per
paradigm, the run is generated at that size, and each model scores a stratified sample
(`fairpairs.analysis.sampling`). The API composes the stages; the analysis stays pure."""

from __future__ import annotations

import math
import shutil
import tempfile
from pathlib import Path

from fairpairs.errors import Param, UsageError
from fairpairs.io.progress import announce


def model_lengths(models: list[str], sentences: list[str]) -> dict[str, dict[str, int]]:
    """Per model, its tokenizer's token count of every sentence (the split the evaluation uses:
    the model's own tokenizer, found as scoring finds it)."""
    from fairpairs.tokenization.lengths import LengthMeter

    out = {}
    for model in models:
        meter = LengthMeter(model)
        out[model] = dict(zip(sentences, meter.lengths(sentences)))
    return out


def pilot_plan(models: list[str], generate, *, halfwidth: float, max_sentences: int | None):
    """The plan from a pilot run: `generate(folder, pairs)` writes a run folder; the pilot is
    written into a temporary folder of ours and removed. Returns the `Plan`."""
    from fairpairs.analysis.design import PILOT_PAIRS, direction_shares, plan
    from fairpairs.analysis.sampling import sentences_of
    from fairpairs.api.datasets import load_sets

    folder = Path(tempfile.mkdtemp(prefix="fairpairs-pilot-"))
    try:
        announce(f"design: a pilot of {PILOT_PAIRS} pairs per paradigm measures how often each model's tokenizer "
                 f"makes a context unequal ...")
        generate(folder / "run", PILOT_PAIRS)
        original = load_sets(folder / "run")["original"]
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    lengths = model_lengths(models, sentences_of(original))
    paradigms = int(original["uid"].nunique())
    result = plan(direction_shares(original, lengths), halfwidth, pilot_pairs=PILOT_PAIRS, paradigms=paradigms)
    result.max_sentences = max_sentences
    if max_sentences is not None:
        _fit_budget(result, original, lengths, max_sentences)
    return result


def _sentences_at(pairs: int, cost: dict, equal_target: int) -> int:
    """Sentences each model scores at `pairs` per paradigm: the certain units' sentences scale with
    the size; the A=U sample is about `equal_target` units of 2 sentences (all of them if fewer)."""
    scale = pairs / cost["pilot"]
    return math.ceil(cost["certain"] * scale + 2 * min(equal_target, cost["equal"] * scale))


def _fit_budget(result, original, lengths: dict, max_sentences: int) -> None:
    """Lower `result.pairs` until the planned sentences (every model scores the same ones: one
    sample serves them all) fit `max_sentences` (an error when even one pair per paradigm does not)."""
    from fairpairs.analysis.design import direction_shares, expected
    from fairpairs.analysis.sampling import sentences_of, unit_strata

    strata = unit_strata(original.assign(set="original"), list(lengths.values()))
    certain = ~strata["sampled"].to_numpy()
    cost = {"pilot": result.pilot_pairs, "equal": int((~certain).sum()),
            "certain": len(sentences_of(original[certain])) + int(certain.sum())}   # + the debiased bad sentence of each
    pairs = result.pairs
    while pairs > 1 and _sentences_at(pairs, cost, result.equal_target) > max_sentences:
        pairs = max(1, int(pairs * 0.9))
    if _sentences_at(pairs, cost, result.equal_target) > max_sentences:
        raise UsageError(Param("max_sentences"), f": {max_sentences:,} sentences per model cannot hold even one pair "
                         f"per paradigm and the A=U sample; give more, or fewer paradigms")
    if pairs < result.pairs:
        result.pairs, result.limited_by = pairs, "max sentences"
        result.expected = expected(direction_shares(original, lengths), pairs, result.pilot_pairs)


def draw_samples(sets: dict, models: list[str], *, rate: float | None, equal_target: int, seed: int) -> dict:
    """One stratified sample of `sets` (original and debiased) for all `models` (a context is in the
    equal stratum when it is A=U and kept as drawn under every model's tokenizer, so the models
    score the same pairs with the same weights and can be compared pair for pair): at `rate`, or
    the rate that scores about `equal_target` such contexts. Returns model -> the sample."""
    import pandas as pd

    from fairpairs.analysis.sampling import draw_sample, sentences_of

    pairs = pd.concat([df.assign(set=name) for name, df in sets.items()], ignore_index=True)
    tables = list(model_lengths(models, sentences_of(pairs)).values())
    sample = draw_sample(pairs, tables, rate, equal_target=equal_target, seed=seed, model="+".join(models))
    return {model: sample for model in models}


def sample_lines(samples: dict) -> list[str]:
    """The sample in words (printed before scoring; the report's design notes)."""
    if not samples:
        return []
    s = next(iter(samples.values()))
    return [f"  every model ({', '.join(samples)}) scores the same {int(s.rows.sum()):,} pairs ({s.sentences:,} sentences): "
            f"all {s.units_certain:,} contexts that are unequal under some model's tokenizer or were changed by "
            f"control, and {s.units_equal_scored:,} of the {s.units_equal:,} A=U contexts kept as drawn (rate "
            f"{s.rate:.3g}, each weighted by the inverse rate)"]


def timed_loader(load_scorer, samples: dict | None, extra: int = 0, first: int = 24):
    """`load_scorer`, announcing after each load the estimated scoring time of that model: its
    planned sentences (`samples`, plus `extra`: the placebo's) at the rate measured on a first batch
    of `first` sentences, after a warm-up batch of 8 (the first calls of a model are slower; both are
    scored once more with the rest; a model whose scores are cached is not loaded, nor timed)."""
    import time

    def load(model, settings):
        scorer = load_scorer(model, settings)
        sample = (samples or {}).get(model)
        batch = list(getattr(sample, "first_sentences", ()))
        if sample is None or len(batch) < 16:
            return scorer
        scorer.score(batch[:8], normalize=())
        start = time.perf_counter()
        scorer.score(batch[8:8 + first], normalize=())
        rate = len(batch[8:8 + first]) / max(time.perf_counter() - start, 1e-9)
        total = sample.sentences + extra
        announce(f"  {model}: {rate:.1f} sentences/s on a first batch; about {total / rate / 60:.1f} "
                 f"minutes for its {total:,} sentences")
        return scorer
    return load


def design_samples(sets: dict, tokenizers: list[str], plan, equal_rate: float | None, seed: int) -> dict | None:
    """Each model's stratified sample (`fairpairs.analysis.sampling`): at `equal_rate` when given,
    else at the rate the design plans (one-step evaluation without --pairs); None (every pair
    scored) otherwise, or without an original and a debiased set."""
    from fairpairs.analysis.effects import DEBIASED, ORIGINAL

    planned = plan is not None and not plan.explicit_pairs
    if (equal_rate is None and not planned) or not {ORIGINAL, DEBIASED} <= set(sets):
        return None
    models = [t for t in tokenizers if t]
    samples = draw_samples({k: sets[k] for k in (ORIGINAL, DEBIASED)}, models, rate=equal_rate,
                           equal_target=plan.equal_target if plan is not None else 0, seed=seed)
    for line in sample_lines(samples):
        announce(line)
    if plan is not None:
        plan.sentences = {m: s.sentences for m, s in samples.items()}
    return samples


def placebo_frame(data, sets: dict, tokenizers: list[str], per_paradigm: int | None, seed: int,
                  planned: int | None = None):
    """The placebo pairs every model scores (docs/evaluation.md, "The placebo"): for a run folder of
    `fairpairs generate` whose pairs carry their draw, `per_paradigm` contexts per paradigm (0: none;
    None: in a planned evaluation, enough for the design's pairs per direction (`planned`: 193 at the
    default target), ceil(planned / paradigms), at least 5; else none), A=U under every model's tokenizer; None otherwise."""
    import math

    from fairpairs.analysis.fresh import is_run_folder
    from fairpairs.api.placebo import placebo_pairs

    if per_paradigm == 0 or (per_paradigm is None and planned is None) or not is_run_folder(data) or "draw" not in sets["original"].columns \
            or not all(tokenizers):
        return None
    if per_paradigm is None:
        per_paradigm = max(5, math.ceil(planned / max(1, sets["original"]["uid"].nunique())))
    made = placebo_pairs(data, tokenizers, per_paradigm=per_paradigm, seed=seed)
    frame = made.pairs.frame
    return frame[["uid", "pair_id", "sentence_good", "sentence_bad", "draw"]] if len(frame) else None


def design_notes(plan, samples: dict | None) -> list[str]:
    """The design in the report's first lines (what was printed before scoring)."""
    lines = plan.lines() if plan is not None else []
    if samples:
        lines += ["Stratified scoring (docs/evaluation.md, 'The designed evaluation'):"] + sample_lines(samples)
    return [" ".join(line.split()) for line in lines]


def design_record(plan, samples: dict | None, sizes: dict) -> dict:
    """results.json's `design`: the target, the pairs generated per set (`sizes`), and per model
    the strata, the sampling rate and the sentences scored."""
    out = {"planned": plan is not None and not plan.explicit_pairs, "pairs_per_set": sizes,
           "sampling": "stratified: every unequal or changed context, a known-rate sample of the A=U contexts kept "
                       "as drawn, weighted by the inverse rate" if samples else "none: every pair scored",
           "models": {m: s.summary() for m, s in (samples or {}).items()}}
    if plan is not None:
        out.update({k: v for k, v in plan.as_dict().items() if k != "sentences"})
    return out


def scoring_design(data, sets: dict, tokenizers: list[str], plan, equal_rate: float | None, placebo: int | None,
                   seed: int):
    """(the stratified samples, the placebo pairs) an evaluation scores (`design_samples`,
    `placebo_frame`), both seeded by the run's own seed for a run folder (so one-step evaluation and
    `--data` on the same run draw the same), else by `seed` (default 0)."""
    from fairpairs.analysis.fresh import is_run_folder

    if is_run_folder(data):
        from fairpairs.manifest import read_manifest

        run_seed = read_manifest(data).seed
        seed = run_seed if isinstance(run_seed, int) else seed
    seed = 0 if seed is None else seed
    return (design_samples(sets, tokenizers, plan, equal_rate, seed),
            placebo_frame(data, sets, tokenizers, placebo, seed,
                          planned=None if plan is None or plan.explicit_pairs else plan.per_direction))


def record_design(report, plan, samples: dict | None, sets: dict) -> None:
    """The design in the report: the `design` entry of results.json's settings and report.md's first lines."""
    report.settings["design"] = design_record(plan, samples, {k: len(v) for k, v in sets.items()})
    report.notes += design_notes(plan, samples)
