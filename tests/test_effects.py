"""The length/selection decomposition of `fairpairs.analysis.effects` on a hand-built original and debiased
set whose every figure is worked out by hand in the comments."""

from __future__ import annotations

import math
from fractions import Fraction as F

import numpy as np
import pandas as pd
import pytest

from fairpairs import stats
from fairpairs.analysis.directions import headline_table
from fairpairs.analysis.draws import attach_draws
from fairpairs.analysis.effects import decompose, effects_table, match_units
from fairpairs.analysis.evaluation import analyse, pair_scores
from fairpairs.analysis.headline import headline_markdown
from references import pairs_frame, scored

def row(df, uid):
    sel = df[df["uid"] == uid]
    assert len(sel) == 1
    return sel.iloc[0]


def test_decomposition_by_draw_matches_the_hand_computation():
    e = effects_table(scored(), seed=0)
    p = row(e, "p")
    assert p.matched_by == "draw"
    # original p: correct g0, g3, g4; wrong g1; tie g2 -> 3/5. Debiased p: correct g0, g1, h5 -> 3/5.
    # matched (same draw and good sentence): draws 0, 1, 2 -> original 1, 0, 0 (1/3); debiased 1, 1, 0 (2/3).
    # debiased draw 3 ("g4") is a replaced context: unmatched, though its good sentence is in the original set.
    assert (p.n_original, p.n_debiased, p.n_matched, p.n_original_only, p.n_debiased_only) == (5, 5, 3, 2, 2)
    assert p.original == pytest.approx(0.6) and p.debiased == pytest.approx(0.6)
    assert p.matched_original == pytest.approx(1 / 3) and p.matched_debiased == pytest.approx(2 / 3)
    # change 3/5 - 3/5 = 0; selection 1/3 - 3/5 = -4/15; length 2/3 - 1/3 = 1/3; remainder 3/5 - 2/3 = -1/15
    assert p.change == pytest.approx(0)
    assert p.selection == pytest.approx(float(F(-4, 15)))
    assert p.length == pytest.approx(1 / 3)
    assert p.remainder == pytest.approx(float(F(-1, 15)))
    # McNemar on the matched contexts: one 0 -> 1 (draw 1), none 1 -> 0: p = 2 * P(X <= 0), X ~ Bin(1, 1/2) = 1
    assert (p.n_gained, p.n_lost, p.length_p) == (1, 0, 1.0)
    # Wilson 95% of 3/5 (z = 1.959964): centre (0.6 + z²/10) / (1 + z²/5) = 0.55654, half-width
    # z * sqrt(0.24/5 + z²/100) / (1 + z²/5) = 0.32583 -> [0.2307, 0.8824]
    assert (round(p.original_low, 4), round(p.original_high, 4)) == (0.2307, 0.8824)

    q = row(e, "q")
    # q: original 1/2, debiased 2/2, all matched: selection 0, length +1/2, remainder 0; every resample
    # gives remainder 0 and selection 0, an interval of zero width: not estimated (NaN), never "[0, 0]"
    assert (q.n_matched, q.change, q.selection, q.length, q.remainder) == (2, 0.5, 0.0, 0.5, 0.0)
    assert math.isnan(q.remainder_low) and math.isnan(q.remainder_high) and math.isnan(q.selection_low)

    a = row(e, "ALL")
    # pooled: original (3 + 1) / 7, debiased (3 + 2) / 7; matched 5: original 1,0,0,1,0 = 2/5, debiased
    # 1,1,0,1,1 = 4/5. change 1/7; selection 2/5 - 4/7 = -6/35; length 2/5 = 14/35; remainder 5/7 - 4/5 = -3/35
    assert a.original == pytest.approx(4 / 7) and a.debiased == pytest.approx(5 / 7)
    assert a.change == pytest.approx(1 / 7)
    assert a.selection == pytest.approx(-6 / 35)
    assert a.length == pytest.approx(14 / 35)
    assert a.remainder == pytest.approx(-3 / 35)
    # McNemar pooled: 2 gained (p draw 1, q draw 1), 0 lost: 2 * (1/2)^2 = 0.5
    assert (a.n_gained, a.n_lost, a.length_p) == (2, 0, 0.5)


