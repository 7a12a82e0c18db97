"""Inference that respects paradigms (issue 44, item 3): the gap and the two direction effects with a
paradigm-clustered bootstrap interval, and per-paradigm estimates partially pooled across paradigms
(`fairpairs.analysis.clustered`, `fairpairs.stats.cluster_bootstrap`, `partial_pool`), on
hand-built units whose outcomes are fixed per paradigm.

Every test fails on the code before issue 44: the clustered columns, `cluster_bootstrap` and
`partial_pool` did not exist (AttributeError / KeyError), and the headline's words gave Newcombe's
pair-level interval with no label."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from fairpairs import stats
from fairpairs.analysis.clustered import (CLUSTERED_COLUMNS, MIN_PARADIGMS, POOLED_COLUMNS, difference_variance,
                                          paradigm_counts, partial_pool, pooled_rows, with_clustered)
from fairpairs.analysis.effects import decompose
from fairpairs.analysis.evaluation import analyse, pair_scores
from fairpairs.analysis.headline import headline_markdown
from fairpairs.analysis.length_audit import ALL
from fairpairs.analysis.results import results_json

R = stats.RESAMPLES


def units_frame(paradigms: dict) -> pd.DataFrame:
    """`unit_outcomes`' frame for one model and score from {uid: [(split, o, d), ...]} (o or d NaN:
    no pair in that set)."""
    rows = [{"model": "m", "normalization": "lp", "uid": uid, "unit": f"{uid}/{i}", "o": o, "d": d, "split": split,
             "changed": np.nan if np.isnan(o) or np.isnan(d) else 1.0, "matched_by": "draw"}
            for uid, units in paradigms.items() for i, (split, o, d) in enumerate(units)]
    return pd.DataFrame(rows)


def effects_of(units: pd.DataFrame, seed: int = 0, paradigms: bool = True) -> pd.DataFrame:
    """`effects_table`'s rows (per paradigm, unless not `paradigms`, and ALL) for `units`, as
    `effects_table` builds them."""
    rows = []
    for uid, u in (list(units.groupby("uid", sort=True)) if paradigms else []) + [(ALL, units)]:
        rows.append({"model": "m", "normalization": "lp", "uid": uid, "matched_by": "draw",
                     **decompose(u["o"].to_numpy(), u["d"].to_numpy(), u["split"].to_numpy(), u["changed"].to_numpy(),
                                 seed=seed)})
    return pd.DataFrame(rows)


def correlated(n_paradigms: int = 20, per: int = 50) -> dict:
    """Outcomes perfectly correlated within a paradigm: in paradigm k every A>U pair is right when k
    is odd and wrong when even, every A<U pair right; control turns every formerly-A>U context of
    a paradigm k with k % 4 == 0 from wrong to right (the others keep their outcome), and every
    formerly-A<U context of a paradigm k with k % 5 == 0 from right to wrong."""
    out = {}
    for k in range(n_paradigms):
        right = float(k % 2)
        longer = [("A>U", right, 1.0 if k % 4 == 0 else right)] * per
        shorter = [("A<U", 1.0, 0.0 if k % 5 == 0 else 1.0)] * per
        out[f"p{k:02d}"] = longer + shorter + [("A=U", 1.0, 1.0)] * 5
    return out


def naive_cluster_bootstrap(paradigms: dict, seed: int = 0, resamples: int = R) -> dict:
    """The cluster bootstrap by hand: draw paradigm indices (row r of rng.integers(P, size=(R, P))),
    concatenate the drawn paradigms' units, and compute the three figures from the units."""
    names = sorted(paradigms)
    arrays = [np.array([(s == "A>U", s == "A<U", o, d) for s, o, d in paradigms[n]], dtype=float) for n in names]
    idx = np.random.default_rng(seed).integers(len(names), size=(resamples, len(names)))
    values = {"gap": [], "effect_longer": [], "effect_shorter": []}
    for row in idx:
        u = np.concatenate([arrays[i] for i in row])
        longer, shorter, o, d = u[:, 0] == 1, u[:, 1] == 1, u[:, 2], u[:, 3]
        values["gap"].append(o[longer].mean() - o[shorter].mean())
        values["effect_longer"].append((d - o)[longer].mean())
        values["effect_shorter"].append((d - o)[shorter].mean())
    return {k: tuple(np.quantile(v, [0.025, 0.975])) for k, v in values.items()}


def pooled_all(effects: pd.DataFrame) -> pd.Series:
    return effects[effects["uid"] == ALL].iloc[0]


