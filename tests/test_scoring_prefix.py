"""Causal scoring with shared prefixes run once (issue 49) gives the plain path's scores.

The plain path (`batching.run_rows`: every sentence in full, no cache) is the reference: it is
today's scoring, checked elsewhere against a naive per-sentence forward pass and minicons. Each
test would fail on a wrong prefix plan (a token scored twice or never: NaN or a shifted sum), a
wrong position or attention mask after the cache (scores change by far more than 1e-4 with the
tiny models' large initialisation), or a cache row given to the wrong member.
"""

from __future__ import annotations

import numpy as np
import pytest

from fairpairs.scoring import Scorer, build_tiny_model
from fairpairs.scoring.batching import run_rows
from fairpairs.scoring.encoding import causal_rows
from fairpairs.scoring.prefix import common, group
from fairpairs.scoring.shared_run import check, run_shared, shares_prefixes

SENTENCES = [
    "The cat sat on the mat.", "The cat sat on the mats.",            # a pair differing at the end
    "The cat sat on the mat.",                                        # a repeat
    "The cat sat on the mat", "The cat sat on the mat.",              # one a token prefix of the other
    "Cats sat on the mat.", "Dogs sat on the mat.",                   # differing at the first token
    "A", "I", "A",                                                    # one-token sentences
    "Who did the doctors that the senator liked see?", "Who did the doctors that the senator liked see it?",
    "Who did the doctor say that Mary left?", "Who did the doctor think that Mary met?",
    "There was a cat.", "There were many dogs in the park yesterday evening.",
    "Every boy who has a dog loves it.", "Every boy who has a dog love it.",
]


@pytest.fixture(scope="module")
def llama(tmp_path_factory, one_torch_thread):
    return Scorer.from_pretrained(str(build_tiny_model("llama-like", tmp_path_factory.mktemp("llama"))), device="cpu")


@pytest.fixture(scope="module")
def gpt2(tiny_models, one_torch_thread):
    return Scorer.from_pretrained(tiny_models["gpt2"], device="cpu")


def plain(scorer, sentences):
    enc = scorer.encode(sentences)
    padded, lengths = enc.padded(scorer.pad_id)
    return run_rows(causal_rows(enc), padded, lengths, int(enc.out_ptr()[-1]), scorer.forward,
                    scorer.batch_tokens, scorer.pad_id, None, "", "cpu"), enc


def per_sentence(flat, enc):
    ptr = enc.out_ptr()
    return np.array([flat[ptr[i]:ptr[i + 1]].sum() for i in range(len(enc.ids))])


def test_group_by_hand():
    """Sorted ids [0 1 2 3 4], [0 1 2 3 5] (a pair: prefix 4 tokens), [0 1 2 3 5] (a repeat joins:
    2 x 4 >= 1 x 4 saved), [0 7] (shares 1 < 3: alone, prefix its length - 1), [0 8 8 8 8 8 8 8]
    shares only BOS: alone."""
    ids = [np.array(x) for x in ([0, 7], [0, 1, 2, 3, 5], [0, 8, 8, 8, 8, 8, 8, 8], [0, 1, 2, 3, 4], [0, 1, 2, 3, 5])]
    g = group(ids, min_shared=3)
    members = [g.members[g.ptr[k]:g.ptr[k + 1]].tolist() for k in range(g.n)]
    assert members == [[3, 1, 4], [0], [2]]
    assert g.shared.tolist() == [4, 1, 7]
    assert common(ids[1], ids[4]) == 5 and common(ids[0], ids[2]) == 1


@pytest.mark.parametrize("model", ["llama", "gpt2"])
@pytest.mark.parametrize("budget,min_shared", [(2048, 3), (16, 2)])
def test_shared_prefixes_give_the_plain_scores(request, model, budget, min_shared):
    """Per token within 1e-5 and per sentence within 1e-4 nats, with one unit or many (budget 16:
    units of a few groups, prefixes of different lengths padded together), RoPE (llama) and
    learned positions (gpt2)."""
    scorer = request.getfixturevalue(model)
    ref, enc = plain(scorer, SENTENCES)
    groups = group(enc.ids, min_shared)
    sizes = np.diff(groups.ptr)
    assert sizes.max() >= 3 and (sizes == 1).any()     # the test covers shared and lone sentences
    out = run_shared(enc.ids, enc.out_ptr(), scorer.forward, budget, scorer.pad_id, "", "cpu",
                     min_shared=min_shared)
    assert not np.isnan(out).any()
    np.testing.assert_allclose(out, ref, atol=1e-5, rtol=0)
    np.testing.assert_allclose(per_sentence(out, enc), per_sentence(ref, enc), atol=1e-4, rtol=0)


