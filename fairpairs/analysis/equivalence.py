"""Equivalence tests with margins fixed in advance: the preregistered judgement of a length-robust
score (benchmarks/preregistration/robust-score.md).

A figure theta (a score's A=U accuracy minus LP's, a length gap, an effect of length control) is
**shown equivalent** to 0 within a margin D > 0 by two one-sided tests at level alpha (TOST,
Schuirmann 1987): H0-: theta <= -D and H0+: theta >= +D are both rejected. By the interval
inclusion principle this is the same as: the two-sided interval at level 1 - 2 alpha lies strictly
inside (-D, +D) (Schuirmann 1987; Berger & Hsu 1996, sec. 2): alpha = 0.05 reads the 90% interval,
alpha = 0.025 (e.g. 0.05 split over two hypotheses) the 95% one. Failing is "not shown
equivalent", never "shown different": a wide interval fails however close its estimate is to 0.

- `tost(estimate, margin, alpha)`: the verdict for a figure whose interval is at level 1 - 2 alpha.
- `paired_equivalence(both, gained, lost, neither, margin, alpha)`: a paired difference of 0/1
  outcomes (candidate right vs LP right on the same pairs; or debiased vs original on the same
  contexts), from per-cluster 2x2 counts: the paradigm-clustered bootstrap interval where at least
  MIN_CLUSTERS clusters have pairs, else (or where it cannot be estimated: every resample gives
  the same figure) Newcombe's pair-level paired interval of the pooled table.
- `gap_equivalence(right_longer, n_longer, right_shorter, n_shorter, margin, alpha)`: the length
  gap, A>U minus A<U accuracy, **within paradigms** (`stratified_gap`), clustered the same way.
- `gap_contrast(tables, coefficients)`: a linear combination of several scores' within-paradigm
  gaps on the same pairs, with one cluster bootstrap for all (the frequency-term analysis).

Every function is pure; the same counts and seed give the same verdict.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fairpairs import stats

MIN_CLUSTERS = 10       # below this many contributing clusters: the pair-level interval (evaluate's rule)
RESAMPLES = 10_000      # cluster-bootstrap resamples for a verdict (the bounds sit near the margins)
CLUSTERED, PAIR_LEVEL = "paradigm-clustered bootstrap", "pair-level"
NAN = float("nan")


@dataclass(frozen=True)
class Equivalence:
    """A TOST verdict: the figure (`estimate`, its interval `low`-`high` at `level` = 1 - 2 alpha),
    the `margin`, `equivalent` (True only if the interval lies strictly inside (-margin, +margin)),
    `verdict` ("equivalent", "not shown equivalent", or "no interval" when the interval is NaN),
    the interval's `method`, the pairs (`n`) and clusters (`clusters`) it rests on."""

    estimate: float
    low: float
    high: float
    margin: float
    alpha: float
    level: float
    equivalent: bool
    verdict: str
    method: str = ""
    n: int = 0
    clusters: int = 0


def tost(estimate: stats.Estimate, margin: float, alpha: float = 0.05, *, method: str = "",
         clusters: int = 0) -> Equivalence:
    """Two one-sided tests of |theta| < `margin` at level `alpha`, read off `estimate`'s interval,
    which must be the two-sided interval at level 1 - 2 alpha (ValueError otherwise: a 95% interval
    read as a 90% one would halve alpha). Equivalent iff -margin < low and high < +margin."""
    if not margin > 0:
        raise ValueError(f"margin: expected a positive number, not {margin}")
    if not 0 < alpha < 0.5:
        raise ValueError(f"alpha: expected 0 < alpha < 0.5, not {alpha}")
    if not math.isclose(estimate.level, 1 - 2 * alpha, abs_tol=1e-9):
        raise ValueError(f"estimate: its interval is at level {estimate.level}; TOST at alpha {alpha} "
                         f"reads the interval at level {1 - 2 * alpha}")
    low, high = estimate.low, estimate.high
    if math.isnan(low) or math.isnan(high):
        ok, verdict = False, "no interval"
    else:
        ok = bool(-margin < low and high < margin)
        verdict = "equivalent" if ok else "not shown equivalent"
    return Equivalence(estimate.value, low, high, margin, alpha, estimate.level, ok, verdict, method,
                       estimate.n, clusters)