def test_perfectly_correlated_paradigms_give_the_naive_cluster_bootstrap_and_a_much_wider_interval():
    paradigms = correlated()
    units = units_frame(paradigms)
    r = pooled_all(with_clustered(effects_of(units), units))
    # gap = 1/2 - 1 (10 of 20 paradigms right on A>U); pair-level Newcombe with 1,000 pairs per direction
    assert r.gap == -0.5 and r.n_paradigms_gap == 20 and r.interval_method == "paradigm-clustered bootstrap"
    naive = naive_cluster_bootstrap(paradigms)
    for figure in ("gap", "effect_longer", "effect_shorter"):
        got = (r[f"{figure}_low_clustered"], r[f"{figure}_high_clustered"])
        assert got == pytest.approx(naive[figure], abs=1e-12), figure
        # 20 independent paradigms, not 1,000 independent pairs: several times wider
        assert got[1] - got[0] > 4 * (r[f"{figure}_high"] - r[f"{figure}_low"]), figure
    # the cluster-robust (between-paradigm) standard error of the gap: the A>U accuracy is the mean of
    # 20 paradigm accuracies of 0 or 1 (sd 1/2), A<U is 1 everywhere: half-width 1.96 * 0.5 / sqrt(20)
    # = 0.22; a resample's gap lies on the grid k/20 - 1, so the bounds agree to one step (0.05)
    half = 1.96 * 0.5 / math.sqrt(20)
    assert r.gap_low_clustered == pytest.approx(-0.5 - half, abs=0.05)
    assert r.gap_high_clustered == pytest.approx(-0.5 + half, abs=0.05)
    assert r.interval_note == ""
    # 5 paradigms gain on A>U (k % 4 == 0 and even: 0, 4, 8, 12, 16) -> effect_longer = 5 * 50 / 1000
    assert (r.effect_longer, r.effect_shorter) == pytest.approx((0.25, -0.2))


def test_one_pair_per_paradigm_the_clustered_interval_is_the_pair_level_bootstrap():
    # every paradigm holds one pair, so resampling paradigms is resampling pairs: the clustered
    # interval is the unit bootstrap (`stats.bootstrap`, same seed, same draws) and close to Newcombe's
    rng = np.random.default_rng(5)
    n = 400
    split = np.where(np.arange(n) % 2 == 0, "A>U", "A<U")
    o = np.where(split == "A>U", rng.random(n) < 0.4, rng.random(n) < 0.7).astype(float)
    paradigms = {f"p{i:03d}": [(split[i], o[i], o[i])] for i in range(n)}
    units = units_frame(paradigms)
    r = pooled_all(with_clustered(effects_of(units, paradigms=False), units))
    longer = split == "A>U"
    low, high = stats.bootstrap(lambda idx: o[idx][longer[idx]].mean() - o[idx][~longer[idx]].mean(), n)
    assert (r.gap_low_clustered, r.gap_high_clustered) == pytest.approx((low, high), abs=1e-12)
    assert (r.gap_low_clustered, r.gap_high_clustered) == pytest.approx((r.gap_low, r.gap_high), abs=0.015)
    # nothing changed: every resample gives effect 0, an interval of zero width is "cannot be estimated"
    assert math.isnan(r.effect_longer_low_clustered) and math.isnan(r.effect_shorter_high_clustered)
    assert "cannot be estimated" in r.interval_note


def test_one_paradigm_note_agrees_in_number():
    """With a single paradigm the note read "1 paradigm have A>U or A<U pairs" (seen in a report)."""
    one = {k: v for k, v in correlated(per=20).items() if k == "p00"}
    units = units_frame(one)
    r = pooled_all(with_clustered(effects_of(units), units))
    assert r.interval_note == "gap: 1 paradigm has A>U or A<U pairs, fewer than 10: no clustered interval"


def test_below_ten_paradigms_no_clustered_interval_and_a_note_and_the_words_say_pair_level():
    few = {k: v for k, v in correlated(per=20).items() if k < f"p{MIN_PARADIGMS - 1:02d}"}
    assert len(few) == MIN_PARADIGMS - 1
    units = units_frame(few)
    out = with_clustered(effects_of(units), units)
    r = pooled_all(out)
    assert all(math.isnan(r[c]) for c in CLUSTERED_COLUMNS if c.endswith("_clustered"))
    assert r.n_paradigms_gap == 9 and r.interval_method == "pair-level"
    assert r.interval_note == "gap: 9 paradigms have A>U or A<U pairs, fewer than 10: no clustered interval"
    # a paradigm's own row: one paradigm, pair-level, no note
    p = out[out["uid"] == "p00"].iloc[0]
    assert (p.n_paradigms_gap, p.interval_method, p.interval_note) == (1, "pair-level", "")
    # ten paradigms: clustered; the effect on formerly-A<U contexts comes from paradigms 0 and 5 alone
    # (the others keep their pair's outcome, so d - o = 0 but they are matched: 10 paradigms count)
    ten = {k: v for k, v in correlated(per=20).items() if k < f"p{MIN_PARADIGMS:02d}"}
    units = units_frame(ten)
    r10 = pooled_all(with_clustered(effects_of(units), units))
    assert r10.n_paradigms_gap == 10 and r10.interval_method == "paradigm-clustered bootstrap"
    assert r10.gap_low_clustered < r10.gap < r10.gap_high_clustered
    assert (r10.n_paradigms_longer, r10.n_paradigms_shorter) == (10, 10)


