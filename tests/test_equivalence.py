"""The equivalence tests of the preregistered judgement of the length-robust score
(fairpairs/analysis/equivalence.py; benchmarks/preregistration/robust-score.md).

Expected values are computed by hand in the tests (counts chosen so that the sums are easy), or by
an independent route: TOST as two one-sided p-values with scipy's normal distribution, which the
interval-inclusion verdict must agree with.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import norm

from fairpairs import stats
from fairpairs.analysis.equivalence import (CLUSTERED, MIN_CLUSTERS, PAIR_LEVEL, gap_contrast, gap_equivalence,
                                            paired_difference, paired_equivalence, stratified_gap, tost)

ALPHA = 0.05            # the preregistration's level per candidate (fixed-sequence over candidates)
MARGIN_AU = 0.01        # A=U accuracy within +-1 point of LP's
# the preregistered A=U test: 16 untouched BLiMP paradigms and 22 CLAMS files, 200 pairs each where
# the file has them (CLAMS simple_agrmt, simple_npi_anim, simple_npi_inanim have 100, 120, 126
# pairs of equal length under both tokenizers): 7,346 pairs (benchmarks/preregistration/power.py)
AU_SIZES = [200] * 32 + [100, 120, 126] + [200] * 3


def test_the_preregistered_au_sample_is_the_one_in_the_document():
    assert len(AU_SIZES) == 38 and sum(AU_SIZES) == 7346


def au_table(sizes, net_per_200: int, discordant_per_200: int = 12, lp_right: float = 0.8):
    """Hand-built per-cluster 2x2 counts of A=U pairs (candidate vs LP): in a cluster of m pairs,
    about `discordant_per_200`/200 of them discordant, and gained - lost = `net_per_200`/200 of them;
    clusters alternate one more and one fewer gained pair (so that resampling clusters moves the
    figure: identical clusters would give a zero-width bootstrap). Returns (both, gained, lost,
    neither) arrays and the exact difference (sum gained - sum lost) / pairs."""
    both, gained, lost, neither = [], [], [], []
    for i, m in enumerate(sizes):
        net = round(net_per_200 * m / 200)
        disc = round(discordant_per_200 * m / 200)
        g, lo = (disc + net) // 2, (disc - net) // 2
        g += (3 if i % 2 == 0 else -3) if i < 32 else 0
        r = round(lp_right * m)                                 # LP right on r pairs: both + lost
        both.append(r - lo)
        gained.append(g)
        lost.append(lo)
        neither.append(m - (r - lo) - g - lo)
    arrays = [np.array(x) for x in (both, gained, lost, neither)]
    assert (np.add.reduce(arrays) == np.array(sizes)).all() and all((a >= 0).all() for a in arrays)
    return arrays, (arrays[1].sum() - arrays[2].sum()) / sum(sizes)


def test_done_when_a_score_3_points_off_lp_on_au_is_rejected_and_one_0_points_off_is_accepted():
    """Issue 46's done-when: at the preregistered n (7,346 A=U pairs in 38 clusters), with 6% of
    pairs discordant (the rate of tcf_lp against LP in development), a score whose A=U accuracy
    equals LP's is shown equivalent within +-1 point, and one 3 points above or below is not.
    Independent check of the first: the normal half-width 1.645 sqrt(0.06 / 7346) = 0.47 points
    leaves the 90% interval well inside +-1 (a test reading a wrong level or a pair count of one
    cluster would widen it past the margin)."""
    zero, d0 = au_table(AU_SIZES, 0)
    assert d0 == 0
    ok = paired_equivalence(*zero, MARGIN_AU, ALPHA)
    assert ok.equivalent and ok.verdict == "equivalent" and ok.method == CLUSTERED and ok.clusters == 38
    assert ok.n == 7346 and ok.level == pytest.approx(0.90)
    assert -0.007 < ok.low < -0.002 and 0.002 < ok.high < 0.007     # about +-0.47 points
    for net in (6, -6):                                              # 6 of 200 pairs: 3 points
        off, d = au_table(AU_SIZES, net)
        assert d == pytest.approx(math.copysign(0.03, net), abs=0.0005)
        res = paired_equivalence(*off, MARGIN_AU, ALPHA)
        assert not res.equivalent and res.verdict == "not shown equivalent"
        assert res.estimate == pytest.approx(d)


def test_the_pair_level_interval_gives_the_same_verdicts_on_the_pooled_table():
    """With the clusters pooled into one 2x2 table (one cluster: fewer than MIN_CLUSTERS),
    Newcombe's paired interval decides, with the same verdicts as above."""
    zero, _ = au_table(AU_SIZES, 0)
    res = paired_equivalence(*(a.sum() for a in zero), MARGIN_AU, ALPHA)
    assert res.method == PAIR_LEVEL and res.equivalent
    off, _ = au_table(AU_SIZES, 6)
    assert not paired_equivalence(*(a.sum() for a in off), MARGIN_AU, ALPHA).equivalent


