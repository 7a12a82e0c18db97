"""The token-length bias by direction, and the evaluation's headline.

By direction (`directions`): the seed paper's split of a pair by token length under the scoring
model's own tokenizer (A>U: good sentence longer, A<U: shorter, A=U: equal) measures the bias and
what length control did to it, direction by direction:

    gap           = acc(original, A>U) - acc(original, A<U)        the bias (negative: fewer tokens win)
    effect_<dir>  = acc(debiased, M_dir) - acc(original, M_dir)    M_dir: matched contexts whose
                                                                   original pair was <dir>
    effect_changed: the same on the matched contexts whose bad sentence was replaced

The matched contexts split by direction, so length = sum over <dir> of share_<dir> x effect_<dir>
exactly (share_<dir> = |M_dir| / |M|), and change = that sum + selection + remainder. A score that
prefers fewer tokens has gap < 0, effect_longer > 0 and effect_shorter < 0; effect_equal is the
control (an A=U context whose pair was kept cannot move; `n_equal_changed` counts those that got a
different bad sentence). Below MIN_PAIRS pairs a direction's figures stay in the tables but the
report prints "too few pairs".

Beside these pair-level intervals, the pooled rows carry the gap's and the two direction effects'
intervals clustered by paradigm (`fairpairs.analysis.clustered`); the headline's words use those
where at least 10 paradigms contribute, and say which (`chosen_interval`).

Pure functions on arrays and DataFrames (`fairpairs.analysis.effects` calls `directions` for every
row of its table; `headline_table` picks the pooled rows).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from fairpairs import stats, survey
from fairpairs.analysis.clustered import CLUSTERED_COLUMNS, FIGURES
from fairpairs.analysis.length_audit import ALL

DIRECTIONS = {"longer": "A>U", "shorter": "A<U", "equal": "A=U"}   # the original pair's direction, by name
MIN_PAIRS = 10      # below this many pairs a direction's figures are shown as "too few pairs"
NAN = float("nan")


def wilson_columns(x: np.ndarray, prefix: str, w=None) -> dict:
    """`prefix` (accuracy), its Wilson interval and its n (units scored), from 0/1 outcomes; with
    survey weights `w` (`fairpairs.analysis.sampling`) the weighted accuracy and the Wilson interval
    at Kish's effective size (`survey.weighted_wilson`; every weight 1: the unweighted figures)."""
    e = survey.weighted_wilson(x, w)
    return {f"n_{prefix}": len(x), prefix: e.value, f"{prefix}_low": e.low, f"{prefix}_high": e.high}


def _successes(x: np.ndarray, w: np.ndarray) -> tuple[float, float]:
    """(successes, trials) of 0/1 outcomes for a difference of proportions: the counts, or with
    weights the weighted share at Kish's effective size."""
    if np.all(w == 1.0):
        return int(x.sum()), len(x)
    if not len(x):
        return 0, 0
    total, n_eff = survey.kish(w)
    return min(float((w * x).sum() / total) * n_eff, n_eff), n_eff   # (never above n_eff by rounding)


