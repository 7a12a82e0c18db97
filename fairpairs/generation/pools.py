"""The candidate rows of a paradigm's slots, compiled once per context: a slot's pool depends only
on the rows of the slots its constraints refer to - and on each only through its class
(`row_classes`: the rows a constraint reads alike, e.g. the subjects a verb's restriction cannot
tell apart) - so it is the conjunction of one remembered mask per constraint and class, remembered
itself per classes of the context (bounded: `POOL_LIMIT` entries, `POOL_BYTES` bytes, then forgotten
and computed again); a noun's determiners and a critical slot's bad candidates are remembered per
row. `fairpairs.generation.sampler.Sampler` draws from them.
"""

from __future__ import annotations

import weakref

import numpy as np

from fairpairs.generation.grammar import Paradigm
from fairpairs.generation.pairs import Filler
from fairpairs.generation.slots import SlotSpec
from fairpairs.generation.vocab import Vocabulary

POOL_LIMIT = 20000     # candidate pools remembered per paradigm (then forgotten and computed again)
POOL_BYTES = 4 << 20   # ... and at most this many bytes of them


_CLASSES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()   # vocabulary -> {(kind, arg): classes}


def row_classes(vocab: Vocabulary, kind: str, arg) -> list[int]:
    """A class number per row of `vocab` (a list: indexed per draw), equal for two rows wherever a
    constraint of `kind` on `arg` reads them alike, so a pool is remembered per class, not per row:
    "value" - the row's value of column `arg` (a `fills`/`fails` restriction's text, a `same`
    column); "values" - its values of the columns `arg` (`differ`); "accepts" - which of column
    `arg`'s restrictions the row satisfies (`takes`/`rejects`: `Vocabulary.accepted_by` reads the
    row as the column of that table). Computed once per vocabulary."""
    known = _CLASSES.setdefault(vocab, {})
    got = known.get((kind, arg))
    if got is None:
        if kind == "accepts":
            uniques = sorted(set(vocab.column(arg).tolist()))
            table = np.packbits(np.stack([vocab.dnf_mask(u) for u in uniques]), axis=0) if uniques else \
                np.zeros((1, len(vocab)), dtype=np.uint8)
            keys = [table[:, r].tobytes() for r in range(len(vocab))]
        elif kind == "values":
            keys = list(zip(*[vocab.column(c).tolist() for c in arg])) or [()] * len(vocab)
        else:
            keys = vocab.column(arg).tolist()
        codes: dict = {}
        got = known[(kind, arg)] = [codes.setdefault(k, len(codes)) for k in keys]
    return got


def source_gaps(paradigm: Paradigm, keep: np.ndarray) -> list[str]:
    """The keys of the slots (and critical slots drawn by `where:`) none of whose candidate rows is
    one `keep` allows: slots an original set cannot fill from the source lexicon."""
    specs = [*paradigm.slots.values(), *(s for s in paradigm.critical.values() if s.form is None)]
    return [s.key for s in specs if not s.text and not keep[s.base].any()]


