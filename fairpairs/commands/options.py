"""Click options built from the settings objects (`RunConfig`, `ScoringSettings`, `EvaluationConfig`,
`RobustnessConfig`): each option's default and help text come from the setting's one home
(tests/test_config.py checks that none drifts)."""

from __future__ import annotations

import click

from fairpairs.api.settings import resolved_default, setting


def shown(value):
    """A setting's default as the command line writes it (a tuple of names comma-separated)."""
    return ",".join(value) if isinstance(value, tuple) else value


def option(settings: type, name: str, *decls, given: bool = True, show=shown, **kwargs):
    """A click option for field `name` of `settings`: its default (with `given` False, no default:
    the option is then only given to override, and the help's ``{default}`` names the default the
    setting resolves to) and its help text. `show`: the default as the command line writes it
    (e.g. a proportion in percentage points)."""
    default, text = setting(settings, name)
    if given:
        kwargs.setdefault("show_default", True)
        return click.option(*decls, default=show(default), help=text, **kwargs)
    text = kwargs.pop("help", text)
    return click.option(*decls, default=None, help=text.format(default=show(resolved_default(settings, name))), **kwargs)