def directions(o: np.ndarray, d: np.ndarray, split, changed=None, w=None) -> dict:
    """The token-length bias by direction (module doc, "By direction") of one group of units (`o`,
    `d`, `split`, `changed` as for `decompose`): the gap with its Newcombe interval, the accuracy
    per direction with its Wilson interval, the effect of length control per direction of the
    original pair (and on the changed contexts) with Newcombe's paired interval and the exact
    McNemar p-value, and each direction's share of the matched contexts. `w`: survey weights per
    unit (default 1; `fairpairs.analysis.sampling`): accuracies, effects and shares are then
    weighted, and every n stays the number of units scored."""
    o = np.asarray(o, dtype=float)
    d = np.asarray(d, dtype=float)
    split = np.asarray(split, dtype=object)
    changed = np.zeros(len(o), dtype=bool) if changed is None else np.asarray(changed, dtype=float) == 1
    w = np.ones(len(o)) if w is None else np.asarray(w, dtype=float)
    has_o = ~np.isnan(o)
    m = has_o & ~np.isnan(d)
    row = {}
    right = {}
    for name, label in DIRECTIONS.items():
        sel = has_o & (split == label)
        right[name] = _successes(o[sel], w[sel])
        row.update(wilson_columns(o[sel], f"acc_{name}", w[sel]))
    row = {"n_longer": row.pop("n_acc_longer"), "n_shorter": row.pop("n_acc_shorter"),
           "n_equal": row.pop("n_acc_equal"), **row}
    gap = stats.newcombe(*right["shorter"], *right["longer"])       # A>U accuracy minus A<U accuracy
    row = {"gap": gap.value, "gap_low": gap.low, "gap_high": gap.high, **row}
    n_m = int(m.sum())
    groups = {name: m & (split == label) for name, label in DIRECTIONS.items()}
    groups["changed"] = m & changed
    for name, sel in groups.items():
        e = survey.newcombe_paired_weighted(o[sel], d[sel], w=w[sel])
        row[f"effect_{name}"], row[f"effect_{name}_low"], row[f"effect_{name}_high"] = e.value, e.low, e.high
        row[f"effect_{name}_p"] = e.p_value
        row[f"n_matched_{name}"] = int(sel.sum())
        if name != "changed":
            row[f"share_{name}"] = w[sel].sum() / w[m].sum() if n_m else NAN
            for which, x in (("original", o[sel]), ("debiased", d[sel])):   # (the paper figure's points)
                acc = wilson_columns(x, f"matched_{name}_{which}", w[sel])
                del acc[f"n_matched_{name}_{which}"]
                row.update(acc)
    row["n_equal_changed"] = int((groups["equal"] & changed).sum())
    return row


HEADLINE = ["gap", "gap_low", "gap_high", "n_longer", "n_shorter", "n_equal",
            *[f"acc_{n}{x}" for n in DIRECTIONS for x in ("", "_low", "_high")],
            *[f"{c}" for n in (*DIRECTIONS, "changed")
              for c in (f"effect_{n}", f"effect_{n}_low", f"effect_{n}_high", f"effect_{n}_p", f"n_matched_{n}")
              + ((f"share_{n}",) if n != "changed" else ())],
            "n_equal_changed", "length", "length_low", "length_high", "length_p", "n_matched",
            "selection", "selection_low", "selection_high", "remainder", "remainder_low", "remainder_high",
            "change", "change_low", "change_high", "original", "original_low", "original_high",
            "debiased", "debiased_low", "debiased_high", *CLUSTERED_COLUMNS]


def headline_table(effects: pd.DataFrame | None, balance: pd.DataFrame | None = None) -> pd.DataFrame | None:
    """The report's headline per model and normalisation (the pooled rows of `effects`): the gap
    (A>U minus A<U accuracy on the original set) and the accuracy of each direction, the effect of
    length control per direction of the original pair, on the changed contexts and net (`length`),
    the rest of the decomposition, the debiased accuracy, the distinct-word ratio of the debiased
    set (`fairpairs.balance`'s pooled row; NaN without a balance report), the intervals clustered
    by paradigm (`fairpairs.analysis.clustered`; NaN where `effects` has none) and `in_words`: one
    sentence that says it (`headline_sentence`)."""
    if effects is None:
        return None
    out = effects[effects["uid"] == ALL].reset_index(drop=True).reindex(columns=["model", "normalization",
                                                                                 *HEADLINE, "matched_by"])
    ratio = NAN
    if balance is not None and "distinct_ratio" in balance.columns:
        pooled = balance.loc[balance["uid"] == ALL, "distinct_ratio"]
        ratio = float(pooled.iloc[0]) if len(pooled) and pd.notna(pooled.iloc[0]) else NAN
    out = out.assign(distinct_ratio=ratio)
    out["in_words"] = [headline_sentence(r) for r in out.itertuples()]
    return out