def test_an_effect_from_fewer_than_ten_paradigms_has_no_clustered_interval_while_the_gap_has():
    paradigms = correlated(n_paradigms=12, per=20)
    for k in range(3, 12):     # only paradigms 0-2 have a matched formerly-A<U context
        paradigms[f"p{k:02d}"] = [(s, o, np.nan if s == "A<U" else d) for s, o, d in paradigms[f"p{k:02d}"]]
    units = units_frame(paradigms)
    r = pooled_all(with_clustered(effects_of(units), units))
    assert (r.n_paradigms_gap, r.n_paradigms_longer, r.n_paradigms_shorter) == (12, 12, 3)
    assert not math.isnan(r.gap_low_clustered) and not math.isnan(r.effect_longer_low_clustered)
    assert math.isnan(r.effect_shorter_low_clustered) and math.isnan(r.effect_shorter_high_clustered)
    assert r.interval_note == ("effect_shorter: 3 paradigms have matched formerly-shorter contexts, fewer than 10: "
                               "no clustered interval")


def test_same_seed_same_numbers_and_a_weight_column_changes_nothing():
    paradigms = correlated(per=10)
    units = units_frame(paradigms)
    a = with_clustered(effects_of(units), units, seed=3)
    b = with_clustered(effects_of(units), units, seed=3)
    pd.testing.assert_frame_equal(a, b)
    c = pooled_all(with_clustered(effects_of(units), units, seed=4))
    assert c.gap_low_clustered != pooled_all(a).gap_low_clustered          # another seed, other resamples
    # survey weights on the A=U units (the A>U and A<U ones weigh 1): the clustered figures read neither
    weighted = units.assign(weight=np.where(units["split"] == "A=U", 7.5, 1.0))
    pd.testing.assert_frame_equal(with_clustered(effects_of(units), weighted, seed=3), a)


def test_cluster_bootstrap_is_nan_where_it_cannot_be_estimated():
    ratio = lambda s: s[:, 0] / s[:, 1]                                         # noqa: E731
    assert all(math.isnan(b) for b in stats.cluster_bootstrap(ratio, [[3, 4]]))     # one cluster
    assert all(math.isnan(b) for b in stats.cluster_bootstrap(ratio, np.zeros((0, 2))))
    same = stats.cluster_bootstrap(ratio, [[1, 2], [2, 4], [3, 6]])                 # every resample: 1/2
    assert all(math.isnan(b) for b in same)
    lows, highs = stats.cluster_bootstrap(lambda s: np.column_stack([ratio(s), 1 - ratio(s)]),
                                          [[1, 2], [4, 4], [0, 3], [2, 2]])
    assert lows.shape == highs.shape == (2,) and lows[0] < highs[0] and lows[1] == pytest.approx(1 - highs[0])


