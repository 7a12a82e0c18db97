"""The shortcuts taken for generation's speed (issue 36's time target after issue 47) give what the
plain computations they replace give: each is checked against that plain computation, written here."""

from __future__ import annotations

import random

import numpy as np

from fairpairs.generation import prefixes


def _naive_starts(sentence: str, word: str) -> list[int]:
    """Every place tried, as `_starts` did before it looked only where the word occurs."""
    return [i for i in range(len(sentence) - len(word) + 1) if prefixes._at(sentence, i, word)]


def test_starts_finds_every_place_the_full_scan_finds():
    """Random sentences over a small alphabet (so words recur, overlap, open the sentence in the
    other case, and stand inside longer words) and BLiMP-like cases: the same places, in order. The
    shortcut would miss a sentence-initial word in the other case if it searched with `find` alone
    ("The dog" for "the": hand-checked in the first case)."""
    assert prefixes._starts("The dog saw the dog.", "the") == [0, 12]
    assert prefixes._starts("a a a", "a a") == [0, 2]     # (overlapping places)
    rnd = random.Random(0)
    alphabet = "aAb _'.-"
    for _ in range(4000):
        sentence = "".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 14)))
        word = "".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 4)))
        assert prefixes._starts(sentence, word) == _naive_starts(sentence, word), (sentence, word)


def _paradigms(names):
    from fairpairs.generation.selection import select_paradigms

    return select_paradigms(names)


def test_rows_of_one_class_give_the_same_mask():
    """A pool is remembered per class of the referred rows (`row_classes`), so every constraint
    must read two rows of one class alike: checked, for every constraint of these paradigms, on
    pairs of rows of one class against the constraint's own mask (a class that lumped rows apart -
    e.g. one class for all rows - fails here: the rows' masks differ)."""
    vocab, paradigms = _paradigms("causative,intransitive,principle_A_domain_3,animate_subject_trans,"
                                  "determiner_noun_agreement_1,left_branch_island_echo_question")
    from fairpairs.generation.pools import Pools

    rnd = np.random.default_rng(0)
    checked = 0
    for p in paradigms:
        pools = Pools(p, vocab)
        for spec in [*p.slots.values(), *p.critical.values()]:
            if spec.text:
                continue
            for _, test, classes in pools._tests_of(spec):
                classes = np.asarray(classes)
                for r in rnd.choice(len(vocab), 40, replace=False):
                    same = np.flatnonzero(classes == classes[r])
                    other = int(rnd.choice(same))
                    assert np.array_equal(test(int(r)), test(other)), (p.uid, spec.key, r, other)
                    checked += 1
    assert checked > 500


def test_a_pool_is_the_plain_candidates_of_its_context():
    """`Pools.pool` (remembered per class) against `Pools.candidates` (the constraints applied one by
    one to the slot's base, nothing remembered), and `Pools.dets` against the determiners the noun
    accepts, on the contexts of a few hundred draws."""
    vocab, paradigms = _paradigms("causative,principle_A_domain_3,only_npi_scope,existential_there_object_raising")
    compared = dets = 0
    for s, good, name, spec in _drawn_slots(paradigms, vocab, 60):
        assert np.array_equal(s.pools.pool(spec, good), s.pools.candidates(spec, spec.base, good))
        compared += 1
        if spec.det_base is not None and spec.article_of is None:    # (a noun's determiners: per class too)
            row = good[name].row
            plain = spec.det_base[vocab.accepted_by(row, "arg_1", spec.det_base)]
            assert np.array_equal(s.pools.dets(spec, row), plain)
            dets += 1
    assert compared > 300 and dets > 50


def test_allows_is_the_plain_check_of_any_row():
    """`Pools.allows` (remembered per row and class) against `Pools.candidates` on the row alone, for
    rows in and out of the slot's base, in the contexts of draws (classes that lump rows a constraint
    tells apart - one class for every row - fail here)."""
    vocab, paradigms = _paradigms("causative,principle_A_domain_3,only_npi_scope,transitive,passive_1")
    rnd = np.random.default_rng(1)
    checked = 0
    for s, good, name, spec in _drawn_slots(paradigms, vocab, 40):
        rows = [*rnd.choice(spec.base, 3), *rnd.choice(len(vocab), 3), good[name].row]
        rows += [f.row for f in good.values() if f.row >= 0]
        for r in map(int, rows):
            assert s.pools.allows(spec, r, good) == bool(len(s.pools.candidates(spec, np.array([r]), good)))
            checked += 1
    assert checked > 1000


def _drawn_slots(paradigms, vocab, draws: int):
    """(sampler, good fillers, slot name, slot spec) for every vocabulary slot of the first `draws`
    draws of each paradigm (a draw with no good sentence skipped)."""
    from fairpairs.generation.sampler import Sampler

    for p in paradigms:
        s = Sampler(p, vocab, 0)
        for k in range(draws):
            good = s.draw_good(s.rng(k))
            if good is None:
                continue
            for name in p.order:
                if not p.slots[name].text:
                    yield s, good, name, p.slots[name]
