"""Stratified scoring: every context that can say something about token length is scored, and a
known-rate sample of the rest (issue 44; the plan that sets the rate: `fairpairs.analysis.design`).

A *unit* is a context as the evaluation matches it (`fairpairs.analysis.effects.match_units`): a
matched context (its original and its debiased pair), an original-only pair or a debiased-only
pair. Under one model's tokenizer a unit falls into one of two strata:

- **certain** (scored with probability 1): its original pair is A>U or A<U, or control changed its
  bad sentence, or any of its pairs has unequal lengths, or it is in a set other than original and
  debiased. These are the units the gap and the direction effects are computed from, so those
  figures never rest on a sample.
- **equal**: every pair of the unit is the one same pair, with equal lengths (an A=U context that
  control kept as drawn, or an A=U pair in one set only). Scoring it says the same in both sets; it
  weighs in the A=U accuracy, the overall accuracies and the decomposition's parts.

With several models, one sample serves them all (so that they are compared on the same pairs with
the same weights): a unit is equal when it is equal under every model's tokenizer.

Within each paradigm and kind of unit (matched, original-only, debiased-only), `ceil(rate * N)` of
the N equal units are drawn without replacement (seeded) and get the weight N / n, every other unit
weight 1: a stratified simple random sample with its exact inverse-inclusion (Horvitz-Thompson)
weights, so every weighted accuracy is unbiased for the figure that scoring every pair would give
(post-stratified on paradigm and kind: the weights of a paradigm's units add up to its pairs).
Intervals of weighted figures use Kish's effective sample size (`fairpairs.survey.kish`). At rate 1
every weight is 1 and every number is exactly the unweighted one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from fairpairs.analysis.effects import DEBIASED, ORIGINAL, match_units
from fairpairs.survey import kish


@dataclass
class Sample:
    """One model's stratified sample of the pairs of an evaluation (rows of the pairs frame)."""

    model: str
    rate: float                # sampling rate of the equal stratum
    rows: np.ndarray           # bool per row of the pairs frame: scored
    weight: np.ndarray         # float per row: N / n in the equal stratum, 1 elsewhere
    units_certain: int
    units_equal: int
    units_equal_scored: int
    sentences: int = 0         # distinct sentences of the scored rows
    first_sentences: tuple = ()   # the first few of them (to time a first batch)

    def summary(self) -> dict:
        """The sample in results.json's `design`."""
        return {"equal_rate": self.rate, "units_certain": self.units_certain, "units_equal": self.units_equal,
                "units_equal_scored": self.units_equal_scored, "pairs_scored": int(self.rows.sum()),
                "sentences": self.sentences}


def unit_strata(pairs: pd.DataFrame, length) -> pd.DataFrame:
    """Per row of `pairs` (set, uid, sentence_good, sentence_bad, optionally draw): its unit label,
    the unit's kind (matched / original / debiased) and whether the unit is in the equal stratum
    under the token lengths `length` (sentence -> tokens; or a list of such tables, one per model:
    a pair is then equal when it is equal under every one)."""
    tables = [length] if isinstance(length, dict) else list(length)
    keys = pairs[["set", "uid", "sentence_good"] + (["draw"] if "draw" in pairs.columns else [])]
    labels, _ = match_units(keys.reset_index(drop=True))
    frame = pd.DataFrame({"unit": labels, "set": pairs["set"].to_numpy(), "uid": pairs["uid"].to_numpy(),
                          "bad": pairs["sentence_bad"].to_numpy(),
                          "equal": [all(t[g] == t[b] for t in tables) for g, b in zip(pairs["sentence_good"],
                                                                                        pairs["sentence_bad"])]})
    frame["ours"] = frame["set"].isin([ORIGINAL, DEBIASED])
    per = frame.groupby("unit", sort=False).agg(n_sets=("set", "nunique"), first=("set", "first"),
                                               equal=("equal", "all"), bads=("bad", "nunique"), ours=("ours", "all"))
    per["kind"] = np.where(per["n_sets"] > 1, "matched", per["first"])
    per["sampled"] = per["equal"] & (per["bads"] == 1) & per["ours"]
    return frame[["unit", "uid"]].join(per[["kind", "sampled"]], on="unit")


