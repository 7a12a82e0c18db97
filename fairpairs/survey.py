"""Survey weights: estimates from a stratified sample of pairs with known inclusion rates
(`fairpairs.analysis.sampling`), with the intervals fairpairs uses for unweighted data
(`fairpairs.stats`) at Kish's effective sample size. Every weight 1 gives exactly the unweighted
figures.

- `kish(w)`: the weights' total and Kish's effective sample size.
- `weighted_wilson(x, w)`: a weighted share of 0/1 outcomes with its Wilson interval.
- `newcombe_paired_weighted(a, b, w)`: a weighted paired difference with Newcombe's interval for paired
  proportions and the exact McNemar p-value.
"""

from __future__ import annotations

import numpy as np

from fairpairs.stats import LEVEL, NAN, Estimate, check_paired, mcnemar_exact, paired_table, wilson
from fairpairs.stats import newcombe_paired as unweighted_paired


def _all_one(w) -> bool:
    return w is None or bool(np.all(np.asarray(w, dtype=float) == 1.0))


def kish(w) -> tuple[float, float]:
    """(sum of weights, Kish's effective sample size (sum w)^2 / sum w^2) of survey weights `w`:
    the size of an unweighted sample that would estimate a mean as precisely (Kish 1965); equal to
    the number of units when every weight is 1."""
    w = np.asarray(w, dtype=float)
    total, squares = float(w.sum()), float((w * w).sum())
    return total, (total * total / squares if squares > 0 else 0.0)


def weighted_wilson(x, w=None, level: float = LEVEL) -> Estimate:
    """The weighted share of 0/1 outcomes `x` (weights `w`: inverse inclusion rates) with the Wilson
    interval at Kish's effective sample size (`kish`). Without weights, or when every weight is 1,
    exactly `stats.wilson(sum(x), len(x))`. `n` is the number of units, not the weighted total."""
    x = np.asarray(x, dtype=float)
    if _all_one(w) or not len(x):
        return wilson(int(x.sum()), len(x), level)
    w = np.asarray(w, dtype=float)
    total, n_eff = kish(w)
    p = float((w * x).sum() / total)
    e = wilson(min(max(p * n_eff, 0.0), n_eff), n_eff, level)
    return Estimate(p, e.low, e.high, len(x), level=level)


def newcombe_paired_weighted(a, b, w=None, level: float = LEVEL) -> Estimate:
    """`stats.newcombe_paired` (mean(b) - mean(a) of paired 0/1 outcomes) with survey weights `w`:
    the 2x2 table holds weighted counts scaled to Kish's effective size, and the McNemar p-value is
    computed on the unweighted discordant units (in the stratified evaluation every discordant
    unit is scored with certainty). Every weight 1: exactly the unweighted figures."""
    if _all_one(w):
        return unweighted_paired(a, b, level)
    a, b = check_paired(a, b)
    if len(a) == 0:
        return Estimate(NAN, NAN, NAN, 0, level=level)
    w = np.asarray(w, dtype=float)
    total, n_eff = kish(w)
    scale = n_eff / total
    cells = [float(w[(a == x) & (b == y)].sum()) * scale for x, y in ((1, 1), (0, 1), (1, 0), (0, 0))]
    e = paired_table(*cells, n_eff, level)
    p = mcnemar_exact(int(((a == 0) & (b == 1)).sum()), int(((a == 1) & (b == 0)).sum()))
    return Estimate(e.value, e.low, e.high, len(a), p_value=p, level=level)