def _columns(*columns) -> np.ndarray:
    """Per-cluster counts as a clusters x k float array (each argument one column, or a scalar for
    a single cluster), checked: non-negative, finite, same length."""
    arrays = [np.atleast_1d(np.asarray(c, dtype=float)) for c in columns]
    if len({a.shape for a in arrays}) != 1 or arrays[0].ndim != 1:
        raise ValueError(f"counts: expected one 1-d array per kind, all of one length, not shapes "
                         f"{[a.shape for a in arrays]}")
    table = np.column_stack(arrays)
    if not np.isfinite(table).all() or (table < 0).any():
        raise ValueError("counts: expected finite, non-negative counts")
    return table


def _paired_difference(sums: np.ndarray) -> np.ndarray:
    """(resamples x [both, gained, lost, neither]) -> (gained - lost) / pairs."""
    return (sums[:, 1] - sums[:, 2]) / sums.sum(axis=1)


def paired_difference(both, gained, lost, neither, *, level: float, seed: int = 0,
                      resamples: int = RESAMPLES) -> tuple[stats.Estimate, str, int]:
    """The mean paired difference (after - before: gained - lost over all pairs) of per-cluster 2x2
    counts of 0/1 outcomes (`both` right, `gained`: right only after, `lost`: right only before,
    `neither`; one value per cluster), with its interval at `level`: (estimate, method, clusters
    with pairs). The cluster bootstrap of `stats.cluster_bootstrap` (whole clusters resampled) where
    at least MIN_CLUSTERS clusters have pairs and its interval has a width; otherwise Newcombe's
    paired interval (`stats.paired_table`) of the pooled table, which never has zero width."""
    table = _columns(both, gained, lost, neither)
    table = table[table.sum(axis=1) > 0]
    k, n = len(table), table.sum()
    if n == 0:
        return stats.Estimate(NAN, NAN, NAN, 0, level=level), PAIR_LEVEL, 0
    value = float((table[:, 1].sum() - table[:, 2].sum()) / n)
    if k >= MIN_CLUSTERS:
        low, high = stats.cluster_bootstrap(_paired_difference, table, resamples=resamples, seed=seed, level=level)
        if not math.isnan(low):
            return stats.Estimate(value, low, high, int(n), level=level), CLUSTERED, k
    e = stats.paired_table(*(float(x) for x in table.sum(axis=0)), n, level)
    return stats.Estimate(value, e.low, e.high, int(n), level=level), PAIR_LEVEL, k


def paired_equivalence(both, gained, lost, neither, margin: float, alpha: float = 0.05, *, seed: int = 0,
                       resamples: int = RESAMPLES) -> Equivalence:
    """TOST of a paired difference of 0/1 outcomes (`paired_difference`'s estimate and interval at
    level 1 - 2 alpha) within +-`margin`: a score's A=U accuracy minus LP's on the same pairs, or a
    direction effect of length control (debiased minus original on matched contexts)."""
    e, method, k = paired_difference(both, gained, lost, neither, level=1 - 2 * alpha, seed=seed, resamples=resamples)
    return tost(e, margin, alpha, method=method, clusters=k)


def _weights(n_longer, n_shorter):
    """Mantel-Haenszel weights of a difference of two proportions per stratum, n1 n2 / (n1 + n2)
    (0 where a direction is empty)."""
    total = n_longer + n_shorter
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where((n_longer > 0) & (n_shorter > 0), n_longer * n_shorter / total, 0.0)


def _stratified(sums_or_table: np.ndarray) -> np.ndarray:
    """The within-paradigm gap of one table (paradigms x [right_longer, n_longer, right_shorter,
    n_shorter]) or, for the bootstrap, of a stack of them (resamples x paradigms x 4)."""
    t = sums_or_table
    rl, nl, rs, ns = t[..., 0], t[..., 1], t[..., 2], t[..., 3]
    w = _weights(nl, ns)
    with np.errstate(divide="ignore", invalid="ignore"):
        gap = np.where(w > 0, rl / np.where(nl > 0, nl, 1) - rs / np.where(ns > 0, ns, 1), 0.0)
        return (w * gap).sum(axis=-1) / w.sum(axis=-1)


def stratified_gap(right_longer, n_longer, right_shorter, n_shorter) -> float:
    """The length gap within paradigms: the Mantel-Haenszel weighted mean over paradigms with both
    an A>U and an A<U pair of (A>U accuracy - A<U accuracy), weights n_longer n_shorter /
    (n_longer + n_shorter) (Mantel & Haenszel 1959; the risk difference of Greenland & Robins
    1985). Unlike the pooled gap (all A>U pairs against all A<U pairs), it does not move when
    paradigms of different accuracy hold the two directions in different shares: a score equally
    right on both directions of every paradigm has stratified gap 0 whatever the mix. NaN when no
    paradigm has both directions."""
    table = _columns(right_longer, n_longer, right_shorter, n_shorter)
    if (table[:, 0] > table[:, 1]).any() or (table[:, 2] > table[:, 3]).any():
        raise ValueError("counts: right answers cannot exceed the pairs of their direction")
    return float(_stratified(table)) if (_weights(table[:, 1], table[:, 3]) > 0).any() else NAN


