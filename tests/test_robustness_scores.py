"""The length-robust scores (issue 25) against values computed by hand, with a stub causal LM whose
logits we set and the real bundled GPT-2 tokenizer (and a SentencePiece model trained here on the
WikiText-2 excerpt of tests/fixtures).

The stub is a bigram model: the logits at a position depend only on the token there; every logit is
0 except those listed, so with V tokens and one listed logit L the probability of that token is
e^L / (V - 1 + e^L) and of any other 1 / (V - 1 + e^L)."""

from __future__ import annotations

import math
import types
from pathlib import Path

import numpy as np
import pytest

from references import stub_scorer

FIXTURES = Path(__file__).parent / "fixtures"


def log_z(vocab, *listed):
    return math.log(vocab - len(listed) + sum(math.exp(v) for v in listed))


def entropy(vocab, *listed):
    z = vocab - len(listed) + sum(math.exp(v) for v in listed)
    return math.log(z) - sum(v * math.exp(v) for v in listed) / z


@pytest.fixture(scope="module")
def gpt2():
    from fairpairs.tokenization.lengths import load_tokenizer

    tok = load_tokenizer("gpt2")
    # the word-beginning set, naively: every token whose decoded text starts with white space, + EOS
    n_begin = sum(tok.decode([i], clean_up_tokenization_spaces=False)[:1].isspace() for i in range(len(tok))) + 1
    return tok, n_begin


SENT = "The cat sat."


def gpt2_case(gpt2):
    tok, n_begin = gpt2
    ids = tok(SENT, add_special_tokens=False)["input_ids"]
    assert tok.convert_ids_to_tokens(ids) == ["The", "Ġcat", "Ġsat", "."]
    the, cat, sat, dot = ids
    bos = tok.eos_token_id
    table = {bos: {the: 5.0}, the: {cat: 3.0}, cat: {sat: 2.0}, sat: {dot: 4.0}}
    return tok, n_begin, ids, table


def test_word_and_entropy_scores_by_hand(gpt2):
    from fairpairs.scoring.words import word_logprobs

    tok, n_begin, (the, cat, sat, dot), table = gpt2_case(gpt2)
    V = len(tok)
    scorer = stub_scorer(tok, table)
    lps = [L - log_z(V, L) for L in (5.0, 3.0, 2.0, 4.0)]
    lp = sum(lps)
    # after "The" the only raised token, Ġcat, begins a word; after "Ġcat", Ġsat does; after
    # "Ġsat" the raised "." does not; after "." everything is uniform
    b_the = math.log((n_begin - 1 + math.exp(3.0)) / (V - 1 + math.exp(3.0)))
    b_cat = math.log((n_begin - 1 + math.exp(2.0)) / (V - 1 + math.exp(2.0)))
    b_end = math.log(n_begin / V)
    words = word_logprobs(scorer, SENT)
    assert [w for w, _ in words] == ["The", "cat", "sat."]
    expect = [lps[0] + b_the, lps[1] + b_cat - b_the, lps[2] + lps[3] + b_end - b_cat]
    assert np.allclose([v for _, v in words], expect, atol=1e-4)
    df = scorer.score([SENT], normalize=("word_lp", "word_mean_lp", "centered_lp"))
    assert df["sum_logprob"][0] == pytest.approx(lp, abs=1e-4)
    assert df["word_lp"][0] == pytest.approx(lp + b_end, abs=1e-4)          # the factors telescope
    assert df["word_mean_lp"][0] == pytest.approx((lp + b_end) / 3, abs=1e-4)
    ent = sum(entropy(V, L) for L in (5.0, 3.0, 2.0, 4.0))
    assert df["centered_lp"][0] == pytest.approx(lp + ent, abs=1e-3)
    assert scorer.score([SENT], normalize=("entropy_lp",))["entropy_lp"][0] == pytest.approx(lp / ent, rel=1e-5)
    assert df["word_correction"][0] == pytest.approx(b_end, abs=1e-4)


