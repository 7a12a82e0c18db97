"""Comparing models pair for pair, and whether length control changes the comparison (issue 44).

The seed paper's point is that models with different tokenizers are compared unfairly on pairs of
unequal token length. For every two models (in the order given: `second` minus `first`), each
normalisation and set, on the pairs both scored (the designed evaluation scores one sample for all
models, `fairpairs.analysis.sampling`, so they are the same pairs with the same weights):

    diff_<set> = acc(second) - acc(first)           paired: Newcombe's interval for paired
                                                    proportions (weighted: Kish's effective size),
                                                    exact McNemar p on the discordant pairs

and, with an original and a debiased set, on the matched contexts (`effects.match_units`):

    control = [acc_d(second) - acc_d(first)] - [acc_o(second) - acc_o(first)]

with a percentile bootstrap over the matched contexts that can move (a context kept as drawn has
the same pair in both sets, so its term is exactly 0; weighted ones are among these, so the
bootstrap over the others, with the weighted total as denominator, is exact). `ranking` says
whether the order of the two models is the same on both sets, reversed, or a tie on one.

Pure functions on `pair_scores`' frame; no model needed.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd

from fairpairs import stats, survey
from fairpairs.analysis.effects import DEBIASED, ORIGINAL, match_units

KEYS = ["set", "uid", "pair_id"]


def _outcomes(ps: pd.DataFrame, norm: str, models: list[str]) -> pd.DataFrame:
    """One row per pair scored by every model: keys, sentence_good, draw, weight and 0/1 outcome per model."""
    g = ps[ps["normalization"] == norm]
    extra = [c for c in ("draw", "weight") if c in g.columns]
    base = g[g["model"] == models[0]][KEYS + ["sentence_good", "sentence_bad"] + extra].reset_index(drop=True)
    for m in models:
        part = g[g["model"] == m][KEYS].assign(**{f"y_{m}": (g.loc[g["model"] == m, "outcome"] == 1).astype(float)})
        base = base.merge(part, on=KEYS, how="inner", validate="one_to_one")
    if "weight" not in base.columns:
        base["weight"] = 1.0
    return base


def _paired(x: pd.DataFrame, a: str, b: str) -> dict:
    e = survey.newcombe_paired_weighted(x[f"y_{a}"].to_numpy(), x[f"y_{b}"].to_numpy(), w=x["weight"].to_numpy())
    return {"diff": e.value, "diff_low": e.low, "diff_high": e.high, "diff_p": e.p_value, "n": len(x)}


def _control(x: pd.DataFrame, a: str, b: str, seed: int) -> dict:
    """The change of the difference under length control, on the matched contexts."""
    both = x[x["set"].isin([ORIGINAL, DEBIASED])].reset_index(drop=True)
    labels, _ = match_units(both[["set", "uid", "sentence_good"] + (["draw"] if "draw" in both else [])])
    both["unit"] = labels
    diff = both[f"y_{b}"] - both[f"y_{a}"]
    o = both[both["set"] == ORIGINAL].assign(diff=diff).set_index("unit")
    d = both[both["set"] == DEBIASED].assign(diff=diff).set_index("unit")
    units = o.index.intersection(d.index)
    if not len(units):
        return {"control": float("nan"), "control_low": float("nan"), "control_high": float("nan"), "n_matched": 0}
    terms = (d.loc[units, "diff"] - o.loc[units, "diff"]).to_numpy()
    w = o.loc[units, "weight"].to_numpy(dtype=float)
    total = float(w.sum())
    moving = terms[w == 1.0]            # (a weighted context is kept as drawn: its term is 0)
    fixed = total - len(moving)
    value = float((w * terms).sum() / total)
    if len(moving):
        low, high = stats.bootstrap(lambda idx: float(moving[idx].sum() / (len(idx) + fixed)), len(moving), seed=seed)
    else:
        low = high = float("nan")
    if not low < high:
        low = high = float("nan")
    return {"control": value, "control_low": low, "control_high": high, "n_matched": len(units)}


def _ranking(orig: float, deb: float) -> str:
    if np.isnan(orig) or np.isnan(deb):
        return "n/a"
    if orig == 0 or deb == 0:
        return "tie on one set"
    return "same order" if (orig > 0) == (deb > 0) else "reversed"


def comparison_table(ps: pd.DataFrame, *, seed: int = 0) -> pd.DataFrame | None:
    """Per pair of models, normalisation and set: the paired accuracy difference (module doc); with
    an original and a debiased set, the change of the difference on the matched contexts and the
    ranking verdict. None with fewer than two models."""
    models = list(dict.fromkeys(ps["model"]))
    if len(models) < 2:
        return None
    rows = []
    for norm in dict.fromkeys(ps["normalization"]):
        x = _outcomes(ps, norm, models)
        for a, b in combinations(models, 2):
            row = {"first": a, "second": b, "normalization": norm}
            for name in dict.fromkeys(x["set"]):
                part = _paired(x[x["set"] == name], a, b)
                row.update({f"{k.replace('diff', f'diff_{name}') if k != 'n' else f'n_{name}'}": v
                            for k, v in part.items()})
            if {ORIGINAL, DEBIASED} <= set(x["set"]):
                row.update(_control(x, a, b, seed))
                row["ranking"] = _ranking(row[f"diff_{ORIGINAL}"], row[f"diff_{DEBIASED}"])
            rows.append(row)
    return pd.DataFrame(rows)
