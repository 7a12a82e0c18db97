"""`fairpairs score`, `fairpairs unigrams`, `fairpairs morcela fit` end to end on tiny models."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from fairpairs.scoring import Scorer, build_tiny_model
from fairpairs.scoring.unigrams import UnigramTable
from references import JUDGMENTS_SAMPLE, WIKITEXT_SAMPLE, blimp_lines


pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    root = tmp_path_factory.mktemp("cli-tiny")
    return {"gpt2": str(build_tiny_model("gpt2", root / "gpt2", seed=1)),
            "bert": str(build_tiny_model("bert-base-cased", root / "bert", seed=1))}


def blimp_pairs(tmp_path, n=5):
    lines = blimp_lines("determiner_noun_agreement_1", n)
    f = tmp_path / "pairs.jsonl"
    f.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return f, [json.loads(x) for x in lines]


def test_score_pairs_jsonl(models, tmp_path, fairpairs_cli):
    f, rows = blimp_pairs(tmp_path)
    out = tmp_path / "scores.jsonl"
    code, _, err = fairpairs_cli("score", "--models", models["bert"], "--input", str(f), "--out", str(out),
                                 "--pll", "whole_word", "--normalize", "mean_lp", "--no-progress")
    assert code == 0, err
    got = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    assert len(got) == 10
    assert list(got[0]) == ["pair_index", "which", "uid", "pair_id", "sentence", "sum_logprob", "n_tokens",
                            "n_words", "mean_lp"]
    assert [(g["pair_index"], g["which"]) for g in got[:4]] == [(0, "good"), (0, "bad"), (1, "good"), (1, "bad")]
    assert got[1]["sentence"] == rows[0]["sentence_bad"] and got[2]["pair_id"] == rows[1]["pairID"]
    ref = Scorer.from_pretrained(models["bert"], pll="whole_word").score(
        [g["sentence"] for g in got], normalize=())
    np.testing.assert_allclose([g["sum_logprob"] for g in got], ref["sum_logprob"], atol=1e-6)
    assert "accuracy (good > bad)" in err


def test_score_text_csv_and_unigram_table(models, tmp_path, fairpairs_cli):
    corpus = WIKITEXT_SAMPLE
    table_path = tmp_path / "uni.json"
    code, _, err = fairpairs_cli("unigrams", "--models", models["gpt2"], "--corpus", str(corpus), "--out",
                                 str(table_path))
    assert code == 0, err
    table = UnigramTable.load(table_path)
    text = tmp_path / "s.txt"
    text.write_text("The cat sat on the mat.\n\nA souvenir didn't arrive.\n", encoding="utf-8")
    out = tmp_path / "s.csv"
    code, _, err = fairpairs_cli("score", "--models", models["gpt2"], "--input", str(text), "--out", str(out),
                                 "--normalize", "slor,pen_lp", "--unigrams", str(table_path), "--no-progress")
    assert code == 0, err
    df = pd.read_csv(out)
    assert df["sentence"].tolist() == ["The cat sat on the mat.", "A souvenir didn't arrive."]
    tok = Scorer.from_pretrained(models["gpt2"]).tokenizer
    for _, row in df.iterrows():
        ids = tok(row.sentence, add_special_tokens=False)["input_ids"]
        u = sum(math.log((table.counts[i] + 1) / (table.total + len(table.counts))) for i in ids)
        assert row.unigram_logprob == pytest.approx(u)
        assert row.slor == pytest.approx((row.sum_logprob - u) / len(ids))


def test_score_bad_inputs_leave_no_output(models, tmp_path, fairpairs_cli):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"sentence_good": "A b.", "sentence_bad": "B a."}\n{oops\n', encoding="utf-8")
    out = tmp_path / "o.jsonl"
    code, _, err = fairpairs_cli("score", "--models", models["gpt2"], "--input", str(bad), "--out", str(out))
    assert code == 1 and "bad.jsonl:2: invalid JSON" in err and not out.exists()
    bad.write_text('{"sentence_good": "A b."}\n', encoding="utf-8")
    code, _, err = fairpairs_cli("score", "--models", models["gpt2"], "--input", str(bad), "--out", str(out))
    assert code == 1 and "bad.jsonl:1: missing field 'sentence_bad'" in err
    code, _, err = fairpairs_cli("score", "--models", models["gpt2"], "--input", str(bad), "--out",
                                 str(tmp_path / "o.txt"))
    assert code == 1 and "must be .jsonl or .csv" in err
    good = tmp_path / "good.txt"
    good.write_text("A b.\n", encoding="utf-8")
    code, _, err = fairpairs_cli("score", "--models", str(tmp_path / "nope"), "--input", str(good), "--out", str(out))
    assert code == 1 and "no such model folder" in err
    assert list(tmp_path.glob("o*")) == []


def test_morcela_fit_then_score(models, tmp_path, fairpairs_cli):
    small = JUDGMENTS_SAMPLE          # the first 40 pairs of the Linguistic Inquiry judgments
    params = tmp_path / "morcela.json"
    code, out, err = fairpairs_cli("morcela", "fit", "--models", models["gpt2"], "--judgments", str(small),
                                   "--out", str(params), "--no-progress")
    assert code == 0, err
    doc = json.loads(params.read_text())
    assert doc["n"] == 80 and math.isfinite(doc["beta"]) and math.isfinite(doc["gamma"])
    assert set(doc["cv"]) >= {"morcela", "slor", "lp"} and doc["meta"]["unigrams"] == "wordfreq"
    assert "beta =" in out
    sentences = tmp_path / "s.txt"
    sentences.write_text("It seems to him that Kim solved the problem.\n", encoding="utf-8")
    scored = tmp_path / "s.jsonl"
    code, _, err = fairpairs_cli("score", "--models", models["gpt2"], "--input", str(sentences), "--out", str(scored),
                                 "--normalize", "morcela", "--morcela-params", str(params), "--no-progress")
    assert code == 0, err
    row = json.loads(scored.read_text())
    want = (row["sum_logprob"] - doc["beta"] * row["unigram_logprob"] + doc["gamma"]) / row["n_tokens"]
    assert row["morcela"] == pytest.approx(want)
