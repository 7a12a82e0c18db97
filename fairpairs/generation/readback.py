"""Reading a drawn pair back: which slots its sentences show (a Jinja2 template that switches
between variants leaves the other variant's slots unrendered), what its good sentence is made of,
and its record (the jsonl row). The part of `fairpairs.generation.sampler.Sampler` that never draws:
`PairReadback`, which `Sampler` extends.
"""

from __future__ import annotations

from fairpairs.generation.grammar import Paradigm
from fairpairs.generation.pairs import Filler, Pair
from fairpairs.generation.prefixes import method_fields
from fairpairs.generation.slots import PlainTemplate
from fairpairs.records import PairRecord, drop_absent


def branch_slots(paradigm: Paradigm) -> tuple[str, ...] | None:
    """The slots the control flow of a paradigm's Jinja2 templates reads ({% if %}, {% for %},
    {% set %}, `x if c else y`), when they are all literal slots (so that which slots a sentence
    shows depends on their values alone); None otherwise."""
    import jinja2.nodes as jn

    from fairpairs.generation.templates import template_env

    names: set[str] = set()
    nodes = [n for source in (paradigm.good_source, paradigm.bad_source)
             for n in template_env().parse(source).find_all((jn.If, jn.CondExpr, jn.For, jn.Assign))]
    for node in nodes:
        expr = node.test if isinstance(node, (jn.If, jn.CondExpr)) else node.iter if isinstance(node, jn.For) else node.node
        names |= {n.name for n in expr.find_all(jn.Name)} | ({expr.name} if isinstance(expr, jn.Name) else set())
    slots = paradigm.slots
    if not all(n in slots and slots[n].text for n in names):
        return None
    return tuple(sorted(names))


class PairReadback:
    """What a sampler's drawn pairs show and their records; `start_readback` sets up its memos
    (`self.p`, the paradigm, and `self.vocab` are the sampler's)."""

    p: Paradigm

    def start_readback(self, paradigm: Paradigm) -> None:
        """The paradigm's template facts the readback needs, and empty memos."""
        # critical slots a plain template names (a Jinja2 template may leave some unrendered)
        self._plain = isinstance(paradigm.good_template, PlainTemplate)
        self._named = [n for n in paradigm.critical
                       if not self._plain or n in paradigm.good_template.parts[1::2]]
        self._good_named = set(paradigm.good_template.parts[1::2]) if self._plain else set()
        self._branch_slots = None if self._plain else branch_slots(paradigm)
        self._shown: dict[tuple, set[str]] = {}
        self._shown_critical: dict[tuple, list[str]] = {}

    def shown_critical(self, pair: Pair) -> list[str]:
        """The critical slots the pair's sentences actually show (a template that switches between
        variants with `{% if %}` leaves the other variant's slots unrendered)."""
        if self._plain:
            return self._named
        # keyed on the fillers' values, not on the dicts' identity: a redraw replaces the dicts, and
        # a new dict may reuse a freed one's id(), which made an identity key return stale slots
        if self._branch_slots is not None:   # the variant is a matter of literal slots: remembered per variant
            key = (tuple(pair.good[n].word for n in self._branch_slots),
                   tuple(pair.bad[n].word for n in self._branch_slots if n in pair.bad))
            shown = self._shown_critical.get(key)
            if shown is None:
                shown = self._shown_critical[key] = self._probe_critical(pair)
            return shown
        key = (tuple((n, f.row, f.det, f.text) for n, f in pair.good.items()),
               tuple((n, f.row, f.det, f.text) for n, f in pair.bad.items()))
        if pair.shown is not None and pair.shown[0] == key:
            return pair.shown[1]
        shown = self._probe_critical(pair)
        pair.shown = (key, shown)
        return shown

    def _probe_critical(self, pair: Pair) -> list[str]:
        probes = {n: Filler(None, -1, literal=f"\x02{i}\x03") for i, n in enumerate(self.p.critical)}
        text = (self.p.good_template.render({**pair.good, **probes})
                + self.p.bad_template.render({**pair.good, **pair.bad, **probes}))
        return [n for n, f in probes.items() if f.text in text]

    def shown_slots(self, good: dict[str, Filler]) -> set[str]:
        """The vocabulary slots the good sentence shows (a template's other variants leave some out).
        Where the template's branches read literal slots only, the answer is remembered per
        combination of their values."""
        p = self.p
        if self._plain:
            return self._good_named
        key = tuple(good[n].word for n in self._branch_slots) if self._branch_slots is not None else None
        if key is not None and key in self._shown:
            return self._shown[key]
        probes = {n: Filler(None, -1, literal=f"\x02{i}\x03") for i, n in enumerate(p.slots) if not p.slots[n].text}
        text = p.good_template.render({**good, **probes})
        shown = {n for n, f in probes.items() if f.text in text}
        if key is not None:
            self._shown[key] = shown
        return shown

    def fillers(self, pair: Pair) -> dict[str, str]:
        """What the good sentence is made of, by slot: the word of every vocabulary slot it shows
        (and, for a determiner-phrase slot, its determiner as `<slot>.det`, "" for none), and the
        value of every literal slot (literal slots also choose a template's variant)."""
        p = self.p
        shown = self.shown_slots(pair.good)
        out = {}
        for n, spec in p.slots.items():
            f = pair.good[n]
            if spec.text:
                out[n] = f.word
            elif n in shown:
                out[n] = f.word
                if spec.det_base is not None:
                    out[f"{n}.det"] = self.vocab.expressions[f.det] if f.det >= 0 else ""
        return out

    def values(self, pair: Pair, lengths: dict[str, tuple[int, int]], pair_id: int, control: str = "none") -> dict:
        """A pair's record fields by name, in records.PAIR_FIELDS order (each mapping made new);
        `control` says what length control did to it (records.CONTROL_STATES)."""
        p = self.p
        shown = self.shown_critical(pair)
        return {"sentence_good": pair.sentence_good, "sentence_bad": pair.sentence_bad, "field": p.field,
                "linguistics_term": p.linguistics_term, "uid": p.uid, "pair_id": str(pair_id),
                **method_fields(p, pair, shown, self.shown_slots(pair.good)),
                "critical_good": {n: pair.good[n].word for n in shown},
                "critical_bad": {n: pair.bad[n].word for n in shown},
                "token_lengths": {m: {"good": g, "bad": b} for m, (g, b) in lengths.items()},
                "redraws": pair.redraws, "draw": pair.k, "control": control, "fillers": self.fillers(pair)}

    def record(self, pair: Pair, lengths: dict[str, tuple[int, int]], pair_id: int,
               control: str = "none") -> PairRecord:
        """The typed record of a pair (its `to_dict()` is the jsonl row)."""
        return PairRecord.of_values(*self.values(pair, lengths, pair_id, control).values())

    def row(self, pair: Pair, lengths: dict[str, tuple[int, int]], pair_id: int, control: str = "none") -> dict:
        """The jsonl record of a pair, as a dict (`record(...).to_dict()`, made directly: its values are new)."""
        return drop_absent(self.values(pair, lengths, pair_id, control))