def test_partial_pool_by_hand_with_equal_variances():
    # x = -0.2, 0, 0.2 with v = 0.01 each: Q(tau2) = 0.08 / (0.01 + tau2) = k - 1 = 2 -> tau2 = 0.03
    # (DerSimonian-Laird gives the same: (Q(0) - 2) / (300 - 100) = (8 - 2) / 200); mu = 0,
    # B = 0.03 / 0.04 = 3/4, estimates 3/4 x; var = B v + (1 - B)² var(mu), var(mu) = 0.04 / 3
    p = partial_pool([-0.2, 0.0, 0.2, np.nan], [0.01, 0.01, 0.01, 0.01])
    assert p.tau2 == pytest.approx(0.03) and p.mean.value == pytest.approx(0.0, abs=1e-15)
    assert p.shrinkage[:3] == pytest.approx([0.75] * 3)
    assert p.estimate[:3] == pytest.approx([-0.15, 0.0, 0.15])
    half = 1.959964 * math.sqrt(0.75 * 0.01 + 0.25 ** 2 * 0.04 / 3)
    assert p.high[:3] - p.estimate[:3] == pytest.approx([half] * 3, rel=1e-6)
    assert p.mean.high == pytest.approx(1.959964 * math.sqrt(0.04 / 3), rel=1e-6)
    assert math.isnan(p.estimate[3])                                          # no figure of its own
    # no more spread than sampling explains: tau2 = 0, every cluster gets the common mean
    flat = partial_pool([0.1, 0.12, 0.08], [0.01, 0.01, 0.01])
    assert flat.tau2 == 0 and flat.estimate == pytest.approx([0.1] * 3)
    # unequal variances: Paule-Mandel's tau2 sets the generalised Q to k - 1
    x, v = np.array([-0.3, 0.1, 0.25, 0.6, 0.0]), np.array([0.02, 0.001, 0.05, 0.01, 0.2])
    t = partial_pool(x, v).tau2
    w = 1 / (v + t)
    assert (w * (x - (w * x).sum() / w.sum()) ** 2).sum() == pytest.approx(len(x) - 1)
    assert math.isnan(partial_pool([0.1], [0.01]).tau2)                # one cluster: nothing to pool


def test_a_paradigm_of_two_pairs_is_shrunk_to_the_mean_and_one_of_a_thousand_barely_moves():
    # 10 paradigms of 100 A>U and 100 A<U pairs with gaps -0.35, -0.31, ..., +0.01 (A>U right 35 + 4k
    # of 100, A<U right 70 of 100), "tiny" with 1 A>U pair (wrong) and 1 A<U pair (right): gap -1, and
    # "big" with 500 of each: gap -0.05 (A>U 300 right, A<U 325 right)
    paradigms = {}
    for k in range(10):
        paradigms[f"p{k}"] = ([("A>U", 1.0, 1.0)] * (35 + 4 * k) + [("A>U", 0.0, 0.0)] * (65 - 4 * k)
                              + [("A<U", 1.0, 1.0)] * 70 + [("A<U", 0.0, 0.0)] * 30)
    paradigms["tiny"] = [("A>U", 0.0, 0.0), ("A<U", 1.0, 1.0)]
    paradigms["big"] = [("A>U", 1.0, 1.0)] * 300 + [("A>U", 0.0, 0.0)] * 200 + [("A<U", 1.0, 1.0)] * 325 + \
        [("A<U", 0.0, 0.0)] * 175
    rows = pooled_rows(paradigm_counts(units_frame(paradigms))).set_index("uid")
    # the same from the figures worked by hand: x = own gap; v = Agresti-Caffo, p~ = (k + 1) / (n + 2):
    # tiny: p~ = 1/3 and 2/3 over 1 + 2: 2 * (2/9) / 3 = 4/27; big: (301/502)(201/502)/502 + (326/502)(176/502)/502
    x = np.array([(35 + 4 * k) / 100 - 0.7 for k in range(10)] + [-1.0, -0.05])
    v = np.array([(71 / 102) * (31 / 102) / 102 + ((36 + 4 * k) / 102) * ((66 - 4 * k) / 102) / 102 for k in range(10)]
                 + [4 / 27, (301 / 502) * (201 / 502) / 502 + (326 / 502) * (176 / 502) / 502])
    assert difference_variance(1, 1, 0, 1) == pytest.approx(4 / 27)
    ref = partial_pool(x, v)
    names = [f"p{k}" for k in range(10)] + ["tiny", "big"]
    assert rows.loc[names, "gap_pooled"].to_numpy() == pytest.approx(ref.estimate)
    assert rows.loc[ALL, "gap_pooled"] == pytest.approx(ref.mean.value)
    # the between-paradigm sd is about 0.13 (tau2 0.017): tiny's own gap weighs B = tau2 / (tau2 + 4/27),
    # about 0.1, so it moves 90% of the way to the mean; big's weighs tau2 / (tau2 + 0.00094), about 0.95
    mu, tau2 = ref.mean.value, ref.tau2
    assert 0.01 < tau2 < 0.03 and -0.2 < mu < -0.13
    assert ref.shrinkage[10] == pytest.approx(tau2 / (tau2 + 4 / 27)) and ref.shrinkage[10] < 0.15
    tiny, big = rows.loc["tiny"], rows.loc["big"]
    assert abs(tiny.gap_pooled - mu) < 0.15 * abs(-1.0 - mu)                # nearly all the way to the mean
    assert tiny.gap_pooled_high - tiny.gap_pooled_low > 0.4                  # and honestly uncertain
    assert abs(big.gap_pooled - -0.05) < 0.1 * abs(-0.05 - mu)              # keeps its own figure
    assert big.gap_pooled_low < -0.05 < big.gap_pooled_high
    assert big.gap_pooled_high - big.gap_pooled_low < tiny.gap_pooled_high - tiny.gap_pooled_low
    # a paradigm with no A<U pair has no gap of its own
    only = dict(paradigms, lonely=[("A>U", 1.0, 1.0)] * 30)
    rows = pooled_rows(paradigm_counts(units_frame(only))).set_index("uid")
    assert math.isnan(rows.loc["lonely", "gap_pooled"]) and not math.isnan(rows.loc["lonely", "effect_longer_pooled"])


