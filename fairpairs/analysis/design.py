"""The designed evaluation: how many pairs to generate and which sentences to score, planned from
the question the evaluation answers (issue 44).

The question is the token-length bias of a model: the gap, accuracy on the original set's A>U pairs
minus on its A<U pairs, under the model's own tokenizer. Its pair-level interval has the half-width
z * sqrt(p1 (1 - p1) / n1 + p2 (1 - p2) / n2), at most z * sqrt(0.5 / n) for n pairs per direction
(the worst case p = 0.5), so a target half-width h needs

    n_direction = ceil(z^2 * 0.5 / h^2)        (h = 10 points: 193 A>U and 193 A<U pairs)

Only A>U and A<U pairs answer it, and under today's tokenizers most contexts are A=U (about 92%
under SmolLM2's), so the plan reads, per paradigm and model, the share of the original set's
contexts in each direction (`direction_shares`, measured on a generated pilot set: generation is
cheap, scoring is not) and asks for the smallest number of pairs per paradigm that gives every
model n_direction pairs in both directions, pooled over paradigms (`plan`).

Scoring is then stratified (`fairpairs.analysis.sampling`): every context that is unequal under the
model's tokenizer (or whose pair control changed) is scored; of the A=U contexts whose one pair is
the same in both sets, a known-rate sample. The default rate gives the A=U accuracy (the baseline,
and most of the overall accuracy) the half-width h / 2 at p = 0.5 (n_equal = ceil(z^2 * 0.25 /
(h / 2)^2), 385 pairs at h = 10 points), since it is the reference both directions are read against.

Pure functions; no model needed.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

from fairpairs import stats

TARGET_HALFWIDTH = 0.10   # the gap's planned pair-level 95% half-width (10 points)
MAX_PAIRS = 1000          # per paradigm and set: BLiMP's size, and `fairpairs generate`'s default
PILOT_PAIRS = 200         # per paradigm: the pilot that measures the shares of each direction


def per_direction(halfwidth: float, level: float = stats.LEVEL) -> int:
    """Pairs per direction (A>U, A<U) for the gap's pair-level interval to have at most `halfwidth`
    (a proportion) at the worst-case variance p = 0.5 in both directions."""
    z = stats.z_value(level)
    return math.ceil(z * z * 0.5 / (halfwidth * halfwidth) - 1e-9)


def equal_sample(halfwidth: float, level: float = stats.LEVEL) -> int:
    """A=U pairs to score (pooled) so that the A=U accuracy's interval has at most halfwidth / 2
    at p = 0.5."""
    z = stats.z_value(level)
    return math.ceil(z * z * 0.25 / (halfwidth / 2) ** 2 - 1e-9)


def gap_halfwidth(n_longer: float, n_shorter: float, level: float = stats.LEVEL) -> float:
    """The gap's worst-case (p = 0.5) pair-level half-width with these many pairs per direction."""
    if n_longer <= 0 or n_shorter <= 0:
        return float("inf")
    z = stats.z_value(level)
    return z * math.sqrt(0.25 / n_longer + 0.25 / n_shorter)


@dataclass(frozen=True)
class Shares:
    """One model's tokenizer on the pilot's original set: contexts per paradigm in each direction."""

    model: str
    longer: dict[str, int]
    shorter: dict[str, int]
    equal: dict[str, int]

    def total(self, part: str) -> int:
        return sum(getattr(self, part).values())

    def contexts(self) -> int:
        return self.total("longer") + self.total("shorter") + self.total("equal")


def direction_shares(original, lengths: dict[str, dict[str, int]]) -> list[Shares]:
    """Per model (`lengths`: model -> {sentence: tokens}), the original set's contexts per paradigm
    and direction (`original`: a frame with uid, sentence_good, sentence_bad)."""
    out = []
    for model, length in lengths.items():
        parts = {"longer": {}, "shorter": {}, "equal": {}}
        for uid, good, bad in zip(original["uid"], original["sentence_good"], original["sentence_bad"]):
            g, b = length[good], length[bad]
            part = "longer" if g > b else "shorter" if g < b else "equal"
            parts[part][uid] = parts[part].get(uid, 0) + 1
        out.append(Shares(model, **parts))
    return out


