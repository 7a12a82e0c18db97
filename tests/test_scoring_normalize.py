"""Linking functions, unigram tables and wordfreq spreading, MORCELA fitting: hand-computed checks."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from wordfreq import word_frequency

from fairpairs.errors import DatasetError, FairpairsError
from fairpairs.scoring import morcela as mc
from fairpairs.scoring.normalize import mean_lp, morcela_score, parse_normalize, pen_lp, slor
from fairpairs.scoring.unigrams import UnigramTable, WordfreqUnigrams
from fairpairs.tokenization.lengths import load_tokenizer
from references import JUDGMENTS_SAMPLE


def test_linking_functions_by_hand():
    assert mean_lp(-12.0, 4) == pytest.approx(-3.0)
    assert pen_lp(-12.0, 7) == pytest.approx(-12.0 / 2.0 ** 0.8)       # (5+7)/6 = 2
    assert pen_lp(-12.0, 1, alpha=1.0) == pytest.approx(-12.0)        # (5+1)/6 = 1
    assert slor(-20.0, -30.0, 5) == pytest.approx(2.0)
    assert morcela_score(-20.0, -30.0, 5, beta=0.5, gamma=3.0) == pytest.approx((-20 + 15 + 3) / 5)
    assert morcela_score(-20.0, -30.0, 5, beta=1.0, gamma=0.0) == pytest.approx(slor(-20.0, -30.0, 5))


def test_parse_normalize():
    assert parse_normalize("mean_lp, pen_lp,mean_lp") == ("mean_lp", "pen_lp")
    assert parse_normalize("") == ()
    with pytest.raises(FairpairsError, match=r"^normalize: unknown normalisation 'slorr' \(did you mean slor\?\) \(known: lp, "):
        parse_normalize("slorr")


def test_unigram_table_counts_and_add_one(tmp_path):
    tok = load_tokenizer("gpt2")
    corpus = tmp_path / "c.txt"
    corpus.write_text("the cat\n\nthe dog the\n", encoding="utf-8")
    table = UnigramTable.count(tok, [corpus], model="gpt2")
    the, cat, dog, sp_the = (tok.convert_tokens_to_ids(t) for t in ("the", "cat", "Ġdog", "Ġthe"))
    # lines: "the cat" -> the Ġcat ; "the dog the" -> the Ġdog Ġthe   (string as written)
    assert table.total == 5 and table.counts[the] == 2 and table.counts[dog] == 1 and table.counts[sp_the] == 1
    assert table.counts[cat] == 0
    v = len(tok)
    assert table.log_probs[the] == pytest.approx(math.log(3 / (5 + v)))
    assert table.log_probs[cat] == pytest.approx(math.log(1 / (5 + v)))
    out = tmp_path / "t.json"
    table.save(out)
    again = UnigramTable.load(out)
    np.testing.assert_array_equal(again.counts, table.counts)
    again.check(tok)
    with pytest.raises(FairpairsError, match="another tokenizer"):
        again.check(load_tokenizer("bert-base-cased"))


def test_unigram_table_bad_files(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(DatasetError, match="bad.json"):
        UnigramTable.load(bad)
    bad.write_text(json.dumps({"format": "other"}), encoding="utf-8")
    with pytest.raises(DatasetError, match="'format'"):
        UnigramTable.load(bad)


def test_wordfreq_spread_over_tokens():
    tok = load_tokenizer("bert-base-cased")
    sentence = "The souvenir."
    enc = tok(sentence, add_special_tokens=False, return_offsets_mapping=True)
    assert tok.convert_ids_to_tokens(enc["input_ids"]) == ["The", "so", "##uve", "##nir", "."]
    got = WordfreqUnigrams().token_logprobs(sentence, enc["input_ids"], enc["offset_mapping"])
    the, souvenir = math.log(word_frequency("The", "en")), math.log(word_frequency("souvenir", "en"))
    # chunks "The" and "souvenir." (its '.' belongs to the chunk): spread evenly over 1 and 4 tokens
    np.testing.assert_allclose(got, [the] + [souvenir / 4] * 4)


def test_wordfreq_punctuation_and_unknown_words():
    tok = load_tokenizer("gpt2")
    sentence = "Zqxvbnm - ok"
    enc = tok(sentence, add_special_tokens=False, return_offsets_mapping=True)
    got = WordfreqUnigrams().token_logprobs(sentence, enc["input_ids"], enc["offset_mapping"])
    n_first = len(tok("Zqxvbnm", add_special_tokens=False)["input_ids"])
    assert got[:n_first].sum() == pytest.approx(math.log(1e-9))   # unknown word: floor frequency
    assert got[n_first] == 0.0                                     # "-" alone: punctuation counts 0
    assert got[-1] == pytest.approx(math.log(word_frequency("ok", "en")))


def synthetic(n=400, a=0.8, b=-0.3, c=2.5, d=0.1, noise=0.01, seed=3):
    rng = np.random.default_rng(seed)
    length = rng.integers(3, 20, n).astype(float)
    u = -length * rng.uniform(6, 11, n)
    p = -length * rng.uniform(2, 7, n)
    y = a * p / length + b * u / length + c / length + d + rng.normal(0, noise, n)
    return p, u, length, y


def test_morcela_recovers_beta_gamma():
    p, u, length, y = synthetic()
    f = mc.fit_terms(p, u, length, y)
    assert f.beta == pytest.approx(0.3 / 0.8, abs=0.01)     # beta = -b/a
    assert f.gamma == pytest.approx(2.5 / 0.8, abs=0.05)    # gamma = c/a
    cv = mc.cross_validate(p, u, length, y, folds=5, seed=0)
    assert cv["morcela"] > 0.95 and cv["morcela"] > cv["slor"] and cv["morcela"] > cv["lp"]


def test_morcela_slor_is_the_special_case():
    """Judgments made exactly by SLOR are fitted with beta = 1 and gamma = 0."""
    p, u, length, _ = synthetic()
    f = mc.fit_terms(p, u, length, 2.0 * (p - u) / length - 1.0)
    assert (f.beta, f.gamma) == (pytest.approx(1.0), pytest.approx(0.0, abs=1e-9))


def check_sprouse(path, pairs):
    """Good sentences first, then the bad ones, with their LS judgments (first row read by hand)."""
    sents, ys = mc.read_judgments(path)
    assert len(sents) == 2 * pairs and len(ys) == 2 * pairs
    assert sents[0] == "It seems to him that Kim solved the problem."
    assert ys[0] == pytest.approx(0.8223392831538462)
    assert sents[pairs] == "He seems to that Kim solved the problem."
    assert ys[pairs] == pytest.approx(-1.0246537401666667)


def test_read_judgments_sprouse_sample():
    check_sprouse(JUDGMENTS_SAMPLE, 40)


@pytest.mark.slow
def test_read_judgments_sprouse(shared):
    check_sprouse(shared / "reference" / "linguistic_inquiry_judgments.csv", 725)


def test_read_judgments_errors(tmp_path):
    f = tmp_path / "j.csv"
    f.write_text("Good Sentence,Bad Sentence\na,b\n", encoding="utf-8")
    with pytest.raises(DatasetError, match="'Good Sentence LS'"):
        mc.read_judgments(f)
    with pytest.raises(DatasetError, match="no such file"):
        mc.read_judgments(tmp_path / "missing.csv")


def test_load_params(tmp_path):
    f = tmp_path / "p.json"
    f.write_text(json.dumps({"beta": 0.5, "gamma": 2}), encoding="utf-8")
    assert mc.load_params(f) == {"beta": 0.5, "gamma": 2.0}
    f.write_text(json.dumps({"beta": 0.5}), encoding="utf-8")
    with pytest.raises(DatasetError, match="'gamma'"):
        mc.load_params(f)
