"""The search's balance-keeping replacement of a context (docs/length_control.md): when no pick
equalises a pair, its context is replaced by one that stands in for the first-drawn one - the same
frame with one word of the same stratum near in frequency (`refill`, drawn with a kernel on the Zipf
difference: `kernel_order`), else the best of a few fresh draws of the pair's own stream, ranked by
stratum, the other slots' features and frequency. Replacements are made in draw order (the search's
steps, `fairpairs.control.rounds`, defer them), and each aims at the running balances of
`fairpairs.control.keeping`: where a slot's equalising words are more frequent than the words they
replace, other replacements take rarer ones, and the set's mean stays the original's.

`Replacement` is the second half of `fairpairs.control.search.Searcher` (its base class): it works
on the searcher's state - `sampler`, `meters`, `freqs`, `options`, the first-drawn contexts and the
bad words picks aim at - and its picks (`pick`, `frequency_ok`, `row_lengths`).
"""

from __future__ import annotations

import numpy as np

from fairpairs.generation.sampler import Pair, words
from fairpairs.control.keeping import REUSE_ZIPF, Keeping

REPLACEMENT_DRAWS = 16           # fresh draws considered for one replacement (when a refill finds none)
REFILL_TRIES = 512               # same-stratum words (of distinct lengths) tried in the first-drawn context
ZIPF_CLOSE = 0.1                 # a same-stratum replacement this close in Zipf frequency is taken at once
ZIPF_KERNEL = 0.15               # bandwidth (Zipf units) of the kernel a same-frame replacement is drawn with


