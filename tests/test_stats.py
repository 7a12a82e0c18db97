"""fairpairs.stats against published and hand-computed figures."""

import math

import numpy as np
import pytest

from fairpairs import stats


def test_wilson_matches_the_closed_form_worked_by_hand():
    # 8/10, z = 1.959964: centre (0.8 + z²/20) / (1 + z²/10), half-width z·sqrt(.16/10 + z²/400) / (1 + z²/10)
    e = stats.wilson(8, 10)
    assert e.value == 0.8
    assert (round(e.low, 4), round(e.high, 4)) == (0.4902, 0.9433)
    zero = stats.wilson(0, 10)
    assert zero.low == 0.0 and round(zero.high, 4) == 0.2775
    full = stats.wilson(10, 10)
    assert full.high == 1.0 and round(full.low, 4) == 0.7225
    assert math.isnan(stats.wilson(0, 0).value)
    with pytest.raises(ValueError, match="k:"):
        stats.wilson(11, 10)


def test_newcombe_reproduces_newcombe_1998_example():
    # Newcombe (1998), Statistics in Medicine 17:873-890, example (a): 56/70 vs 48/80,
    # difference 0.2000, method 10 (hybrid score) interval 0.0524 to 0.3339
    e = stats.newcombe(48, 80, 56, 70)
    assert round(e.value, 4) == 0.2
    assert (round(e.low, 4), round(e.high, 4)) == (0.0524, 0.3339)
    assert math.isnan(stats.newcombe(0, 0, 3, 4).value)


def test_mcnemar_exact_is_a_binomial_test_on_discordant_pairs():
    # 2 vs 8 discordant: 2 * P(X <= 2), X ~ Bin(10, 1/2) = 2 * (1 + 10 + 45) / 1024
    assert stats.mcnemar_exact(2, 8) == pytest.approx(112 / 1024)
    assert stats.mcnemar_exact(8, 2) == pytest.approx(112 / 1024)
    assert stats.mcnemar_exact(0, 0) == 1.0


def test_paired_difference_bootstrap_is_seeded_and_brackets_the_estimate():
    rng = np.random.default_rng(1)
    a = (rng.random(400) < 0.7).astype(int)
    b = a.copy()
    b[:40] = 1                                   # some wrong pairs become right
    e1 = stats.paired(a, b, seed=3)
    e2 = stats.paired(a, b, seed=3)
    assert e1 == e2
    assert e1.value == pytest.approx((b - a).mean())
    assert e1.low <= e1.value <= e1.high
    changed01 = int(((a == 0) & (b == 1)).sum())
    assert e1.p_value == pytest.approx(stats.mcnemar_exact(changed01, 0))
    same = stats.paired(a, a)
    assert (same.value, same.low, same.high, same.p_value) == (0.0, 0.0, 0.0, 1.0)
    with pytest.raises(ValueError, match="a, b"):
        stats.paired([1, 0], [1])


def test_paired_bootstrap_interval_close_to_the_normal_approximation():
    # n = 2000 units with diff in {-1, 0, 1}: the percentile interval ~ mean +- 1.96 sd / sqrt(n)
    rng = np.random.default_rng(0)
    a = (rng.random(2000) < 0.6).astype(int)
    b = (rng.random(2000) < 0.7).astype(int)
    e = stats.paired(a, b, resamples=4000)
    d = b - a
    half = 1.959964 * d.std(ddof=1) / math.sqrt(len(d))
    assert e.low == pytest.approx(d.mean() - half, abs=0.006)
    assert e.high == pytest.approx(d.mean() + half, abs=0.006)


