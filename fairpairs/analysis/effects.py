"""Separating length from selection: what the change from the original set's accuracy to the
debiased set's is made of.

A debiased set differs from its original set in token-length balance, and possibly also in *which*
contexts it holds: length control keeps a context (its good sentence) when a bad sentence of
equal length is found, and replaces or drops it otherwise. The reported change therefore mixes
what equal lengths did with what the selection of contexts did. The **matched contexts** are the
pairs whose good sentence is in both sets; on them the same context is scored once with its
original and once with its debiased bad sentence, so their paired difference is length's alone.
With acc(set) the accuracy on all of a set's pairs and acc(set, M) on its matched pairs:

    change    = acc(debiased)    - acc(original)
    selection = acc(original, M) - acc(original)          what choosing the kept contexts does
    length    = acc(debiased, M) - acc(original, M)       what equal lengths do (paired)
    remainder = acc(debiased)    - acc(debiased, M)       what unmatched debiased pairs add

and change = selection + length + remainder exactly (the terms telescope). The remainder is 0 when
every debiased pair is matched; otherwise it is the share of unmatched debiased pairs times the
difference of their accuracy from the matched ones'.

Matching (`match_units`), per paradigm: where every row of both sets says which draw it came from
(`draw`, written by `fairpairs generate`), an original and a debiased pair match when they come
from the same draw *and* have the identical good sentence (a replaced context never matches, even
when its new good sentence happens to occur elsewhere in the original set); otherwise on the good
sentence's text, the k-th occurrence in one set with the k-th in the other.

By direction: `fairpairs.analysis.directions` (the gap A>U - A<U and the effect of length control per
direction of the original pair; `decompose` adds its columns).

Accuracy follows `fairpairs.analysis.evaluation`: a pair is correct when its good sentence scores strictly
higher; a tie is not correct and stays in the denominator (for the paired test a tie counts as
not correct too). Intervals (`fairpairs.stats`, 95%): Wilson for every accuracy; Newcombe's for
the gap (two independent proportions); for `length` and every effect, Newcombe's interval for
paired proportions (method 10, never of zero width) with the exact McNemar p-value; for `change`,
`selection` and `remainder` (differences of overlapping, not paired, sets of pairs), one percentile
bootstrap over units (a matched context, an original-only or a debiased-only pair) resampled within
those three kinds, so the three intervals come from the same resamples (an interval of zero width,
where every resample gives the same figure, is NaN: it cannot be estimated). Every bootstrap is
seeded: same scores, same intervals.

Pure functions on DataFrames; no model needed.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from fairpairs import stats, survey
from fairpairs.analysis.directions import directions, wilson_columns
from fairpairs.analysis.length_audit import ALL

ORIGINAL, DEBIASED = "original", "debiased"
PARTS = ("change", "selection", "length", "remainder")
NAN = float("nan")


# ---------------------------------------------------------------------------- matching


def match_units(pairs: pd.DataFrame) -> tuple[np.ndarray, str]:
    """A unit label per row of `pairs` (columns set, uid, sentence_good and, optionally, draw):
    an original and a debiased row share their label when they are the same context (matched);
    every other row has a label of its own. Returns (labels, how), how being "draw" (same uid, same
    draw, identical good sentence: used when every row of both sets has a draw, unique per set and
    paradigm) or "good sentence" (same uid and good sentence text, k-th occurrence with k-th)."""
    sets = pairs["set"].astype(str).to_numpy()
    base = pairs["uid"].astype(str) + "\x1f" + pairs["sentence_good"].astype(str)
    how = "good sentence"
    both = pairs[pairs["set"].isin([ORIGINAL, DEBIASED])]
    if "draw" in pairs.columns and both["draw"].notna().all() and len(both):
        if not both.duplicated(["set", "uid", "draw"]).any():
            how = "draw"
    if how == "draw":
        draw = pairs["draw"].map(lambda v: "" if pd.isna(v) else str(int(v)))
        key = base + "\x1fd" + draw
    else:
        nth = pairs.groupby(["set", "uid", "sentence_good"], sort=False).cumcount()
        key = base + "\x1f#" + nth.astype(str)
    key = key.to_numpy()
    in_o = set(key[sets == ORIGINAL])
    in_d = set(key[sets == DEBIASED])
    matched = np.array([k in in_o and k in in_d for k in key], dtype=bool)
    labels = np.array([k if hit else f"{s}\x1f{k}" for k, hit, s in zip(key, matched, sets)], dtype=object)
    return labels, how


# ---------------------------------------------------------------------------- one decomposition


def decompose(o: np.ndarray, d: np.ndarray, split=None, changed=None, *, seed: int = 0,
              resamples: int = stats.RESAMPLES, w=None) -> dict:
    """The decomposition (module doc) of one model, score and group of units.

    `o`, `d`: per unit, 1.0 correct / 0.0 not correct on the original / debiased set, NaN where
    the unit has no pair in that set (a matched unit has both). `split` (optional): per unit, the
    direction of its original pair (A=U, A>U, A<U; anything else where it has none) and `changed`:
    per unit, whether its debiased pair differs from its original one (a matched unit whose bad
    sentence was redrawn); with them the row also holds the length bias by direction
    (`directions`). Returns the accuracies with their Wilson intervals, the four parts with their
    intervals, the McNemar p-value of `length` and the counts of matched pairs that became correct
    (`n_gained`) or not (`n_lost`). `w`: survey weights per unit (`fairpairs.analysis.sampling`;
    default 1): every accuracy and part is then weighted (the identity still holds exactly) and
    every n stays the number of units scored."""
    o = np.asarray(o, dtype=float)
    d = np.asarray(d, dtype=float)
    w = np.ones(len(o)) if w is None else np.asarray(w, dtype=float)
    has_o, has_d = ~np.isnan(o), ~np.isnan(d)
    m = has_o & has_d
    om, dm = o[m], d[m]
    row = {**wilson_columns(o[has_o], "original", w[has_o]), **wilson_columns(d[has_d], "debiased", w[has_d]),
           **wilson_columns(om, "matched_original", w[m]), **wilson_columns(dm, "matched_debiased", w[m]),
           "n_original_only": int((has_o & ~has_d).sum()), "n_debiased_only": int((has_d & ~has_o).sum())}
    row["n_matched"] = row.pop("n_matched_original")
    del row["n_matched_debiased"]
    acc_o, acc_d = row["original"], row["debiased"]
    acc_om, acc_dm = row["matched_original"], row["matched_debiased"]
    row["change"] = acc_d - acc_o
    row["selection"] = acc_om - acc_o
    row["remainder"] = acc_d - acc_dm
    paired = survey.newcombe_paired_weighted(om, dm, w=w[m])
    row["length"], row["length_low"], row["length_high"] = acc_dm - acc_om, paired.low, paired.high
    row["length_p"] = paired.p_value
    row["n_gained"] = int(((om == 0) & (dm == 1)).sum())
    row["n_lost"] = int(((om == 1) & (dm == 0)).sum())
    lows, highs = _joint_intervals(o, d, m, seed, resamples, w)
    for part, lo, hi in zip(("change", "selection", "remainder"), lows, highs):
        row[f"{part}_low"], row[f"{part}_high"] = (lo, hi) if lo < hi else (NAN, NAN)   # never a zero width
    order = ["n_original", "n_debiased", "n_matched", "n_original_only", "n_debiased_only"]
    order += [f"{acc}{x}" for acc in ("original", "debiased", "matched_original", "matched_debiased")
              for x in ("", "_low", "_high")]
    order += [f"{part}{x}" for part in PARTS for x in ("", "_low", "_high")] + ["length_p", "n_gained", "n_lost"]
    assert set(order) == set(row)
    row = {k: row[k] for k in order}
    if split is not None:
        row.update(directions(o, d, split, changed, w))
    return row


def _joint_intervals(o, d, m, seed, resamples, w=None):
    """Bootstrap intervals of change, selection and remainder from the same resamples of units,
    resampled within their kind (matched, original only, debiased only), so that every resample
    has the sets' sizes. The figures depend only on how many units of each outcome were drawn, so
    the units are resampled as counts (`fairpairs.stats.bootstrap_counts`): kinds 0-3 matched with
    (original, debiased) outcome (0,0), (0,1), (1,0), (1,1); 4-5 original only with 0, 1; 6-7
    debiased only with 0, 1. With survey weights other than 1 (`_weighted_intervals`), each kind
    is split by weight, and every resample keeps the units of each weight."""
    has_o, has_d = ~np.isnan(o), ~np.isnan(d)
    if not has_o.any() or not has_d.any():
        return [NAN] * 3, [NAN] * 3
    m = has_o & has_d
    oo, dd = np.nan_to_num(o).astype(int), np.nan_to_num(d).astype(int)
    kind = np.where(m, 2 * oo + dd, np.where(has_o, 4 + oo, 6 + dd))
    if w is not None and not np.all(w == 1.0):
        return _weighted_intervals(kind, w, seed, resamples)
    counts = np.bincount(kind, minlength=8)
    n_o, n_d, n_m = int(has_o.sum()), int(has_d.sum()), int(m.sum())

    def statistic(c):
        right_om, right_dm = c[:, 2] + c[:, 3], c[:, 1] + c[:, 3]
        acc_o, acc_d = (right_om + c[:, 5]) / n_o, (right_dm + c[:, 7]) / n_d
        acc_om, acc_dm = (right_om / n_m, right_dm / n_m) if n_m else (np.nan, np.nan)
        return np.column_stack(np.broadcast_arrays(acc_d - acc_o, acc_om - acc_o, acc_d - acc_dm))

    lows, highs = stats.bootstrap_counts(statistic, counts, strata=[0, 0, 0, 0, 1, 1, 2, 2], seed=seed,
                                         resamples=resamples)
    return list(lows), list(highs)


def _parts(k: np.ndarray) -> np.ndarray:
    """change, selection and remainder from (weighted) unit totals per kind (resamples x 8)."""
    right_om, right_dm = k[:, 2] + k[:, 3], k[:, 1] + k[:, 3]
    n_m = k[:, :4].sum(axis=1)
    n_o, n_d = n_m + k[:, 4] + k[:, 5], n_m + k[:, 6] + k[:, 7]
    acc_o, acc_d = (right_om + k[:, 5]) / n_o, (right_dm + k[:, 7]) / n_d
    acc_om, acc_dm = right_om / n_m, right_dm / n_m
    return np.column_stack([acc_d - acc_o, acc_om - acc_o, acc_d - acc_dm])


def _weighted_intervals(kind: np.ndarray, w: np.ndarray, seed: int, resamples: int):
    """`_joint_intervals` with survey weights: the units are counted per kind and weight, resampled
    within (kind group, weight), and the parts computed from the weighted totals."""
    classes, which = np.unique(w, return_inverse=True)
    n_w = len(classes)
    counts = np.bincount(kind * n_w + which, minlength=8 * n_w)
    group = np.repeat([0, 0, 0, 0, 1, 1, 2, 2], n_w)
    strata = group * n_w + np.tile(np.arange(n_w), 8)
    weight = np.tile(classes, 8)

    def statistic(c):
        return _parts((c * weight).reshape(len(c), 8, n_w).sum(axis=2))

    lows, highs = stats.bootstrap_counts(statistic, counts, strata=strata, seed=seed, resamples=resamples)
    return list(lows), list(highs)


# ---------------------------------------------------------------------------- tables


def unit_outcomes(ps: pd.DataFrame) -> pd.DataFrame:
    """Per model, normalisation, paradigm and unit (`match_units`): outcome on the original set
    (`o`) and on the debiased set (`d`): 1.0 correct, 0.0 not (wrong or tie), NaN absent; `split`:
    the direction of the unit's original pair (A=U, A>U, A<U under the lengths of `ps`; None
    without one); `changed`: 1.0 where a matched unit's debiased pair is not its original pair (the
    bad sentence was redrawn), 0.0 where it is the same pair, NaN for an unmatched unit; and
    `matched_by`. `ps` is `fairpairs.analysis.evaluation.pair_scores`' frame (with an optional draw
    column)."""
    ps = ps[ps["set"].isin([ORIGINAL, DEBIASED])]
    weighted = "weight" in ps.columns and not (ps["weight"] == 1.0).all()
    cols = ["set", "uid", "sentence_good"] + (["draw"] if "draw" in ps.columns else [])
    frames = []
    groups = ps.groupby(["model", "normalization"], sort=False)
    labels = how = None
    ref = None
    keys_out = ["model", "normalization", "uid", "unit"]
    for (model, norm), g in groups:
        keys = g[cols].reset_index(drop=True)
        if ref is None or not keys.equals(ref):      # every group has the same pairs in the same order
            ref = keys
            labels, how = match_units(keys)
        part = pd.DataFrame({"model": model, "normalization": norm, "uid": g["uid"].to_numpy(),
                             "unit": labels, "set": g["set"].to_numpy(),
                             "correct": (g["outcome"].to_numpy() == 1).astype(float),
                             "split": g["split"].to_numpy(), "bad": g["sentence_bad"].to_numpy()})
        if weighted:
            part["weight"] = g["weight"].to_numpy(dtype=float)
        o = part[part["set"] == ORIGINAL].drop(columns="set").rename(columns={"correct": "o", "bad": "bad_o"})
        d = part[part["set"] == DEBIASED].drop(columns=["set", "split"]).rename(columns={"correct": "d",
                                                                                          "bad": "bad_d"})
        wide = o.merge(d, on=keys_out, how="outer", sort=True, validate="one_to_one", suffixes=("", "_d"))
        matched = wide["o"].notna() & wide["d"].notna()
        wide["changed"] = np.where(matched, (wide["bad_o"] != wide["bad_d"]).astype(float), NAN)
        wide["split"] = wide["split"].astype(object).where(wide["split"].notna(), None)
        extra = []
        if weighted:     # (a unit's weight is the same in both sets)
            wide["weight"] = wide["weight"].fillna(wide["weight_d"])
            extra = ["weight"]
        frames.append(wide[keys_out + ["o", "d", "split", "changed"] + extra].assign(matched_by=how))
    if not frames:
        return pd.DataFrame(columns=keys_out + ["o", "d", "split", "changed", "matched_by"])
    return pd.concat(frames, ignore_index=True)


def effects_table(ps: pd.DataFrame, *, seed: int = 0, resamples: int = stats.RESAMPLES) -> pd.DataFrame | None:
    """The decomposition (module doc) and the bias by direction per model, normalisation and
    paradigm, plus ``ALL`` (every pair of every paradigm pooled): one row each with the columns of
    `decompose` (with `directions`') and matched_by. None unless `ps` holds both an original and a
    debiased set."""
    if not {ORIGINAL, DEBIASED} <= set(ps["set"]):
        return None
    units = unit_outcomes(ps)
    rows = []
    for (model, norm), g in units.groupby(["model", "normalization"], sort=False):
        how = g["matched_by"].iloc[0]
        for uid, u in list(g.groupby("uid", sort=True)) + [(ALL, g)]:
            rows.append({"model": model, "normalization": norm, "uid": uid, "matched_by": how,
                         **decompose(u["o"].to_numpy(), u["d"].to_numpy(), u["split"].to_numpy(),
                                     u["changed"].to_numpy(), seed=seed, resamples=resamples,
                                     w=u["weight"].to_numpy() if "weight" in u.columns else None)})
    return pd.DataFrame(rows)


def with_wilson(table: pd.DataFrame) -> pd.DataFrame:
    """`table` (n_correct, n_pairs) plus accuracy_low / accuracy_high: the 95% Wilson interval of
    every accuracy (NaN for an empty row)."""
    if "n_effective" in table.columns:     # weighted accuracies: Wilson at Kish's effective size
        w = [stats.wilson(int(k), int(n)) if r == n else stats.wilson(min(max(a * e, 0.0), e), e)
             for k, n, r, a, e in zip(table["n_correct"], table["n_pairs"], table["n_represented"],
                                      table["accuracy"], table["n_effective"])]
    else:
        w = [stats.wilson(int(k), int(n)) for k, n in zip(table["n_correct"], table["n_pairs"])]
    out = table.copy()
    at = list(out.columns).index("accuracy") + 1
    out.insert(at, "accuracy_low", [x.low for x in w])
    out.insert(at + 1, "accuracy_high", [x.high for x in w])
    return out


def matched_table(sets: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """The original/debiased join the report uses (`match_units` on `sets`, as `fairpairs.analysis.draws.attach_draws` left
    them): one row per matched context, in the original set's order, with uid, draw (where known),
    sentence_good, the original and the debiased pair's pair_id and bad sentence, `changed` (the
    bad sentence was replaced) and `matched_by`. Empty without both sets."""
    cols = ["uid", "draw", "sentence_good", "pair_id_original", "sentence_bad_original", "pair_id_debiased",
            "sentence_bad_debiased", "changed", "matched_by"]
    if not {ORIGINAL, DEBIASED} <= set(sets):
        return pd.DataFrame(columns=cols)
    keep = ["uid", "pair_id", "sentence_good", "sentence_bad"] + (["draw"] if all("draw" in sets[s].columns for s in
                                                                                  (ORIGINAL, DEBIASED)) else [])
    both = pd.concat([sets[ORIGINAL][keep].assign(set=ORIGINAL), sets[DEBIASED][keep].assign(set=DEBIASED)],
                     ignore_index=True)
    labels, how = match_units(both)
    both["unit"] = labels
    o = both[both["set"] == ORIGINAL].drop(columns="set")
    d = both[both["set"] == DEBIASED].drop(columns=["set", "uid", "sentence_good"] + (["draw"] if "draw" in keep else []))
    out = o.merge(d, on="unit", suffixes=("_original", "_debiased"), validate="one_to_one").drop(columns="unit")
    if "draw" not in out.columns:
        out["draw"] = pd.array([None] * len(out), dtype="Int64")
    out["changed"] = out["sentence_bad_original"] != out["sentence_bad_debiased"]
    out["matched_by"] = how
    return out[cols].reset_index(drop=True)
