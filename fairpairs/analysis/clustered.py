"""Inference that respects paradigms: the gap and the two direction effects of the headline with an
interval that resamples whole paradigms, and per-paradigm estimates partially pooled across
paradigms.

Pairs are not independent: the pairs of one paradigm share a template, a construction and often
their critical words, so a model right on one tends to be right on the others. The pair-level
intervals of `fairpairs.analysis.directions` (Newcombe's) treat every pair as independent and are
too narrow when the figure varies from paradigm to paradigm. Here, per model and normalisation:

- **Clustered intervals** (the pooled ``ALL`` row; `clustered_row`): a percentile cluster bootstrap
  over paradigms (`fairpairs.stats.cluster_bootstrap`, 2,000 resamples, seeded): every resample
  draws as many paradigms as contribute, with replacement, and recomputes from the drawn
  paradigms' pairs

      gap            = acc(original, A>U) - acc(original, A<U)      (pooled over the drawn pairs)
      effect_longer  = mean(d - o) over the matched formerly-A>U contexts
      effect_shorter = mean(d - o) over the matched formerly-A<U contexts

  so it answers: how much would the pooled figure move if the benchmark had drawn *other
  paradigms* like these? A paradigm **contributes** (`n_paradigms_gap`) when it has at least one
  A>U or A<U pair in the original set (only those pairs enter the three figures); the paradigms
  resampled are those. `n_paradigms_longer` / `n_paradigms_shorter` count the paradigms with at
  least one matched formerly-A>U / formerly-A<U context. A cluster bootstrap of few clusters is
  too narrow, so a figure's clustered interval is NaN below MIN_PARADIGMS (10) of its paradigms
  (and where every resample gives the same figure), with `interval_note` saying why;
  `interval_method` is "paradigm-clustered bootstrap" when at least MIN_PARADIGMS paradigms
  contribute, else "pair-level": what the headline's words use (`fairpairs.analysis.headline`).
- **Partially pooled per-paradigm estimates** (`pooled_rows`): each paradigm's gap (and each
  direction effect) shrunk toward the mean over paradigms by a normal random-effects model
  (`partial_pool`: Paule-Mandel between-paradigm variance, empirical Bayes), with
  Agresti-Caffo (gap) or Agresti-Min (paired effect) variances so that a paradigm with one or two
  unequal pairs gets a finite variance: a large paradigm keeps its own figure, a small one moves
  toward the mean, with an interval that says how little it holds. It answers: what is this
  paradigm's gap, borrowing strength from the others? Columns ``<figure>_pooled`` (+ ``_low``,
  ``_high``) of the per-paradigm rows; on the ``ALL`` row the random-effects mean (the gap of the
  average paradigm, not the pooled-over-pairs gap). A paradigm with no A>U or no A<U pair has no
  gap of its own (NaN); fewer than MIN_PARADIGMS paradigms with a figure: NaN throughout.

Only A>U and A<U units are read (the ``split`` of the unit's original pair); A=U units, and any
other column of the units (a ``weight``), are ignored. Pure functions on DataFrames.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from fairpairs import stats
from fairpairs.analysis.length_audit import ALL

MIN_PARADIGMS = 10      # below this many contributing paradigms no clustered interval, no pooling
CLUSTERED, PAIR_LEVEL = "paradigm-clustered bootstrap", "pair-level"
FIGURES = {"gap": "gap", "effect_longer": "longer", "effect_shorter": "shorter"}   # figure: its paradigm count
CLUSTERED_COLUMNS = [f"{f}_{b}_clustered" for f in FIGURES for b in ("low", "high")] + \
    ["n_paradigms_gap", "n_paradigms_longer", "n_paradigms_shorter", "interval_method", "interval_note"]
POOLED_COLUMNS = [f"{f}_pooled{x}" for f in FIGURES for x in ("", "_low", "_high")]
KINDS = [f"{k}_{name}" for name in ("longer", "shorter")
         for k in ("right", "n", "gained", "lost", "n_matched")]
KEYS = ["model", "normalization", "uid"]
NAN = float("nan")


# ---------------------------------------------------------------------------- partial pooling


def difference_variance(k1, n1, k2, n2):
    """The variance of p2 - p1 (k2/n2 minus k1/n1, independent; arrays) with Agresti & Caffo's
    (2000) adjustment: one success and one failure added to each group, p~ = (k + 1) / (n + 2) and
    var = p~1 (1 - p~1) / (n1 + 2) + p~2 (1 - p~2) / (n2 + 2). Unlike the plain p (1 - p) / n it
    is positive for 0/n and n/n and finite for n = 1, so that a cluster of one pair per group
    gets a large, not a zero, variance (and is shrunk, not trusted, by `partial_pool`)."""
    k1, n1, k2, n2 = (np.asarray(a, dtype=float) for a in (k1, n1, k2, n2))
    p1, p2 = (k1 + 1) / (n1 + 2), (k2 + 1) / (n2 + 2)
    return p1 * (1 - p1) / (n1 + 2) + p2 * (1 - p2) / (n2 + 2)


def paired_variance(gained, lost, n):
    """The variance of a mean paired difference of 0/1 outcomes, (gained - lost) / n (arrays), with
    Agresti & Min's (2005) adjustment: 0.5 added to each cell of the 2x2 table (n~ = n + 2),
    var = ((g~ + l~) - (g~ - l~)² / n~) / n~². Positive where no unit changed, finite for n = 1."""
    g, l, n = (np.asarray(a, dtype=float) + add for a, add in ((gained, 0.5), (lost, 0.5), (n, 2.0)))
    return ((g + l) - (g - l) ** 2 / n) / n ** 2


@dataclass(frozen=True)
class Pooled:
    """`partial_pool`'s result: `mean` (the random-effects mean over clusters, with its interval;
    n: clusters fitted), `tau2` (the between-cluster variance), and per cluster `estimate`, `low`,
    `high` (the shrunken estimate and its interval) and `shrinkage` (B: the weight of the cluster's
    own figure, 0 = fully pooled, 1 = its own); NaN for clusters not fitted."""

    mean: stats.Estimate
    tau2: float
    estimate: np.ndarray
    low: np.ndarray
    high: np.ndarray
    shrinkage: np.ndarray


def partial_pool(x, v, *, level: float = stats.LEVEL, min_clusters: int = 2) -> Pooled:
    """Per-cluster estimates `x` with sampling variances `v` (arrays; NaN: a cluster without an
    estimate, left out) shrunk toward their common mean by the normal random-effects model
    x_p ~ N(theta_p, v_p), theta_p ~ N(mu, tau²), fitted as a meta-analysis is: tau² by Paule &
    Mandel (1982) (the tau² at which the generalised Q statistic equals its expectation, k - 1; 0
    when Q(0) <= k - 1), recommended over DerSimonian-Laird's moment estimate by Veroniki et al.
    (2016) and equal to it when every v_p is the same; mu = the inverse-variance mean with
    weights 1 / (v_p + tau²). The empirical-Bayes estimate of cluster p is mu + B_p (x_p - mu),
    B_p = tau² / (tau² + v_p), with variance B_p v_p + (1 - B_p)² var(mu) (Morris 1983; the
    uncertainty of tau² itself is not propagated) and a normal interval: a cluster measured
    precisely (small v_p) keeps its own figure, one of a few pairs moves toward mu. Give `v`
    from `difference_variance` / `paired_variance`, which stay finite for tiny clusters.
    NaN throughout below `min_clusters` fitted clusters. (A mixed-effects logistic model would
    model the 0/1 outcomes directly, but needs an iterative fit per model, score and figure and a
    package fairpairs does not depend on; this closed-form model is what meta-analyses of many
    small studies use.)"""
    from scipy.optimize import brentq
    from scipy.stats import norm

    x, v = np.asarray(x, dtype=float), np.asarray(v, dtype=float)
    ok = ~np.isnan(x) & ~np.isnan(v) & (v > 0)
    k = int(ok.sum())
    nan = np.full(len(x), NAN)
    if k < max(min_clusters, 2):
        return Pooled(stats.Estimate(NAN, NAN, NAN, k, level=level), NAN, nan, nan, nan.copy(), nan.copy())
    xs, vs = x[ok], v[ok]

    def q(tau2):
        w = 1 / (vs + tau2)
        return float((w * (xs - (w * xs).sum() / w.sum()) ** 2).sum()) - (k - 1)

    tau2 = 0.0
    if q(0.0) > 0:
        upper = float(((xs - xs.mean()) ** 2).sum()) / (k - 1)   # Q(upper) <= k - 1: the root is below it
        tau2 = brentq(q, 0.0, upper, xtol=1e-14, rtol=1e-12) if q(upper) < 0 else upper
    w = 1 / (vs + tau2)
    mu, var_mu = float((w * xs).sum() / w.sum()), float(1 / w.sum())
    z = float(norm.ppf(0.5 + level / 2))
    b = np.where(ok, tau2 / (tau2 + np.where(ok, v, 1.0)), NAN)
    est = mu + b * (x - mu)
    half = z * np.sqrt(b * v + (1 - b) ** 2 * var_mu)
    half_mu = z * np.sqrt(var_mu)
    return Pooled(stats.Estimate(mu, mu - half_mu, mu + half_mu, k, level=level), float(tau2), est, est - half,
                  est + half, b)


# ---------------------------------------------------------------------------- paradigms


def paradigm_counts(units: pd.DataFrame) -> pd.DataFrame:
    """Per model, normalisation and paradigm (`fairpairs.analysis.effects.unit_outcomes`' frame:
    uid, o, d, split), the counts the three figures are made of, from the A>U and A<U units alone
    (KINDS): per direction, original pairs right (`right_<dir>`) of `n_<dir>`, and matched
    contexts (`n_matched_<dir>`) that became right (`gained_<dir>`) or stopped being right
    (`lost_<dir>`). One row per paradigm with at least one A>U or A<U original pair."""
    u = units[units["split"].isin(["A>U", "A<U"])]
    o, d = u["o"].to_numpy(dtype=float), u["d"].to_numpy(dtype=float)
    has_o, matched = ~np.isnan(o), ~np.isnan(o) & ~np.isnan(d)
    cols = {}
    for name, label in (("longer", "A>U"), ("shorter", "A<U")):
        sel = (u["split"] == label).to_numpy()
        m = matched & sel
        cols.update({f"right_{name}": has_o & sel & (o == 1), f"n_{name}": has_o & sel,
                     f"gained_{name}": m & (o == 0) & (d == 1), f"lost_{name}": m & (o == 1) & (d == 0),
                     f"n_matched_{name}": m})
    frame = pd.DataFrame({k: u[k].to_numpy() for k in KEYS} | {k: cols[k].astype(np.int64) for k in KINDS})
    out = frame.groupby(KEYS, sort=True).sum().reset_index()
    return out[(out["n_longer"] + out["n_shorter"]) > 0].reset_index(drop=True)


def _figures(s: np.ndarray) -> np.ndarray:
    """(resamples x KINDS sums) -> (resamples x 3): gap, effect_longer, effect_shorter."""
    c = dict(zip(KINDS, s.T))
    return np.column_stack([c["right_longer"] / c["n_longer"] - c["right_shorter"] / c["n_shorter"],
                            (c["gained_longer"] - c["lost_longer"]) / c["n_matched_longer"],
                            (c["gained_shorter"] - c["lost_shorter"]) / c["n_matched_shorter"]])


def clustered_row(counts: pd.DataFrame, *, seed: int = 0, resamples: int = stats.RESAMPLES) -> dict:
    """The ``ALL`` row's clustered columns (CLUSTERED_COLUMNS, module doc) from one model and
    normalisation's `paradigm_counts`: the cluster-bootstrap interval of each figure (NaN below
    MIN_PARADIGMS of its paradigms, or where it cannot be estimated), the paradigm counts, the
    method the headline uses and a note saying why a clustered interval is missing ("" if none is)."""
    n = {"gap": len(counts), "longer": int((counts["n_matched_longer"] > 0).sum()),
         "shorter": int((counts["n_matched_shorter"] > 0).sum())}
    lows = highs = np.full(3, NAN)
    if n["gap"] >= MIN_PARADIGMS:
        lows, highs = stats.cluster_bootstrap(_figures, counts[KINDS].to_numpy(), seed=seed, resamples=resamples)
    row, notes = {}, []
    for (figure, which), low, high in zip(FIGURES.items(), lows, highs):
        enough = n[which] >= MIN_PARADIGMS
        row[f"{figure}_low_clustered"], row[f"{figure}_high_clustered"] = (low, high) if enough else (NAN, NAN)
        if not enough and (figure == "gap" or n["gap"] >= MIN_PARADIGMS):
            verb = "have" if n[which] != 1 else "has"
            notes.append(f"{figure}: {n[which]} paradigm{'s' * (n[which] != 1)} {verb} "
                         f"{'A>U or A<U pairs' if figure == 'gap' else f'matched formerly-{which} contexts'}, "
                         f"fewer than {MIN_PARADIGMS}: no clustered interval")
        elif enough and np.isnan(low):
            notes.append(f"{figure}: the clustered interval cannot be estimated (every resample gives the same figure)")
    row.update({f"n_paradigms_{k}": v for k, v in n.items()})
    row["interval_method"] = CLUSTERED if n["gap"] >= MIN_PARADIGMS else PAIR_LEVEL
    row["interval_note"] = "; ".join(notes)
    return row


def pooled_rows(counts: pd.DataFrame) -> pd.DataFrame:
    """Per paradigm of one model and normalisation's `paradigm_counts` (uid), the partially pooled
    gap and direction effects (POOLED_COLUMNS; `partial_pool` on the paradigms'
    own figures with their adjusted variances, at least MIN_PARADIGMS paradigms with a figure),
    bounded to [-1, 1]; plus an ``ALL`` row with the random-effects mean of each figure."""
    c = {k: counts[k].to_numpy(dtype=float) for k in KINDS}
    with np.errstate(divide="ignore", invalid="ignore"):
        both = (c["n_longer"] > 0) & (c["n_shorter"] > 0)
        x = {"gap": np.where(both, c["right_longer"] / c["n_longer"] - c["right_shorter"] / c["n_shorter"], NAN)}
        v = {"gap": difference_variance(c["right_shorter"], c["n_shorter"], c["right_longer"], c["n_longer"])}
        for name in ("longer", "shorter"):
            m = c[f"n_matched_{name}"]
            x[f"effect_{name}"] = np.where(m > 0, (c[f"gained_{name}"] - c[f"lost_{name}"]) / m, NAN)
            v[f"effect_{name}"] = paired_variance(c[f"gained_{name}"], c[f"lost_{name}"], m)
    out = {"uid": [*counts["uid"], ALL]}
    for figure in FIGURES:
        p = partial_pool(x[figure], v[figure], min_clusters=MIN_PARADIGMS)
        for suffix, values, mean in (("", p.estimate, p.mean.value), ("_low", p.low, p.mean.low),
                                     ("_high", p.high, p.mean.high)):
            out[f"{figure}_pooled{suffix}"] = np.clip(np.append(values, mean), -1.0, 1.0)
    return pd.DataFrame(out)


def with_clustered(effects: pd.DataFrame | None, units: pd.DataFrame, *, seed: int = 0,
                   resamples: int = stats.RESAMPLES) -> pd.DataFrame | None:
    """`effects` (`fairpairs.analysis.effects.effects_table`) with the clustered columns
    (CLUSTERED_COLUMNS: filled on the ``ALL`` rows; on a paradigm's row the bounds are NaN, the
    paradigm counts 0 or 1 and the method "pair-level") and the partially pooled ones
    (POOLED_COLUMNS), computed from `units` (`unit_outcomes` of the same scores) per model and
    normalisation. None stays None."""
    if effects is None:
        return None
    counts = paradigm_counts(units)
    by_group = dict(iter(counts.groupby(["model", "normalization"], sort=False)))
    extra = []
    for (model, norm), _ in effects.groupby(["model", "normalization"], sort=False):
        c = by_group.get((model, norm), counts.iloc[:0])
        own = pd.DataFrame({"uid": c["uid"].to_numpy(), "n_paradigms_gap": 1,     # a paradigm's row: itself alone
                            "n_paradigms_longer": (c["n_matched_longer"] > 0).to_numpy(dtype=int),
                            "n_paradigms_shorter": (c["n_matched_shorter"] > 0).to_numpy(dtype=int)})
        pooled_all = pd.DataFrame([{"uid": ALL, **clustered_row(c, seed=seed, resamples=resamples)}])
        extra.append(pooled_rows(c).merge(pd.concat([own, pooled_all], ignore_index=True), on="uid",
                                          validate="one_to_one").assign(model=model, normalization=norm))
    extra = pd.concat(extra, ignore_index=True)
    keep = [c for c in effects.columns if c not in CLUSTERED_COLUMNS + POOLED_COLUMNS]
    out = effects[keep].merge(extra, on=KEYS, how="left", validate="one_to_one")
    for col in ("n_paradigms_gap", "n_paradigms_longer", "n_paradigms_shorter"):
        out[col] = out[col].fillna(0).astype(int)     # (a paradigm without A>U or A<U pairs contributes nothing)
    out["interval_method"] = out["interval_method"].fillna(PAIR_LEVEL)
    out["interval_note"] = out["interval_note"].fillna("")
    return out[keep + CLUSTERED_COLUMNS + POOLED_COLUMNS]