def test_length_param_scores_by_hand(gpt2):
    tok, _, _, table = gpt2_case(gpt2)
    scorer = stub_scorer(tok, table)
    params = {"intercept": 1.0, "delta_token": -2.5, "delta_word": -0.5, "beta_unigram": 0.25, "slln_alpha": 0.6}
    df = scorer.score([SENT, "The cat sat on the mat."], normalize=("slln_lp", "tc_lp", "tcf_lp"),
                      length_params=params)
    lp, u = df["sum_logprob"].to_numpy(), df["unigram_logprob"].to_numpy()
    n, w = np.array([4, 7]), np.array([3, 6])
    assert df["n_tokens"].tolist() == n.tolist()
    assert np.allclose(df["slln_lp"], lp / n ** 0.6)
    assert np.allclose(df["tc_lp"], lp + 2.5 * n + 0.5 * w)
    assert np.allclose(df["tcf_lp"], lp + 2.5 * n + 0.5 * w - 0.25 * u)


def test_sentencepiece_first_word_divides_out_the_start(tmp_path):
    import sentencepiece as spm

    from fairpairs.tokenization.lengths import load_tokenizer

    spm.SentencePieceTrainer.train(input=str(FIXTURES / "wikitext-2-valid.txt"), model_prefix=str(tmp_path / "sp"),
                                   model_type="bpe", vocab_size=500, byte_fallback=True, character_coverage=1.0,
                                   add_dummy_prefix=True, remove_extra_whitespaces=False,
                                   normalization_rule_name="identity",
                                   num_threads=1, input_sentence_size=5000, shuffle_input_sentence=False,
                                   minloglevel=2)
    sp = spm.SentencePieceProcessor(model_file=str(tmp_path / "sp.model"))
    tok = load_tokenizer(str(tmp_path / "sp.model"))
    V = len(tok)
    ids = tok(SENT, add_special_tokens=False)["input_ids"]
    assert ids == sp.encode(SENT)                      # the same pieces as sentencepiece gives
    assert sp.id_to_piece(ids[0]).startswith("▁")      # the dummy prefix marks the first word
    spaces = {f"<0x{b:02X}>" for b in range(128) if chr(b).isspace()}
    begin = {i for i in range(sp.get_piece_size())
             if sp.id_to_piece(i).startswith("▁") or sp.id_to_piece(i) in spaces}
    begin |= {sp.eos_id(), tok.bos_token_id}
    other = next(i for i in range(3, V) if i not in begin)      # a token that begins no word
    scorer = stub_scorer(tok, {scorer_bos(tok): {other: 6.0}})
    df = scorer.score([SENT], normalize=("word_lp",))
    lp = -log_z(V, 6.0) - (len(ids) - 1) * math.log(V)
    b_bos = math.log(len(begin) / (V - 1 + math.exp(6.0)))
    b_end = math.log(len(begin) / V)
    assert df["sum_logprob"][0] == pytest.approx(lp, abs=1e-4)
    assert df["word_lp"][0] == pytest.approx(lp + b_end - b_bos, abs=1e-4)


def scorer_bos(tok):
    from fairpairs.scoring.encoding import prefix_token_id

    return prefix_token_id(tok)


def test_word_scores_need_a_causal_lm_and_word_marks(tiny_models):
    from fairpairs.errors import ModelError
    from fairpairs.scoring import Scorer
    from fairpairs.scoring.words import begin_mask
    from fairpairs.tokenization.lengths import load_tokenizer

    bert = Scorer.from_pretrained(tiny_models["bert"], device="cpu")
    with pytest.raises(ModelError, match="causal LM"):
        bert.score(["A cat."], normalize=("word_lp",))
    with pytest.raises(ModelError, match="marks no word beginnings"):
        begin_mask(load_tokenizer("bert-base-cased"))


def test_word_pass_gives_the_scorer_s_log_probabilities(tiny_models):
    """The one extra pass reproduces the ordinary causal sums (tiny random GPT-2, padded batches)."""
    from fairpairs.scoring import Scorer

    scorer = Scorer.from_pretrained(tiny_models["gpt2"], device="cpu")
    sents = ["The cat sat on the mat.", "A souvenir didn't arrive.", "Hello", "Raymond is selling this sketch."]
    plain = scorer.score(sents, normalize=())
    both = scorer.score(sents, normalize=("word_lp", "centered_lp"))
    assert np.allclose(plain["sum_logprob"], both["sum_logprob"], atol=1e-4)


