"""The `fairpairs` command line: a thin click layer over `fairpairs.api` (docs/cli.md).

Sub-commands live in `fairpairs.commands.*` and are imported only when invoked, so
`fairpairs --help` starts fast and never imports torch.
"""

from __future__ import annotations

import importlib
import importlib.util
import logging
import os
import sys
import warnings

import click

from fairpairs import __version__
from fairpairs.errors import FairpairsError, FairpairsWarning, SettingsError

# command name -> "module:attribute"
COMMANDS = {
    "generate": "fairpairs.commands.generate:generate",
    "paradigms": "fairpairs.commands.generate:paradigms",
    "languages": "fairpairs.commands.generate:languages",
    "validate": "fairpairs.commands.grammar:validate",
    "score": "fairpairs.commands.scoring:score",
    "unigrams": "fairpairs.commands.scoring:unigrams",
    "morcela": "fairpairs.commands.scoring:morcela",
    "fit-length": "fairpairs.commands.scoring:fit_length",
    "publish": "fairpairs.commands.publish:publish",
    "audit": "fairpairs.commands.analysis:audit",
    "evaluate": "fairpairs.commands.analysis:evaluate",
    "balance": "fairpairs.commands.balance:balance",
    "tokenizers": "fairpairs.commands.tokenizers:tokenizers",
    "robustness": "fairpairs.commands.robustness:robustness",
}


# library parameters a command shows under another name than its click parameters' (evaluate's
# `model` errors are about its --models; audit's `data` is its DATASET argument); the rest of each
# command's map is read off its click parameters (`option_names`)
RENAMES = {
    "generate": {"grammars": "--grammars", "vocab": "--vocab"},
    "validate": {"paths": "FILES", "vocab": "--vocab"},
    "score": {"sentences": "--input", "input": "--input", "model": "--models"},
    "unigrams": {"model": "--models"},
    "morcela": {"model": "--models"},
    "fit-length": {"model": "--models"},
    "audit": {"data": "DATASET", "format": "--format", "columns": "--good-col/--bad-col/--group-col", "select": "--select"},
    "evaluate": {"model": "--models"},
    "balance": {"data": "RUN", "grammars": "--grammars", "vocab": "--vocab"},
    "robustness": {"model": "--models"},
}


def _click_names(name: str) -> dict[str, str]:
    """A command's click parameters as library parameter -> what the command line calls it
    (an option's first long name, an argument's metavar)."""
    cmd = cli.get_command(None, name)
    commands = list(cmd.commands.values()) if isinstance(cmd, click.Group) else [cmd]
    out: dict[str, str] = {}
    for command in commands:
        for param in command.params:
            longs = [o for o in param.opts if o.startswith("--")] if isinstance(param, click.Option) else []
            out.setdefault(param.name, longs[0] if longs else param.human_readable_name)
    return out


def option_names(command: str | None = None) -> dict[str, str]:
    """How the CLI names every library parameter, as `command` shows it: that command's own
    parameters and renames first, then any other command's (a message may name a parameter the
    command passes on, e.g. `max_draws` of generate's run for evaluate)."""
    names: dict[str, str] = {}
    for name in COMMANDS:
        for key, shown in _click_names(name).items():
            names.setdefault(key, shown)
    for renames in RENAMES.values():
        for key, shown in renames.items():
            names.setdefault(key, shown)
    if command in COMMANDS:
        names.update(_click_names(command))
        names.update(RENAMES.get(command, {}))
    return names


def cli_message(error, command: str | None = None) -> str:
    """A library error or warning as this CLI shows it: its parameters named as `command`'s
    options (`FairpairsError.render`); anything else as its text."""
    render = getattr(error, "render", None)
    return render(option_names(command)) if callable(render) else str(error)


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
    FairpairsError and OS errors (naming the path) exit 1, usage errors 2 (a bad FAIRPAIRS_*
    variable too), Ctrl-C 130, SIGTERM 143
    (both remove partial output, see fairpairs.io.files)."""
    from fairpairs.io import network, signals

    signals.handle_sigterm()
    network.reset_network_time()
    # no retry chatter ("Retrying in 8s", "... thrown while requesting"): one line per error.
    # huggingface_hub sets its logger's level from HF_HUB_VERBOSITY when it is first imported
    os.environ.setdefault("HF_HUB_VERBOSITY", "error")
    logging.getLogger("huggingface_hub").setLevel(logging.ERROR)   # (in case it was imported already)
    command = _command(argv)
    warnings.showwarning = _one_line_warnings(warnings.showwarning, command)
    try:
        cli.main(args=argv, prog_name="fairpairs", standalone_mode=False)
    except SettingsError as exc:     # settings that cannot go together: a usage error, as click's own
        _usage_error(exc, command)
    except FairpairsError as exc:
        if getattr(exc, "quiet", False):  # a multi-process failure is told once, by rank 0
            sys.exit(1)
        _fail(f"error: {cli_message(exc, command)}", exc.exit_code)   # (2: an environment variable)
    except (click.exceptions.Abort, KeyboardInterrupt):   # click turns SIGTERM's Terminated into Abort
        if signals.received_sigterm:
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


def _usage_error(exc: SettingsError, command: str | None) -> None:
    """A `SettingsError` as click shows a usage error of `command`: its usage, then the line, exit 2."""
    target = cli.get_command(None, command) if command else None
    parent = click.Context(cli, info_name="fairpairs")
    ctx = click.Context(target, info_name=command, parent=parent) if target is not None else parent
    error = click.UsageError(_printable(exc.usage_line(option_names(command))), ctx)
    error.show()
    sys.exit(error.exit_code)


def _one_line_warnings(show, command: str | None = None):
    """A `warnings.showwarning` that prints fairpairs' own warnings as one line with this CLI's
    option names (other libraries' warnings go to `show`, as before). Wrapping our own wrapper
    (main called again in one process) wraps what it wrapped, for the new command."""
    show = getattr(show, "shows_others", show)

    def showwarning(message, category, filename, lineno, file=None, line=None):
        if issubclass(category, FairpairsWarning):
            click.echo(f"fairpairs: warning: {_printable(cli_message(message, command))}", err=True)
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