class Pools:
    """Candidate pools of one paradigm's slots (read-only arrays; lists of strings for literals).
    `keep`: a mask of the rows the pools may hold (the source lexicon, for a set's first draws);
    None: every row."""

    def __init__(self, paradigm: Paradigm, vocab: Vocabulary, keep: np.ndarray | None = None):
        self.p = paradigm
        self.vocab = vocab
        self.keep = keep
        self._lex_codes = vocab.lexeme_codes()
        self._lex_list = self._lex_codes.tolist()
        self._refs: dict[int, tuple[str, ...]] = {}
        self._pools: dict[tuple, np.ndarray] = {}
        self._pool_bytes = 0
        self._dets: dict[tuple, np.ndarray] = {}
        self._allowed: dict[tuple, bool] = {}
        self._tests: dict[int, list] = {}
        self._masks: dict[tuple, np.ndarray] = {}
        self._bad_pools: dict[tuple, np.ndarray | list[str]] = {}

    def refs_of(self, spec: SlotSpec) -> tuple[str, ...]:
        refs = self._refs.get(id(spec))
        if refs is None:
            refs = self._refs[id(spec)] = tuple(sorted(spec.references()))
        return refs

    def pool(self, spec: SlotSpec, ctx: dict[str, Filler]) -> np.ndarray:
        """`candidates(spec, spec.base, ctx)`, remembered per classes of the rows of the slots it refers
        to (read-only): each constraint reads its slot's row only through a class (`row_classes`), so
        rows of one class give the same pool, and most draws find theirs remembered."""
        sid = id(spec)
        tests = self._tests.get(sid)
        if tests is None:
            tests = self._tests_of(spec)
        key = (sid, *[classes[ctx[slot].row] for slot, _, classes in tests])
        idx = self._pools.get(key)
        if idx is None:
            mask = None
            for j, (slot, test, classes) in enumerate(tests):
                r = ctx[slot].row
                m = self._masks.get((sid, j, classes[r]))
                if m is None:
                    if len(self._masks) >= POOL_LIMIT:
                        self._masks.clear()
                    m = self._masks[(sid, j, classes[r])] = test(r)
                mask = m if mask is None else mask & m
            idx = self._remember(self._pools, key, self._kept(spec.base[mask] if mask is not None else spec.base.view()))
        return idx

    def _tests_of(self, spec: SlotSpec) -> list:
        """Slot `spec`'s constraints as (slot referred to, its row -> mask over spec.base, the row's
        class: a list over rows, equal where the mask is): the filters of `candidates` one at a time
        (each is a test of one candidate row, so their conjunction over the base is what `candidates`
        keeps, in the base's order)."""
        tests = self._tests.get(id(spec))
        if tests is not None:
            return tests
        v, base, lex = self.vocab, spec.base, self._lex_codes
        tests = []
        for slot, arg in spec.fills:
            tests.append((slot, lambda r, arg=arg: v.satisfiers(r, arg)[base], row_classes(v, "value", arg)))
        for slot, arg in spec.fails:
            tests.append((slot, lambda r, arg=arg: ~v.satisfiers(r, arg)[base], row_classes(v, "value", arg)))
        for arg, slot in spec.takes:
            tests.append((slot, lambda r, arg=arg: v.accepted_by(r, arg, base), row_classes(v, "accepts", arg)))
        for arg, slot in spec.rejects:
            tests.append((slot, lambda r, arg=arg: ~v.accepted_by(r, arg, base), row_classes(v, "accepts", arg)))
        for slot, cols in spec.same:
            for c in cols:
                tests.append((slot, lambda r, c=c: v.column(c)[base] == v.column(c)[r], row_classes(v, "value", c)))
        for slot, cols in spec.differ:
            tests.append((slot, lambda r, cols=cols: np.logical_or.reduce(
                [v.column(c)[base] != v.column(c)[r] for c in cols] or [np.zeros(len(base), dtype=bool)]),
                row_classes(v, "values", cols)))
        if spec.distinct_from:      # (a row whose lexeme has no row in the base leaves the whole base: one class)
            inside = set(lex[base].tolist())
            classes = [c if c in inside else -1 for c in lex.tolist()]
        for slot in spec.distinct_from:
            tests.append((slot, lambda r: lex[base] != lex[r], classes))
        self._tests[id(spec)] = tests
        return tests

    def allows(self, spec: SlotSpec, row: int, ctx: dict[str, Filler]) -> bool:
        """Whether row `row` passes slot `spec`'s constraints against `ctx` (remembered per row and
        classes of the referred rows, as `pool`; `row` need not be in the slot's base, so a
        `distinct_from` constraint's class is the referred row's lexeme)."""
        tests = self._tests_of(spec)
        n = len(tests) - len(spec.distinct_from)
        key = (id(spec), row, *[classes[ctx[slot].row] for slot, _, classes in tests[:n]],
               *[self._lex_list[ctx[slot].row] for slot in spec.distinct_from])
        ok = self._allowed.get(key)
        if ok is None:
            if len(self._allowed) >= POOL_LIMIT:
                self._allowed.clear()
            ok = self._allowed[key] = bool(len(self.candidates(spec, np.array([row]), ctx)))
        return ok

    def candidates(self, spec: SlotSpec, base: np.ndarray, ctx: dict[str, Filler]) -> np.ndarray:
        """The rows of `base` that pass slot `spec`'s constraints against the fillers `ctx` (a
        function of the rows of the slots it refers to alone)."""
        v = self.vocab
        idx = base
        for slot, arg in spec.fills:
            if not len(idx):
                break
            idx = idx[v.satisfiers(ctx[slot].row, arg)[idx]]
        for slot, arg in spec.fails:
            if not len(idx):
                break
            idx = idx[~v.satisfiers(ctx[slot].row, arg)[idx]]
        for arg, slot in spec.takes:
            if not len(idx):
                break
            idx = idx[v.accepted_by(ctx[slot].row, arg, idx)]
        for arg, slot in spec.rejects:
            if not len(idx):
                break
            idx = idx[~v.accepted_by(ctx[slot].row, arg, idx)]
        for slot, cols in spec.same:
            r = ctx[slot].row
            for c in cols:
                idx = idx[v.column(c)[idx] == v.column(c)[r]]
        for slot, cols in spec.differ:
            r = ctx[slot].row
            keep = np.zeros(len(idx), dtype=bool)
            for c in cols:
                keep |= v.column(c)[idx] != v.column(c)[r]
            idx = idx[keep]
        for slot in spec.distinct_from:
            idx = idx[self._lex_codes[idx] != self._lex_codes[ctx[slot].row]]
        return idx

    def bad_candidates(self, name: str, good: dict[str, Filler], bad: dict[str, Filler]) -> np.ndarray | list[str]:
        """Every allowed bad filler of critical slot `name` (rows, or strings for a literal), given
        the good fillers and the bad fillers of the critical slots drawn before it. Remembered per
        good filler and rows of the slots the constraints refer to (the result is read-only)."""
        spec = self.p.critical[name]
        g = good[name]
        key = (name, g.row, g.det, g.word, *[(bad.get(r) or good[r]).row for r in self.refs_of(spec)])
        hit = self._bad_pools.get(key)
        if hit is None:
            hit = self._remember(self._bad_pools, key, self._kept(self._bad_candidates(name, spec, g, good, bad)))
        return hit

    def _kept(self, pool):
        """The rows of `pool` that `keep` allows (a literal's strings pass)."""
        if self.keep is None or not isinstance(pool, np.ndarray) or not len(pool):
            return pool
        return pool[self.keep[pool]]

    def _remember(self, store: dict, key: tuple, pool):
        """Keep a pool in `store` (pools and bad candidates: read-only arrays or lists), within the bounds."""
        if isinstance(pool, np.ndarray):
            pool.setflags(write=False)
            self._pool_bytes += pool.nbytes
        if self._pool_bytes > POOL_BYTES or len(store) >= POOL_LIMIT:
            self.forget()
        store[key] = pool
        return pool

    def forget(self) -> None:
        """Drop the remembered pools (they are computed again when asked for): a bound on memory."""
        self._pools.clear()
        self._bad_pools.clear()
        self._pool_bytes = 0

    def _bad_candidates(self, name: str, spec: SlotSpec, g: Filler, good: dict[str, Filler],
                        bad: dict[str, Filler]) -> np.ndarray | list[str]:
        if spec.text:
            return [w for w in spec.text if w != g.word]
        if spec.form == "other_number":
            sib = self.vocab.other_number(g.row)
            base = np.array([sib] if sib is not None else [], dtype=np.int64)
        elif isinstance(spec.form, dict):
            base = self.vocab.form_of(g.row, spec.form)
        else:
            base = spec.base
        base = base[self.vocab.expressions[base] != g.word] if len(base) else base
        idx = self.candidates(spec, base, {**good, **bad})
        det = self.kept_det(name, g)
        if det is not None and det >= 0:  # keep the good determiner: the new noun must suit it
            idx = idx[self.vocab.satisfiers(det, "arg_1")[idx]]
        article_of = self.p.slots[name].article_of
        if article_of is not None and det is not None:   # (the language's article: the same one)
            idx = idx[article_of[idx] == det]
        return idx

    def kept_det(self, name: str, g: Filler) -> int | None:
        """The determiner row the bad filler keeps (-1: none), or None if the slot has no determiner."""
        return g.det if self.p.slots[name].det_base is not None and g.row >= 0 else None

    def dets(self, spec: SlotSpec, row: int) -> np.ndarray:
        """The determiner rows slot `spec`'s noun row `row` accepts (remembered per the row's class for
        `arg_1`, which is all `accepted_by` reads of it; read-only)."""
        key = (id(spec), row_classes(self.vocab, "accepts", "arg_1")[row])
        dets = self._dets.get(key)
        if dets is None:
            if len(self._dets) >= POOL_LIMIT:
                self._dets.clear()
            dets = self._dets[key] = self._kept(spec.det_base[self.vocab.accepted_by(row, "arg_1", spec.det_base)])
        return dets
