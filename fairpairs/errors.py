"""Every error class of fairpairs.

Each is a `FairpairsError` (the CLI turns one into a single line and exit code 1) and also a
fitting built-in exception, so that code using the library can catch them the usual way
(``except ValueError``, ``except FileNotFoundError``). Library messages name the file and field,
or the *parameter* of the call (``pll``, ``normalize``, ``paradigms``); the CLI translates
parameter names into its options (`fairpairs.cli.cli_message`).
"""


class FairpairsError(Exception):
    """A user-facing error: the message names the file and the field at fault."""


class GrammarError(FairpairsError, ValueError):
    """A paradigm file is malformed or cannot be satisfied by the vocabulary."""


class VocabularyError(FairpairsError, ValueError):
    """A vocabulary query names an unknown column or value."""


class TokenizerError(FairpairsError, LookupError):
    """A tokenizer cannot be found or loaded."""


class ModelError(FairpairsError, ValueError):
    """A model cannot be found, loaded, or used for the requested kind of scoring."""


class DatasetError(FairpairsError, ValueError):
    """An input dataset is missing, corrupt or incomplete."""


class DatasetNotFoundError(DatasetError, FileNotFoundError):
    """An input dataset (file or folder) does not exist."""


class LexiconError(FairpairsError, ValueError):
    """A corpus cannot be read, or leaves a paradigm's slot with no word seen often enough."""


class OutputError(FairpairsError, OSError):
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
    """A library call got an argument it cannot use (unknown name, bad value, wrong type)."""


class PublishError(FairpairsError, RuntimeError):
    """A dataset folder cannot be built or uploaded (bad repository id, offline, no token, upload failed)."""


class FairpairsWarning(UserWarning):
    """Something the library did differently from what was asked, and says so (a dtype ignored on
    the CPU, a slower fallback). The CLI prints it as one line, ``fairpairs: warning: ...``, with
    the parameters it names written as its options."""