class Replacement(Keeping):
    """Replacing a pair's context by one that stands in for its first-drawn context."""

    def stratum(self, pair: Pair) -> tuple:
        """What a replacement context must share with the first-drawn one: the template variant
        (literal slots), the good sentence's word count, and the number, proper-noun, mass and
        animacy features of the critical slots' good words (where they vary among candidates)."""
        s = self.sampler
        variant = tuple(pair.good[n].word for n in self._literal)
        feats = tuple(tuple(s.vocab.column(c)[pair.good[n].row] for c in cols)
                      for n, cols in self._strata_cols.items() if n in s.p.critical and pair.good[n].row >= 0)
        return variant, len(words(pair.sentence_good)), feats

    def _equalisable(self, q: Pair) -> bool:
        """Whether q's bad sentence equals its good one in every length already, or a pick makes it so
        (the pick is kept: q's bad filler is set)."""
        gl = tuple(m.length(q.sentence_good) for m in self.meters)
        bl = tuple(m.length(q.sentence_bad) for m in self.meters)
        if gl == bl and self.frequency_ok(q):
            return True
        return self.pick(q, gl, bl)

    def replace(self, pair: Pair) -> bool:
        """Replace the pair's context by a fresh draw from its own random stream (same draw index),
        chosen to stand in for the first-drawn context. First `_refill`: the same frame with one
        word of the same stratum, near in frequency (`kernel_order`). Failing that, among up to
        REPLACEMENT_DRAWS fresh draws, the first that is in the same stratum, within ZIPF_CLOSE of its critical-word
        frequency and can be equalised; else the best equalisable one by (stratum match, frequency
        distance); else the best by the same order. The chosen draw's bad filler is already picked
        when it could be equalised; every pick is verified on whole sentences afterwards."""
        first = self._first[pair.k]
        q, aim = self._refill(pair, first) if self.options.refill else (None, {})
        if q is None:
            q, aim = self._fresh(pair, first)
        if q is None:
            return False
        _take(pair, q)
        self._aim[pair.k] = aim
        return True

    def _fresh(self, pair: Pair, first: Pair) -> tuple[Pair | None, dict]:
        if not self.options.stratified:     # the next valid draw of the stream, whatever it is
            q = self.sampler.draw_from(pair.k, pair.rng)
            return (q, q.bad) if q is not None else (None, {})
        key, z0, feats = self.stratum(first), self.aim_zipf(self.context_zipf(first), 1), self.context_features(first)
        best = None                          # (rank, pair, equalisable, its first-drawn bad fillers)
        for _ in range(REPLACEMENT_DRAWS):
            q = self.sampler.draw_from(pair.k, pair.rng)
            if q is None:
                continue
            rank = self._rank(key, z0, q, feats)
            if best is not None and best[2] and rank >= best[0]:
                continue                     # cannot beat the equalisable one we have
            drawn_bad = q.bad
            self._aim[pair.k] = drawn_bad    # q's picks aim at q's own first-drawn bad words
            ok = self._equalisable(q)
            if best is None or (ok, _neg(rank)) > (best[2], _neg(best[0])):
                best = (rank, q, ok, drawn_bad)
            if ok and rank[:2] == (0, 0) and rank[2] <= ZIPF_CLOSE:
                break
        self._aim[pair.k] = first.bad
        return (None, {}) if best is None else (best[1], best[3])

    def _refill(self, pair: Pair, first: Pair) -> tuple[Pair | None, dict]:
        """A replacement that keeps the first-drawn context's frame: one critical slot's good word
        changed to a word of the same stratum (number, proper noun, mass, animacy; as many words)
        whose pair can be equalised, drawn with a kernel on the Zipf difference to the word replaced
        (`kernel_order`); None if none of the REFILL_TRIES first tried can. A word with which the
        other slots' features change (a subject redrawn because the new verb does not take it:
        `context_features`) is tried only after every word that keeps them. Returns the pair and its
        first-drawn bad fillers."""
        s = self.sampler
        frame = Pair(k=pair.k, good=first.good, bad={}, rng=pair.rng)
        shown = s.shown_slots(first.good)
        feats, later = self.context_features(first), []
        for name in self._refillable:
            g = first.good[name]
            if g.row < 0 or name not in shown:
                continue
            cands = self.allowed(s.good_candidates(frame, name))
            cands = cands[cands != g.row]
            cols = self._strata_cols.get(name, [])
            for c in cols:
                col = s.vocab.column(c)
                cands = cands[col[cands] == col[g.row]]
            cands = cands[self._n_words[cands] == self._n_words[g.row]]
            if not len(cands):
                continue
            order, classes = self.refill_order(frame, name, cands, pair.rng, len(self._critical_zipf(first)))
            got = self._try_rows(pair, frame, name, list(zip(order.tolist(), classes)), feats, later)
            if got is not None:
                return got
        for name, rows in later:          # the words that change other slots' features, in the same order
            got = self._try_rows(pair, frame, name, rows, (), None)
            if got is not None:
                return got
        self._aim[pair.k] = first.bad
        return None, {}

    def _try_rows(self, pair: Pair, frame: Pair, name: str, rows: list[tuple[int, int]], feats: tuple,
                  later: list | None) -> tuple[Pair, dict] | None:
        """The first of `rows` ((row, class), in order; at most REFILL_TRIES tried, a class skipped
        once one of its rows failed) with which `frame`'s slot `name` gives a pair that can be
        equalised, and its first-drawn bad fillers; None if none. With `feats`, a row whose pair's
        `context_features` differ from them is put off: appended, with its class, to `later`."""
        failed: set[int] = set()
        put_off, tried = [], 0
        for row, cls in rows:
            if cls in failed:
                continue
            if tried == REFILL_TRIES:
                break
            tried += 1
            q = self.sampler.refill(frame, name, int(row))
            if q is None:
                continue
            if feats and self.features_drift(feats, self.context_features(q)):
                put_off.append((row, cls))
                continue
            drawn_bad = q.bad
            self._aim[pair.k] = drawn_bad
            if self._equalisable(q):
                return q, drawn_bad
            failed.add(cls)
        if put_off and later is not None:
            later.append((name, [(r, c) for r, c in put_off if c not in failed]))
        return None

    def refill_order(self, frame: Pair, name: str, cands: np.ndarray, rng,
                     words: int = 1) -> tuple[np.ndarray, list[int]]:
        """The order in which `_refill` tries slot `name`'s candidate rows, and a class per row (rows of
        a class behave alike: once one failed, the others are skipped). The order is the kernel's
        (`kernel_order`), centred on the replaced word's frequency moved by the running balance
        (`aim_zipf`; `words`: the critical words of the context), a word the set has already
        (`used`) counting as REUSE_ZIPF further from it while the balance allows (`reuse_allowed`);
        where the slot's bad word is a form of its good one (the other number, a participle), the
        rows whose good and bad forms have equal token lengths in this place under every tokenizer
        come first (in the kernel's order), so that the words that can equalise are found however
        rare they are, and a class is the lengths of both forms."""
        z0 = self.freqs.of(frame.good[name])
        z, aim = self.freqs.rows(cands), self.aim_zipf(z0, words)
        if self.reuse_allowed():      # (a word the set already has counts as further from the aim)
            z = z + np.sign(z - aim) * REUSE_ZIPF * self.used[cands]
        order = kernel_order(rng, cands, z, aim)
        ctx = self._good_context(frame, name)
        if ctx is None or not len(self.meters):
            return order, list(range(len(order)))
        good = self.row_lengths(*ctx, order)
        spec = self.sampler.p.critical.get(name)
        if spec is None or spec.form is None or spec.text:
            return order, _classes(good)
        forms = [self._form_row(name, int(r)) for r in order]
        bad = np.full_like(good, -1)
        have = np.array([f >= 0 for f in forms])
        if have.any():
            bad[:, have] = self.row_lengths(*ctx, np.array([f for f in forms if f >= 0]))
        first = np.flatnonzero(np.all(good == bad, axis=0))
        rest = np.flatnonzero(~np.all(good == bad, axis=0))
        ranked = np.concatenate([first, rest])
        return order[ranked], _classes(np.vstack([good, bad])[:, ranked])

    def _form_row(self, name: str, row: int) -> int:
        """The first row of `row`'s bad form for critical slot `name` (the other number, or the form
        its spec names), -1 when it has none (remembered per slot and row)."""
        key = (name, row)
        got = self._forms.get(key)
        if got is None:
            spec, vocab = self.sampler.p.critical[name], self.sampler.vocab
            if spec.form == "other_number":
                sib = vocab.other_number(row)
                got = -1 if sib is None else int(sib)
            else:
                rows = vocab.form_of(row, spec.form)
                rows = rows[vocab.expressions[rows] != vocab.expressions[row]] if len(rows) else rows
                got = int(rows[0]) if len(rows) else -1
            self._forms[key] = got
        return got

    def _rank(self, key: tuple, z0: float, q: Pair, feats: tuple = ()) -> tuple[int, int, float]:
        """(tier, feature mismatches, frequency distance) of a candidate replacement: tier 0 = same
        stratum, 1 = same variant and word count, 2 = same variant, 3 = other; then how many of the
        other slots' features (`context_features`) differ from the first-drawn context's `feats`; then
        the distance of its mean critical-word Zipf to `z0`; lower is better."""
        k = self.stratum(q)
        tier = 0 if k == key else 1 if k[:2] == key[:2] else 2 if k[0] == key[0] else 3
        z = self.context_zipf(q)
        dist = 0.0 if np.isnan(z0) or np.isnan(z) else abs(z - z0)
        return tier, self._feature_cost(feats, self.context_features(q) if feats else ()), dist


