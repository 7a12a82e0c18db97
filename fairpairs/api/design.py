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
    from fairpairs.api.datasets import load_sets

    folder = Path(tempfile.mkdtemp(prefix="fairpairs-pilot-"))
    try:
        announce(f"design: a pilot of {PILOT_PAIRS} pairs per paradigm measures how often each model's tokenizer "
                 f"makes a context unequal ...")
        generate(folder / "run", PILOT_PAIRS)
        original = load_sets(folder / "run")["original"]
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    sentences = sorted(set(original["sentence_good"]) | set(original["sentence_bad"]))
    lengths = model_lengths(models, sentences)
    paradigms = int(original["uid"].nunique())
    result = plan(direction_shares(original, lengths), halfwidth, pilot_pairs=PILOT_PAIRS, paradigms=paradigms)
    result.max_sentences = max_sentences
    if max_sentences is not None:
        _fit_budget(result, original, lengths, max_sentences)
    return result


def _sentences_at(pairs: int, cost: dict, equal_target: int) -> int:
    """Sentences one model scores at `pairs` per paradigm: the certain units' sentences scale with
    the size; the A=U sample is about `equal_target` units of 2 sentences (all of them if fewer)."""
    scale = pairs / cost["pilot"]
    return math.ceil(cost["certain"] * scale + 2 * min(equal_target, cost["equal"] * scale))


def _fit_budget(result, original, lengths: dict, max_sentences: int) -> None:
    """Lower `result.pairs` until the planned sentences (each model scores the same ones) fit
    `max_sentences` (an error when even one pair per paradigm does not)."""
    from fairpairs.analysis.design import direction_shares, expected
    from fairpairs.analysis.sampling import unit_strata

    strata = unit_strata(original.assign(set="original"), list(lengths.values()))   # (one sample for all models)
    certain = original[~strata["sampled"].to_numpy()]
    costs = {"all": {"pilot": result.pilot_pairs, "equal": int(strata["sampled"].sum()),
                     "certain": len(set(certain["sentence_good"]) | set(certain["sentence_bad"]))
                     + int((~strata["sampled"]).sum())}}     # + the debiased bad sentence of each
    pairs = result.pairs
    while pairs > 1 and max(_sentences_at(pairs, c, result.equal_target) for c in costs.values()) > max_sentences:
        pairs = max(1, int(pairs * 0.9))
    if max(_sentences_at(pairs, c, result.equal_target) for c in costs.values()) > max_sentences:
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

    from fairpairs.analysis.sampling import default_rate, draw_sample

    pairs = pd.concat([df.assign(set=name) for name, df in sets.items()], ignore_index=True)
    sentences = sorted(set(pairs["sentence_good"]) | set(pairs["sentence_bad"]))
    tables = list(model_lengths(models, sentences).values())
    r = rate if rate is not None else default_rate(pairs, tables, equal_target)
    sample = draw_sample(pairs, tables, r, seed=seed, model="+".join(models))
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


def timed_loader(load_scorer, samples: dict | None, first: int = 32):
    """`load_scorer`, announcing after each load the estimated scoring time of that model: its
    planned sentences (`samples`) at the rate measured on a first batch of `first` sentences
    (scored once more with the rest; a model whose scores are cached is not loaded, nor timed)."""
    import time

    def load(model, settings):
        scorer = load_scorer(model, settings)
        sample = (samples or {}).get(model)
        batch = getattr(sample, "first_sentences", None)
        if sample is None or not batch:
            return scorer
        start = time.perf_counter()
        scorer.score(batch[:first], normalize=())
        rate = min(first, len(batch)) / max(time.perf_counter() - start, 1e-9)
        announce(f"  {model}: {rate:.1f} sentences/s on a first batch; about {sample.sentences / rate / 60:.1f} "
                 f"minutes for its {sample.sentences:,} sentences")
        return scorer
    return load
