"""The length-robustness test bed (`fp.robustness`, `fairpairs robustness`): its figures on pair
tables built by hand, end to end with a stub LM whose log-probabilities are known (uniform: every
token costs log V), and the command's errors."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from references import stub_scorer

FIXTURES = Path(__file__).parent / "fixtures"


def table(rows, set_name="original"):
    """A pair table: (uid, good, split, lp outcome, score outcome) per row."""
    return pd.DataFrame([{"set": set_name, "uid": u, "pair_id": str(i), "sentence_good": g, "sentence_bad": g + "x",
                          "split": s, "lp": a, "score": b} for i, (u, g, s, a, b) in enumerate(rows)])


def test_gap_and_fidelity_by_hand():
    from fairpairs.analysis.score_robustness import gap_estimate, measure

    pt = table([("u", "a", "A>U", 0, 1), ("u", "b", "A>U", 0, 1), ("u", "c", "A>U", 1, 1), ("u", "d", "A>U", 0, 0),
                ("u", "e", "A<U", 1, 1), ("u", "f", "A<U", 1, 0),
                ("u", "g", "A=U", 1, 1), ("u", "h", "A=U", 0, 1), ("u", "i", "A=U", 0, 1), ("u", "j", "A=U", 1, 1)])
    row = measure(pt, "score")
    assert (row["n_all"], row["acc_all"]) == (10, 0.8)
    assert (row["n_longer"], row["acc_longer"], row["n_shorter"], row["acc_shorter"]) == (4, 0.75, 2, 0.5)
    assert (row["n_equal"], row["acc_equal"]) == (4, 1.0)
    assert row["gap"] == pytest.approx(0.25)
    assert row["gap_low"] <= 0.25 <= row["gap_high"] and row["gap_low"] < row["gap_high"]
    # A=U: LP right on 2 of 4, the score on 4 of 4, on the same pairs: +0.5; two discordant pairs
    # both one way: exact McNemar p = 2 * 0.5^2 = 0.5
    assert row["fidelity"] == pytest.approx(0.5)
    assert row["fidelity_p"] == pytest.approx(0.5)
    lp_row = measure(pt, "lp")
    assert lp_row["gap"] == pytest.approx(0.25 - 1.0)
    # LP against itself: 0, and an interval that keeps a width (Newcombe's paired interval; the
    # bootstrap used before gave a zero-width [0, 0], which claims certainty from 4 pairs)
    assert lp_row["fidelity"] == 0.0 and lp_row["fidelity_low"] < 0.0 < lp_row["fidelity_high"]
    assert lp_row["fidelity_p"] == 1.0
    # one split empty: no gap
    assert all(math.isnan(x) for x in gap_estimate(np.array([1, 0]), np.array(["A>U", "A=U"])))


def test_the_gap_interval_is_newcombes_as_in_the_evaluation_report():
    """The same statistic as the evaluation headline's gap: Newcombe's interval, which keeps a width
    where a split is always right (a bootstrap would not move it)."""
    from fairpairs import stats
    from fairpairs.analysis.score_robustness import gap_estimate

    correct = np.array([1] * 30 + [0] * 15 + [1] * 15)
    split = np.array(["A>U"] * 30 + ["A<U"] * 30)
    value, low, high = gap_estimate(correct, split)
    ref = stats.newcombe(15, 30, 30, 30)
    assert (value, low, high) == pytest.approx((0.5, ref.low, ref.high))
    # A>U all wrong, A<U all right: -1, but not "[-100, -100]"
    value, low, high = gap_estimate(np.array([0] * 20 + [1] * 20), np.array(["A>U"] * 20 + ["A<U"] * 20))
    assert value == -1.0 and low == -1.0 and high > -1.0


def test_original_against_lp_on_the_matched_debiased_contexts():
    from fairpairs.analysis.score_robustness import measure

    orig = table([("u", "g1", "A>U", 0, 1), ("u", "g2", "A<U", 1, 0), ("u", "g3", "A>U", 0, 1),
                  ("v", "g1", "A=U", 1, 1)])
    deb = table([("u", "g1", "A=U", 0, 0), ("u", "g2", "A=U", 0, 1), ("u", "g4", "A=U", 1, 1)], "debiased")
    row = measure(orig, "score", debiased=deb)
    # matched: (u, g1) and (u, g2); the score on the original pairs 1, 0; LP on the debiased 0, 0
    assert row["n_matched"] == 2
    assert row["vs_debiased_lp"] == pytest.approx(0.5)
    # the score's own effect of control by the original pair's direction: (u, g1) was A>U, the score
    # right on it (1) and wrong on its debiased pair (0): -1; (u, g2) A<U, 0 -> 1: +1
    assert (row["effect_longer"], row["n_matched_longer"]) == (-1.0, 1)
    assert (row["effect_shorter"], row["n_matched_shorter"]) == (1.0, 1)
    assert row["n_matched_equal"] == 0


@pytest.fixture(scope="module")
def uniform():
    """A stub LM with uniform next-token distributions over GPT-2's vocabulary: LP = -n log V."""
    from fairpairs.tokenization.lengths import load_tokenizer

    tok = load_tokenizer("gpt2")
    return tok, stub_scorer(tok, {})


