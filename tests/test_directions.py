"""The token-length bias by direction (issue 33): the gap A>U - A<U on the original set and what
length control did to the contexts of each direction, on scorers whose behaviour is known by
construction (one that prefers the shorter sentence and nothing else, one blind to length) and on a
random tiny causal model, which prefers fewer tokens because every token costs it about log(V)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import fairpairs as fp
from fairpairs import stats
from fairpairs.analysis.evaluation import analyse, pair_scores

N = 60    # contexts per direction


def controlled_run(score_of, seed: int = 0, n: int = N) -> pd.DataFrame:
    """An original set of n A>U (good 6 tokens, bad 5), N A<U (5 vs 6) and N A=U (5 vs 5) contexts,
    and its debiased set: every context kept (same draw, same good sentence), the unequal ones with
    a new bad sentence of the good one's length, the A=U ones with their pair unchanged. `score_of(n_tokens,
    rng)` scores a sentence; the pair scores of the whole run."""
    rng = np.random.default_rng(seed)
    rows, lengths = [], {}
    for direction, (n_good, n_bad) in {"longer": (6, 5), "shorter": (5, 6), "equal": (5, 5)}.items():
        for k in range(n):
            draw = len(rows) // 2
            good, bad, new_bad = f"{direction} good {k}", f"{direction} bad {k}", f"{direction} new bad {k}"
            lengths.update({good: n_good, bad: n_bad, new_bad: n_good})
            rows.append(("original", "p", str(draw), draw, good, bad))
            rows.append(("debiased", "p", str(draw), draw, good, bad if direction == "equal" else new_bad))
    pairs = pd.DataFrame(rows, columns=["set", "uid", "pair_id", "draw", "sentence_good", "sentence_bad"])
    sentences = sorted(lengths)
    scores = pd.DataFrame({"sentence": sentences, "n_tokens": [lengths[s] for s in sentences],
                           "sum_logprob": [score_of(lengths[s], rng) for s in sentences]})
    return pair_scores(pairs, scores, "m", ("lp",))


def test_a_scorer_that_prefers_the_shorter_sentence_has_gap_minus_100_and_opposite_direction_effects():
    # score = -tokens + noise in [0, 0.5): the shorter sentence always wins; equal lengths are a coin toss
    h = analyse(controlled_run(lambda n, rng: -n + 0.5 * rng.random())).headline.iloc[0]
    # original: every A>U pair wrong, every A<U pair right
    assert (h.n_longer, h.n_shorter, h.n_equal) == (N, N, N)
    assert (h.acc_longer, h.acc_shorter) == (0.0, 1.0)
    assert h.gap == -1.0 and h.gap_high < -0.9 and h.gap_low < h.gap_high
    # controlled: the formerly-A>U contexts gain (0 -> about 1/2), the formerly-A<U ones lose (1 -> about 1/2)
    assert h.effect_longer > 0 and h.effect_longer_low > 0
    assert h.effect_shorter < 0 and h.effect_shorter_high < 0
    # the A=U contexts kept their pair: they cannot move, and their interval is not a zero-width "certainty"
    assert h.effect_equal == 0.0 and h.n_equal_changed == 0
    assert h.effect_equal_low < 0 < h.effect_equal_high and h.effect_equal_p == 1.0
    # the changed contexts are the unequal ones: (N * effect_longer + N * effect_shorter) / 2N
    assert h.n_matched_changed == 2 * N
    assert h.effect_changed == pytest.approx((h.effect_longer + h.effect_shorter) / 2)
    assert "A>U pairs score 100.0 points below A<U pairs (gap -100.0 [" in h.in_words
    assert "raised the formerly-A>U contexts" in h.in_words and "lowered the formerly-A<U contexts" in h.in_words


def test_a_scorer_blind_to_length_shows_no_gap_and_no_effect():
    # random scores: every accuracy about 1/2; with 400 contexts per direction a difference of two
    # accuracies has a standard error of about 0.035, so "within noise" is |x| < 0.15 (over 4 of them)
    h = analyse(controlled_run(lambda n, rng: rng.normal(), n=400)).headline.iloc[0]
    assert abs(h.gap) < 0.15 and h.gap_high - h.gap_low < 0.2
    for name in ("longer", "shorter", "changed"):
        assert abs(getattr(h, f"effect_{name}")) < 0.15, name
    assert h.effect_equal == 0.0


def test_newcombe_paired_interval_without_correlation_is_the_unpaired_one():
    # a = 5 right both times, b = 2 right only before, c = 3 right only after, d = 2 neither (n = 12):
    # ad - bc = 10 - 6 = 4 <= n/2, so Newcombe's continuity-corrected phi is 0 and his paired interval
    # (method 10) reduces to the unpaired hybrid score interval of (a+c)/n minus (a+b)/n
    before = np.array([1] * 5 + [1] * 2 + [0] * 3 + [0] * 2, dtype=float)
    after = np.array([1] * 5 + [0] * 2 + [1] * 3 + [0] * 2, dtype=float)
    got = stats.newcombe_paired(before, after)
    ref = stats.newcombe(7, 12, 8, 12)
    assert (got.value, got.low, got.high) == pytest.approx((1 / 12, ref.low, ref.high))
    # McNemar on 3 gained vs 2 lost: 2 * P(X <= 2), X ~ Bin(5, 1/2) = 2 * 16/32 = 1
    assert got.p_value == 1.0
    # positive correlation narrows the interval: the same margins with more concordant units
    before2 = np.r_[np.ones(30), np.zeros(30), [1.0] * 2, [0.0] * 3]
    after2 = np.r_[np.ones(30), np.zeros(30), [0.0] * 2, [1.0] * 3]
    paired, unpaired = stats.newcombe_paired(before2, after2), stats.newcombe(32, 65, 33, 65)
    assert paired.high - paired.low < unpaired.high - unpaired.low
    # nothing moved: the interval keeps a width (a bootstrap would say [0, 0])
    same = stats.newcombe_paired(np.ones(20), np.ones(20))
    assert same.value == 0 and same.low < 0 < same.high
    assert math.isnan(stats.newcombe_paired([], []).value)
    with pytest.raises(ValueError, match="0/1"):
        stats.newcombe_paired([0.5], [1.0])


def test_a_random_tiny_causal_model_on_a_run_controlled_for_it_has_a_strongly_negative_gap(tiny_models, tmp_path,
                                                                                          one_torch_thread):
    # a random model spends about log(vocabulary) per token, so it prefers the sentence with fewer tokens
    report = fp.evaluate(models=[tiny_models["gpt2"]], normalize="lp", pairs=25, seed=0,
                         paradigms=["left_branch_island_echo_question", "inchoative", "causative",
                                    "animate_subject_trans"], run_dir=tmp_path / "run")
    h = report.headline.iloc[0]
    assert h.n_longer >= 10 and h.n_shorter >= 10
    assert h.gap < -0.5 and h.gap_high < -0.5
    assert h.effect_shorter < 0 and h.effect_shorter_high < 0      # control takes its free wins away
    assert h.effect_longer >= 0
