"""Every error class of fairpairs, and how their messages are built.

Each is a `FairpairsError` (the CLI turns one into a single line and exit code 1) and also a
fitting built-in exception, so that code using the library can catch them the usual way. One rule
for every public call (docs/api.md):

* a file or folder named by an argument that does not exist: a `FileNotFoundError` (the
  ``...NotFoundError`` classes; `not_found` gives the variant of a class);
* an argument of the wrong type (a bool where a count is wanted, a number where a path is): a
  `TypeError` (`UsageTypeError`);
* any other bad input (a value out of range, a file that cannot be read as what it should be, an
  output that may not be written): a `ValueError`.

Errors are structured: a message is a sequence of parts, text and `Param` (a parameter of the
call, named where it stands in the text), and the error keeps as fields the parameter at fault
(`param`, the first `Param` unless given), the value (`value`), what was expected (`expected`) and
the file (`file`) where the raising code gives them. `str(error)` names parameters as the API does
(``pll``, ``max_draws``); `error.render(names)` names them as another surface does: the CLI passes
each command's parameter-to-option map (`fairpairs.cli.option_names`) and shows ``--pll``,
``--max-draws``. Nothing reads a message back: a caller that gives a parameter another name (the
API's `models` for a scorer's `model`) copies the error with `with_param`. Failures that are not
bad input (the Hub did not answer, an upload failed, a rank of a multi-process run died) are
`TimeoutError` / `RuntimeError`s.
"""

from __future__ import annotations

import copy as _copy
from collections.abc import Mapping

_UNSET = object()


class Param:
    """A parameter of a call named inside a message: ``Param("max_draws")`` reads ``max_draws`` in
    the API's message and ``--max-draws`` in the CLI's; ``quoted`` keeps backticks where the
    surface has no name of its own for it (`` `morcela_params` ``)."""

    __slots__ = ("name", "quoted")

    def __init__(self, name: str, quoted: bool = False):
        self.name, self.quoted = name, quoted

    def render(self, names: Mapping[str, str] | None = None) -> str:
        shown = (names or {}).get(self.name)
        if shown is not None:
            return shown
        return f"`{self.name}`" if self.quoted else self.name

    def renamed(self, old: str, new: str) -> "Param":
        return Param(new, self.quoted) if self.name == old else self

    def __repr__(self) -> str:
        return f"Param({self.name!r})"


def render_parts(parts, names: Mapping[str, str] | None = None) -> str:
    """A message's parts as text, each `Param` as `names` calls it."""
    return "".join(p.render(names) if isinstance(p, Param) else str(p) for p in parts)


class _Structured:
    """What FairpairsError and FairpairsWarning share: parts and fields, rendered on demand."""

    def _structure(self, parts, param, value, expected, file, reason=None) -> None:
        self.parts, self.reason = tuple(parts), reason
        first = next((p.name for p in self.parts if isinstance(p, Param)), None)
        self.param = first if param is None else param
        self.value = None if value is _UNSET else value
        self.has_value = value is not _UNSET
        self.expected, self.file = expected, file

    def render(self, names: Mapping[str, str] | None = None) -> str:
        """The message with every parameter named as `names` says (the API's own names without):
        the parts, then ``: reason`` where a reason was given as a field."""
        head = render_parts(self.parts, names)
        if self.reason is None:
            return head
        return f"{head}: {self.reason}" if head else self.reason

    def with_param(self, old: str, new: str):
        """The same error (class, fields, traceback-free) with parameter `old` called `new`."""
        copy = _copy.copy(self)
        copy._structure([p.renamed(old, new) if isinstance(p, Param) else p for p in self.parts],
                        new if self.param == old else self.param, self.value if self.has_value else _UNSET,
                        self.expected, self.file, self.reason)
        copy.args = (copy.render(),)
        return copy

    def appended(self, text: str):
        """The same error with `text` added at the end of its message (a did-you-mean)."""
        copy = _copy.copy(self)
        if self.reason is None:
            copy.parts = (*self.parts, text)
        else:
            copy.reason = self.reason + text
        copy.args = (copy.render(),)
        return copy

    def __str__(self) -> str:
        return self.render()


def one_line(error: BaseException) -> str:
    """Another library's exception as one line of text (its own message, white space folded), to
    quote inside a message of ours; never used to read anything back out of a message."""
    return " ".join(str(error).split())


class FairpairsError(_Structured, Exception):
    """A user-facing error: the message names the parameter, or the file and field, at fault.

    ``UsageError(Param("pll"), f" {pll}: expected one of ...", value=pll)``: parts (text and
    `Param`), then the fields `param`, `value`, `expected`, `file` and `reason` as keywords. A
    `reason` ends the message (``parts: reason``) and stays readable alone, for a caller that words
    the failure its own way (``exc.reason``). `exit_code`: the CLI's exit status for it."""

    exit_code = 1

    def __init__(self, *parts, param: str | None = None, value=_UNSET, expected: str | None = None,
                 file=None, reason: str | None = None):
        self._structure(parts, param, value, expected, file, reason)
        super().__init__(self.render())


class GrammarError(FairpairsError, ValueError):
    """A paradigm file is malformed or cannot be satisfied by the vocabulary."""


class VocabularyError(FairpairsError, ValueError):
    """A vocabulary query names an unknown column or value."""


class TokenizerError(FairpairsError, ValueError, LookupError):
    """A tokenizer cannot be found or loaded (a ValueError, and a LookupError as before)."""


class ModelError(FairpairsError, ValueError):
    """A model cannot be found, loaded, or used for the requested kind of scoring."""