def test_smd_and_tvd_by_hand():
    assert stats.smd([1, 2, 3], [2, 3, 4]) == pytest.approx(1.0)          # sd 1 in both, means 2 and 3
    assert stats.smd([1, 2, 3], [1, 2, 3]) == 0.0
    # variances 1 and 4 (ddof 1): pooled sqrt(2.5); means 2 and 2.5
    assert stats.smd([1, 2, 3], [0.5, 2.5, 4.5]) == pytest.approx(0.5 / math.sqrt((1 + 4) / 2))
    assert stats.smd([5, 5], [5, 5]) == 0.0
    assert math.isnan(stats.smd([5, 5], [6, 6]))
    assert math.isnan(stats.smd([], [1, 2]))
    assert stats.smd([1, float("nan"), 3], [2, 4]) == pytest.approx(1 / math.sqrt((2 + 2) / 2))
    assert stats.tvd({"x": 1, "y": 1}, {"x": 3, "y": 1}) == pytest.approx(0.25)
    assert stats.tvd({"x": 2}, {"y": 5}) == 1.0
    assert stats.tvd({"x": 2, "y": 2}, {"y": 1, "x": 1}) == 0.0
    assert math.isnan(stats.tvd({}, {"x": 1}))


def test_stratified_bootstrap_resamples_within_strata():
    values = np.array([0.0] * 10 + [1.0] * 10)
    strata = np.array(["a"] * 10 + ["b"] * 10)
    # each resample keeps 10 units of each stratum, so the mean is always exactly 0.5
    assert stats.bootstrap(lambda idx: float(values[idx].mean()), 20, strata=strata) == (0.5, 0.5)


def test_bootstrap_counts_is_the_unit_bootstrap_by_counts():
    # 0/1 outcomes, 120 ones of 400: resampling units and resampling counts give the same interval
    # (up to Monte Carlo error), both near p ± 1.96·sqrt(p(1-p)/n) = 0.30 ± 0.0449
    x = np.r_[np.ones(120), np.zeros(280)]
    by_units = stats.bootstrap(lambda idx: float(x[idx].mean()), 400, seed=1)
    lo, hi = stats.bootstrap_counts(lambda c: c[:, 1] / 400, [280, 120], seed=1)
    assert lo == pytest.approx(by_units[0], abs=0.006) and hi == pytest.approx(by_units[1], abs=0.006)
    assert lo == pytest.approx(0.30 - 0.0449, abs=0.006) and hi == pytest.approx(0.30 + 0.0449, abs=0.006)
    # strata keep their sizes: a stratum of one kind never varies
    lo2, hi2 = stats.bootstrap_counts(lambda c: np.column_stack([c[:, 0], c[:, 1] + c[:, 2]]), [7, 3, 5],
                                      strata=[0, 1, 1])
    assert (lo2[0], hi2[0], lo2[1], hi2[1]) == (7, 7, 8, 8)
    assert all(math.isnan(v) for v in stats.bootstrap_counts(lambda c: c[:, 0], [0, 0]))


def test_tvd_is_the_same_figure_in_every_process():
    """tvd sums over a set of categories, whose order follows the string hash of the process
    (PYTHONHASHSEED): with a plain float sum the last digits moved between processes, and a balance
    flag at its threshold (|TVD| 0.10, tough_vs_raising_1) came and went with the seed. Exactly
    rounded (math.fsum), the figure is the same in every process."""
    import subprocess
    import sys

    code = ("from fairpairs.stats import tvd; "
            "p = {'w0': 9, 'w1': 37, 'w2': 49, 'w3': 5, 'w4': 17, 'w5': 8, 'w6': 32, 'w7': 49, 'w8': 29, 'w9': 31, "
            "'w10': 42, 'w11': 25}; "
            "q = {'w0': 14, 'w1': 7, 'w2': 32, 'w3': 2, 'w4': 25, 'w5': 28, 'w6': 39, 'w7': 49, 'w8': 50, 'w9': 1, "
            "'w10': 45, 'w11': 29}; print(repr(tvd(p, q)))")
    seen = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={"PYTHONHASHSEED": str(seed), "PATH": "/usr/bin:/bin"}).stdout for seed in range(12)}
    assert len(seen) == 1, seen
