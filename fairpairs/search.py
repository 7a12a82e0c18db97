"""The `search` length-control strategy: choose a bad filler that equalises every length at once.

Algorithm 1 (`resample`) redraws the bad sentence's critical words at random and hopes; with many
tokenizers the chance that a random redraw matches all of them falls fast. `search` instead looks at
every candidate the paradigm allows for one critical slot (the constraints are the same as for a
random draw), computes each candidate's token length *in its context* under every tokenizer, and
draws uniformly among the candidates that make all lengths equal.

Lengths in context: the bad sentence is rendered once with a sentinel in the slot; the sentinel's
neighbours up to the nearest spaces (e.g. a following "." or a preceding "(") are kept with each
candidate, so a candidate's contribution is the length of `left + word + right`. For tokenizers that
never merge across a space (see `LengthMeter.decomposable`), the sentence's length is the rest of
the sentence plus that contribution exactly; for others it is a prediction, and every pick is
verified on the whole sentence before the pair is accepted. Lengths are cached per tokenizer and
context as arrays over vocabulary rows, so a search costs a few array look-ups.

When no candidate equalises (a derived form like the other number of the same noun, a reordering,
or a context no word fits), the other critical slots are redrawn, then the whole pair, under the
per-pair attempt budget.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from .generate import Filler, Pair, Sampler
from .grammar import cap_first, finish_sentence
from .tokenization import LengthMeter

SENTINEL = "\x01"
MAX_DEPENDENT_CHECKS = 24        # equalising candidates tried for a slot other critical slots depend on


@cache
def zipf(word: str) -> float:
    """wordfreq's Zipf frequency of an English word or phrase (0 for unknown words)."""
    from wordfreq import zipf_frequency

    return float(zipf_frequency(word, "en")) if word.strip() else float("nan")


class Frequencies:
    """Zipf frequencies of vocabulary rows (cached array) and of literal words."""

    def __init__(self, sampler: Sampler):
        self.vocab = sampler.vocab
        self._rows = np.full(len(self.vocab), -1.0)

    def _row(self, r: int) -> float:
        v = self._rows[r]
        if v < 0:
            v = self._rows[r] = zipf(str(self.vocab.expressions[r]))
        return float(v)

    def rows(self, idx: np.ndarray) -> np.ndarray:
        for r in np.unique(idx[self._rows[idx] < 0]):
            self._row(int(r))
        return self._rows[idx]

    def of(self, f: Filler) -> float:
        return self._row(f.row) if f.row >= 0 else zipf(f.word)


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


