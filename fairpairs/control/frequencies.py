"""Zipf frequencies of the words length control chooses among (wordfreq's, through the balance
report's one cached look-up, `balance_measures.zipf`), in the paradigm's language."""

from __future__ import annotations

import numpy as np

from fairpairs.control.balance_measures import zipf
from fairpairs.generation.sampler import Filler, Pair, Sampler


class Frequencies:
    """Zipf frequencies of vocabulary rows (cached array) and of literal words."""

    def __init__(self, sampler: Sampler):
        from fairpairs.generation.languages import wordfreq_code

        self.vocab = sampler.vocab
        self.language = wordfreq_code(sampler.p.language)
        self._rows = np.full(len(self.vocab), -1.0)

    def _row(self, r: int) -> float:
        v = self._rows[r]
        if v < 0:
            v = self._rows[r] = zipf(str(self.vocab.expressions[r]), self.language)
        return float(v)

    def rows(self, idx: np.ndarray) -> np.ndarray:
        for r in np.unique(idx[self._rows[idx] < 0]):
            self._row(int(r))
        return self._rows[idx]

    def of(self, f: Filler) -> float:
        return self._row(f.row) if f.row >= 0 else zipf(f.word, self.language)


def delta_zipf(freqs: Frequencies, sampler: Sampler, pair: Pair) -> float | None:
    """The largest |Zipf(good word) - Zipf(bad word)| over the pair's critical slots (slots whose
    good or bad filler is empty do not count); None when no slot counts (reorderings)."""
    worst = None
    for name in sampler.shown_critical(pair):
        g, b = pair.good[name], pair.bad[name]
        if not g.word.strip() or not b.word.strip():
            continue
        d = abs(freqs.of(g) - freqs.of(b))
        worst = d if worst is None else max(worst, d)
    return worst