def test_tost_reads_the_interval_strictly_inside_the_margins():
    e = lambda lo, hi: stats.Estimate(0.0, lo, hi, 100, level=0.90)    # noqa: E731
    assert tost(e(-0.0099, 0.0099), 0.01).equivalent
    assert not tost(e(-0.01, 0.005), 0.01).equivalent                 # touching the margin is not inside
    assert not tost(e(-0.005, 0.0101), 0.01).equivalent
    nan = tost(e(float("nan"), float("nan")), 0.01)
    assert not nan.equivalent and nan.verdict == "no interval"


def test_tost_refuses_an_interval_at_another_level_and_a_margin_that_is_not_positive():
    e95 = stats.Estimate(0.0, -0.001, 0.001, 100, level=0.95)
    with pytest.raises(ValueError, match="level"):
        tost(e95, 0.01, alpha=0.05)
    assert tost(e95, 0.01, alpha=0.025).equivalent                 # Bonferroni over two: the 95% interval
    with pytest.raises(ValueError, match="margin"):
        tost(e95, 0.0, alpha=0.025)


@pytest.mark.parametrize("alpha", [0.05, 0.025])
def test_tost_agrees_with_two_one_sided_p_values(alpha):
    """The interval-inclusion verdict equals the two one-sided tests done directly: reject
    theta <= -D when P(Z >= (est + D)/se) < alpha and theta >= +D when P(Z <= (est - D)/se) < alpha
    (scipy's normal), for normal intervals est -+ z_(1 - alpha) se."""
    z = norm.ppf(1 - alpha)
    margin = 0.05
    for est in np.linspace(-0.08, 0.08, 33):
        for se in (0.005, 0.01, 0.02, 0.03, 0.06):
            p_low = norm.sf((est + margin) / se)
            p_high = norm.cdf((est - margin) / se)
            if abs(max(p_low, p_high) - alpha) < 1e-9:
                continue                                          # exactly on the boundary
            e = stats.Estimate(est, est - z * se, est + z * se, 100, level=1 - 2 * alpha)
            assert tost(e, margin, alpha).equivalent == (max(p_low, p_high) < alpha), (est, se)


def test_the_clustered_interval_needs_min_clusters_and_a_width():
    zero, _ = au_table(AU_SIZES[:MIN_CLUSTERS], 0)
    assert paired_difference(*zero, level=0.9)[1:] == (CLUSTERED, MIN_CLUSTERS)
    fewer, _ = au_table(AU_SIZES[:MIN_CLUSTERS - 1], 0)
    assert paired_difference(*fewer, level=0.9)[1:] == (PAIR_LEVEL, MIN_CLUSTERS - 1)
    # a score identical to LP on every pair (tc_lp on pairs of equal word count): every bootstrap
    # resample gives 0, no clustered interval; Newcombe's interval keeps a width and is inside +-1
    m = np.array(AU_SIZES)
    same = paired_equivalence(m - 40, 0 * m, 0 * m, 40 + 0 * m, MARGIN_AU, ALPHA)
    assert same.method == PAIR_LEVEL and same.equivalent and same.estimate == 0 and same.low < 0 < same.high


