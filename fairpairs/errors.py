"""Every error class of fairpairs.

Each is a `FairpairsError` (the CLI turns one into a single line and exit code 1) and also a
fitting built-in exception, so that code using the library can catch them the usual way. One rule
for every public call (docs/api.md):

* a file or folder named by an argument that does not exist: a `FileNotFoundError` (the
  ``...NotFoundError`` classes; `not_found` gives the variant of a class);
* an argument of the wrong type (a bool where a count is wanted, a number where a path is): a
  `TypeError` (`UsageTypeError`);
* any other bad input (a value out of range, a file that cannot be read as what it should be, an
  output that may not be written): a `ValueError`.

Messages name the *parameter* of the call (``pll``, ``normalize``, ``paradigms``), and the file and
field where a file is at fault; the CLI translates parameter names into its options
(`fairpairs.cli.cli_message`). Failures that are not bad input (the Hub did not answer, an upload
failed, a rank of a multi-process run died) are `TimeoutError` / `RuntimeError`s.
"""


class FairpairsError(Exception):
    """A user-facing error: the message names the file and the field at fault."""


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


class UsageTypeError(FairpairsError, TypeError):
    """A library call got an argument of the wrong type (a bool for a count, a number for a path)."""


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


class FairpairsWarning(UserWarning):
    """Something the library did differently from what was asked, and says so (a dtype ignored on
    the CPU, a slower fallback). The CLI prints it as one line, ``fairpairs: warning: ...``, with
    the parameters it names written as its options."""
