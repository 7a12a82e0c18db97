"""The statistics fairpairs reports, in one place: intervals for accuracies and for differences of
accuracies, and the balance measures that compare two sets of pairs.

- `wilson(k, n)`: a proportion (an accuracy) with its Wilson score interval.
- `newcombe(k1, n1, k2, n2)`: the difference p2 - p1 of two proportions measured on *different*
  pairs (e.g. A>U accuracy minus A<U accuracy), with Newcombe's hybrid score interval (method 10 of
  Newcombe 1998), built from the two Wilson intervals.
- `newcombe_paired(a, b)`: the same difference of 0/1 outcomes on the same units with Newcombe's
  score interval for paired data (method 10 of Newcombe 1998b, continuity-corrected phi), which
  never has zero width, and the exact McNemar p-value.
- `paired(a, b)`: the difference mean(b) - mean(a) of outcomes measured on the *same* units (e.g. the
  same contexts before and after length control), with a seeded percentile bootstrap interval over
  units and, for 0/1 outcomes, the exact McNemar test (a two-sided binomial test on the discordant
  units).
- `bootstrap(statistic, n)`: a seeded percentile bootstrap interval of any statistic of n units;
  `bootstrap_counts(statistic, counts)` the same bootstrap for a statistic of how many units of
  each kind were drawn (multinomial counts: fast for 0/1 outcomes).
- `cluster_bootstrap(statistic, counts)`: the same for units that come in clusters (pairs within
  paradigms): whole clusters are resampled, from per-cluster counts (partial pooling of clusters:
  `fairpairs.analysis.clustered`).
- `smd(a, b)`: the standardised mean difference (Cohen's d with the pooled standard deviation of the
  two samples, as the matching literature uses it: |SMD| <= 0.1 is "balanced").
- `tvd(p, q)`: the total-variation distance of two categorical distributions (given as counts).

Every function takes plain numbers or arrays and is pure; a bootstrap with the same seed gives the
same interval. Empty inputs give NaN, never an exception, so that a table can show "N/A".
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

LEVEL = 0.95
RESAMPLES = 2000
NAN = float("nan")


@dataclass(frozen=True)
class Estimate:
    """A figure with its interval at `level` (NaN where it cannot be computed) and, for tests, a
    p-value (NaN where none applies)."""

    value: float
    low: float
    high: float
    n: int = 0
    p_value: float = NAN
    level: float = LEVEL

    def contains(self, x: float) -> bool:
        return self.low <= x <= self.high

    def as_dict(self, prefix: str = "") -> dict[str, float]:
        """Flat columns for a table: value, low, high (with an optional prefix)."""
        return {f"{prefix}": self.value, f"{prefix}_low": self.low, f"{prefix}_high": self.high} if prefix \
            else {"value": self.value, "low": self.low, "high": self.high}


@lru_cache(maxsize=16)
def _z(level: float) -> float:
    from scipy.special import ndtri     # (norm.ppf's own function; scipy.stats costs 46 MB more to import)

    return float(ndtri(0.5 + level / 2))


def z_value(level: float = LEVEL) -> float:
    """The two-sided standard normal quantile of `level` (1.96 at 0.95)."""
    return _z(level)


def wilson(k: int, n: int, level: float = LEVEL) -> Estimate:
    """k successes out of n with the Wilson score interval (NaN for n = 0)."""
    if n <= 0:
        return Estimate(NAN, NAN, NAN, 0, level=level)
    if not 0 <= k <= n:
        if -1e-9 * n <= k <= n * (1 + 1e-9):     # (weighted counts: rounding of a share times its size)
            k = min(max(k, 0), n)
        else:
            raise ValueError(f"k: expected 0 <= k <= n ({n}), not {k}")
    z = _z(level)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    # at k = 0 or k = n the bounds are exactly 0 and 1 (rounding may leave 1e-17)
    low = 0.0 if k == 0 else max(0.0, centre - half)
    high = 1.0 if k == n else min(1.0, centre + half)
    return Estimate(p, low, high, n, level=level)


def newcombe(k1: int, n1: int, k2: int, n2: int, level: float = LEVEL) -> Estimate:
    """p2 - p1 for two independent proportions (k1/n1, k2/n2) with Newcombe's hybrid score interval."""
    a, b = wilson(k1, n1, level), wilson(k2, n2, level)
    if n1 <= 0 or n2 <= 0:
        return Estimate(NAN, NAN, NAN, min(n1, n2), level=level)
    d = b.value - a.value
    low = d - math.sqrt((b.value - b.low) ** 2 + (a.high - a.value) ** 2)
    high = d + math.sqrt((b.high - b.value) ** 2 + (a.value - a.low) ** 2)
    return Estimate(d, max(-1.0, low), min(1.0, high), min(n1, n2), level=level)


