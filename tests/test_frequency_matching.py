"""Frequency-matched replacements (issue 47, item 3): a same-frame replacement is drawn among the
equalising words with a Gaussian kernel on the Zipf difference to the word it replaces
(`kernel_order`), seeded by the pair's stream.

The reference is the exponential race's known law: with keys Exp(1) / w_i, row i comes first with
probability w_i / sum(w) (computed here by hand from the kernel's formula). The old order (always the
nearest first) fails the diversity check: its first row was the nearest one for every seed.
"""

from __future__ import annotations

import numpy as np

from fairpairs.control.replacement import ZIPF_KERNEL, kernel_order

Z = np.array([3.0, 3.1, 2.8, 3.5, 4.0, np.nan])     # Zipf of six candidate rows; the word replaced: 3.0
ROWS = np.arange(10, 16)


def test_the_same_seed_gives_the_same_order_and_every_row_once():
    a = kernel_order(np.random.default_rng(7), ROWS, Z, 3.0)
    b = kernel_order(np.random.default_rng(7), ROWS, Z, 3.0)
    assert a.tolist() == b.tolist() and sorted(a.tolist()) == ROWS.tolist()
    assert a[-1] == 15        # (no frequency: last)


def test_the_first_row_follows_the_kernel():
    w = np.exp(-0.5 * ((Z[:5] - 3.0) / ZIPF_KERNEL) ** 2)
    expected = w / w.sum()                       # P(first) in an exponential race
    n = 4000
    firsts = np.array([kernel_order(np.random.default_rng(s), ROWS, Z, 3.0)[0] for s in range(n)])
    seen = np.array([(firsts == r).mean() for r in ROWS[:5]])
    assert np.all(np.abs(seen - expected) < 4 * np.sqrt(expected * (1 - expected) / n) + 1e-3), (seen, expected)
    # diversity: the nearest row is not always first; a row 4 bandwidths away practically never is
    assert 0.3 < seen[0] < 0.6 and seen[1] > 0.2 and seen[4] < 0.002


def test_without_a_frequency_to_match_the_order_is_uniform():
    n = 3000
    firsts = np.array([kernel_order(np.random.default_rng(s), ROWS, Z, float("nan"))[0] for s in range(n)])
    assert all(abs((firsts == r).mean() - 1 / 6) < 0.03 for r in ROWS)


def test_a_refill_tries_first_the_words_whose_two_forms_have_equal_token_counts():
    """determiner_noun_agreement_1 flips its object's number: a same-frame replacement can only be kept
    when the new noun's singular and plural have equal token counts in place (" this X." under gpt2,
    counted here with the `tokenizers` library). Those rows come first, the others after (before, the
    order was by frequency alone, and a failed word skipped every word of its good form's length)."""
    import fairpairs as fp
    from fairpairs.control.search import Searcher
    from fairpairs.generation.sampler import Pair, Sampler
    from fairpairs.tokenization.lengths import LengthMeter
    from references import reference_tokenizer

    p = fp.load_paradigm("determiner_noun_agreement_1")
    s = Sampler(p, p.vocab, 0)
    searcher = Searcher(s, [LengthMeter("gpt2")])
    first = s.draw(0)
    frame = Pair(k=0, good=first.good, bad={}, rng=np.random.default_rng(0))
    cands = s.good_candidates(frame, "obj")
    order, _ = searcher.refill_order(frame, "obj", cands, np.random.default_rng(0))
    gpt2 = reference_tokenizer("gpt2")
    dem = first.good["dem"].word
    count = lambda w: len(gpt2.encode(f" {dem} {w}.", add_special_tokens=False).ids)
    expr = p.vocab.expressions
    equal = [count(str(expr[r])) == count(str(expr[p.vocab.other_number(int(r))]))
             if p.vocab.other_number(int(r)) is not None else False for r in order]
    n = sum(equal)
    assert 0 < n < len(order) and all(equal[:n]) and not any(equal[n:])
    assert sorted(order.tolist()) == sorted(cands.tolist())