def kernel_order(rng: np.random.Generator, rows: np.ndarray, z: np.ndarray, z0: float) -> np.ndarray:
    """`rows` in the order a replacement tries them: a weighted random order (an exponential race:
    each row's key is an Exp(1) draw divided by its weight) with Gaussian weights on the Zipf
    difference to the word replaced, exp(-(dz / ZIPF_KERNEL)^2 / 2). The first row that equalises is
    taken, so the replacement is drawn among the equalising words with that kernel: near the replaced
    word's frequency (the set's frequency profile stays the original's), but not always the nearest
    one (which would map every context of a word onto the same replacement and lose diversity).
    Rows without a frequency, or any row when `z0` has none, come last / in random order."""
    race = rng.exponential(size=len(rows))
    if np.isnan(z0):
        return rows[np.argsort(race, kind="stable")]
    dz = np.where(np.isnan(z), np.inf, np.abs(z - z0))
    logw = -0.5 * (dz / ZIPF_KERNEL) ** 2          # (log weights: no underflow to 0 for far words)
    return rows[np.lexsort((race, np.log(race) - logw))]      # (ties, e.g. rows without a frequency: by the race)


def _classes(lengths: np.ndarray) -> list[int]:
    """A class number per column of `lengths` (tokenizers x words), equal where the columns are equal
    (what np.unique(axis=1)'s inverse gives, a column at a time: a tenth of its cost)."""
    code = np.zeros(lengths.shape[1], dtype=np.int64)
    for row in lengths:
        low = int(row.min()) if len(row) else 0
        code = np.unique(code * (int(row.max()) - low + 1 if len(row) else 1) + (row - low),
                         return_inverse=True)[1].ravel()
    return code.tolist()


def _take(pair: Pair, q: Pair) -> None:
    """Pair takes q's context and sentences (a replacement; same draw index and stream)."""
    pair.good, pair.bad, pair.sentence_good, pair.sentence_bad = q.good, q.bad, q.sentence_good, q.sentence_bad
    pair.shown = None
    pair.renewed += 1


def _neg(rank: tuple) -> tuple:
    return tuple(-x for x in rank)


def moved_slots(p) -> list[str]:
    """The slots a reordering moves: named by both plain templates at different places (every slot
    both name, for Jinja templates). Where only literal words move (only_npi_scope's *only*,
    sentential_negation_npi_scope's *not*), the slots whose left neighbour differs between the two
    templates - the words whose tokens the move can change (the sentence's first word is
    capitalised; a word follows another): a replacement changes one of them in the first-drawn
    frame, its determiner kept, rather than drawing a whole new context."""
    from fairpairs.generation.slots import PlainTemplate

    if isinstance(p.good_template, PlainTemplate) and isinstance(p.bad_template, PlainTemplate):
        good, bad = p.good_template.parts[1::2], p.bad_template.parts[1::2]
        moved = [n for i, n in enumerate(good) if n in bad and (i >= len(bad) or bad[i] != n)]
        if moved or good != bad:
            return moved
        left = lambda parts: {n: parts[j - 1] for j, n in enumerate(parts) if j % 2}
        lg, lb = left(p.good_template.parts), left(p.bad_template.parts)
        return [n for n in good if lg[n] != lb[n]]
    return list(p.slots)
