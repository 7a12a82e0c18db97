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
