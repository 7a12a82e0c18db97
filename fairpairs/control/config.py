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

import math
import numbers
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from fairpairs.arguments import count, names, number, path, text
from fairpairs.errors import Param, BudgetError, SettingsError, UsageError
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
    joined = next((t for t in given if "," in t and not Path(t).expanduser().exists()), None)
    if joined is not None:     # (the CLI's --models splits on commas; a call takes a list)
        raise UsageError(Param("models"), f": {joined!r} is one name; give a list, e.g. "
                         f"{[t.strip() for t in joined.split(',')]!r}")
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


DEFAULT_MODELS = ("gpt2", "bert-base-cased")    # the tokenizers length control equalises by default


def _setting(default, help: str, **meta):
    """A setting's default and its help text, in one place (the CLI's options are built from them:
    `fairpairs.arguments.setting`)."""
    return field(default=default, metadata={"help": help, **meta})


@dataclass(frozen=True)
class RunConfig:
    """What a run generates: `pairs` per paradigm and set, length-controlled for `models` (their
    tokenizers: a name or a list of names; a preset such as ``preset:modern`` is expanded; stored
    as a tuple) with `strategy`, from `seed`. `strategy=None` is no length control: only
    `fp.generate` takes it (its pairs are then the uncontrolled ones, original/<uid>.jsonl's); a
    run always controls its debiased set. Every field's default and help text live here (the
    `fairpairs generate` options and the API's signatures are built from or checked against them:
    tests/test_config.py)."""

    models: tuple[str, ...] = _setting(
        DEFAULT_MODELS, "Comma-separated tokenizers to control lengths for: HF names, local folders, tokenizer.json, "
        "sentencepiece .model, tiktoken FILE@PATTERN, Tekken json, or preset:modern. gpt2, roberta-base, "
        "bert-base-cased, bert-base-uncased and google/electra-base-generator are bundled and work offline "
        "(docs/tokenizers.md).")
    pairs: int = _setting(1000, "Pairs per paradigm in each of original/ and debiased/.")
    seed: int = _setting(0, "Random seed; same seed -> identical files.")
    max_retries: int | None = _setting(     # None: the strategy's default (`retries`)
        None, "Attempts per pair before it is dropped [default: 10 for resample (Algorithm 1's N), 100 for search].")
    max_draws: int | None = _setting(       # None: 50 x pairs, at least 2000 (`draws`)
        None, "Work budget per paradigm and set: pairs drawn plus redraws (default: 50 x --pairs, at least 2000).")
    strategy: str | None = _setting(
        "search", "Length control: 'search' draws the bad word among the candidates that equalise every "
        "length (else redraws the pair); 'resample' is Algorithm 1 (random redraws of the bad word).")
    match_frequency: float | None = _setting(
        None, "Also require the good and bad critical words' Zipf frequencies (wordfreq) to differ by at most TOL.")
    command: str = ""
    lexicon: LexiconInfo | None = None  # the corpus restriction (fairpairs.generation.lexicon), recorded in the manifest
    need_models: bool = field(default=True, repr=False, compare=False)   # False: uncontrolled pairs may have none
    # what a run selects and restricts (checked here too; fp.generate takes one paradigm and none of these)
    paradigms: str | tuple[str, ...] = _setting("all", "Comma-separated paradigm UIDs, or 'all' (the standard BLiMP set).")
    phenomenon: str | None = _setting(None, "Only paradigms of this phenomenon (e.g. 'Island effects').")
    grammars: Path | None = _setting(None, "Folder of paradigm files [default: the bundled grammars/].")
    lexicon_from: Path | None = _setting(
        None, "Draw only words seen at least --min-count times in this UTF-8 text file (case-insensitive; "
        "docs/vocabulary.md), in both sentences of every pair.")
    min_count: int | None = _setting(
        None, "With --lexicon-from: how often a word must occur in the corpus [default: 1].")

    def __post_init__(self):
        self._check_selection()
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
        text(self.strategy, "strategy", optional=not self.need_models)     # (None: no control, fp.generate only)
        if self.strategy is not None:
            STRATEGIES.check(self.strategy)
        if isinstance(self.match_frequency, numbers.Real) and not math.isfinite(self.match_frequency):
            shown = float(self.match_frequency)
            raise SettingsError(Param("match_frequency"), f": expected a finite number, not {shown}",
                                value=self.match_frequency, expected="a finite number",
                                usage=("Invalid value for '", Param("match_frequency"), f"': {shown} is not a finite number"))
        number(self.match_frequency, "match_frequency", minimum=0, optional=True)   # (Zipf units)
        count(self.max_retries, "max_retries", 0, optional=True)
        text(self.command, "command")
        object.__setattr__(self, "models", models)

    def _check_selection(self) -> None:
        """The paradigms, phenomenon, grammar folder and corpus of a run: types, paths that must
        exist, and `min_count` only with `lexicon_from`."""
        from fairpairs.errors import GrammarError, LexiconError

        text(self.phenomenon, "phenomenon", optional=True)
        path(self.grammars, "grammars", error=GrammarError, what="folder of paradigm files", optional=True)
        path(self.lexicon_from, "lexicon_from", error=LexiconError, what="corpus", optional=True)
        count(self.min_count, "min_count", 1, optional=True)
        if not isinstance(self.paradigms, str):
            object.__setattr__(self, "paradigms", tuple(names(self.paradigms, "paradigms")))
        if self.min_count is not None and self.lexicon_from is None:
            raise SettingsError(Param("min_count"), ": needs ", Param("lexicon_from"), " (a corpus)",
                                usage=(Param("min_count"), " needs ", Param("lexicon_from"), " CORPUS"))

    @property
    def retries(self) -> int:
        """Attempts per pair before it is dropped: `max_retries`, or the strategy's default (0
        without length control: nothing is redrawn)."""
        return 0 if self.strategy is None else retries_for(self.strategy, self.max_retries)

    @property
    def draws(self) -> int:
        """The work budget per paradigm and set: `max_draws`, or its default."""
        return draws_for(self.pairs, self.max_draws)
