"""Registries of what users extend: length-control strategies, normalisations, pseudo-log-likelihood
variants and dataset readers (docs/api.md, "Extending fairpairs").

A registry maps a name to an object or to a lazily imported ``"module:attr"`` string (as
lm-evaluation-harness's registry does), so that listing the names - for a CLI choice, an error
message, `--help` - imports nothing heavy. Registering a name makes it work everywhere the kind is
named: `fp.generate(strategy=...)` and `fairpairs generate --strategy`, `normalize=`, `pll=`,
`format=`. An unknown name is one error that lists the known names (with a did-you-mean).

    from fairpairs.registry import STRATEGIES

    @STRATEGIES.register("mine")
    class Mine(Strategy): ...
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator


class Registry:
    """Names of one kind (`kind`, as messages call it) to objects, in registration order."""

    def __init__(self, kind: str, param: str, entries: dict[str, object] | None = None):
        self.kind, self.param = kind, param
        self._entries: dict[str, object] = dict(entries or {})

    def register(self, name: str, obj: object = None):
        """Register `obj` (or a ``"module:attr"`` string) under `name`; without `obj`, a decorator.
        Registering a name again replaces its entry (a user's own version of a built-in)."""
        if not isinstance(name, str) or not name or "," in name:
            raise ValueError(f"{self.kind} name: expected a non-empty string without commas, not {name!r}")
        if obj is None:
            def decorate(target):
                self._entries[name] = target
                return target
            return decorate
        self._entries[name] = obj
        return obj

    def get(self, name: str):
        """The object registered as `name` (imported on first use); an unknown name is a UsageError
        naming the parameter and listing the known names."""
        if name not in self._entries:
            from fairpairs.errors import Param, UsageError
            from fairpairs.suggest import did_you_mean

            raise UsageError(Param(self.param), f": unknown {self.kind} {name!r}{did_you_mean(str(name), self.names())} "
                             f"(known: {', '.join(self.names())})", value=name)
        entry = self._entries[name]
        if isinstance(entry, str):
            module, _, attr = entry.partition(":")
            entry = self._entries[name] = getattr(importlib.import_module(module), attr)
        return entry

    def names(self) -> tuple[str, ...]:
        return tuple(self._entries)

    def __contains__(self, name) -> bool:
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}: {', '.join(self.names())})"


# the four kinds users extend; each built-in entry is imported only when it is used
STRATEGIES = Registry("strategy", "strategy", {
    "search": "fairpairs.control.loop:SEARCH",
    "resample": "fairpairs.control.loop:RESAMPLE",
})
NORMALIZATIONS = Registry("normalisation", "normalize", {
    name: f"fairpairs.scoring.normalize:{name.upper()}" for name in (
        "lp", "mean_lp", "pen_lp", "slor", "morcela", "slln_lp", "word_lp", "word_mean_lp", "centered_lp",
        "entropy_lp", "tc_lp", "tcf_lp")
})
PLL_VARIANTS = Registry("pseudo-log-likelihood variant", "pll", {
    "original": "fairpairs.scoring.encoding:ORIGINAL",
    "word_l2r": "fairpairs.scoring.encoding:WORD_L2R",
    "whole_word": "fairpairs.scoring.encoding:WHOLE_WORD",
    "sentence_l2r": "fairpairs.scoring.encoding:SENTENCE_L2R",
})
READERS = Registry("dataset format", "format", {
    "blimp": "fairpairs.analysis.readers:read_blimp",
    "clams": "fairpairs.analysis.readers:read_clams",
    "multiblimp": "fairpairs.analysis.readers:read_multiblimp",
    "zhoblimp": "fairpairs.analysis.readers:read_zhoblimp",
})

# the names each registry holds before any user registers more (kind -> names)
BUILT_IN = {r.kind: frozenset(r.names()) for r in (STRATEGIES, NORMALIZATIONS, PLL_VARIANTS, READERS)}
