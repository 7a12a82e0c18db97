"""The `fairpairs` command line: a thin click layer over the pipeline modules.

Sub-commands live in `fairpairs.commands.*` and are imported only when invoked, so
`fairpairs --help` starts fast and never imports torch.
"""

from __future__ import annotations

import importlib
import importlib.util
import logging
import os
import re
import sys
import warnings

import click

from fairpairs import __version__
from fairpairs.errors import FairpairsError, FairpairsWarning

# command name -> "module:attribute"
COMMANDS = {
    "generate": "fairpairs.commands.generate:generate",
    "paradigms": "fairpairs.commands.generate:paradigms",
    "validate": "fairpairs.commands.grammar:validate",
    "score": "fairpairs.commands.scoring:score",
    "unigrams": "fairpairs.commands.scoring:unigrams",
    "morcela": "fairpairs.commands.scoring:morcela",
    "publish": "fairpairs.commands.publish:publish",
    "audit": "fairpairs.commands.analysis:audit",
    "evaluate": "fairpairs.commands.analysis:evaluate",
    "balance": "fairpairs.commands.balance:balance",
    "tokenizers": "fairpairs.commands.tokenizers:tokenizers",
    "robustness": "fairpairs.commands.robustness:robustness",
}


# library parameter -> CLI option: library errors name parameters, the CLI shows its options
OPTION_NAMES = {
    "model": "--model", "models": "--models", "tokenizers": "--models", "device": "--device",
    "dtype": "--dtype", "device_map": "--device-map", "kind": "--kind", "pll": "--pll", "normalize": "--normalize",
    "unigrams": "--unigrams", "corpus": "--corpus", "input": "--input", "sentences": "--input", "judgments": "--judgments",
    "folds": "--folds", "out": "--out", "paradigms": "--paradigms", "phenomenon": "--phenomenon",
    "repo_id": "--repo-id", "which": "--set", "morcela_params": "--morcela-params",
    "max_draws": "--max-draws", "max_retries": "--max-retries", "data": "--data", "pairs": "--pairs",
    "grammars": "--grammars", "strategy": "--strategy", "match_frequency": "--match-frequency",
    "vocab": "--vocab", "cache_dir": "--cache-dir", "split_tokenizer": "--split-tokenizer", "alpha": "--alpha",
    "lexicon_from": "--lexicon-from", "min_count": "--min-count", "batch_tokens": "--batch-tokens",
    "seed": "--seed", "measure": "--measure", "figures": "--figures", "dpi": "--dpi",
    "length_params": "--length-params", "format": "--format", "language": "--language",
}
# where a command's option for a parameter has another name (or is an argument): evaluate's models
# come from --models, audit's data is its DATASET argument, publish's run folder its RUN_DIR
COMMAND_OPTION_NAMES = {"evaluate": {"model": "--models"}, "audit": {"data": "DATASET"},
                        "publish": {"run_dir": "RUN_DIR"}, "validate": {"paths": "FILES"}, "balance": {"data": "RUN"},
                        "robustness": {"model": "--models"}}
_LEADING = re.compile(r"^([a-z_]+)(?=[ :])")
_INNER = re.compile(r"\b(morcela_params|max_draws|max_retries|repo_id|match_frequency|split_tokenizer|cache_dir|"
                    r"lexicon_from|min_count|batch_tokens|length_params)\b")
_QUOTED = re.compile(r"`([a-z_]+)`")     # a parameter named inside a message: `paradigms`


def cli_message(message: str, command: str | None = None) -> str:
    """A library error message with the parameter it starts with (and the multi-word parameter
    names it mentions, and those it quotes in backticks) written as the options of this CLI (of
    `command`, where its options are named otherwise)."""
    names = {**OPTION_NAMES, **COMMAND_OPTION_NAMES.get(command, {})}
    message = _LEADING.sub(lambda m: names.get(m.group(1), m.group(1)), message, count=1)
    message = _QUOTED.sub(lambda m: names.get(m.group(1), m.group(0)), message)
    return _INNER.sub(lambda m: names[m.group(1)], message)