def enough(n) -> bool:
    """Whether `n` pairs are enough to show a direction's figure (`MIN_PAIRS`)."""
    return pd.notna(n) and int(n) >= MIN_PAIRS


def _pp(x) -> str:
    return f"{abs(round(100 * x, 1)) + 0.0:.1f}"


def _pp_range(low, high) -> str:
    return "" if pd.isna(low) or pd.isna(high) else f" [{round(100 * low, 1) + 0.0:+.1f}, {round(100 * high, 1) + 0.0:+.1f}]"


def chosen_interval(r, figure: str) -> tuple[float, float, str]:
    """The interval the headline's words give `figure` (gap, effect_longer or effect_shorter) of
    headline row `r`: the one clustered by paradigm where there is one (at least 10 paradigms,
    `fairpairs.analysis.clustered`), else the pair-level one; with its label ("clustered by
    paradigm, 23 paradigms" or "pair-level")."""
    low, high = getattr(r, f"{figure}_low_clustered", NAN), getattr(r, f"{figure}_high_clustered", NAN)
    if pd.notna(low) and pd.notna(high):
        return low, high, f"clustered by paradigm, {int(getattr(r, f'n_paradigms_{FIGURES[figure]}'))} paradigms"
    return getattr(r, f"{figure}_low"), getattr(r, f"{figure}_high"), "pair-level"


def headline_sentence(r) -> str:
    """The headline in words: the gap on the original set (or "too few pairs"), what length control
    did to the formerly-A>U and formerly-A<U contexts, and the net change they add up to; the
    intervals of the gap and the two effects clustered by paradigm where possible, labelled
    (`chosen_interval`)."""
    if enough(r.n_longer) and enough(r.n_shorter):
        low, high, label = chosen_interval(r, "gap")
        ci = _pp_range(low, high)
        gap = (f"A>U pairs score {_pp(r.gap)} points {'below' if r.gap < 0 else 'above'} A<U pairs"
               f" (gap {round(100 * r.gap, 1) + 0.0:+.1f}{ci}{f', 95% CI {label}' if ci else ''}")
    else:
        gap = (f"too few pairs to compare A>U with A<U pairs (n = {int(r.n_longer)} and {int(r.n_shorter)}")
    eq = (f"A=U {100 * r.acc_equal:.1f}%, n = {int(r.n_equal):,}" if enough(r.n_equal)
          else f"A=U: too few pairs, n = {int(r.n_equal)}")
    parts = []
    for name, label in (("longer", "A>U"), ("shorter", "A<U")):
        n = getattr(r, f"n_matched_{name}")
        if not enough(n):
            parts.append(f"could not be judged on the formerly-{label} contexts (too few pairs, n = {int(n)})")
            continue
        v = getattr(r, f"effect_{name}")
        low, high, which = chosen_interval(r, f"effect_{name}")
        interval = _pp_range(low, high)
        if v == 0:
            parts.append(f"did not move the formerly-{label} contexts (+0.0{interval}{f', {which}' if interval else ''})")
        else:
            parts.append(f"{'raised' if v > 0 else 'lowered'} the formerly-{label} contexts by {_pp(v)} points"
                         f"{interval}{f' ({which})' if interval else ''}")
    net = (f"the matched contexts' accuracy moved {round(100 * r.length, 1) + 0.0:+.1f} points"
           f"{_pp_range(r.length_low, r.length_high)}" if enough(r.n_matched) else
           f"too few matched contexts (n = {int(r.n_matched)}) for a net figure")
    cancel = ""
    if enough(r.n_matched_longer) and enough(r.n_matched_shorter) and r.effect_longer * r.effect_shorter < 0:
        cancel = " because the two directions partly cancel"
    return (f"Original set: {gap}; {eq}). Length control {' and '.join(parts)}; {net}{cancel}. "
            f"Debiased accuracy {100 * r.debiased:.1f}%{'' if pd.isna(r.debiased_low) else f' [{100 * r.debiased_low:.1f}, {100 * r.debiased_high:.1f}]'}.")