def write_pairs(path: Path, pairs) -> Path:
    path.write_text("".join(json.dumps({"sentence_good": g, "sentence_bad": b, "UID": "p", "pairID": str(i)}) + "\n"
                            for i, (g, b) in enumerate(pairs)), encoding="utf-8")
    return path


PAIRS = [("The cat sat on the mat.", "The cat sat on a mat."),         # A=U (7 / 7)
         ("The souvenirs arrived.", "The cat arrived."),               # A>U
         ("Dogs ran.", "The dogs ran far away.")]                     # A<U


def test_robustness_end_to_end_with_known_log_probabilities(uniform, tmp_path):
    import fairpairs as fp

    tok, scorer = uniform
    n = [[len(tok(s, add_special_tokens=False)["input_ids"]) for s in p] for p in PAIRS]
    assert n[0][0] == n[0][1] and n[1][0] > n[1][1] and n[2][0] < n[2][1]
    V = len(tok)
    params = {"intercept": 0.0, "delta_token": -math.log(V) - 0.1, "delta_word": 0.0, "beta_unigram": 0.0,
              "slln_alpha": 1.0}
    data = write_pairs(tmp_path / "p.jsonl", PAIRS)
    out = fp.robustness(data, ["stub"], length_params=params, load_scorer=lambda m, s: scorer)
    got = out.set_index("score")
    # LP = -n log V: the shorter sentence wins, equal lengths tie (a tie is not right)
    assert got.loc["lp", ["acc_equal", "acc_longer", "acc_shorter", "gap"]].tolist() == [0.0, 0.0, 1.0, -1.0]
    # SLLN-LP with alpha 1 is MeanLP
    assert got.loc["slln_lp", "acc_all"] == got.loc["mean_lp", "acc_all"]
    # tc_lp adds back log V + 0.1 per token: 0.1 n, so the longer sentence wins
    assert got.loc["tc_lp", ["acc_equal", "acc_longer", "acc_shorter", "gap"]].tolist() == [0.0, 1.0, 0.0, 1.0]
    assert not got.loc["morcela", "available"] and "morcela_params" in got.loc["morcela", "note"]
    assert got.loc["lp", "fitted_on"] == "nothing"


def test_robustness_cli(tiny_models, tmp_path, fairpairs_cli):
    data = write_pairs(tmp_path / "p.jsonl", PAIRS)
    from fairpairs.scoring.length import length_identity

    params = tmp_path / "len.json"
    params.write_text(json.dumps({"format": "fairpairs-length/1", "models": {"x": {
        "intercept": 0, "delta_token": -1, "delta_word": 0, "beta_unigram": 0.5, "slln_alpha": 0.8,
        **length_identity(tiny_models["gpt2"])}}}))
    out = tmp_path / "rep"
    code, stdout, err = fairpairs_cli("robustness", "--models", tiny_models["gpt2"], "--data", data, "--length-params",
                                      params, "--out", out, "--cache-dir", tmp_path / "cache")
    assert code == 0, err
    assert "| tc_lp |" in stdout and "| word_lp |" in stdout
    csv = pd.read_csv(out / "robustness.csv")
    assert len(csv) == 12 and set(csv["score"]) >= {"lp", "tc_lp", "word_lp", "centered_lp", "slln_lp"}
    assert (out / "robustness.md").read_text().startswith("# fairpairs length-robustness report")
    # the second run reads every score from the cache (the model is not loaded again)
    code, stdout2, _ = fairpairs_cli("robustness", "--models", tiny_models["gpt2"], "--data", data, "--length-params",
                                     params, "--cache-dir", tmp_path / "cache")
    assert code == 0 and stdout2 == stdout


def test_robustness_cli_errors(tmp_path, fairpairs_cli):
    data = write_pairs(tmp_path / "p.jsonl", PAIRS)
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "other"}')
    code, _, err = fairpairs_cli("robustness", "--models", "gpt2", "--data", data, "--length-params", bad)
    assert code == 1 and err.count("\n") == 1 and "--length-params" in err and "fairpairs-length/1" in err
    code, _, err = fairpairs_cli("robustness", "--models", "gpt2", "--data", tmp_path / "none.jsonl")
    assert code == 1 and err.count("\n") == 1 and "none.jsonl" in err
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("x")
    code, _, err = fairpairs_cli("robustness", "--models", "gpt2", "--data", data, "--out", mine)
    assert code == 1 and err.count("\n") == 1 and "--out" in err
    assert (mine / "notes.txt").read_text() == "x"