@dataclass
class Plan:
    """What the designed evaluation will do, printed before anything is scored and kept in
    results.json (`design`)."""

    target_halfwidth: float
    per_direction: int                        # pairs per direction the target needs
    pairs: int                                # pairs per paradigm and set to generate
    paradigms: int
    pilot_pairs: int                          # per paradigm, the pilot the shares were measured on
    expected: dict[str, dict[str, float]] = field(default_factory=dict)   # model -> longer/shorter/equal/halfwidth
    equal_target: int = 0                     # A=U pairs to score, pooled
    sentences: dict[str, int] = field(default_factory=dict)    # model -> sentences planned (filled by sampling)
    max_sentences: int | None = None
    limited_by: str = ""                      # "" (the target is met), "max pairs" or "max sentences"
    explicit_pairs: bool = False              # --pairs given: no planning, every context scored

    def as_dict(self) -> dict:
        return asdict(self)

    def lines(self) -> list[str]:
        """The plan in words (printed before scoring, and the report's design section)."""
        h = 100 * self.target_halfwidth
        if self.explicit_pairs:
            head = f"Design: {self.pairs} pairs per paradigm and set, as given (--pairs): no size planning."
        else:
            head = (f"Design: a pooled gap with a pair-level 95% half-width of at most {h:g} points needs "
                    f"{self.per_direction} A>U and {self.per_direction} A<U pairs per model; measured on a pilot of "
                    f"{self.pilot_pairs} pairs per paradigm, that is {self.pairs} pairs per paradigm and set "
                    f"({self.paradigms} paradigms, {self.pairs * self.paradigms:,} contexts).")
        out = [head]
        for model, e in self.expected.items():
            out.append(f"  {model}: expected {e['longer']:.0f} A>U, {e['shorter']:.0f} A<U and {e['equal']:.0f} A=U "
                       f"contexts; worst-case half-width of the gap {100 * e['halfwidth']:.1f} points")
        if self.limited_by:
            out.append(f"  The target cannot be met within {self.limited_by} "
                       f"({'--max-sentences ' + str(self.max_sentences) if self.limited_by == 'max sentences' else f'{MAX_PAIRS} pairs per paradigm'}); "
                       f"the expected half-widths above are what this evaluation can give.")
        return out


def plan(shares: list[Shares], halfwidth: float, *, pilot_pairs: int, paradigms: int,
         max_pairs: int = MAX_PAIRS, level: float = stats.LEVEL) -> Plan:
    """Pairs per paradigm (and set) for every model to reach `per_direction(halfwidth)` pairs in
    both directions, from the pilot's `shares` (contexts per direction over `pilot_pairs` pairs per
    paradigm), at most `max_pairs`. A model with no pair in a direction cannot reach it at any size:
    the plan takes `max_pairs` and says so."""
    need = per_direction(halfwidth, level)
    pairs, limited = 1, ""
    for s in shares:
        for part in ("longer", "shorter"):
            rate = s.total(part) / (pilot_pairs * paradigms) if paradigms and pilot_pairs else 0.0
            want = math.ceil(need / (rate * paradigms) - 1e-9) if rate > 0 else max_pairs + 1
            pairs = max(pairs, want)
    if pairs > max_pairs:
        pairs, limited = max_pairs, "max pairs"
    out = Plan(target_halfwidth=halfwidth, per_direction=need, pairs=pairs, paradigms=paradigms,
               pilot_pairs=pilot_pairs, equal_target=equal_sample(halfwidth, level), limited_by=limited)
    out.expected = expected(shares, pairs, pilot_pairs, level)
    return out


def expected(shares: list[Shares], pairs: int, pilot_pairs: int, level: float = stats.LEVEL) -> dict:
    """Per model, the contexts per direction expected at `pairs` per paradigm, and the gap's
    worst-case half-width with them."""
    out = {}
    for s in shares:
        scale = pairs / pilot_pairs if pilot_pairs else 0.0
        e = {part: s.total(part) * scale for part in ("longer", "shorter", "equal")}
        e["halfwidth"] = gap_halfwidth(e["longer"], e["shorter"], level)
        out[s.model] = e
    return out