def clustered_run(n_paradigms: int, per: int, seed: int = 0) -> pd.DataFrame:
    """Pair scores of an original and a debiased set: per paradigm `per` A>U, `per` A<U and `per`
    A=U contexts, every one kept with a new bad sentence of the good one's length for the unequal
    ones; a pair is right with a probability drawn per paradigm (so outcomes cluster)."""
    rng = np.random.default_rng(seed)
    rows, lengths, scores = [], {}, {}
    for p in range(n_paradigms):
        uid = f"p{p:02d}"
        skill = {"longer": rng.uniform(0.1, 0.6), "shorter": rng.uniform(0.6, 1.0), "equal": rng.uniform(0.5, 0.9)}
        for direction, (n_good, n_bad) in {"longer": (6, 5), "shorter": (5, 6), "equal": (5, 5)}.items():
            for k in range(per):
                draw = len(rows) // 2
                good, bad, new = f"{uid} {direction} good {k}", f"{uid} {direction} bad {k}", f"{uid} {direction} new {k}"
                lengths.update({good: n_good, bad: n_bad, new: n_good})
                scores.update({good: -10.0, bad: -12.0 if rng.random() < skill[direction] else -8.0,
                               new: -12.0 if rng.random() < 0.75 else -8.0})
                rows.append(("original", uid, str(draw), draw, good, bad))
                rows.append(("debiased", uid, str(draw), draw, good, bad if direction == "equal" else new))
    pairs = pd.DataFrame(rows, columns=["set", "uid", "pair_id", "draw", "sentence_good", "sentence_bad"])
    table = pd.DataFrame({"sentence": list(lengths), "n_tokens": list(lengths.values()),
                          "sum_logprob": [scores[s] for s in lengths]})
    return pair_scores(pairs, table, "m", ("lp",))


def test_the_report_uses_the_clustered_interval_in_words_and_results_json_has_its_six_columns():
    report = analyse(clustered_run(12, 15))
    h = report.headline.iloc[0]
    assert h.interval_method == "paradigm-clustered bootstrap" and h.n_paradigms_gap == 12
    gap_ci = f"[{round(100 * h.gap_low_clustered, 1) + 0.0:+.1f}, {round(100 * h.gap_high_clustered, 1) + 0.0:+.1f}]"
    assert f"{gap_ci}, 95% CI clustered by paradigm, 12 paradigms;" in h.in_words
    assert "(clustered by paradigm, 12 paradigms)" in h.in_words
    assert h.gap_high_clustered - h.gap_low_clustered > h.gap_high - h.gap_low     # (the outcomes cluster)
    md = headline_markdown(report.headline)
    assert "### The same figures with intervals clustered by paradigm" in md
    assert "| m | lp | 12 / 12 / 12 |" in md
    doc = json.loads(results_json(report))
    row = doc["headline"][0]
    for c in ("gap_low_clustered", "gap_high_clustered", "effect_longer_low_clustered", "effect_longer_high_clustered",
              "effect_shorter_low_clustered", "effect_shorter_high_clustered"):
        assert row[c] == pytest.approx(h[c]), c
    assert row["n_paradigms_gap"] == 12 and row["interval_method"] == "paradigm-clustered bootstrap"
    assert {"gap_pooled", "gap_pooled_low", "gap_pooled_high"} <= set(doc["effects"][0])
    # four paradigms: the words say pair-level and give Newcombe's interval; JSON has null
    small = analyse(clustered_run(4, 15))
    s = small.headline.iloc[0]
    assert f"{round(100 * s.gap_high, 1) + 0.0:+.1f}], 95% CI pair-level;" in s.in_words
    assert "(pair-level)" in s.in_words
    row = json.loads(results_json(small))["headline"][0]
    assert row["gap_low_clustered"] is None and row["interval_method"] == "pair-level"
    assert "fewer than 10" in row["interval_note"]
    assert set(POOLED_COLUMNS) <= set(small.effects.columns)
