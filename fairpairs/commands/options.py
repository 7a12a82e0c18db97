"""Click options built from the settings objects (`RunConfig`, `ScoringSettings`): each option's
default and help text come from the setting's one home (tests/test_config.py checks that none
drifts)."""

from __future__ import annotations

import click

from fairpairs.api.commandline import setting


def shown(value):
    """A setting's default as the command line writes it (a tuple of names comma-separated)."""
    return ",".join(value) if isinstance(value, tuple) else value


def option(settings: type, name: str, *decls, given: bool = True, **kwargs):
    """A click option for field `name` of `settings`: its default (with `given` False, no default:
    the option is then only given to override, and the help's ``{default}`` names the setting's)
    and its help text."""
    default, text = setting(settings, name)
    if given:
        kwargs.setdefault("show_default", True)
        return click.option(*decls, default=shown(default), help=text, **kwargs)
    return click.option(*decls, default=None, help=kwargs.pop("help", text).format(default=shown(default)), **kwargs)
