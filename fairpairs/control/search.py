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

from dataclasses import dataclass

import numpy as np

from fairpairs.generation.pairs import word_counts
from fairpairs.generation.sampler import Filler, Pair, Sampler
from fairpairs.generation.templates import cap_first, finish_sentence
from fairpairs.tokenization.lengths import LengthMeter
from fairpairs.control.balance_measures import zipf
from fairpairs.control.frequencies import Frequencies, delta_zipf
from fairpairs.control.keeping import STRATA_COLUMNS
from fairpairs.control.replacement import Replacement, moved_slots

SENTINEL = "\x01"
MAX_DEPENDENT_CHECKS = 24        # equalising candidates tried for a slot other critical slots depend on
NEAREST = 3                      # a pick is one of the NEAREST equalising candidates in Zipf frequency
OTHER_TRIES = 4                  # random redraws of the other critical slots before a context is replaced
JOINT_VALUES = 16                # values of one critical slot tried with a pick of another (joint_pick)


@dataclass(frozen=True)
class SearchOptions:
    """The choices of the search strategy that keep the debiased set drawn like the original set
    (docs/length_control.md); all on by default. benchmarks/balance.py turns them off to measure
    what each one does; `PLAIN` is the search as it was before them."""

    aim: bool = True              # pick the equalising bad word nearest in frequency to the first-drawn one
    joint: bool = True            # try combinations of critical slots before a context is given up
    other_tries: int = OTHER_TRIES
    refill: bool = True           # replace a context by its own frame with a matched word
    stratified: bool = True       # fresh replacements matched on stratum and frequency (else the next valid draw)
    balance: bool = True          # replacements keep the set's mean frequency (and prefer words it lacks)
    features: bool = True         # replacements keep the other slots' features in balance (control.keeping)


PLAIN = SearchOptions(aim=False, joint=False, other_tries=0, refill=False, stratified=False, balance=False, features=False)


