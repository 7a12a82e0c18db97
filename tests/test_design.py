"""The designed evaluation (issue 44): the plan's sizes by hand, the stratified sample's weights,
and the analysis at sampling rate 1 equal to scoring every pair."""

import math

import numpy as np
import pandas as pd
import pytest

from fairpairs import stats, survey
from fairpairs.analysis.design import Shares, equal_sample, gap_halfwidth, per_direction, plan
from fairpairs.analysis.evaluation import analyse
from fairpairs.analysis.sampling import draw_sample, sampled_pairs


def test_sizes_by_hand():
    # z = 1.959964; n = z^2 * 0.5 / h^2: 192.07 at 10 points -> 193; 768.3 at 5 -> 769
    assert per_direction(0.10) == 193
    assert per_direction(0.05) == 769
    # the A=U sample: z^2 * 0.25 / (h/2)^2 = 384.1 -> 385
    assert equal_sample(0.10) == 385
    # 193 pairs per direction give at most the target
    assert gap_halfwidth(193, 193) <= 0.10 < gap_halfwidth(192, 192)


def test_plan_from_shares_by_hand():
    # 10 paradigms, pilot of 100 pairs each = 1000 contexts; model a: 40 A>U, 80 A<U in all
    # -> share of A>U 4% -> 193 / (0.04 * 10) = 482.5 -> 483 pairs per paradigm
    a = Shares("a", {f"p{i}": 4 for i in range(10)}, {f"p{i}": 8 for i in range(10)}, {f"p{i}": 88 for i in range(10)})
    b = Shares("b", {f"p{i}": 10 for i in range(10)}, {f"p{i}": 10 for i in range(10)}, {f"p{i}": 80 for i in range(10)})
    p = plan([a, b], 0.10, pilot_pairs=100, paradigms=10)
    assert p.pairs == 483 and not p.limited_by
    assert p.expected["a"]["longer"] == pytest.approx(0.04 * 4830)
    assert p.expected["a"]["halfwidth"] <= 0.10
    # a model with no A<U pair cannot reach the target: the cap, said
    c = Shares("c", {"p0": 5}, {}, {"p0": 95})
    q = plan([c], 0.10, pilot_pairs=100, paradigms=1, max_pairs=1000)
    assert q.pairs == 1000 and q.limited_by == "max pairs"
    assert math.isinf(q.expected["c"]["halfwidth"])


def _frame(n_paradigms=4, per=60, seed=1):
    """Original and debiased sets of a run: contexts by draw; every 5th context A>U (lengths by the
    token table below), every 7th changed by control; the rest A=U and kept as drawn."""
    rng = np.random.default_rng(seed)
    rows, length = [], {}
    for p in range(n_paradigms):
        for i in range(per):
            good, bad = f"g{p}-{i}", f"b{p}-{i}"
            length[good] = 5
            length[bad] = 4 if i % 5 == 0 else 5
            debad = bad if i % 7 else f"c{p}-{i}"
            length[debad] = 5
            rows.append(dict(set="original", uid=f"u{p}", pair_id=i, draw=i, sentence_good=good, sentence_bad=bad))
            rows.append(dict(set="debiased", uid=f"u{p}", pair_id=i, draw=i, sentence_good=good, sentence_bad=debad))
    frame = pd.DataFrame(rows)
    truth = {s: float(rng.random() < 0.7) for s in length}       # 1: the good sentence wins
    return frame, length, truth


def _scored(frame, length, truth):
    """pair_scores' frame by hand: outcome 1 where the pair's good sentence wins (truth of the bad)."""
    out = frame.assign(model="m", normalization="lp", len_good=frame["sentence_good"].map(length),
                       len_bad=frame["sentence_bad"].map(length))
    out["len_diff"] = out["len_bad"] - out["len_good"]
    out["split"] = np.where(out["len_good"] > out["len_bad"], "A>U",
                            np.where(out["len_good"] < out["len_bad"], "A<U", "A=U"))
    out["outcome"] = [1 if truth[b] else -1 for b in out["sentence_bad"]]
    out["score_good"], out["score_bad"] = 0.0, [-1.0 if truth[b] else 1.0 for b in out["sentence_bad"]]
    return out


def test_strata_and_weights():
    frame, length, _ = _frame()
    s = draw_sample(frame, length, 0.25, seed=3)
    units = frame.assign(w=s.weight, scored=s.rows)
    # every A>U context and every changed one is scored with weight 1
    certain = (units["sentence_bad"].map(length) != 5) | units["sentence_bad"].str.startswith("c") | \
        (units["pair_id"] % 7 == 0)
    assert units.loc[certain, "scored"].all() and (units.loc[certain, "w"] == 1).all()
    # per paradigm the equal stratum's weights add up to its contexts (post-stratified)
    for uid, g in units[~certain & (units["set"] == "original")].groupby("uid"):
        assert g["w"].sum() == pytest.approx(len(g))
        assert g["scored"].sum() == math.ceil(0.25 * len(g))
    # same seed, same sample; another seed, another
    assert (draw_sample(frame, length, 0.25, seed=3).rows == s.rows).all()
    assert not (draw_sample(frame, length, 0.25, seed=4).rows == s.rows).all()