def gap_equivalence(right_longer, n_longer, right_shorter, n_shorter, margin: float, alpha: float = 0.05, *,
                    seed: int = 0, resamples: int = RESAMPLES) -> Equivalence:
    """TOST of the within-paradigm length gap (`stratified_gap`, per-paradigm counts) within
    +-`margin`. Interval at level 1 - 2 alpha: the cluster bootstrap over the paradigms with both
    directions (each resample draws that many of them with replacement and recomputes the weighted
    gap) where at least MIN_CLUSTERS contribute, else the normal interval with the Agresti-Caffo
    variance of each paradigm's difference (`fairpairs.analysis.clustered.difference_variance`),
    sum w^2 v / (sum w)^2."""
    from fairpairs.analysis.clustered import difference_variance

    value = stratified_gap(right_longer, n_longer, right_shorter, n_shorter)
    table = _columns(right_longer, n_longer, right_shorter, n_shorter)
    table = table[_weights(table[:, 1], table[:, 3]) > 0]
    k, level = len(table), 1 - 2 * alpha
    n = int(table[:, 1].sum() + table[:, 3].sum())
    low = high = NAN
    method = CLUSTERED if k >= MIN_CLUSTERS else PAIR_LEVEL
    if k >= MIN_CLUSTERS:
        rng = np.random.default_rng(seed)
        drawn = rng.integers(k, size=(resamples, k))
        values = _stratified(table[drawn])
        low, high = (float(np.quantile(values, q)) for q in ((1 - level) / 2, (1 + level) / 2))
    if k and (k < MIN_CLUSTERS or not low < high):
        w = _weights(table[:, 1], table[:, 3])
        v = difference_variance(table[:, 2], table[:, 3], table[:, 0], table[:, 1])
        half = stats.z_value(level) * math.sqrt(float((w * w * v).sum())) / float(w.sum())
        low, high, method = value - half, value + half, PAIR_LEVEL
    return tost(stats.Estimate(value, low, high, n, level=level), margin, alpha, method=method, clusters=k)


def gap_contrast(tables, coefficients, *, level: float = stats.LEVEL, seed: int = 0,
                 resamples: int = RESAMPLES) -> stats.Estimate:
    """A linear combination sum_j c_j G_j of the within-paradigm gaps G_j of several scores on the
    same pairs (`tables[j]`: per-paradigm [right_longer, n_longer, right_shorter, n_shorter] of
    score j; the n columns must agree), with a cluster-bootstrap interval at `level` that resamples
    the same paradigms for every score (so their correlation is kept). E.g. coefficients (1, -2, 1)
    for (tcf_lp, tc_lp, lp): what the frequency term removes from LP's gap minus what the length
    terms remove. NaN interval below MIN_CLUSTERS paradigms with both directions."""
    tabs = [_columns(*np.asarray(t, dtype=float).T) for t in tables]
    if len(tabs) != len(coefficients) or any(t.shape != tabs[0].shape for t in tabs):
        raise ValueError("tables, coefficients: one table per coefficient, all of one shape")
    if any(not np.array_equal(t[:, [1, 3]], tabs[0][:, [1, 3]]) for t in tabs):
        raise ValueError("tables: the scores must be of the same pairs (n_longer, n_shorter agree)")
    keep = _weights(tabs[0][:, 1], tabs[0][:, 3]) > 0
    tabs, k = [t[keep] for t in tabs], int(keep.sum())
    n = int(tabs[0][:, 1].sum() + tabs[0][:, 3].sum()) if k else 0
    if not k:
        return stats.Estimate(NAN, NAN, NAN, 0, level=level)
    value = float(sum(c * _stratified(t) for c, t in zip(coefficients, tabs)))
    low = high = NAN
    if k >= MIN_CLUSTERS:
        drawn = np.random.default_rng(seed).integers(k, size=(resamples, k))
        values = sum(c * _stratified(t[drawn]) for c, t in zip(coefficients, tabs))
        low, high = (float(np.quantile(values, q)) for q in ((1 - level) / 2, (1 + level) / 2))
    return stats.Estimate(value, low, high, n, level=level)