def test_stratified_gap_by_hand():
    """Two paradigms: gaps 6/10 - 5/10 = +0.1 (weight 10*10/20 = 5) and 10/20 - 3/5 = -0.1 (weight
    20*5/25 = 4): (5 * 0.1 - 4 * 0.1) / 9 = 0.1 / 9. A third paradigm with one direction only does
    not count."""
    assert stratified_gap([6, 10, 7], [10, 20, 9], [5, 3, 0], [10, 5, 0]) == pytest.approx(0.1 / 9)
    assert math.isnan(stratified_gap([1], [2], [0], [0]))
    with pytest.raises(ValueError, match="exceed"):
        stratified_gap([3], [2], [1], [2])


def test_the_gap_within_paradigms_is_not_moved_by_which_paradigms_hold_which_direction():
    """Twelve paradigms, each equally right on its A>U and A<U pairs, half of them easy (80%) and
    mostly A<U, half hard (50%) and mostly A>U. Pooled over pairs the gap is
    (6*80 + 6*150)/2400 - (6*240 + 6*50)/2400 = 0.575 - 0.725 = -15 points, a length bias that
    is not there; within paradigms it is 0, and shown equivalent within +-5."""
    rl, nl, rs, ns = [], [], [], []
    for i in range(12):
        easy = i % 2 == 0
        n1, n2 = (100, 300) if easy else (300, 100)
        acc = 0.8 if easy else 0.5
        rl.append(acc * n1)
        nl.append(n1)
        rs.append(acc * n2)
        ns.append(n2)
    pooled = sum(rl) / sum(nl) - sum(rs) / sum(ns)
    assert pooled == pytest.approx(-0.15)
    rl = [r + (1 if i % 4 == 0 else -1 if i % 4 == 2 else 0) for i, r in enumerate(rl)]   # some width
    res = gap_equivalence(rl, nl, rs, ns, 0.05, ALPHA)
    assert res.estimate == pytest.approx(0.0, abs=0.002) and res.method == CLUSTERED and res.equivalent
    assert res.clusters == 12 and res.n == 4800


def test_a_gap_of_ten_points_within_every_paradigm_is_not_equivalent_within_five():
    n = [200] * 12
    res = gap_equivalence([150 + (i % 3) for i in range(12)], n, [130 - (i % 2) for i in range(12)], n, 0.05, ALPHA)
    assert res.estimate == pytest.approx(0.10, abs=0.01) and not res.equivalent
    few = gap_equivalence([150, 151], [200, 200], [130, 129], [200, 200], 0.05, ALPHA)
    assert few.method == PAIR_LEVEL and few.clusters == 2 and not few.equivalent


def test_a_contrast_of_gaps_by_hand():
    """Ten paradigms of 10 A>U and 10 A<U pairs: score A right on 6 and 5 (gap +0.1), B on 5 and 5
    (0), C on 4 and 6 (-0.2); A - 2B + C = -0.1. With paradigms that differ, the estimate is the
    same combination of `stratified_gap`s and the interval (the same paradigms drawn for all three)
    has a width and holds it; tables of different pairs are refused."""
    t = lambda rl, rs: np.array([[rl, 10, rs, 10]] * 10)     # noqa: E731
    assert gap_contrast([t(6, 5), t(5, 5), t(4, 6)], (1, -2, 1), level=0.95).value == pytest.approx(-0.1)
    rng = np.random.default_rng(3)
    nl, ns = rng.integers(20, 60, 12), rng.integers(20, 60, 12)
    tabs = [np.column_stack([rng.binomial(nl, p), nl, rng.binomial(ns, p - 0.1), ns]) for p in (0.8, 0.7, 0.6)]
    e = gap_contrast(tabs, (1, -2, 1), level=0.95)
    by_hand = sum(c * stratified_gap(*tab.T) for c, tab in zip((1, -2, 1), tabs))
    assert e.value == pytest.approx(by_hand) and e.low < e.value < e.high and e.n == nl.sum() + ns.sum()
    with pytest.raises(ValueError, match="same pairs"):
        gap_contrast([tabs[0], tabs[1] + np.array([0, 1, 0, 0])], (1, -1))