def test_rate_one_is_scoring_every_pair():
    """At rate 1 the sample is every pair with weight 1, and every table equals the unweighted one."""
    frame, length, truth = _frame()
    full = _scored(frame, length, truth)
    s = draw_sample(frame, length, 1.0, seed=0)
    assert s.rows.all() and (s.weight == 1).all()
    a, b = analyse(full), analyse(_scored(sampled_pairs(frame, s), length, truth))
    for name in ("accuracy", "splits", "summary", "effects", "headline"):
        pd.testing.assert_frame_equal(getattr(a, name), getattr(b, name))


def test_weighted_estimates_are_unbiased_and_cover():
    """Over many samples at rate 0.2 the weighted accuracies average to the full-data figure, and
    the Wilson-at-Kish-size interval covers the full-data accuracy of a large population about 95%
    of the time (a Monte Carlo check, seeded)."""
    frame, length, truth = _frame(n_paradigms=4, per=200, seed=5)
    full = analyse(_scored(frame, length, truth)).headline.iloc[0]
    estimates, covered = [], 0
    for seed in range(80):
        s = draw_sample(frame, length, 0.2, seed=seed)
        part = _scored(sampled_pairs(frame, s), length, truth)
        w = part["weight"].to_numpy()
        eq = (part["set"] == "original") & (part["split"] == "A=U")
        e = survey.weighted_wilson((part.loc[eq, "outcome"] == 1).to_numpy(float), w[eq.to_numpy()])
        estimates.append(e.value)
        covered += e.low <= full["acc_equal"] <= e.high
    assert np.mean(estimates) == pytest.approx(full["acc_equal"], abs=0.01)
    # the sample is a fifth of a finite population: the interval (no finite-population correction) is conservative
    assert covered / 80 >= 0.9


def test_weighted_headline_matches_a_naive_weighted_mean():
    frame, length, truth = _frame(seed=7)
    s = draw_sample(frame, length, 0.3, seed=1)
    part = _scored(sampled_pairs(frame, s), length, truth)
    r = analyse(part).headline.iloc[0]
    eq = part[(part["set"] == "original") & (part["split"] == "A=U")]
    naive = (eq["weight"] * (eq["outcome"] == 1)).sum() / eq["weight"].sum()
    assert r["acc_equal"] == pytest.approx(naive)
    o, d = part[part["set"] == "original"], part[part["set"] == "debiased"]
    acc_o = (o["weight"] * (o["outcome"] == 1)).sum() / o["weight"].sum()
    acc_d = (d["weight"] * (d["outcome"] == 1)).sum() / d["weight"].sum()
    assert r["change"] == pytest.approx(acc_d - acc_o)
    # the identity still holds exactly with weights
    assert r["change"] == pytest.approx(r["selection"] + r["length"] + r["remainder"])
    shares = r["share_longer"] + r["share_shorter"] + r["share_equal"]
    assert shares == pytest.approx(1.0)
    assert r["length"] == pytest.approx(sum(r[f"share_{n}"] * r[f"effect_{n}"]
                                            for n in ("longer", "shorter", "equal") if r[f"share_{n}"] > 0))


def test_models_compared_pair_for_pair_by_hand():
    """Two models on the same 6 original and 6 debiased pairs: the paired differences and the change
    of the difference under control, counted by hand."""
    from fairpairs.analysis.comparison import comparison_table

    rows = []
    # contexts 0-5; contexts 0-2 changed by control (new bad sentence), 3-5 kept as drawn
    a_o, b_o = [1, 0, 0, 1, 1, 0], [1, 1, 1, 1, 1, 0]   # original: A 3/6, B 5/6 -> +33.3
    a_d, b_d = [1, 1, 0, 1, 1, 0], [0, 1, 0, 1, 1, 0]   # debiased: A 4/6, B 3/6 -> -16.7
    for s, (ya, yb) in (("original", (a_o, b_o)), ("debiased", (a_d, b_d))):
        for i in range(6):
            bad = f"b{i}" if s == "original" or i >= 3 else f"c{i}"
            for m, y in (("A", ya[i]), ("B", yb[i])):
                rows.append(dict(set=s, uid="u", pair_id=i, draw=i, model=m, normalization="lp",
                                 sentence_good=f"g{i}", sentence_bad=bad, outcome=1 if y else -1))
    table = comparison_table(pd.DataFrame(rows)).iloc[0]
    assert (table["first"], table["second"]) == ("A", "B")
    assert table["diff_original"] == pytest.approx(2 / 6)
    assert table["diff_debiased"] == pytest.approx(-1 / 6)
    # per matched context: (B_d - A_d) - (B_o - A_o) = -1, -1, -1, 0, 0, 0 -> -0.5
    assert table["control"] == pytest.approx(-0.5)
    assert table["ranking"] == "reversed"
    assert table["diff_original_low"] < table["diff_original"] < table["diff_original_high"]


def test_weighted_counts_that_round_past_their_size_still_give_an_interval():
    """A weighted share times Kish's size can round a hair above the size (6.310803618946249 of
    6.310803618946248 stopped a 67-paradigm evaluation); it is the whole share, not an error."""
    e = stats.wilson(6.310803618946249, 6.310803618946248)
    assert e.value == 1.0 and e.high == 1.0 and 0 < e.low < 1
    with pytest.raises(ValueError):
        stats.wilson(7.0, 6.0)