def test_masked_models_have_no_word_scores_and_are_read_from_the_cache(tiny_models, tmp_path):
    import fairpairs as fp

    data = write_pairs(tmp_path / "p.jsonl", PAIRS)
    params = {"intercept": 0, "delta_token": -1, "delta_word": 0, "beta_unigram": 0.5, "slln_alpha": 0.8}
    first = fp.robustness(data, [tiny_models["bert"]], cache_dir=tmp_path / "c", length_params=params)
    got = first.set_index("score")
    for score in ("word_lp", "word_mean_lp", "centered_lp", "entropy_lp"):
        assert not got.loc[score, "available"] and got.loc[score, "note"] == "needs a causal LM"
    assert got.loc[["lp", "slor", "tc_lp", "slln_lp"], "available"].all()

    def no_loading(model, settings):
        raise AssertionError("the model was loaded although its scores are cached")

    again = fp.robustness(data, [tiny_models["bert"]], cache_dir=tmp_path / "c", length_params=params,
                          load_scorer=no_loading)
    pd.testing.assert_frame_equal(first, again)


def test_evaluate_offers_tcf_lp_only_where_length_parameters_exist(tiny_models, tmp_path):
    import fairpairs as fp
    from fairpairs.errors import ModelError

    data = write_pairs(tmp_path / "p.jsonl", PAIRS)

    def no_loading(model, settings):
        raise AssertionError("the model was loaded before the arguments were checked")

    with pytest.raises(ModelError, match="fitted for model '.*' .*, not for model .*tiny-gpt2"):
        fp.evaluate(data, [tiny_models["gpt2"]], normalize="lp,tcf_lp", load_scorer=no_loading)


@pytest.mark.slow
def test_smollm2_tcf_lp_in_evaluate_is_the_bundled_formula(tmp_path):
    import fairpairs as fp
    from fairpairs.scoring.length import ASSET, read_params_file

    data = write_pairs(tmp_path / "p.jsonl", PAIRS)
    report = fp.evaluate(data, ["smollm2-135m"], normalize="lp,slor,tcf_lp", device="cpu")
    p = read_params_file(ASSET)["smollm2-135m"]
    ps = report.pairs
    lp = ps[ps["normalization"] == "lp"].reset_index(drop=True)
    tcf = ps[ps["normalization"] == "tcf_lp"].reset_index(drop=True)
    slor = ps[ps["normalization"] == "slor"].reset_index(drop=True)
    for side in ("good", "bad"):
        n = lp[f"len_{side}"].to_numpy(float)
        u = lp[f"score_{side}"].to_numpy(float) - slor[f"score_{side}"].to_numpy(float) * n   # U = LP - n SLOR
        w = lp[f"sentence_{side}"].map(lambda s: len(s.split())).to_numpy(float)
        expect = lp[f"score_{side}"] - p["delta_token"] * n - p["delta_word"] * w - p["beta_unigram"] * u
        assert np.allclose(tcf[f"score_{side}"], expect, atol=1e-6)


def test_the_markdown_follows_evaluates_small_sample_rule():
    """Issue 46: no figure from 3 to 8 pairs printed as a number. 3 A>U pairs: the gap and the A>U
    accuracy say "too few pairs (n = 3)"; the A<U and A=U figures (12 pairs each) are printed."""
    from fairpairs.analysis.score_robustness import markdown, measure

    rows = [("u", f"l{i}", "A>U", i % 2, 1) for i in range(3)]
    rows += [("u", f"s{i}", "A<U", 1, i % 3 > 0) for i in range(12)]
    rows += [("u", f"e{i}", "A=U", 1, i % 4 > 0) for i in range(12)]
    row = measure(table(rows), "score")
    assert row["n_longer"] == 3 and not math.isnan(row["gap"])       # (the CSV keeps the figure)
    text = markdown(pd.DataFrame([{"model": "m", "set": "original", "score": "score", "fitted_on": "-",
                                   "available": True, "note": "", **row}]))
    line = [ln for ln in text.splitlines() if ln.startswith("| score |") and "fitted on" not in ln][0]
    cells = [c.strip() for c in line.strip("|").split("|")]
    assert cells[3] == "75.0 (12)" and cells[5] == "66.7 (12)"     # A=U 9/12, A<U 8/12: printed
    assert cells[4] == "too few pairs (n = 3)"                      # A>U accuracy
    assert cells[6] == "too few pairs (n = 3)"                      # the gap: its smaller side has 3
    assert cells[7].startswith("-25.0 [")                           # fidelity: 9/12 against LP's 12/12
