"""A drawn minimal pair and its parts: `Filler` (a slot's value), `Pair` (good and bad fillers,
sentences, the draw's random stream), `Remembered` (a draw kept for later, as a state snapshot), and
the words of a sentence (`words`; whether a pair's sentences have the same words is
`fairpairs.generation.prefixes.same_words`)."""

from __future__ import annotations

import hashlib
import re
import weakref
from dataclasses import dataclass, field

import numpy as np

from fairpairs.generation.seeding import copy_stream, from_state
from fairpairs.generation.vocab import Vocabulary


class Filler:
    """A drawn slot value: a vocabulary row, with an optional determiner row (-1 = none)."""

    __slots__ = ("row", "det", "text", "word")

    def __init__(self, vocab: Vocabulary | None, row: int, det: int = -1, literal: str | None = None):
        self.row = int(row)
        if literal is not None:  # a literal (text) slot: no vocabulary row
            self.det, self.word, self.text = -1, literal, literal
            return
        self.det = int(det)
        self.word = vocab.expressions[self.row]
        d = vocab.expressions[self.det] if self.det >= 0 else ""
        self.text = f"{d} {self.word}" if d else self.word

    def __str__(self) -> str:
        return self.text


@dataclass
class Pair:
    """One drawn pair (before or after length control)."""

    k: int
    good: dict[str, Filler]
    bad: dict[str, Filler]                      # the critical slots' bad fillers
    sentence_good: str = ""
    sentence_bad: str = ""
    redraws: int = 0
    renewed: int = 0                            # whole-pair redraws (search strategy)
    shown: tuple | None = field(default=None, repr=False)   # cache of Sampler.shown_critical: (fillers, slots)

    def copy(self) -> "Pair":
        """An independent copy (fillers are immutable; the random stream is copied in its state)."""
        return Pair(k=self.k, good=dict(self.good), bad=dict(self.bad), sentence_good=self.sentence_good,
                    sentence_bad=self.sentence_bad, redraws=self.redraws, renewed=self.renewed,
                    rng=copy_stream(self.rng))
    rng: np.random.Generator | None = field(default=None, repr=False)


class Remembered:
    """A remembered draw that callers will change: its parts and its stream's state (a snapshot is a
    tenth of a copied generator's cost; most remembered draws are never asked for again)."""

    __slots__ = ("k", "good", "bad", "sentence_good", "sentence_bad", "redraws", "renewed", "kind", "state")

    def __init__(self, p: Pair):
        self.k, self.good, self.bad = p.k, dict(p.good), dict(p.bad)
        self.sentence_good, self.sentence_bad, self.redraws, self.renewed = (p.sentence_good, p.sentence_bad,
                                                                             p.redraws, p.renewed)
        bg = p.rng.bit_generator if p.rng is not None else None
        self.kind, self.state = (type(bg), bg.state) if bg is not None else (None, None)

    def pair(self) -> Pair:
        return Pair(k=self.k, good=dict(self.good), bad=dict(self.bad), sentence_good=self.sentence_good,
                    sentence_bad=self.sentence_bad, redraws=self.redraws, renewed=self.renewed,
                    rng=from_state(self.kind, self.state) if self.kind is not None else None)


_WORD = re.compile(r"[\w']+")


def words(sentence: str) -> list[str]:
    """The words of a sentence, lower-cased (letters, digits, underscores, apostrophes): what the
    balance report and the fidelity check count."""
    return [w.lower() for w in _WORD.findall(sentence)]


def uid_seed(uid: str) -> int:
    return int.from_bytes(hashlib.sha256(uid.encode()).digest()[:4], "little")


_WORD_COUNTS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def word_counts(vocab) -> np.ndarray:
    """The number of space-separated words of each vocabulary row's expression (what a same-frame
    replacement keeps), counted once per vocabulary (read-only): a run builds two searchers per
    paradigm (the preflight's and the debiased set's), and counting ~6,000 rows each time was 2%
    of the main job's CPU."""
    got = _WORD_COUNTS.get(vocab)
    if got is None:
        got = _WORD_COUNTS[vocab] = np.array([len(str(e).split()) for e in vocab.expressions])
        got.setflags(write=False)
    return got
