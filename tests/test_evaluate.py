"""Accuracy, splits, curves, fits, rankings and reports of `fairpairs.analysis.evaluation` on synthetic scores
whose expected results are worked out by hand in the comments."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from fairpairs.analysis.evaluation import Settings, analyse, cached_scores, evaluate_sets, length_fit, pair_scores
from fairpairs.analysis.reported import parse_reported
from fairpairs.analysis.report import split_markdown, write_report
from fairpairs.errors import FairpairsError

# (set, uid, pair_id, good, bad)
PAIRS = [
    ("original", "p1", "0", "g0", "b0"),
    ("original", "p1", "1", "g1", "b1"),
    ("original", "p1", "2", "g2", "b2"),
    ("original", "p1", "3", "g3", "b3"),
    ("original", "p2", "0", "g4", "b4"),
    ("original", "p2", "1", "g5", "b5"),
    ("debiased", "p1", "0", "g0", "b0"),
    ("debiased", "p1", "1", "g6", "b6"),
]
# model A: sentence -> (n_tokens, sum_logprob)
A = {"g0": (5, -10), "b0": (5, -12),   # A=U, correct
     "g1": (6, -15), "b1": (5, -11),   # A>U, wrong
     "g2": (5, -9), "b2": (6, -9),     # A<U, tie
     "g3": (4, -8), "b3": (6, -14),    # A<U, correct
     "g4": (5, -10), "b4": (5, -11),   # A=U, correct
     "g5": (5, -10), "b5": (5, -9),    # A=U, wrong
     "g6": (5, -10), "b6": (5, -13)}   # A=U, correct
# model B: its own tokenizer gives every sentence 5 tokens, so all its pairs are A=U
B = {"g0": (5, -12), "b0": (5, -10),   # wrong
     "g1": (5, -10), "b1": (5, -11), "g2": (5, -8), "b2": (5, -9), "g3": (5, -8), "b3": (5, -14),
     "g4": (5, -10), "b4": (5, -11), "g5": (5, -9), "b5": (5, -10),
     "g6": (5, -9), "b6": (5, -10)}


def pairs_frame() -> pd.DataFrame:
    return pd.DataFrame(PAIRS, columns=["set", "uid", "pair_id", "sentence_good", "sentence_bad"])


def scores_frame(table) -> pd.DataFrame:
    rows = [{"sentence": s, "sum_logprob": float(lp), "n_tokens": n, "n_words": n, "mean_lp": lp / n}
            for s, (n, lp) in sorted(table.items())]
    return pd.DataFrame(rows)


@pytest.fixture
def report():
    ps = pd.concat([pair_scores(pairs_frame(), scores_frame(A), "A", ("lp", "mean_lp")),
                    pair_scores(pairs_frame(), scores_frame(B), "B", ("lp", "mean_lp"))], ignore_index=True)
    return analyse(ps)


def row(df, **keys):
    sel = df
    for k, v in keys.items():
        sel = sel[sel[k] == v]
    assert len(sel) == 1, keys
    return sel.iloc[0]


def test_accuracy_counts_ties_separately_and_marks_best(report):
    acc = report.accuracy
    a = row(acc, set="original", uid="p1", model="A", normalization="lp")
    assert (a.n_pairs, a.n_correct, a.n_ties, a.n_wrong) == (4, 2, 1, 1)
    assert a.accuracy == pytest.approx(0.5)
    assert row(acc, set="original", uid="p2", model="A", normalization="lp").accuracy == pytest.approx(0.5)
    assert row(acc, set="original", uid="ALL", model="A", normalization="lp").accuracy == pytest.approx(3 / 6)
    assert row(acc, set="debiased", uid="ALL", model="A", normalization="lp").accuracy == pytest.approx(1.0)
    assert row(acc, set="original", uid="ALL", model="B", normalization="lp").accuracy == pytest.approx(5 / 6)
    assert row(acc, set="debiased", uid="p1", model="B", normalization="lp").accuracy == pytest.approx(0.5)
    # best model per row and set
    assert row(acc, set="original", uid="p1", model="B", normalization="lp").best
    assert not row(acc, set="original", uid="p1", model="A", normalization="lp").best
    assert row(acc, set="debiased", uid="p1", model="A", normalization="lp").best
    # mean_lp for A on original p1: -2 > -2.4 ok, -2.5 < -2.2 wrong, -1.8 < -1.5 wrong, -2 > -2.33 ok
    m = row(acc, set="original", uid="p1", model="A", normalization="mean_lp")
    assert (m.n_correct, m.n_ties, m.n_wrong) == (2, 0, 2)


def test_splits_use_each_models_own_lengths(report):
    sp = report.splits
    def acc_n(uid, model, split):
        r = row(sp, set="original", uid=uid, model=model, normalization="lp", split=split)
        return r.n_pairs, (None if math.isnan(r.accuracy) else round(r.accuracy, 6))
    assert acc_n("p1", "A", "A=U") == (1, 1.0)
    assert acc_n("p1", "A", "A>U") == (1, 0.0)
    assert acc_n("p1", "A", "A<U") == (2, 0.5)      # the tie counts in the denominator
    assert acc_n("p2", "A", "A>U") == (0, None)     # empty split: N/A
    assert acc_n("ALL", "A", "A=U") == (3, round(2 / 3, 6))
    assert acc_n("ALL", "B", "A=U") == (6, round(5 / 6, 6))
    assert acc_n("ALL", "B", "A>U") == (0, None)
    assert "N/A (0)" in split_markdown(sp)


def test_split_tokenizer_lengths_override():
    lengths = {s: 5 for s in A} | {"b1": 7}   # only pair 1 unequal: good shorter -> A<U
    ps = pair_scores(pairs_frame(), scores_frame(A), "A", ("lp",), lengths=lengths)
    assert ps.loc[ps.pair_id.eq("1") & ps.set.eq("original") & ps.uid.eq("p1"), "split"].item() == "A<U"
    assert (ps["split"] == "A=U").sum() == len(PAIRS) - 1


def test_diff_curve(report):
    c = report.curve
    c = c[(c.set == "original") & (c.model == "A") & (c.normalization == "lp")].set_index("len_diff")
    # len(bad) - len(good): 0 correct, -1 wrong, +1 tie, +2 correct, 0 correct, 0 wrong
    assert c["n_pairs"].to_dict() == {-1: 1, 0: 3, 1: 1, 2: 1}
    assert c["accuracy"].round(6).to_dict() == {-1: 0.0, 0: round(2 / 3, 6), 1: 0.0, 2: 1.0}


def test_length_fit_on_an_exact_line():
    s = pd.DataFrame({"model": "m", "normalization": "lp", "n_tokens": [2, 4, 6], "score": [-5.0, -9.0, -13.0]})
    f = length_fit(s).iloc[0]
    assert f.slope == pytest.approx(-2.0) and f.intercept == pytest.approx(-1.0) and f.pearson_r == pytest.approx(-1.0)
    flat = length_fit(s.assign(n_tokens=3)).iloc[0]
    assert math.isnan(flat.slope)


def test_summary_and_ranking_change(report):
    s = report.summary[report.summary.normalization == "lp"]
    assert row(s, set="original", model="B")["rank"] == 1 and row(s, set="original", model="A")["rank"] == 2
    assert row(s, set="original", model="A").macro_accuracy == pytest.approx(0.5)
    assert row(s, set="original", model="B").macro_accuracy == pytest.approx((0.75 + 1.0) / 2)
    ch = report.change[report.change.normalization == "lp"].set_index("model")
    assert ch.loc["A", "rank_original"] == 2 and ch.loc["A", "rank_debiased"] == 1 and ch.loc["A", "rank_change"] == 1
    assert ch.loc["B", "accuracy_change"] == pytest.approx(0.5 - 5 / 6)


def test_report_files_are_written_nonempty(report, tmp_path):
    """(That a second write gives the same bytes, every file, is test_report's
    test_formats_dpi_and_byte_identical_files: drawing the 8 figures again here is most of this test's time.)"""
    files = write_report(report, tmp_path / "r1", dpi=50)   # (the smallest PNGs: the quickest; test_report checks dpi)
    names = {p.name for p in files}
    for stem in ("accuracy", "splits", "length_diff_accuracy", "loglik_length", "summary"):
        assert {f"{stem}.csv", f"{stem}.md", f"{stem}.png"} <= names
    for p in files:
        assert p.stat().st_size > 0
        if p.suffix == ".png":
            assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and p.stat().st_size > 5000
    md = (tmp_path / "r1" / "accuracy.md").read_text()
    # A orig 2/4, A deb 2/2, B orig 3/4, B deb 1/2, each with its Wilson interval (z = 1.96): 2/4 centre 0.5,
    # half-width 1.96·sqrt(.25/4 + 1.96²/64) / (1 + 1.96²/4) = 0.350 -> [15.0, 85.0]; 2/2 -> [1/(1 + z²/2), 1]
    # = [34.2, 100.0]; 3/4 -> [30.1, 95.4]; 1/2 -> [9.5, 90.5]
    assert ("| p1 | 50.0 [15.0, 85.0] | **100.0** [34.2, 100.0] | **75.0** [30.1, 95.4] | 50.0 [9.5, 90.5] |"
            in md)
    assert "![splits](splits.png)" in (tmp_path / "r1" / "report.md").read_text()
    assert not list((tmp_path / "r1").glob(".*tmp"))


class CountingScorer:
    """A stand-in language model written plainly here: log p = -2 per character, counted calls."""

    calls = 0

    def score(self, sentences, normalize=(), unigrams=None):
        CountingScorer.calls += 1
        rows = []
        for s in sentences:
            n = len(s.split())
            row = {"sentence": s, "sum_logprob": -2.0 * len(s), "n_tokens": n, "n_words": n}
            for norm in normalize:
                row[norm] = -2.0 * len(s) / n
            rows.append(row)
        return pd.DataFrame(rows)


def test_cache_hit_does_not_rescore(tmp_path):
    sets = {"original": pd.DataFrame({"uid": ["u", "u"], "pair_id": ["0", "1"],
                                      "sentence_good": ["a b.", "a bb c."], "sentence_bad": ["a bbb.", "a b cc."]})}
    loads = []

    def loader(model, settings):
        loads.append(model)
        return CountingScorer()

    CountingScorer.calls = 0
    settings = Settings(normalize=("lp", "mean_lp"))
    r1 = evaluate_sets(sets, ["toy"], settings, tmp_path / "cache", load_scorer=loader)
    assert CountingScorer.calls == 1 and r1.cache_hits == {"toy": False}
    cached = list((tmp_path / "cache").glob("*.parquet"))
    assert len(cached) == 1
    r2 = evaluate_sets(sets, ["toy"], settings, tmp_path / "cache", load_scorer=loader)
    assert CountingScorer.calls == 1 and loads == ["toy"] and r2.cache_hits == {"toy": True}
    pd.testing.assert_frame_equal(r1.accuracy, r2.accuracy)
    # "a b." (4 chars) beats "a bbb." (6 chars); "a bb c." ties "a b cc." on lp (7 chars each)
    assert r1.accuracy.set_index(["uid", "normalization"]).loc[("u", "lp"), ["n_correct", "n_ties"]].tolist() == [1, 1]
    # a damaged cache file is re-scored, not an error
    cached[0].write_bytes(b"PAR1 truncated")
    evaluate_sets(sets, ["toy"], settings, tmp_path / "cache", load_scorer=loader)
    assert CountingScorer.calls == 2
    # other settings or other sentences are a miss
    evaluate_sets(sets, ["toy"], Settings(normalize=("lp",), pll="original"), tmp_path / "cache", load_scorer=loader)
    assert CountingScorer.calls == 3
    sets["original"].loc[1, "sentence_bad"] = "a c."
    evaluate_sets(sets, ["toy"], settings, tmp_path / "cache", load_scorer=loader)
    assert CountingScorer.calls == 4 and len(list((tmp_path / "cache").glob("*.parquet"))) == 3


def test_scorer_without_requested_column_is_an_error(tmp_path):
    class Broken(CountingScorer):
        def score(self, sentences, normalize=(), unigrams=None):
            return super().score(sentences, ()).drop(columns="n_tokens")

    with pytest.raises(FairpairsError, match="n_tokens"):
        cached_scores("broken", ["a."], Settings(), tmp_path, lambda m, s: Broken())
    assert not list(tmp_path.iterdir())


def test_parse_normalize():
    assert parse_reported("lp, slor,lp") == ("lp", "slor")
    with pytest.raises(ValueError, match="^normalize: unknown normalisation 'mean' .*known: lp, mean_lp, pen_lp, slor, tcf_lp"):  # a library error names the parameter
        parse_reported("lp,mean")