def test_without_draws_contexts_match_on_the_good_sentence():
    e = effects_table(scored(with_draw=False))
    p = row(e, "p")
    assert p.matched_by == "good sentence"
    # now debiased "g4" matches original draw 4 (correct there, wrong in the debiased set):
    # matched original 1, 0, 0, 1 = 1/2, debiased 1, 1, 0, 0 = 1/2; selection 1/2 - 3/5 = -1/10,
    # length 0, remainder 3/5 - 1/2 = +1/10
    assert p.n_matched == 4
    assert (p.selection, p.length, p.remainder) == pytest.approx((-0.1, 0.0, 0.1))


def test_parts_add_up_and_intervals_hold_their_estimates():
    rng = np.random.default_rng(5)
    rows = []
    for uid in ("u1", "u2", "u3"):
        for k in range(60):
            rows.append(("original", uid, str(k), k, f"{uid}g{k}", f"{uid}b{k}"))
            if rng.random() < 0.8:    # kept: the same context
                rows.append(("debiased", uid, str(k), k, f"{uid}g{k}", f"{uid}c{k}"))
            else:                     # replaced by a new context
                rows.append(("debiased", uid, str(k), k, f"{uid}h{k}", f"{uid}c{k}"))
    pairs = pd.DataFrame(rows, columns=["set", "uid", "pair_id", "draw", "sentence_good", "sentence_bad"])
    sentences = sorted(set(pairs.sentence_good) | set(pairs.sentence_bad))
    scores = pd.DataFrame({"sentence": sentences, "n_tokens": 5,
                           "sum_logprob": rng.integers(-20, -5, len(sentences)).astype(float)})
    ps = pair_scores(pairs, scores, "m", ("lp",))
    e1, e2 = effects_table(ps, seed=3), effects_table(ps, seed=3)
    pd.testing.assert_frame_equal(e1, e2)            # seeded: the same intervals
    for r in e1.itertuples():
        assert r.change == pytest.approx(r.selection + r.length + r.remainder, abs=1e-12)
        for part in ("change", "selection", "length", "remainder", "original", "debiased"):
            assert getattr(r, f"{part}_low") <= getattr(r, part) + 1e-12 <= getattr(r, f"{part}_high") + 2e-12
    a = row(e1, "ALL")
    # the paired interval of `length` is Newcombe's for paired proportions, over the matched contexts
    u = ps.assign(c=(ps.outcome == 1).astype(float))
    o = u[u.set == "original"].set_index(["uid", "draw"])
    d = u[u.set == "debiased"].set_index(["uid", "draw"])
    both = o.index[o.sentence_good.to_numpy() == d.loc[o.index, "sentence_good"].to_numpy()]
    est = stats.newcombe_paired(o.loc[both, "c"].to_numpy(), d.loc[both, "c"].to_numpy())
    assert (a.length, a.length_low, a.length_high, a.length_p) == pytest.approx((est.value, est.low, est.high,
                                                                                est.p_value))


def test_decompose_joint_bootstrap_agrees_with_resampling_units():
    # the counts bootstrap of change/selection/remainder against a plain one over units, done here
    rng = np.random.default_rng(0)
    o = np.r_[(rng.random(300) < 0.7), (rng.random(100) < 0.5), np.full(100, np.nan)].astype(float)
    d = np.r_[(rng.random(300) < 0.8), np.full(100, np.nan), (rng.random(100) < 0.6)].astype(float)
    got = decompose(o, d, seed=1)
    kinds = [np.arange(300), np.arange(300, 400), np.arange(400, 500)]
    sel = []
    for _ in range(2000):
        idx = np.concatenate([k[rng.integers(len(k), size=len(k))] for k in kinds])
        oo, dd = o[idx], d[idx]
        sel.append(np.nanmean(oo[:300]) - np.nanmean(oo))
    lo, hi = np.quantile(sel, [0.025, 0.975])
    assert got["selection_low"] == pytest.approx(lo, abs=0.01)
    assert got["selection_high"] == pytest.approx(hi, abs=0.01)


