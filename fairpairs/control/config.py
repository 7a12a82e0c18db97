"""The settings of a generation run, validated once (issue 24).

`RunConfig` is built at the API boundary (`fp.generate`, `fp.generate_run`, and through them
`fairpairs generate` and `fairpairs evaluate` without --data) and is frozen: every check of the
settings happens in its constructor, and the run, the control loop and the CLI trust it. It is also
the one place that resolves a default that depends on another setting (`retries`: 10 redraws for
`resample`, Algorithm 1's N; 100 attempts for `search`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fairpairs.arguments import count, number, text
from fairpairs.control.loop import check_request
from fairpairs.registry import STRATEGIES
from fairpairs.control.sources import expand
from fairpairs.errors import Param, UsageError
from fairpairs.manifest import LexiconInfo


@dataclass(frozen=True)
class RunConfig:
    """What a run generates: `pairs` per paradigm and set, length-controlled for `models` (their
    tokenizers; a preset such as ``preset:modern`` is expanded) with `strategy`, from `seed`."""

    models: tuple[str, ...] = ()
    pairs: int = 1000
    seed: int = 0
    max_retries: int | None = None      # None: the strategy's default (`retries`)
    max_draws: int | None = None
    strategy: str = "search"
    match_frequency: float | None = None
    command: str = ""
    lexicon: LexiconInfo | None = None  # the corpus restriction (fairpairs.generation.lexicon), recorded in the manifest
    need_models: bool = field(default=True, repr=False, compare=False)   # False: uncontrolled pairs may have none

    def __post_init__(self):
        check_request(self.pairs, self.max_draws)
        count(self.seed, "seed", 0)
        text(self.strategy, "strategy")
        if self.strategy not in STRATEGIES:
            raise UsageError(Param("strategy"), f": expected one of {', '.join(STRATEGIES)}, not {self.strategy!r}")
        given = list(self.models)
        if (self.need_models and not given) or len(set(given)) != len(given):
            raise UsageError(Param("models"), f": expected distinct tokenizer names, not {given!r}")
        models = tuple(expand(given))      # preset:NAME -> its tokenizers (a preset may overlap a name)
        number(self.match_frequency, "match_frequency", minimum=0, optional=True)   # (Zipf units)
        count(self.max_retries, "max_retries", 0, optional=True)
        object.__setattr__(self, "models", models)

    @property
    def retries(self) -> int:
        """Attempts per pair before it is dropped: `max_retries`, or the strategy's default."""
        return STRATEGIES.get(self.strategy).default_retries if self.max_retries is None else self.max_retries
