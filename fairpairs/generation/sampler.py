"""Seeded sampling of minimal pairs from a compiled paradigm.

Every draw k of a paradigm has its own random stream, seeded by (seed, uid, k), so pair k is the
same whatever else is generated, in whatever batch size, and the original and debiased sets share
their good sentences' stream.
"""

from __future__ import annotations

import numpy as np

from fairpairs.generation.grammar import Paradigm
from fairpairs.errors import GrammarError
from fairpairs.generation.pairs import Filler, Pair, Remembered, uid_seed, words  # noqa: F401 (re-exported)
from fairpairs.generation.prefixes import same_words  # noqa: F401 (re-exported)
from fairpairs.generation.readback import PairReadback
from fairpairs.generation.pools import POOL_LIMIT, Pools, source_gaps
from fairpairs.generation.seeding import WORD, seed_words, stream
from fairpairs.generation.slots import SlotSpec
from fairpairs.generation.vocab import Vocabulary


MEMO_LIMIT = 20000     # draws remembered per sampler
SEED_BLOCK = 256       # draws whose streams' seed words are computed together (fairpairs.generation.seeding)


class Sampler(PairReadback):
    """Draws good fillers, bad fillers for the critical slots, and renders sentences (and reads a
    drawn pair back: `PairReadback`)."""

    def __init__(self, paradigm: Paradigm, vocab: Vocabulary, seed: int = 0):
        self.p = paradigm
        self.vocab = vocab
        self.seed = int(seed)
        self._uid_seed = uid_seed(paradigm.uid)
        # can a redraw of the bad sentence ever change it? (not for reorderings or derived forms)
        self.redrawable = any(spec.form is None for spec in paradigm.critical.values())
        self.dead_ends: dict[str, int] = {}
        self._memo: dict[int, Pair | Remembered | None] = {}
        self._seed_blocks: dict[int, np.ndarray] = {}
        self.start_readback(paradigm)
        self._sentences: dict[tuple, str] = {}
        self.pools = Pools(paradigm, vocab)     # candidate pools, compiled once per context
        # a draw's first pair comes from the source lexicon alone; length control draws from every row
        source = vocab.source_rows()
        self.first_pools = self.pools if source.all() else Pools(paradigm, vocab, keep=source)
        gaps = source_gaps(paradigm, source)
        if gaps:
            raise GrammarError(f"{paradigm.path}: {', '.join(gaps)}: no candidate word of the source lexicon (only "
                               f"words of the extension, which original sets do not draw; docs/vocabulary.md)")

    def rng(self, k: int) -> np.random.Generator:
        """Draw k's stream: np.random.default_rng([seed, uid seed, k]), seeded in blocks of draws."""
        k = int(k)
        entropy = [self.seed, self._uid_seed, k]
        if not (0 <= self.seed <= WORD and 0 <= k <= WORD):     # (one 32-bit word each, as seed_words takes)
            return np.random.default_rng(entropy)
        block = self._seed_blocks.get(k // SEED_BLOCK)
        if block is None:
            if len(self._seed_blocks) >= 1024:
                self._seed_blocks.clear()
            first = k - k % SEED_BLOCK
            ks = np.arange(first, min(first + SEED_BLOCK, WORD + 1), dtype=np.int64)
            block = self._seed_blocks[k // SEED_BLOCK] = seed_words(
                np.stack([np.full(len(ks), self.seed), np.full(len(ks), self._uid_seed), ks], axis=1))
        return stream(block[k % SEED_BLOCK], entropy)

    # ------------------------------------------------------------------ candidates (generation.pools)
    def pool(self, spec: SlotSpec, ctx: dict[str, Filler]) -> np.ndarray:
        """Slot `spec`'s candidate rows against the fillers `ctx` (`Pools.pool`; read-only)."""
        return self.pools.pool(spec, ctx)

    def candidates(self, spec: SlotSpec, base: np.ndarray, ctx: dict[str, Filler]) -> np.ndarray:
        """The rows of `base` that pass slot `spec`'s constraints against `ctx` (`Pools.candidates`)."""
        return self.pools.candidates(spec, base, ctx)

    def bad_candidates(self, name: str, good: dict[str, Filler], bad: dict[str, Filler]) -> np.ndarray | list[str]:
        """Every allowed bad filler of critical slot `name` (`Pools.bad_candidates`; read-only)."""
        return self.pools.bad_candidates(name, good, bad)

    def kept_det(self, name: str, g: Filler) -> int | None:
        """The determiner row the bad filler keeps (-1: none), or None if the slot has no determiner."""
        return self.pools.kept_det(name, g)

    def _det_for(self, spec: SlotSpec, row: int, rng: np.random.Generator, pools: Pools | None = None) -> int | None:
        if spec.article_of is not None:   # the language's article: fixed by the noun (-1: none)
            return int(spec.article_of[row])
        dets = (pools or self.pools).dets(spec, row)
        if not len(dets):
            return None
        return int(dets[rng.integers(len(dets))])

    def _fill(self, spec: SlotSpec, ctx: dict[str, Filler], rng: np.random.Generator,
              pools: Pools | None = None) -> Filler | None:
        """A good filler for a slot: a literal, or a row (with its determiner) passing every constraint
        (among the rows of `pools`, default every row)."""
        if spec.text:
            return Filler(None, -1, literal=spec.text[int(rng.integers(len(spec.text)))])
        idx = (pools or self.pools).pool(spec, ctx)
        if not len(idx):
            self.dead_ends[spec.key] = self.dead_ends.get(spec.key, 0) + 1
            return None
        row = int(idx[rng.integers(len(idx))])
        if spec.det_base is not None:
            d = self._det_for(spec, row, rng, pools)
            if d is None:
                self.dead_ends[spec.key + ".det"] = self.dead_ends.get(spec.key + ".det", 0) + 1
                return None
            return Filler(self.vocab, row, d)
        return Filler(self.vocab, row)

    # ------------------------------------------------------------------ drawing
    def draw_good(self, rng: np.random.Generator, pools: Pools | None = None) -> dict[str, Filler] | None:
        """Good fillers for every slot (from the rows of `pools`: default every row); None at a dead end."""
        ctx: dict[str, Filler] = {}
        for name in self.p.order:
            spec = self.p.slots[name]
            f = self._fill(spec, ctx, rng, pools)
            if f is None:
                return None
            ctx[name] = f
        return ctx

    def make_bad(self, name: str, g: Filler, choice) -> Filler:
        """The bad Filler for a chosen candidate (a row, or a string for a literal)."""
        if isinstance(choice, str):
            return Filler(None, -1, literal=choice)
        det = self.kept_det(name, g)
        return Filler(self.vocab, int(choice), det) if det is not None else Filler(self.vocab, int(choice))

    def draw_bad(self, good: dict[str, Filler], rng: np.random.Generator,
                 pools: Pools | None = None) -> dict[str, Filler] | None:
        """New fillers for the critical slots (all other slots keep their good fillers), from the
        rows of `pools` (default: `bad_candidates`, every row)."""
        bad: dict[str, Filler] = {}
        for name in self.p.critical:
            cands = self.bad_candidates(name, good, bad) if pools in (None, self.pools) else \
                pools.bad_candidates(name, good, bad)
            if not len(cands):
                self.dead_ends[f"critical.{name}"] = self.dead_ends.get(f"critical.{name}", 0) + 1
                return None
            bad[name] = self.make_bad(name, good[name], cands[int(rng.integers(len(cands)))])
        return bad

    def render(self, good: dict[str, Filler], bad: dict[str, Filler]) -> tuple[str, str]:
        return self.render_good(good), self.render_bad(good, bad)

    def render_good(self, good: dict[str, Filler]) -> str:
        return self._sentence(self.p.good_template, good)

    def render_bad(self, good: dict[str, Filler], bad: dict[str, Filler]) -> str:
        return self._sentence(self.p.bad_template, {**good, **bad})

    def _sentence(self, template, values: dict[str, Filler]) -> str:
        """The finished sentence of `template` filled with `values`; a Jinja2 template's (its render
        is the costly part of a draw) remembered per fillers, which are all it can read."""
        if self._plain:
            return self.p.finish(template.render(values))
        key = (id(template), *[(n, f.row, f.det, f.text, f.word) for n, f in values.items()])
        text = self._sentences.get(key)
        if text is None:
            if len(self._sentences) >= POOL_LIMIT:
                self._sentences.clear()
            text = self._sentences[key] = self.p.finish(template.render(values))
        return text

    def draw(self, k: int, will_change: bool = True) -> Pair | None:
        """Draw pair k (good fillers, then the first bad fillers). None when the draw dead-ends
        or gives identical sentences. Draws are remembered (as drawn, before any redraw), so the
        debiased set does not redo the original set's draws; a caller that will change the pair
        (length control) gets its own copy, one that will not (the original set) may share it."""
        if k in self._memo:
            q = self._memo[k]
            if q is None:
                return None
            if isinstance(q, Remembered):
                return q.pair()
            return q.copy() if will_change else q
        p = self.draw_from(k, self.rng(k), self.first_pools)     # (the source lexicon only)
        if len(self._memo) < MEMO_LIMIT:
            self._memo[k] = Remembered(p) if p is not None and will_change else p
        return p

    def _with_bad(self, k: int, good: dict, rng: np.random.Generator, pools: Pools | None = None) -> Pair | None:
        """Draw k's pair around its good fillers: a bad sentence drawn for them, or None when none
        can be or it reads like the good one."""
        bad = self.draw_bad(good, rng, pools)
        if bad is None:
            return None
        sg, sb = self.render(good, bad)
        if sg == sb:
            return None
        return Pair(k=k, good=good, bad=bad, sentence_good=sg, sentence_bad=sb, rng=rng)

    def draw_from(self, k: int, rng: np.random.Generator, pools: Pools | None = None) -> Pair | None:
        """A pair drawn from `rng` (a fresh stream for draw k, or one already used: a redraw), from
        the rows of `pools`: `draw` passes `first_pools` (the source lexicon), length control's
        replacements none (every row, the extension's included)."""
        good = self.draw_good(rng, pools)
        if good is None:
            return None
        return self._with_bad(k, good, rng, pools)

    def good_candidates(self, pair: Pair, name: str) -> np.ndarray:
        """The rows slot `name`'s good filler may take with every other good filler of the pair kept
        (the slot's own constraints against the slots it refers to)."""
        return self.pool(self.p.slots[name], pair.good)

    def refill(self, pair: Pair, name: str, row: int) -> Pair | None:
        """The pair with slot `name`'s good filler changed to `row` and as much of its context kept
        as the grammar allows: a determiner is kept where it suits the new row, a slot that refers to
        a changed slot keeps its filler where still allowed, else it is drawn anew; the bad sentence is
        drawn afresh. None when a slot cannot be filled or the sentences come out identical. Draws
        from the pair's own stream."""
        p, rng = self.p, pair.rng
        spec = p.slots[name]
        old = pair.good[name]
        if spec.det_base is not None:
            det = old.det if old.det >= 0 and spec.article_of is None \
                and self.vocab.accepted_by(row, "arg_1", np.array([old.det]))[0] else self._det_for(spec, row, rng)
            if det is None:
                return None
            filler = Filler(self.vocab, row, det)
        else:
            filler = Filler(self.vocab, row)
        good = {**pair.good, name: filler}
        changed = {name}
        for other in p.order:      # (dependency order: a slot after the slots it refers to)
            ospec = p.slots[other]
            if other == name or ospec.text or changed.isdisjoint(self.pools.refs_of(ospec)):
                continue
            if not self.pools.allows(ospec, good[other].row, good):
                f = self._fill(ospec, good, rng)   # no longer allowed: drawn anew (e.g. the same verb's -ing form)
                if f is None:
                    return None
                good[other] = f
                changed.add(other)
        return self._with_bad(pair.k, good, rng)

    def redraw_bad(self, pair: Pair, count: bool = True) -> bool:
        """Algorithm 1's step: redraw the critical slots of the bad sentence only."""
        if count:
            pair.redraws += 1
        if not self.redrawable:  # the redraw would give the same sentence: skip the work
            return False
        bad = self.draw_bad(pair.good, pair.rng)
        if bad is None:
            return False
        sb = self.render_bad(pair.good, bad)
        if sb == pair.sentence_good:
            return False
        pair.bad, pair.sentence_bad = bad, sb
        return True