def test_headline_gives_the_bias_and_the_effect_of_control_by_direction_worked_by_hand():
    report = analyse(scored())
    h = report.headline
    assert len(h) == 1
    r = h.iloc[0]
    # The original set by direction (the model's own lengths, good vs bad tokens):
    #   A>U: p1 (6 vs 5, wrong)                         -> 0 of 1
    #   A<U: p2 (5 vs 6, tie), q1 (4 vs 5, wrong)       -> 0 of 2
    #   A=U: p0, p3, p4, q0 (all correct)               -> 4 of 4
    # gap = 0/1 - 0/2 = 0, with Newcombe's interval for the two proportions (stats.newcombe, checked
    # against Newcombe's published example in test_stats)
    assert (r.n_longer, r.n_shorter, r.n_equal) == (1, 2, 4)
    assert (r.acc_longer, r.acc_shorter, r.acc_equal) == (0.0, 0.0, 1.0)
    g = stats.newcombe(0, 2, 0, 1)
    assert (r.gap, r.gap_low, r.gap_high) == (0.0, g.low, g.high) and g.low < 0 < g.high
    # Wilson lower bound for 4/4: 1 / (1 + z²/4) = 0.5101
    assert round(r.acc_equal_low, 4) == 0.5101 and r.acc_equal_high == 1.0
    # The matched contexts by the direction of their original pair (original -> debiased outcome):
    #   A>U: p1 0 -> 1                                   effect_longer  = +1     (n 1)
    #   A<U: p2 0 -> 0, q1 0 -> 1                        effect_shorter = +1/2   (n 2)
    #   A=U: p0 1 -> 1 (same pair), q0 1 -> 1 (l0 -> m0) effect_equal   = 0      (n 2, 1 with a new bad sentence)
    #   changed (bad sentence replaced): p1, p2, q0, q1: 0,0,1,0 -> 1,0,1,1 = +2/4 (n 4)
    assert (r.effect_longer, r.effect_shorter, r.effect_equal, r.effect_changed) == (1.0, 0.5, 0.0, 0.5)
    assert (r.n_matched_longer, r.n_matched_shorter, r.n_matched_equal, r.n_matched_changed) == (1, 2, 2, 4)
    assert r.n_equal_changed == 1
    # McNemar: longer 1 gained 0 lost -> p 1; changed 2 gained 0 lost -> 2 * (1/2)^2 = 0.5
    assert (r.effect_longer_p, r.effect_changed_p) == (1.0, 0.5)
    # shares 1/5, 2/5, 2/5: 1/5 * 1 + 2/5 * 1/2 + 2/5 * 0 = 2/5 = length (14/35 in the test above)
    assert (r.share_longer, r.share_shorter, r.share_equal) == pytest.approx((0.2, 0.4, 0.4))
    assert r.length == pytest.approx(0.4) and r.n_matched == 5
    # no interval has zero width, not even A=U's "nothing moved" (Newcombe's paired interval)
    for name in ("longer", "shorter", "equal", "changed"):
        assert getattr(r, f"effect_{name}_low") < getattr(r, f"effect_{name}") < getattr(r, f"effect_{name}_high") \
            or getattr(r, f"effect_{name}") == 1.0
    assert r.effect_equal_low < 0 < r.effect_equal_high
    assert math.isnan(r.distinct_ratio)                       # not a run folder: no balance report
    # every direction has fewer than 10 pairs: the report says so instead of printing a figure
    text = headline_markdown(h)
    assert "too few pairs to compare A>U with A<U pairs (n = 1 and 2;" in r.in_words
    assert "| A | lp | too few pairs (n = 1) |" in text and "+100.0" not in text.split("### The net")[0]
    assert "+14.3 = [0.20 × (+100.0) + 0.40 × (+50.0) + 0.40 × (+0.0) = +40.0] − 17.1 (selection) − 8.6 (remainder)" \
        in text
    bal = pd.DataFrame({"uid": ["p", "ALL"], "distinct_ratio": [0.5, 0.75]})
    assert headline_table(report.effects, bal).iloc[0].distinct_ratio == 0.75


