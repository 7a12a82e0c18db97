"""The settings of a generation run, validated once (issue 24).

`RunConfig` is built at the API boundary (`fp.generate`, `fp.generate_run`, and through them
`fairpairs generate` and `fairpairs evaluate` without --data) and is frozen: every check of the
settings happens in its constructor, and the run, the control loop and the CLI trust it. It is also
the one place that resolves the defaults that depend on another setting: `retries` (10 redraws for
`resample`, Algorithm 1's N; 100 attempts for `search`: the strategy's `default_retries`) and
`draws` (the work budget: 50 x `pairs`, at least 2000). The control loop's functions, called with
settings from a `RunConfig` (or by tests and benchmarks directly), do not check them again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from fairpairs.arguments import count, names, number, text
from fairpairs.errors import Param, BudgetError, UsageError
from fairpairs.manifest import LexiconInfo
from fairpairs.registry import STRATEGIES

MAX_PAIRS = 100_000        # pairs per paradigm and set: bounds memory (every pair is held until written)
MAX_DRAWS = 5_000_000      # the largest draw budget per paradigm and set: bounds time


def model_names(models: Iterable[str] | str | None, *, required: bool = False) -> list[str]:
    """The tokenizers of `models` (a name or a list of names; ``preset:NAME`` expanded), checked:
    names are non-blank strings, none given twice, and at least one when `required`."""
    from fairpairs.tokenization.sources import expand

    given = [] if models is None else names(models, "models")
    if not all(t.strip() for t in given):
        raise UsageError(Param("models"), f": expected tokenizer names, not {models!r}")
    dupes = sorted({t for t in given if given.count(t) > 1})   # (a preset may overlap a name: fine)
    if dupes:
        raise UsageError(Param("models"), f": {', '.join(dupes)} named twice")
    if required and not given:
        raise UsageError(Param("models"), ": give at least one tokenizer")
    return expand(given)


def retries_for(strategy: str, max_retries: int | None) -> int:
    """Attempts per pair before it is dropped: `max_retries`, or `strategy`'s default."""
    return STRATEGIES.get(strategy).default_retries if max_retries is None else max_retries


def draws_for(pairs: int, max_draws: int | None) -> int:
    """The work budget per paradigm and set: `max_draws`, or 50 x `pairs` (at least 2000)."""
    return min(MAX_DRAWS, max(2000, 50 * pairs)) if max_draws is None else max_draws


@dataclass(frozen=True)
class RunConfig:
    """What a run generates: `pairs` per paradigm and set, length-controlled for `models` (their
    tokenizers: a name or a list of names; a preset such as ``preset:modern`` is expanded; stored
    as a tuple) with `strategy`, from `seed`."""

    models: tuple[str, ...] = ()
    pairs: int = 1000
    seed: int = 0
    max_retries: int | None = None      # None: the strategy's default (`retries`)
    max_draws: int | None = None        # None: 50 x pairs, at least 2000 (`draws`)
    strategy: str = "search"
    match_frequency: float | None = None
    command: str = ""
    lexicon: LexiconInfo | None = None  # the corpus restriction (fairpairs.generation.lexicon), recorded in the manifest
    need_models: bool = field(default=True, repr=False, compare=False)   # False: uncontrolled pairs may have none

    def __post_init__(self):
        models = tuple(model_names(self.models, required=self.need_models))
        count(self.pairs, "pairs", 1)
        count(self.max_draws, "max_draws", 1, optional=True)
        if self.pairs > MAX_PAIRS:
            raise BudgetError(Param("pairs"), f": {self.pairs} pairs per paradigm is more than fairpairs generates "
                              f"in one run ({MAX_PAIRS}); use several seeds")
        if self.max_draws is not None:
            if self.max_draws > MAX_DRAWS:
                raise BudgetError(Param("max_draws"), f": at most {MAX_DRAWS}, not {self.max_draws}")
            if self.max_draws < self.pairs:
                raise BudgetError(Param("max_draws"), f": {self.max_draws} draws cannot give {self.pairs} pairs "
                                  f"(every pair takes at least one draw)")
        count(self.seed, "seed", 0)
        text(self.strategy, "strategy")
        STRATEGIES.check(self.strategy)
        number(self.match_frequency, "match_frequency", minimum=0, optional=True)   # (Zipf units)
        count(self.max_retries, "max_retries", 0, optional=True)
        text(self.command, "command")
        object.__setattr__(self, "models", models)

    @property
    def retries(self) -> int:
        """Attempts per pair before it is dropped: `max_retries`, or the strategy's default."""
        return retries_for(self.strategy, self.max_retries)

    @property
    def draws(self) -> int:
        """The work budget per paradigm and set: `max_draws`, or its default."""
        return draws_for(self.pairs, self.max_draws)