def test_scorer_uses_shared_prefixes_and_scores_as_before(llama, shared_blimp_like):
    """`Scorer.score` (the path `fairpairs score` and evaluate take) with shared prefixes on and
    off: same sums within 1e-4; and it does take the shared path for minimal pairs."""
    assert llama.shared_prefixes
    assert shares_prefixes(llama, llama.encode(shared_blimp_like))
    on = llama.score(shared_blimp_like, normalize=())["sum_logprob"].to_numpy()
    llama.shared_prefixes = False
    try:
        off = llama.score(shared_blimp_like, normalize=())["sum_logprob"].to_numpy()
        off_tokens = llama.token_logprobs(SENTENCES)
    finally:
        llama.shared_prefixes = True
    np.testing.assert_allclose(on, off, atol=1e-4, rtol=0)
    for a, b in zip(llama.token_logprobs(SENTENCES), off_tokens):
        np.testing.assert_allclose(a, b, atol=1e-5, rtol=0)


@pytest.fixture(scope="module")
def shared_blimp_like():
    """Minimal pairs in the form of BLiMP's (the repository's fixture pairs when present, else these)."""
    subjects = ["The cat", "The dogs", "Every teacher", "A student", "Some doctors", "The senator"]
    verbs = [("was", "were"), ("has", "have"), ("likes", "like")]
    return [f"{s} that we saw {v} here." for s in subjects for pair in verbs for v in pair]


def test_oom_halves_the_unit_and_loses_nothing(llama):
    """A forward pass that 'runs out of memory' above 40 tokens (as a GPU would): the units are
    re-planned smaller and every token is still scored once, with the plain scores."""
    import torch

    ref, enc = plain(llama, SENTENCES)
    calls = []

    class Tight:
        def __init__(self, inner):
            self.inner, self.model = inner, inner.model

        def cached(self, ids, att, positions, cache):
            calls.append(ids.numel())
            if ids.numel() > 40:
                raise torch.OutOfMemoryError("CUDA out of memory (simulated)")
            return self.inner.cached(ids, att, positions, cache)

        def read(self, *a):
            return self.inner.read(*a)

    out = run_shared(enc.ids, enc.out_ptr(), Tight(llama.forward), 4096, llama.pad_id, "", "cpu")
    assert calls[0] > 40 and sum(c > 40 for c in calls) < len(calls) / 2   # it ran out, then fitted
    np.testing.assert_allclose(out, ref, atol=1e-5, rtol=0)


def test_oom_on_one_large_group_splits_its_members(llama):
    """Twenty sentences sharing a long prefix, with a forward pass that 'runs out of memory' above
    80 tokens: the group's suffix pass alone is too large, so its members are split (found in
    review: it raised 'out of memory on a single prefix', though the plain path fits 3 rows a batch).
    The scores are the plain path's; only a single sentence too long for memory is an error."""
    import torch

    from fairpairs.errors import ModelError

    sentences = [f"The senator who the reporters liked very much said {w}." for w in
                 ("yes", "no", "so", "hi", "it", "that", "this", "more", "less", "all", "some", "none",
                  "much", "both", "each", "few", "many", "most", "such", "twice")]
    ref, enc = plain(llama, sentences)

    class Tight:
        def __init__(self, inner, limit):
            self.inner, self.model, self.limit = inner, inner.model, limit

        def cached(self, ids, att, positions, cache):
            if ids.numel() + (0 if cache is None else ids.shape[0] * cache.get_seq_length()) > self.limit:
                raise torch.OutOfMemoryError("CUDA out of memory (simulated)")
            return self.inner.cached(ids, att, positions, cache)

        def read(self, *a):
            return self.inner.read(*a)

    out = run_shared(enc.ids, enc.out_ptr(), Tight(llama.forward, 80), 4096, llama.pad_id, "", "cpu")
    np.testing.assert_allclose(out, ref, atol=1e-5, rtol=0)
    with pytest.raises(ModelError, match="out of memory on a single sentence of"):
        run_shared(enc.ids, enc.out_ptr(), Tight(llama.forward, 5), 4096, llama.pad_id, "", "cpu")


def test_sliding_window_model_falls_back_to_the_plain_path(tmp_path, one_torch_thread):
    """A Mistral-style model with a 4-token sliding window: the cache rows' padding between prefix
    and suffix lengthens distances inside the window, so shared prefixes do change its scores
    (shown below); the load-time check finds it, and `Scorer` scores on the plain path."""
    import torch
    import transformers as tf

    tok_dir = build_tiny_model("llama-like", tmp_path / "tok")
    tok = tf.AutoTokenizer.from_pretrained(str(tok_dir))
    cfg = tf.MistralConfig(vocab_size=len(tok), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                           num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=256,
                           sliding_window=4, initializer_range=0.2, bos_token_id=tok.bos_token_id,
                           eos_token_id=tok.eos_token_id, architectures=["MistralForCausalLM"])
    torch.manual_seed(0)
    model = tf.MistralForCausalLM(cfg).eval()
    scorer = Scorer(model, tok, "causal", "tiny-mistral")
    assert not scorer.shared_prefixes and not check(scorer)
    ref, enc = plain(scorer, SENTENCES)
    forced = run_shared(enc.ids, enc.out_ptr(), scorer.forward, 4096, scorer.pad_id, "", "cpu", min_shared=2)
    assert np.abs(forced - ref).max() > 1e-3          # what the fallback avoids
    got = scorer.score(SENTENCES, normalize=())["sum_logprob"].to_numpy()
    np.testing.assert_allclose(got, per_sentence(ref, enc), atol=1e-4, rtol=0)