class Searcher(Replacement):
    """Picks, for one pair, a bad filler of one critical slot that equalises all token lengths."""

    def __init__(self, sampler: Sampler, meters: list[LengthMeter], match_frequency: float | None = None,
                 freqs: Frequencies | None = None, options: SearchOptions | None = None,
                 control_rows: np.ndarray | None = None):
        self.sampler = sampler
        # the vocabulary rows control may draw (bad words, replacement words): `control_rows(vocab)`
        self._control = control_rows if control_rows is not None else control_lexicon(sampler.vocab)
        self.options = options or SearchOptions()
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
        self._forms: dict[tuple[str, int], int] = {}     # (slot, row) -> its bad form's row (`_form_row`)
        # balance: the first-drawn context of each draw, and the bad words' frequencies picks aim at
        self._first: dict[int, Pair] = {}          # draw -> its first-drawn context (good fillers, sentence)
        self._aim: dict[int, dict[str, Filler]] = {}   # draw -> the bad fillers whose frequency picks aim at
        self.start_keeping()                       # the running balances replacements aim at (control.keeping)
        p = sampler.p
        self._literal = [n for n, spec in p.slots.items() if spec.text]
        # the vocabulary slots whose good word a replacement may change, most candidates first: the
        # critical slots, or for a reordering the slots that move
        refill = [n for n in (crit or moved_slots(p)) if not p.slots[n].text]
        refill = sorted(refill, key=lambda n: -len(p.slots[n].base))
        # then the slots a critical slot copies (obj2 is `same: {obj: [expression]}`)
        refill += [ref for n in crit for ref, _ in p.slots[n].same if ref not in refill and not p.slots[ref].text]
        self._refillable = refill
        self._keyed = set(crit) | set(refill)      # the slots whose words `settle` marks used
        self._n_words = word_counts(sampler.vocab)
        self._strata_cols = {}
        for n in dict.fromkeys([*crit, *refill]):
            spec = p.slots[n]
            if spec.text:
                continue
            self._strata_cols[n] = [c for c in STRATA_COLUMNS if c in sampler.vocab.columns
                                    and len(set(sampler.vocab.column(c)[spec.base].tolist())) > 1]

    # --------------------------------------------------------------- lengths in context
    def context(self, pair: Pair, name: str):
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

    def _good_context(self, pair: Pair, name: str):
        """(left, right, cap) around slot `name`'s word in the good sentence (its determiner kept),
        or None when the slot is not rendered exactly once."""
        s = self.sampler
        g = pair.good[name]
        dtext = s.vocab.expressions[g.det] if g.row >= 0 and g.det >= 0 else ""
        probe = Filler(None, -1, literal=f"{dtext} {SENTINEL}" if dtext else SENTINEL)
        text = s.render_good({**pair.good, name: probe})
        if text.count(SENTINEL) != 1:
            return None
        i = text.index(SENTINEL)
        prefix, suffix = text[:i], text[i + 1:]
        j = prefix.rfind(" ")
        r = suffix.find(" ")
        return (prefix[j:] if j >= 0 else prefix), (suffix if r < 0 else suffix[:r]), i == 0

    def surface(self, word: str, cap: bool) -> str:
        """The word as written in its place (capitalised at the start of a sentence)."""
        return cap_first(word) if cap else word

    def allowed(self, rows: np.ndarray) -> np.ndarray:
        """The rows of `rows` that control may draw (the control lexicon: `control_lexicon`)."""
        return rows if self._control is None else rows[self._control[rows]]

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
            texts = [f"{left}{self.surface(str(expr[r]), cap)}{right}" for r in missing]
            for t, m in enumerate(self.meters):
                table[t, missing] = m.lengths(texts)
            out = table[:, rows]
        return out

    def text_lengths(self, texts: list[str]) -> np.ndarray:
        return np.array([m.lengths(texts) for m in self.meters], dtype=np.int64).reshape(len(self.meters), len(texts))

    # --------------------------------------------------------------- the search step
    def joint_pick(self, pair: Pair, good_len: tuple[int, ...]) -> bool:
        """Where one slot at a time cannot equalise, try combinations: set the shown critical slot with
        the fewest candidates to each of its values in turn (random order, at most JOINT_VALUES) and
        pick another slot for it (e.g. a bare mass noun for a proper name: no determiner, one word)."""
        s = self.sampler
        if not self.options.joint:
            return False
        shown = [n for n in self.slots if n in s.shown_critical(pair)]
        if len(shown) < 2 or not s.redrawable:
            return False
        pivot = min(shown, key=lambda n: len(s.p.critical[n].text or s.p.critical[n].base))
        rest = [n for n in shown if n != pivot]
        spec, g = s.p.critical[pivot], pair.good[pivot]
        values = [w for w in spec.text if w != g.word] if spec.text else spec.base.tolist()
        before = pair.bad, pair.sentence_bad
        for i in pair.rng.permutation(len(values))[:JOINT_VALUES]:
            bad = {**pair.bad, pivot: s.make_bad(pivot, g, values[int(i)])}
            pair.bad, pair.sentence_bad = bad, s.render_bad(pair.good, bad)
            bl = tuple(m.length(pair.sentence_bad) for m in self.meters)
            if bl == tuple(good_len) and pair.sentence_bad != pair.sentence_good and self.frequency_ok(pair) \
                    and self._all_valid(pair):
                return True
            if self.pick(pair, good_len, bl, slots=rest) and self._all_valid(pair):
                return True
            pair.bad, pair.sentence_bad = before
        return False

    def _all_valid(self, pair: Pair) -> bool:
        """Whether every shown critical slot's bad filler is allowed given the others."""
        s = self.sampler
        for n in s.shown_critical(pair):
            f = pair.bad[n]
            cands = s.bad_candidates(n, pair.good, {m: x for m, x in pair.bad.items() if m != n})
            if (f.word not in cands) if isinstance(cands, list) else (f.row not in set(cands.tolist())):
                return False
        return True

    def pick(self, pair: Pair, good_len: tuple[int, ...], bad_len: tuple[int, ...],
             slots: list[str] | None = None) -> bool:
        """Set the pair's bad filler of one critical slot to a candidate predicted to equalise all
        lengths (and, with a tolerance, frequencies); False when no candidate does. Among the
        equalising candidates, those nearest in Zipf frequency to the slot's first-drawn bad word are
        preferred (one of the `NEAREST` nearest, at random), so that the debiased bad words keep the
        original set's frequency profile instead of drifting towards whatever tokenizes short."""
        s = self.sampler
        aim = self._aim.get(pair.k, {})
        target = np.asarray(good_len, dtype=np.int64)
        for name in (self.slots if slots is None else slots):
            ctx = self.context(pair, name)
            if ctx is None:
                continue
            prefix, suffix, left, right, cap = ctx
            cands = s.bad_candidates(name, pair.good, {n: f for n, f in pair.bad.items() if n != name})
            if not isinstance(cands, list):
                cands = self.allowed(cands)
            if not len(cands):
                continue
            g = pair.good[name]
            if isinstance(cands, list):  # literal alternatives: measure whole sentences (few)
                sents = [finish_sentence(f"{prefix}{self.surface(c, cap)}{suffix}") for c in cands]
                ok = np.all(self.text_lengths(sents) == target[:, None], axis=0)
                if self.tol is not None and g.word.strip():
                    fz = np.array([zipf(c, self.freqs.language) if c.strip() else np.nan for c in cands])
                    ok &= np.isnan(fz) | (np.abs(fz - self.freqs.of(g)) <= self.tol)
            else:
                cur = pair.bad[name]
                if cur.row >= 0:
                    cur_mid = self.row_lengths(left, right, cap, np.array([cur.row]))[:, 0]
                else:
                    cur_mid = self.text_lengths([f"{left}{self.surface(cur.word, cap)}{right}"])[:, 0]
                need = target - (np.asarray(bad_len, dtype=np.int64) - cur_mid)
                ok = np.all(self.row_lengths(left, right, cap, cands) == need[:, None], axis=0)
                if self.tol is not None and g.word.strip():
                    ok &= np.abs(self.freqs.rows(cands) - self.freqs.of(g)) <= self.tol
            hits = np.flatnonzero(ok)
            if not len(hits):
                continue
            order = self._by_frequency(pair, hits, cands, self._zipf_of(aim.get(name)))
            if not self.dependents[name]:
                order = order[:1]
            else:   # the hits that keep the dependents' bad fillers valid, nearest first
                order = order[:MAX_DEPENDENT_CHECKS]
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

    def _by_frequency(self, pair: Pair, hits: np.ndarray, cands, target: float | None) -> list[int]:
        """The hits in the order to try them: a random one of the NEAREST nearest in Zipf frequency to
        `target` first, then the rest by distance (random order when there is no target)."""
        if not self.options.aim:    # uniform among the hits
            return [int(hits[int(pair.rng.integers(len(hits)))])] if len(hits) else []
        order = pair.rng.permutation(hits)
        if target is None or np.isnan(target):
            return order.tolist()
        if isinstance(cands, list):
            z = np.array([zipf(cands[int(h)], self.freqs.language) for h in order])
        else:
            z = self.freqs.rows(cands[order])
        dist = np.where(np.isnan(z), np.inf, np.abs(z - target))
        order = order[np.argsort(dist, kind="stable")]
        k = min(NEAREST, len(order))
        first = int(pair.rng.integers(k))
        return [int(order[first])] + [int(h) for i, h in enumerate(order) if i != first]

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

    # --------------------------------------------------------------- balance-keeping replacement
    def remember(self, pair: Pair) -> None:
        """Note the pair's first-drawn context (which a replacement must stand in for) and its
        first-drawn bad words (whose frequencies picks aim at)."""
        if pair.k not in self._first:
            self._first[pair.k] = Pair(k=pair.k, good=pair.good, bad=pair.bad, sentence_good=pair.sentence_good)
            self._aim[pair.k] = pair.bad

    def _zipf_of(self, f: Filler | None) -> float | None:
        return None if f is None or not f.word.strip() else self.freqs.of(f)

def control_lexicon(vocab) -> np.ndarray | None:
    """The vocabulary rows length control may draw from - bad words, and the words of replacement
    contexts - as a boolean mask over `vocab`'s rows, or None for every row. The original set draws
    from the source lexicon; control may draw from the control lexicon (source + extension, issue 47).
    Today both are the whole table: None. The one place the control lexicon enters control (the
    search, its replacements and the preflight read it through `Searcher.allowed`)."""
    return None
