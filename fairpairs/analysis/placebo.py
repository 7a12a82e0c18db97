"""What changing the bad word does when the lengths do not change: the placebo's effect.

The placebo pairs (`fairpairs.control.placebo`, `fp.placebo_pairs`) are original A=U pairs whose bad
word was redrawn among the other words of equal token lengths. Scored beside their original pairs,
the paired difference

    effect_placebo = acc(placebo pairs) - acc(their original pairs)

is what a new bad word does alone: the part of an effect by direction (`effect_longer`,
`effect_shorter`: a new bad word *and* equal lengths, `fairpairs.analysis.directions`) that is not
length. `effect_longer - effect_placebo` estimates the length part of the formerly-A>U effect (as
far as the placebo's A=U contexts stand for those contexts).

`placebo_table(ps)` takes `fairpairs.analysis.evaluation.pair_scores`' frame holding the set
"original" and the set "placebo" (both with their `draw`) and matches each placebo pair with its
original pair on uid, draw and good sentence. Accuracy counts a pair correct when its good sentence
scores strictly higher (a tie is not correct), as everywhere; the interval is Newcombe's for paired
proportions (`fairpairs.stats.newcombe_paired`, never of zero width) with the exact McNemar p-value.
Pure functions on DataFrames; no model needed.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from fairpairs import stats
from fairpairs.analysis.length_audit import ALL
from fairpairs.errors import DatasetError, Param

ORIGINAL, PLACEBO = "original", "placebo"
KEYS = ["model", "normalization", "uid", "draw", "sentence_good"]
COLUMNS = ["model", "normalization", "uid", "n_placebo", "acc_original", "acc_placebo", "effect_placebo",
           "effect_placebo_low", "effect_placebo_high", "effect_placebo_p", "n_gained", "n_lost",
           "share_outcome_changed"]


def placebo_outcomes(ps: pd.DataFrame) -> pd.DataFrame:
    """One row per placebo pair, model and normalisation: model, normalization, uid, draw,
    sentence_good, and the outcome (1 good higher, 0 tie, -1 bad higher) of its original pair
    (`outcome_original`) and of the placebo pair (`outcome_placebo`). A DatasetError (naming `ps`)
    when the frame has no draw column or a placebo pair has no original pair of its draw and good
    sentence."""
    for need in ("set", "draw", "outcome", *KEYS):
        if need not in ps.columns:
            raise DatasetError(Param("ps"), f": no column {need!r} (pair_scores of the original and placebo sets, "
                               f"with their draws)")
    o = ps.loc[ps["set"] == ORIGINAL, [*KEYS, "outcome"]]
    p = ps.loc[ps["set"] == PLACEBO, [*KEYS, "outcome"]]
    if o.duplicated(KEYS).any() or p.duplicated(KEYS).any():
        raise DatasetError(Param("ps"), ": a (model, normalization, uid, draw, good sentence) repeats within a set")
    out = p.merge(o, on=KEYS, how="left", suffixes=("_placebo", "_original"), validate="one_to_one")
    lost = out["outcome_original"].isna()
    if lost.any():
        first = out[lost].iloc[0]
        raise DatasetError(Param("ps"), f": {int(lost.sum())} placebo pair(s) without their original pair (first: "
                           f"{first['uid']} draw {first['draw']}, {first['sentence_good']!r}); score both sets together")
    out["outcome_original"] = out["outcome_original"].astype(int)
    return out[[*KEYS, "outcome_original", "outcome_placebo"]].reset_index(drop=True)


def placebo_effect(before: np.ndarray, after: np.ndarray) -> dict:
    """The placebo's figures for one group of pairs, from the outcomes (1 / 0 / -1) of the original
    pairs (`before`) and of their placebo pairs (`after`): n_placebo, both accuracies, the paired
    difference with Newcombe's interval and the McNemar p-value, the pairs that became correct
    (n_gained) or stopped being correct (n_lost), and the share whose outcome changed at all (a
    tie that became a win or a loss counts)."""
    before, after = np.asarray(before, dtype=int), np.asarray(after, dtype=int)
    a, b = (before == 1).astype(float), (after == 1).astype(float)
    e = stats.newcombe_paired(a, b)
    n = len(a)
    return {"n_placebo": n, "acc_original": a.mean() if n else np.nan, "acc_placebo": b.mean() if n else np.nan,
            "effect_placebo": e.value, "effect_placebo_low": e.low, "effect_placebo_high": e.high,
            "effect_placebo_p": e.p_value, "n_gained": int(((a == 0) & (b == 1)).sum()),
            "n_lost": int(((a == 1) & (b == 0)).sum()),
            "share_outcome_changed": float((before != after).mean()) if n else np.nan}


def placebo_table(ps: pd.DataFrame) -> pd.DataFrame:
    """Per model, normalisation and paradigm, plus ``ALL`` (every placebo pair pooled): the placebo's
    effect (`placebo_effect`'s columns; module doc) on the pairs of `ps` (pair_scores of the sets
    "original" and "placebo"). Paradigms in alphabetical order, ALL last."""
    units = placebo_outcomes(ps)
    rows = []
    for (model, norm), g in units.groupby(["model", "normalization"], sort=False):
        for uid, u in list(g.groupby("uid", sort=True)) + [(ALL, g)]:
            rows.append({"model": model, "normalization": norm, "uid": uid,
                         **placebo_effect(u["outcome_original"].to_numpy(), u["outcome_placebo"].to_numpy())})
    return pd.DataFrame(rows, columns=COLUMNS)


PLACEBO, ITS_ORIGINAL = "placebo", "placebo_original"


def with_placebo(pairs: pd.DataFrame, placebo: pd.DataFrame | None, sets: dict) -> pd.DataFrame:
    """`pairs` (what one model scores) with the placebo pairs (set "placebo") and their original
    pairs (set "placebo_original": the original set's rows of the same contexts, scored whether or
    not the stratified sample holds them, weight 1), so that every placebo pair is compared with
    its own original. Unchanged without placebo pairs."""
    if placebo is None or not len(placebo):
        return pairs
    original = sets["original"]
    keys = ["uid", "draw", "sentence_good"]
    own = original.merge(placebo[keys].drop_duplicates(), on=keys, how="inner")
    extra = pd.concat([own.assign(set=ITS_ORIGINAL), placebo.assign(set=PLACEBO)], ignore_index=True)
    if "weight" in pairs.columns:
        extra["weight"] = 1.0
    cols = [c for c in pairs.columns if c in extra.columns]
    return pd.concat([pairs, extra[cols]], ignore_index=True)


def split_placebo(ps: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """(the pair scores without the placebo sets, `placebo_table` of the placebo pairs against their
    own originals or None)."""
    extra = ps["set"].isin([PLACEBO, ITS_ORIGINAL])
    if not extra.any():
        return ps, None
    placebo = ps[extra].assign(set=ps.loc[extra, "set"].replace({ITS_ORIGINAL: "original"}))
    if "weight" in placebo.columns:
        placebo = placebo.drop(columns="weight")
    return ps[~extra].reset_index(drop=True), placebo_table(placebo.reset_index(drop=True))


def beside_headline(headline: pd.DataFrame | None, placebo: pd.DataFrame | None) -> pd.DataFrame | None:
    """The headline with the pooled placebo effect of each model and score beside the direction
    effects (`effect_placebo`, its interval and p, `n_placebo`; NaN where there is no placebo)."""
    if headline is None:
        return None
    cols = ["effect_placebo", "effect_placebo_low", "effect_placebo_high", "effect_placebo_p", "n_placebo"]
    if placebo is None:
        return headline
    pooled = placebo[placebo["uid"] == ALL][["model", "normalization", *cols]]
    out = headline.drop(columns=[c for c in cols if c in headline.columns])
    return out.merge(pooled, on=["model", "normalization"], how="left")