# ---------------------------------------------------------------------------- length parameters


def test_length_fit_recovers_known_coefficients():
    from fairpairs.scoring.length import fit_length_terms

    rng = np.random.default_rng(1)
    n = rng.integers(4, 20, 300)
    w = np.maximum(2, n - rng.integers(0, 5, 300))
    u = -8.0 * w + rng.normal(0, 3, 300)
    lp = 2.0 - 3.0 * n - 1.5 * w + 0.4 * u + rng.normal(0, 0.01, 300)
    got = fit_length_terms(lp, n, w, u)
    assert got["delta_token"] == pytest.approx(-3.0, abs=0.01)
    assert got["delta_word"] == pytest.approx(-1.5, abs=0.01)
    assert got["beta_unigram"] == pytest.approx(0.4, abs=0.01)
    assert got["intercept"] == pytest.approx(2.0, abs=0.1)
    # slln alpha: -LP = 7 n^0.7 exactly
    n2 = np.arange(3, 40)
    assert fit_length_terms(-7.0 * n2 ** 0.7, n2, n2 // 2 + (n2 % 3), -n2 * 1.3 + (n2 % 5))["slln_alpha"] == pytest.approx(0.7)


def test_wikitext_sentences_are_plain_sentences():
    from fairpairs.scoring.length import wikitext_sentences

    sents = wikitext_sentences(FIXTURES / "wikitext-2-valid.txt", n=50, seed=0)
    assert 20 <= len(sents) <= 50
    assert sents == wikitext_sentences(FIXTURES / "wikitext-2-valid.txt", n=50, seed=0)
    for s in sents:
        assert s.endswith(".") and s[0].isupper() and "<unk>" not in s and "@" not in s and " ," not in s
        assert 4 <= len(s.split()) <= 14


def test_bundled_params_are_smollm2_s_and_checked():
    from fairpairs.errors import DatasetError, ModelError
    from fairpairs.scoring.length import ASSET, load_length_params, read_params_file
    from fairpairs.tokenization.lengths import load_tokenizer

    models = read_params_file(ASSET)
    assert len(models) == 1
    name, entry = next(iter(models.items()))
    assert name.startswith("smollm2") and entry["model"] == name
    assert entry["delta_token"] < 0 and 0 < entry["slln_alpha"] < 2
    assert "wikitext" in entry["command"] and entry["fitted_on"]["sentences"] >= 500
    gpt2 = types.SimpleNamespace(name="gpt2", tokenizer=load_tokenizer("gpt2"))
    with pytest.raises(ModelError, match=f"fitted for model '{name}' .*, not for model 'gpt2'"):
        load_length_params(None, gpt2)
    # the model's own weights (its fingerprint) with another tokenizer
    disguised = types.SimpleNamespace(name=name, tokenizer=load_tokenizer("gpt2"), fingerprint=entry["model_sha256"])
    with pytest.raises(ModelError, match="another tokenizer"):
        load_length_params(None, disguised)
    with pytest.raises(DatasetError, match="'delta_token' must be a finite number"):
        load_length_params({"intercept": 0, "delta_token": float("nan"), "delta_word": 0, "beta_unigram": 0,
                            "slln_alpha": 1}, gpt2)


def test_tcf_lp_refuses_another_unigram_source_than_it_was_fitted_with(gpt2, tmp_path):
    from fairpairs.errors import ModelError
    from fairpairs.scoring.unigrams import count_unigrams

    tok, _, _, table = gpt2_case(gpt2)
    scorer = stub_scorer(tok, table)
    counts = count_unigrams("gpt2", FIXTURES / "wikitext-2-valid.txt")
    params = {"intercept": 0, "delta_token": -1, "delta_word": 0, "beta_unigram": 0.5, "slln_alpha": 1,
              "fitted_on": {"unigrams": "wordfreq"}}
    with pytest.raises(ModelError, match="tcf_lp: its parameters were fitted with wordfreq"):
        scorer.score([SENT], normalize=("tcf_lp",), unigrams=counts, length_params=params)
    assert scorer.score([SENT], normalize=("tc_lp",), unigrams=counts, length_params=params)["tc_lp"].notna().all()