def test_the_net_change_is_the_sum_of_direction_effects_plus_selection_and_remainder():
    rng = np.random.default_rng(11)
    n = 400
    o = (rng.random(n) < 0.6).astype(float)
    d = (rng.random(n) < 0.7).astype(float)
    o[rng.random(n) < 0.1] = np.nan                       # debiased-only units
    d[(rng.random(n) < 0.1) & ~np.isnan(o)] = np.nan     # original-only units
    split = rng.choice(["A=U", "A>U", "A<U"], n)
    changed = (rng.random(n) < 0.5).astype(float)
    r = decompose(o, d, split, changed)
    by_direction = sum(r[f"share_{k}"] * r[f"effect_{k}"] for k in ("longer", "shorter", "equal"))
    assert by_direction == pytest.approx(r["length"], abs=1e-12)
    assert r["change"] == pytest.approx(by_direction + r["selection"] + r["remainder"], abs=1e-12)
    # the effects by hand, one direction: debiased minus original mean over matched units of that direction
    m = ~np.isnan(o) & ~np.isnan(d) & (split == "A<U")
    assert r["effect_shorter"] == pytest.approx(d[m].mean() - o[m].mean())
    assert r["n_matched_shorter"] == m.sum()


def test_match_units_pairs_repeated_good_sentences_one_to_one():
    df = pd.DataFrame({"set": ["original", "original", "debiased"], "uid": "u", "sentence_good": ["x", "x", "x"]})
    labels, how = match_units(df)
    assert how == "good sentence"
    assert labels[0] == labels[2] and labels[1] != labels[2]   # first with first; the second is unmatched


def test_attach_draws_from_records():
    sets = {"original": pairs_frame(False).query("set == 'original'").drop(columns="set").reset_index(drop=True),
            "debiased": pairs_frame(False).query("set == 'debiased'").drop(columns="set").reset_index(drop=True)}
    data = {name: [{"draw": d} for d in pairs_frame().query("set == @name")["draw"]] for name in sets}
    out = attach_draws(sets, data)
    assert out["debiased"]["draw"].tolist() == [0, 1, 2, 3, 5, 0, 1]
    assert "draw" not in attach_draws(sets, {"original": [{}] * 7, "debiased": [{}] * 7})["original"].columns


class CharScorer:
    """A stand-in language model written plainly here: log p = -2 per character, one token per word."""

    def score(self, sentences, normalize=(), unigrams=None):
        return pd.DataFrame([{"sentence": s, "sum_logprob": -2.0 * len(s), "n_tokens": len(s.split()),
                              "n_words": len(s.split())} for s in sentences])


def test_a_run_folder_is_matched_by_draw_and_its_balance_is_in_the_headline(tmp_path):
    import json

    import fairpairs as fp

    run = tmp_path / "run"
    fp.generate_run(run, paradigms=["animate_subject_trans", "principle_A_domain_3"], pairs=40, seed=1)
    report = fp.evaluate(run, ["toy"], normalize="lp", load_scorer=lambda m, s: CharScorer())
    # "toy" names no tokenizer: the report says the control could not be checked (no warning)
    assert any(line.startswith("Model toy: its tokenizer could not be loaded") for line in report.notes)
    e = report.effects
    assert set(e["matched_by"]) == {"draw"}
    for uid in ("animate_subject_trans", "principle_A_domain_3"):
        deb = [json.loads(line) for line in (run / "debiased" / f"{uid}.jsonl").read_text().splitlines()]
        orig = {r["draw"]: r["sentence_good"] for r in
                (json.loads(line) for line in (run / "original" / f"{uid}.jsonl").read_text().splitlines())}
        # a matched context is a debiased row that kept its draw's context (control as_drawn or bad_redrawn)
        # and whose draw is in the original set
        kept = sum(r["control"] != "replaced" and orig.get(r["draw"]) == r["sentence_good"] for r in deb)
        assert row(e, uid).n_matched == kept
        assert row(e, uid).n_matched < 40          # these paradigms replace contexts (docs/length_control.md)
        # fp.matched_pairs: the same join, so a user's own analysis has the report's n
        m = fp.matched_pairs(run)
        mine = m[m.uid == uid]
        assert len(mine) == kept
        assert all(orig[d] == g for d, g in zip(mine["draw"], mine["sentence_good"]))
        by_draw = {r["draw"]: r for r in deb}
        assert list(mine["changed"]) == [by_draw[d]["control"] != "as_drawn" for d in mine["draw"]]
    assert set(m["matched_by"]) == {"draw"}
    bal = fp.balance(run)
    assert report.headline.iloc[0].distinct_ratio == bal.loc[bal.uid == "ALL", "distinct_ratio"].item()