class DatasetError(FairpairsError, ValueError):
    """An input dataset is missing, corrupt or incomplete."""


class NotFoundError(FairpairsError, FileNotFoundError):
    """A file or folder named by an argument does not exist (the base of the not-found variants)."""


class DatasetNotFoundError(DatasetError, NotFoundError):
    """An input dataset (file or folder) does not exist."""


class LexiconError(FairpairsError, ValueError):
    """A corpus cannot be read, or leaves a paradigm's slot with no word seen often enough."""


class OutputError(FairpairsError, ValueError, OSError):
    """An output cannot be written where asked (not writable, in the way, or an input)."""


class BudgetError(FairpairsError, ValueError):
    """A request the draw budget cannot meet (too many pairs, too few draws); raised before work."""


class ShortSetError(GrammarError):
    """A set of one paradigm ended short of the pairs asked for: its draw budget is spent (or length
    control kept nothing in a long probe). `short` says so without the file, for manifests and
    tables (``only 40 of 100 pairs ...``). A run keeps what such a set reached unless it is strict."""

    def __init__(self, *parts, short: str = "", **fields):
        super().__init__(*parts, **fields)
        self.short = short


class NotComparableError(FairpairsError, ValueError):
    """A strict run whose debiased set is not comparable with its original set (cells short of
    their pairs, or most paradigms out of balance)."""


class FixTargetError(VocabularyError):
    """A correction of fixes.yaml finds no row it corrects (the table is not the one it was written for)."""


class NetworkError(FairpairsError, TimeoutError):
    """The Hub did not answer within the command's network time (FAIRPAIRS_HUB_TIMEOUT)."""


class DistributedError(FairpairsError, RuntimeError):
    """A multi-process (torchrun / accelerate launch) run failed on some rank, or lost a rank.

    Every rank raises it with the same message; `quiet` is true on all ranks but the first, so
    that a launcher's combined output shows the message once.
    """

    def __init__(self, message: str, quiet: bool = False):
        super().__init__(message)
        self.quiet = quiet


class UsageError(FairpairsError, ValueError):
    """A library call got an argument whose value it cannot use (unknown name, out of range)."""


class VariableError(UsageError):
    """An environment variable of fairpairs (FAIRPAIRS_WORKERS, FAIRPAIRS_DIST_TIMEOUT, ...) holds
    a value it cannot use (`fairpairs.environment`, which reads them all). The CLI shows
    it as one line naming the variable and the form it takes, exit 2 (a usage error, without a
    command's usage: the variable is none of its options)."""

    exit_code = 2


class SettingsError(UsageError):
    """Settings that cannot go together, or a value the command line's own type check would refuse
    (`control.config.RunConfig`): the CLI shows it as a usage error (exit 2), worded by `usage`
    (parts as a message's; default: the message's own)."""

    def __init__(self, *parts, usage=(), **fields):
        super().__init__(*parts, **fields)
        self.usage = tuple(usage) or tuple(parts)

    def usage_line(self, names: Mapping[str, str] | None = None) -> str:
        return render_parts(self.usage, names)


class UsageTypeError(FairpairsError, TypeError):
    """A library call got an argument of the wrong type (a bool for a count, a number for a path)."""


class PluginError(FairpairsError, ImportError):
    """An installed plugin package's entry point cannot be loaded, is not of its group's kind, or
    takes a name that is already registered (`fairpairs.registry`)."""


class GrammarNotFoundError(GrammarError, NotFoundError):
    """A paradigm file or grammar folder does not exist."""


class VocabularyNotFoundError(VocabularyError, NotFoundError):
    """A vocabulary table does not exist."""


class TokenizerNotFoundError(TokenizerError, NotFoundError):
    """A tokenizer given as a path (file or folder) does not exist."""


class ModelNotFoundError(ModelError, NotFoundError):
    """A model given as a path (folder or GGUF file) does not exist."""


class LexiconNotFoundError(LexiconError, NotFoundError):
    """A corpus file does not exist."""


class UsageNotFoundError(UsageError, NotFoundError):
    """A file an argument names (a parameters file, a unigram table) does not exist."""


def not_found(cls: type) -> type:
    """The FileNotFoundError variant of error class `cls` (`DatasetError` -> `DatasetNotFoundError`);
    `NotFoundError` for a class without one."""
    if issubclass(cls, FileNotFoundError):
        return cls
    for variant in (DatasetNotFoundError, GrammarNotFoundError, VocabularyNotFoundError, TokenizerNotFoundError,
                    ModelNotFoundError, LexiconNotFoundError, UsageNotFoundError):
        if variant.__mro__[1] is cls:
            return variant
    return NotFoundError


class PublishError(FairpairsError, RuntimeError):
    """A dataset folder cannot be built or uploaded (bad repository id, offline, no token, upload failed)."""


class FairpairsDeprecationWarning(FutureWarning):
    """An old spelling of a parameter (``n=`` for ``pairs=``, ``tokenizers=`` for ``models=``,
    ``which=`` for ``set=``): it still works for one release, and says which name to use. A
    FutureWarning, so that users of the library see it by default."""


class FairpairsWarning(_Structured, UserWarning):
    """Something the library did differently from what was asked, and says so (a dtype ignored on
    the CPU, a slower fallback). Built like a `FairpairsError` (parts and fields); the CLI prints
    it as one line, ``fairpairs: warning: ...``, with the parameters it names written as its
    options."""

    def __init__(self, *parts, param: str | None = None, value=_UNSET, expected: str | None = None,
                 file=None, reason: str | None = None):
        self._structure(parts, param, value, expected, file, reason)
        super().__init__(self.render())