def draw_sample(pairs: pd.DataFrame, length, rate: float | None, *, seed: int, model: str = "",
                equal_target: int = 0) -> Sample:
    """A stratified sample (module doc) of `pairs` at `rate` (0 < rate <= 1) of the equal stratum
    under `length` (one table, or one per model: `unit_strata`), seeded by `seed`: same pairs,
    lengths, rate and seed, same sample. `rate` None: the rate that scores about `equal_target`
    units of the equal stratum (at most 1)."""
    strata = unit_strata(pairs, length)
    units = strata.drop_duplicates("unit")
    equal = units[units["sampled"]]
    if rate is None:
        rate = 1.0 if len(equal) <= equal_target else equal_target / len(equal)
    if not 0 < rate <= 1:
        raise ValueError(f"rate: expected 0 < rate <= 1, not {rate}")
    chosen: dict[str, float] = {}
    rng = np.random.default_rng(seed)
    for (_, _), g in equal.groupby(["uid", "kind"], sort=True):
        n_all = len(g)
        n = n_all if rate >= 1 else max(1, math.ceil(rate * n_all - 1e-9))
        picked = g["unit"].to_numpy()[np.sort(rng.permutation(n_all)[:n])] if n < n_all else g["unit"].to_numpy()
        for unit in picked:
            chosen[unit] = n_all / n
    in_equal = strata["sampled"].to_numpy()
    weight = np.array([chosen.get(u, 0.0) if e else 1.0 for u, e in zip(strata["unit"], in_equal)])
    rows = weight > 0
    scored = pairs[rows]
    return Sample(model=model, rate=float(rate), rows=rows, weight=np.where(rows, weight, 0.0),
                  units_certain=int((~units["sampled"]).sum()), units_equal=len(equal),
                  units_equal_scored=len(chosen), sentences=len(distinct := sentences_of(scored)),
                  first_sentences=tuple(distinct[:32]))


def sampled_pairs(pairs: pd.DataFrame, sample: Sample | None) -> pd.DataFrame:
    """The rows of `pairs` to score for one model, with their weight column (all rows, no weight
    column, without a sample)."""
    if sample is None:
        return pairs
    return pairs[sample.rows].assign(weight=sample.weight[sample.rows]).reset_index(drop=True)


def sentences_of(pairs: pd.DataFrame) -> list[str]:
    """The distinct sentences of `pairs`, sorted (what one model scores)."""
    return sorted(set(pairs["sentence_good"]) | set(pairs["sentence_bad"]))


def tally(g: pd.DataFrame) -> dict:
    """Counts and accuracy of a group of pairs (pair_scores' rows). Where the pairs carry survey
    weights (a sample of the A=U contexts was scored), the accuracy is weighted and `n_represented`
    (the pairs the scored ones stand for) and `n_effective` (Kish's effective size, which the
    accuracy's Wilson interval uses) follow; every count stays the pairs scored."""
    n = len(g)
    correct = int((g["outcome"] == 1).sum())
    out = {"n_pairs": n, "n_correct": correct, "n_ties": int((g["outcome"] == 0).sum()),
           "n_wrong": int((g["outcome"] == -1).sum()), "accuracy": correct / n if n else float("nan")}
    if "weight" in g.columns:
        w = g["weight"].to_numpy(dtype=float)
        total, n_eff = kish(w)
        out["accuracy"] = float(w[g["outcome"].to_numpy() == 1].sum() / total) if n else float("nan")
        out["n_represented"], out["n_effective"] = total, n_eff
    return out


def without_unit_weights(ps: pd.DataFrame) -> pd.DataFrame:
    """`ps` with its weight column only where a weight differs from 1 (at sampling rate 1 every
    table is exactly the unweighted one)."""
    if "weight" in ps.columns and (ps["weight"] == 1.0).all():
        return ps.drop(columns="weight")
    return ps
