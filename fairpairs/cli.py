"""The `fairpairs` command line: a thin click layer over the pipeline modules.

Sub-commands live in `fairpairs.commands.*` and are imported only when invoked, so
`fairpairs --help` starts fast and never imports torch.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys

import click

from . import __version__
from .errors import FairpairsError

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
}


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
    """Entry point: run the CLI, turning FairpairsError into one line on stderr and exit code 1."""
    try:
        cli.main(args=argv, prog_name="fairpairs", standalone_mode=False)
    except FairpairsError as exc:
        click.echo(f"fairpairs: error: {exc}", err=True)
        sys.exit(1)
    except click.exceptions.Abort:
        click.echo("fairpairs: interrupted; no partial output was written", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        click.echo("fairpairs: interrupted; no partial output was written", err=True)
        sys.exit(130)
    sys.exit(0)


if __name__ == "__main__":  # pragma: no cover
    main()