def _command(argv) -> str | None:
    """The sub-command named in the arguments (the first that is not an option)."""
    args = sys.argv[1:] if argv is None else argv
    return next((str(a) for a in args if not str(a).startswith("-")), None)


class LazyGroup(click.Group):
    """A click group whose sub-commands are imported on first use."""

    def list_commands(self, ctx):
        return sorted(n for n, t in COMMANDS.items() if importlib.util.find_spec(t.split(":")[0]) is not None)

    def get_command(self, ctx, name):
        target = COMMANDS.get(name)
        if target is None:
            return None
        module, attr = target.split(":")
        return getattr(importlib.import_module(module), attr)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="fairpairs")
def cli():
    """Build minimal-pair benchmarks free of token-length bias, and measure language models on them."""


def main(argv=None):
    """Entry point: run the CLI. Every failure ends in one line on stderr, never a traceback:
    FairpairsError and OS errors (naming the path) exit 1, usage errors 2, Ctrl-C 130, SIGTERM 143
    (both remove partial output, see fairpairs.io.files)."""
    from fairpairs.io import files as io

    io.handle_sigterm()
    io.reset_network_time()
    # no retry chatter ("Retrying in 8s", "... thrown while requesting"): one line per error.
    # huggingface_hub sets its logger's level from HF_HUB_VERBOSITY when it is first imported
    os.environ.setdefault("HF_HUB_VERBOSITY", "error")
    logging.getLogger("huggingface_hub").setLevel(logging.ERROR)   # (in case it was imported already)
    command = _command(argv)
    warnings.showwarning = _one_line_warnings(warnings.showwarning, command)
    try:
        cli.main(args=argv, prog_name="fairpairs", standalone_mode=False)
    except FairpairsError as exc:
        if getattr(exc, "quiet", False):  # a multi-process failure is told once, by rank 0
            sys.exit(1)
        _fail(f"error: {cli_message(str(exc), command)}", 1)
    except (click.exceptions.Abort, KeyboardInterrupt):   # click turns SIGTERM's Terminated into Abort
        if io.received_sigterm:
            _fail("terminated (SIGTERM); no partial output was written", 143)
        _fail("interrupted; no partial output was written", 130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except UnicodeError as exc:   # library reads name their file; this is the last resort
        _fail(f"error: text that is not UTF-8 ({exc.reason}, byte {getattr(exc, 'start', '?')})", 1)
    except OSError as exc:
        _fail(f"error: {_os_error_line(exc)}", 1)
    except MemoryError:
        _fail("error: out of memory; ask for less work (fewer pairs, smaller batches)", 1)
    sys.exit(0)


def _one_line_warnings(show, command: str | None = None):
    """A `warnings.showwarning` that prints fairpairs' own warnings as one line with this CLI's
    option names (other libraries' warnings go to `show`, as before). Wrapping our own wrapper
    (main called again in one process) wraps what it wrapped, for the new command."""
    show = getattr(show, "shows_others", show)

    def showwarning(message, category, filename, lineno, file=None, line=None):
        if issubclass(category, FairpairsWarning):
            click.echo(f"fairpairs: warning: {_printable(cli_message(str(message), command))}", err=True)
        else:
            show(message, category, filename, lineno, file, line)
    showwarning.shows_others = show
    return showwarning


def _os_error_line(exc: OSError) -> str:
    """One line naming the path(s) of an OS error (read, write, permission, disk full ...)."""
    paths = [_printable(p) for p in (exc.filename, exc.filename2) if p is not None]
    reason = exc.strerror or str(exc) or type(exc).__name__
    return f"{' -> '.join(paths)}: {reason}" if paths else reason


def _printable(path) -> str:
    """A path as text even when its bytes are not UTF-8 (shown escaped)."""
    if isinstance(path, bytes):
        return path.decode("utf-8", "backslashreplace")
    return str(path).encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def _fail(message: str, code: int) -> None:
    click.echo(f"fairpairs: {_printable(message)}", err=True)
    sys.exit(code)


if __name__ == "__main__":  # pragma: no cover
    main()