def newcombe_paired(a, b, level: float = LEVEL) -> Estimate:
    """mean(b) - mean(a) for 0/1 outcomes of the same units (a before, b after) with Newcombe's
    (1998b, method 10) interval from the Wilson intervals of the two margins and their correlation
    phi (continuity-corrected), and the exact McNemar p-value. Unlike a bootstrap, the interval
    keeps a width where no unit changed (n >= 1). NaN for n = 0. (With survey weights:
    `fairpairs.survey.newcombe_paired_weighted`.)"""
    a, b = check_paired(a, b)
    n = len(a)
    if n == 0:
        return Estimate(NAN, NAN, NAN, 0, level=level)
    both = int(((a == 1) & (b == 1)).sum())      # the 2x2 table: a before, b after
    gained = int(((a == 0) & (b == 1)).sum())
    lost = int(((a == 1) & (b == 0)).sum())
    neither = n - both - gained - lost
    e = paired_table(both, gained, lost, neither, n, level)
    return Estimate(e.value, e.low, e.high, n, p_value=mcnemar_exact(gained, lost), level=level)


def check_paired(a, b) -> tuple[np.ndarray, np.ndarray]:
    """`a` and `b` as float arrays: two 1-d arrays of 0/1 outcomes of the same length, or ValueError."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"a, b: expected two 1-d arrays of the same length, not {a.shape} and {b.shape}")
    if not (np.isin(a, (0.0, 1.0)).all() and np.isin(b, (0.0, 1.0)).all()):
        raise ValueError("a, b: expected 0/1 outcomes")
    return a, b


def paired_table(both, gained, lost, neither, n, level: float = LEVEL) -> Estimate:
    """Newcombe's method 10 from the 2x2 table of paired 0/1 outcomes (both right, gained, lost,
    neither; counts may be weighted, n their total): the difference after - before and its interval."""
    before, after = wilson(both + lost, n, level), wilson(both + gained, n, level)
    margins = (both + lost) * (gained + neither) * (both + gained) * (lost + neither)
    cross = both * neither - gained * lost
    if cross > 0:
        cross = max(cross - n / 2, 0.0)
    phi = cross / math.sqrt(margins) if margins else 0.0
    d = after.value - before.value
    dl1, du1 = after.value - after.low, after.high - after.value      # (after: p1 in Newcombe's notation)
    dl2, du2 = before.value - before.low, before.high - before.value
    low = d - math.sqrt(max(dl1 ** 2 - 2 * phi * dl1 * du2 + du2 ** 2, 0.0))
    high = d + math.sqrt(max(du1 ** 2 - 2 * phi * du1 * dl2 + dl2 ** 2, 0.0))
    return Estimate(d, max(-1.0, low), min(1.0, high), n, level=level)


def mcnemar_exact(b01: int, b10: int) -> float:
    """Two-sided exact McNemar p-value from the discordant counts (0→1 and 1→0)."""
    n = b01 + b10
    if n == 0:
        return 1.0
    from scipy.stats import binomtest

    return float(binomtest(min(b01, b10), n, 0.5).pvalue)


def bootstrap(statistic: Callable[[np.ndarray], float], n: int, *, resamples: int = RESAMPLES, seed: int = 0,
              level: float = LEVEL, strata: np.ndarray | None = None) -> tuple[float, float]:
    """Percentile bootstrap interval of `statistic(indices)` over n units resampled with replacement
    (within each stratum when `strata` labels the units). NaN bounds when n = 0 or every resample
    is NaN."""
    if n <= 0:
        return NAN, NAN
    rng = np.random.default_rng(seed)
    if strata is None:
        groups = [np.arange(n)]
    else:
        strata = np.asarray(strata)
        groups = [np.flatnonzero(strata == s) for s in dict.fromkeys(strata.tolist())]
    values = np.empty(resamples)
    for i in range(resamples):
        idx = np.concatenate([g[rng.integers(len(g), size=len(g))] for g in groups])
        values[i] = statistic(idx)
    return _interval(values, (1 - level) / 2)


def bootstrap_counts(statistic: Callable[[np.ndarray], np.ndarray], counts, *, strata=None,
                     resamples: int = RESAMPLES, seed: int = 0, level: float = LEVEL):
    """Percentile bootstrap interval of a statistic that depends on the units only through how many
    units of each kind were drawn (0/1 outcomes, pairs of them, ...). Resampling n units with
    replacement draws the kinds' counts from a multinomial with the observed shares, so this is the
    bootstrap of `bootstrap`, exactly, without handling the units one by one.

    `counts`: units per kind; `strata`: a label per kind (the kinds of one stratum are resampled
    together and the stratum keeps its size). `statistic(c)` gets the resampled counts (resamples x
    kinds) and returns one figure per resample, or k figures (resamples x k): then (lows, highs) are
    two arrays of k. NaN bounds where every resample is NaN or there are no units."""
    counts = np.asarray(counts, dtype=np.int64)
    if counts.sum() <= 0:
        return NAN, NAN
    rng = np.random.default_rng(seed)
    labels = np.zeros(len(counts), dtype=int) if strata is None else np.asarray(strata)
    drawn = np.zeros((resamples, len(counts)), dtype=np.int64)
    for s in dict.fromkeys(labels.tolist()):
        cols = np.flatnonzero(labels == s)
        total = int(counts[cols].sum())
        if total:
            drawn[:, cols] = rng.multinomial(total, counts[cols] / total, size=resamples)
    with np.errstate(divide="ignore", invalid="ignore"):
        values = np.asarray(statistic(drawn), dtype=float)
    alpha = (1 - level) / 2
    if values.ndim > 1:
        bounds = [_interval(values[:, j], alpha) for j in range(values.shape[1])]
        return np.array([b[0] for b in bounds]), np.array([b[1] for b in bounds])
    return _interval(values, alpha)


def cluster_bootstrap(statistic: Callable[[np.ndarray], np.ndarray], counts, *, resamples: int = RESAMPLES,
                      seed: int = 0, level: float = LEVEL):
    """Percentile cluster bootstrap interval of a statistic of clustered units (pairs within
    paradigms) that depends on the units only through sums of per-cluster counts (a ratio of sums:
    an accuracy, a difference of accuracies, a mean paired difference). Every resample draws as many
    clusters as there are, with replacement, and keeps each drawn cluster whole, so the correlation
    of the units within a cluster is kept (the cluster bootstrap: Davison & Hinkley 1997, sec. 3.8;
    Field & Welsh 2007 show it consistent as the number of clusters grows, whatever the
    correlation within them; with few clusters it is too narrow, so callers ask for a minimum).

    `counts`: clusters x kinds; `statistic(s)` gets the resampled sums (resamples x kinds) and
    returns one figure per resample, or k figures (resamples x k): then (lows, highs) are arrays of
    k. Resample r takes the clusters of row r of ``rng.integers(C, size=(resamples, C))`` (C
    clusters, ``rng = np.random.default_rng(seed)``). NaN bounds with fewer than 2 clusters, where
    every resample is NaN (e.g. a denominator of 0) and where the interval has zero width (every
    resample gives the same figure: it cannot be estimated; never a zero-width "certainty")."""
    counts = np.asarray(counts, dtype=float)
    if counts.ndim != 2:
        raise ValueError(f"counts: expected clusters x kinds, not shape {counts.shape}")
    n = counts.shape[0]
    if n >= 2:
        drawn = np.random.default_rng(seed).integers(n, size=(resamples, n))
        times = np.bincount((drawn + n * np.arange(resamples)[:, None]).ravel(), minlength=resamples * n)
        sums = times.reshape(resamples, n) @ counts
    else:   # nothing to resample: the statistic's shape alone, every bound NaN
        sums = np.full((1, counts.shape[1]), NAN)
    with np.errstate(divide="ignore", invalid="ignore"):
        values = np.asarray(statistic(sums), dtype=float)
    bounds = [_interval(col, (1 - level) / 2) for col in values.reshape(len(sums), -1).T]
    bounds = [(lo, hi) if lo < hi else (NAN, NAN) for lo, hi in bounds]
    if values.ndim > 1:
        return np.array([b[0] for b in bounds]), np.array([b[1] for b in bounds])
    return bounds[0]


def _interval(values: np.ndarray, alpha: float) -> tuple[float, float]:
    values = values[~np.isnan(values)]
    if not len(values):
        return NAN, NAN
    return float(np.quantile(values, alpha)), float(np.quantile(values, 1 - alpha))


def paired(a, b, *, resamples: int = RESAMPLES, seed: int = 0, level: float = LEVEL) -> Estimate:
    """mean(b) - mean(a) over the same units, with a percentile bootstrap interval over units; for
    0/1 outcomes also the exact McNemar p-value. (An interval of [0, 0] means no unit changed.)"""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"a, b: expected two 1-d arrays of the same length, not {a.shape} and {b.shape}")
    n = len(a)
    if n == 0:
        return Estimate(NAN, NAN, NAN, 0, level=level)
    diff = b - a
    kinds, counts = np.unique(diff, return_counts=True)
    if len(kinds) <= 64 and not np.isnan(kinds).any():   # (0/1 outcomes: -1, 0, 1) the same bootstrap, by counts
        low, high = bootstrap_counts(lambda c: c @ kinds / n, counts, resamples=resamples, seed=seed, level=level)
    else:
        low, high = bootstrap(lambda idx: float(diff[idx].mean()), n, resamples=resamples, seed=seed, level=level)
    p = NAN
    if np.isin(a, (0.0, 1.0)).all() and np.isin(b, (0.0, 1.0)).all():
        p = mcnemar_exact(int(((a == 0) & (b == 1)).sum()), int(((a == 1) & (b == 0)).sum()))
    return Estimate(float(diff.mean()), low, high, n, p_value=p, level=level)


def smd(a, b) -> float:
    """Standardised mean difference (mean(b) - mean(a)) / sqrt((var(a) + var(b)) / 2), with sample
    variances (ddof 1). NaN values are left out. 0 when both samples are constant and equal; NaN
    when a sample is empty, or both are constant and differ (no spread to standardise by)."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    a, b = a[~np.isnan(a)], b[~np.isnan(b)]
    if not len(a) or not len(b):
        return NAN
    va = a.var(ddof=1) if len(a) > 1 else 0.0
    vb = b.var(ddof=1) if len(b) > 1 else 0.0
    d = b.mean() - a.mean()
    sd = math.sqrt((va + vb) / 2)
    if sd == 0:
        return 0.0 if d == 0 else NAN
    return float(d / sd)


def tvd(p: Mapping, q: Mapping) -> float:
    """Total-variation distance (half the L1 distance) between the distributions of two count tables
    {category: count}; NaN when either is empty."""
    sp, sq = sum(p.values()), sum(q.values())
    if sp <= 0 or sq <= 0:
        return NAN
    keys = set(p) | set(q)
    return 0.5 * math.fsum(abs(p.get(k, 0) / sp - q.get(k, 0) / sq) for k in keys)   # (fsum: the same figure in any key order)
