"""Options whose values are the names of a registry (`fairpairs.registry`): the registry is the one
check, so a plugin's name works here and an unknown name gets the registry's message (with its
did-you-mean) as a usage error."""

from __future__ import annotations

import click

from fairpairs.api.settings import FairpairsError


class RegistryChoice(click.ParamType):
    """A name of `registry` (or one of `also`, such as "auto"). `--help` shows the names, read
    only when the help is asked for (listing them reads the plugins' entry points)."""

    def __init__(self, registry, also: tuple[str, ...] = ()):
        self.registry, self.also = registry, tuple(also)
        self.name = registry.kind

    def get_metavar(self, param, ctx=None) -> str:
        return f"[{'|'.join([*self.also, *self.registry.names()])}]"

    def convert(self, value, param, ctx):
        try:
            return self.registry.check(value, also=self.also)
        except FairpairsError as exc:
            if exc.param != self.registry.param:     # (a plugin that cannot be loaded: its own error)
                raise
            self.fail(exc.reason, param, ctx)