class Searcher:
    """Picks, for one pair, a bad filler of one critical slot that equalises all token lengths."""

    def __init__(self, sampler: Sampler, meters: list[LengthMeter], match_frequency: float | None = None,
                 freqs: Frequencies | None = None):
        self.sampler = sampler
        self.meters = meters
        self.tol = match_frequency
        self.freqs = freqs or Frequencies(sampler)
        crit = sampler.p.critical
        # (a critical spec naming its own slot means the good filler: no dependency)
        self.dependents = {n: [m for m, spec in crit.items() if m != n and n in spec.references()] for n in crit}
        # slots whose bad filler no other critical slot depends on first (the last declared first),
        # then the others, whose picks must keep their dependents' bad fillers valid
        order = list(reversed(list(crit)))
        self.slots = [n for n in order if not self.dependents[n]] + [n for n in order if self.dependents[n]]
        self.others = len(crit) > 1 and sampler.redrawable
        self._row_len: dict[tuple, np.ndarray] = {}

    # --------------------------------------------------------------- lengths in context
    def _context(self, pair: Pair, name: str):
        """(prefix, suffix, left, right, cap) around slot `name` in the bad sentence, or None when
        the slot is not rendered exactly once."""
        s = self.sampler
        g = pair.good[name]
        det = s.kept_det(name, g)
        dtext = s.vocab.expressions[det] if det is not None and det >= 0 else ""
        probe = Filler(None, -1, literal=f"{dtext} {SENTINEL}" if dtext else SENTINEL)
        text = s.render_bad(pair.good, {**pair.bad, name: probe})
        if text.count(SENTINEL) != 1:
            return None
        i = text.index(SENTINEL)
        prefix, suffix = text[:i], text[i + 1:]
        j = prefix.rfind(" ")
        left = prefix[j:] if j >= 0 else prefix
        r = suffix.find(" ")
        right = suffix if r < 0 else suffix[:r]
        return prefix, suffix, left, right, i == 0

    def _word(self, word: str, cap: bool) -> str:
        return cap_first(word) if cap else word

    def row_lengths(self, left: str, right: str, cap: bool, rows: np.ndarray) -> np.ndarray:
        """Lengths of `left + word + right` for vocabulary rows, one row per tokenizer."""
        key = (left, right, cap)
        table = self._row_len.get(key)
        if table is None:
            table = self._row_len[key] = np.full((len(self.meters), len(self.sampler.vocab)), -1, dtype=np.int64)
        out = table[:, rows]
        if len(self.meters) and (out[0] < 0).any():
            expr = self.sampler.vocab.expressions
            missing = np.unique(rows[out[0] < 0])
            texts = [f"{left}{self._word(str(expr[r]), cap)}{right}" for r in missing]
            for t, m in enumerate(self.meters):
                table[t, missing] = m.lengths(texts)
            out = table[:, rows]
        return out

    def text_lengths(self, texts: list[str]) -> np.ndarray:
        return np.array([m.lengths(texts) for m in self.meters], dtype=np.int64).reshape(len(self.meters), len(texts))

    # --------------------------------------------------------------- the search step
    def pick(self, pair: Pair, good_len: tuple[int, ...], bad_len: tuple[int, ...]) -> bool:
        """Set the pair's bad filler of one critical slot to a candidate predicted to equalise all
        lengths (and, with a tolerance, frequencies); False when no candidate does."""
        s = self.sampler
        target = np.asarray(good_len, dtype=np.int64)
        for name in self.slots:
            ctx = self._context(pair, name)
            if ctx is None:
                continue
            prefix, suffix, left, right, cap = ctx
            cands = s.bad_candidates(name, pair.good, {n: f for n, f in pair.bad.items() if n != name})
            if not len(cands):
                continue
            g = pair.good[name]
            if isinstance(cands, list):  # literal alternatives: measure whole sentences (few)
                sents = [finish_sentence(f"{prefix}{self._word(c, cap)}{suffix}") for c in cands]
                ok = np.all(self.text_lengths(sents) == target[:, None], axis=0)
                if self.tol is not None and g.word.strip():
                    fz = np.array([zipf(c) if c.strip() else np.nan for c in cands])
                    ok &= np.isnan(fz) | (np.abs(fz - self.freqs.of(g)) <= self.tol)
            else:
                cur = pair.bad[name]
                if cur.row >= 0:
                    cur_mid = self.row_lengths(left, right, cap, np.array([cur.row]))[:, 0]
                else:
                    cur_mid = self.text_lengths([f"{left}{self._word(cur.word, cap)}{right}"])[:, 0]
                need = target - (np.asarray(bad_len, dtype=np.int64) - cur_mid)
                ok = np.all(self.row_lengths(left, right, cap, cands) == need[:, None], axis=0)
                if self.tol is not None and g.word.strip():
                    ok &= np.abs(self.freqs.rows(cands) - self.freqs.of(g)) <= self.tol
            hits = np.flatnonzero(ok)
            if not len(hits):
                continue
            if not self.dependents[name]:
                order = [hits[int(pair.rng.integers(len(hits)))]]
            else:   # uniform among the hits that keep the dependents' bad fillers valid
                order = pair.rng.permutation(hits)[:MAX_DEPENDENT_CHECKS]
            for h in order:
                bad = {**pair.bad, name: s.make_bad(name, g, cands[int(h)])}
                if not self._dependents_valid(pair, name, bad):
                    continue
                sb = s.render_bad(pair.good, bad)
                if sb == pair.sentence_good:
                    continue
                pair.bad, pair.sentence_bad = bad, sb
                return True
        return False

    def _dependents_valid(self, pair: Pair, name: str, bad: dict[str, Filler]) -> bool:
        """Whether the critical slots that depend on `name` keep allowed bad fillers."""
        for dep in self.dependents[name]:
            f = bad[dep]
            cands = self.sampler.bad_candidates(dep, pair.good, {n: x for n, x in bad.items() if n != dep})
            if isinstance(cands, list):
                if f.word not in cands:
                    return False
            elif f.row not in set(cands.tolist()):
                return False
        return True

    def frequency_ok(self, pair: Pair) -> bool:
        if self.tol is None:
            return True
        d = delta_zipf(self.freqs, self.sampler, pair)
        return d is None or d <= self.tol

    def redraw_others(self, pair: Pair) -> bool:
        """Redraw all critical slots (so that the searched slot meets a new context)."""
        return self.others and self.sampler.redraw_bad(pair, count=False)

    def redraw_pair(self, pair: Pair) -> bool:
        """Replace the pair by a fresh draw from its own random stream (same draw index)."""
        q = self.sampler.draw_from(pair.k, pair.rng)
        if q is None:
            return False
        pair.good, pair.bad, pair.sentence_good, pair.sentence_bad = q.good, q.bad, q.sentence_good, q.sentence_bad
        pair.renewed += 1
        return True
