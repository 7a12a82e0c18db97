"""Registries of what users extend: length-control strategies, normalisations, pseudo-log-likelihood
variants, dataset readers, languages and packaged tokenizer files (docs/api.md, "Extending
fairpairs").

A registry maps a name to an object, to a lazily imported ``"module:attr"`` string (as
lm-evaluation-harness's registry does) or to an entry point of an installed plugin package, so
that listing the names - for a CLI choice, an error message, `--help` - imports nothing heavy. It
is the one membership check of its kind: `fp.generate(strategy=...)` and `fairpairs generate
--strategy`, `normalize=`, `pll=`, `format=`, a paradigm's `language:` all ask it, and an unknown
name is its one error, naming the parameter and listing the known names (with a did-you-mean).

Registering a name that is taken is an error unless ``replace=True``; every object is checked to
be of the registry's kind (when registered, or for a lazy entry when first loaded). Plugin
packages add names through entry points (group ``fairpairs.strategies``, ``fairpairs.scores``,
``fairpairs.pll``, ``fairpairs.readers``, ``fairpairs.languages``, ``fairpairs.tokenizers``), read
the first time a name of the registry is asked for or its names are listed - never at import time,
and before any name is resolved, so that a plugin cannot be shadowed unseen; a plugin may not take
a name that is already registered (compared case-insensitively: ``SEARCH`` is ``search``), and one
that cannot be loaded (its import fails or exits, its value names no ``module:attr``) is one
`PluginError` naming the plugin and its entry point.

    from fairpairs.control.loop import Strategy
    from fairpairs.registry import STRATEGIES

    STRATEGIES.register("mine", Strategy(my_control, default_retries=0))
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator

from fairpairs.errors import GrammarError, Param, PluginError, UsageError, UsageTypeError, one_line


def _import(target: str):
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


def lazy_getattr(owner: str, table: dict[str, str], namespace: dict | None = None):
    """A module's `__getattr__` (PEP 562) for `table`, public name -> ``"module:attr"`` (or
    ``"module"``: the attribute of that name): the object is imported on first access (and kept in
    `namespace`, the module's globals, when given), as the registry imports its lazy entries."""
    def __getattr__(name):
        target = table.get(name)
        if target is None:
            raise AttributeError(f"module {owner!r} has no attribute {name!r}")
        value = _import(target if ":" in target else f"{target}:{name}")
        if namespace is not None:
            namespace[name] = value
        return value
    return __getattr__


class Registry:
    """Names of one kind to objects, in registration order (built-in names first, then plugins').

    kind: the kind as messages call it ("strategy"); param: the parameter that takes a name (named
    in the unknown-name error); entries: the built-in names (objects or ``"module:attr"`` strings);
    group: the entry-point group plugins register under; expects: the type every object must be an
    instance of (the loops call its methods), as a type or a ``"module:attr"`` string (None: any callable);
    error: the error class of an unknown name; fold: how names compare (`str.lower`: case-insensitive);
    hint: words added to the unknown-name error (where to read how to add one); named_by: the
    attribute of an object that must be its name (a language's `code`)."""

    def __init__(self, kind: str, param: str, entries: dict[str, object] | None = None, *, group: str | None = None,
                 expects: type | str | None = None, error: type = UsageError,
                 fold: Callable[[str], str] | None = None, hint: str = "", named_by: str | None = None):
        self.kind, self.param, self.group, self.error, self.hint = kind, param, group, error, hint
        self._expects, self._fold, self._named_by = expects, fold or (lambda name: name), named_by
        self._entries: dict[str, object] = {}      # folded name -> object, "module:attr" or EntryPoint
        self._names: dict[str, str] = {}           # folded name -> the name as registered
        self._discovered = group is None
        self._plugin_error: PluginError | None = None   # (a clash found once is raised every time)
        for name, obj in (entries or {}).items():
            self._add(name, obj)
        self.built_in = frozenset(self._names.values())

    # ---------------------------------------------------------------- adding names

    def register(self, name: str, obj: object = None, *, replace: bool = False):
        """Register `obj` (or a ``"module:attr"`` string) under `name`; without `obj`, a decorator.
        A name already registered is an error unless `replace` (a user's own version of a built-in)."""
        if not isinstance(name, str) or not name.strip() or "," in name:
            raise UsageError(Param("name"), f": a {self.kind} name is a non-empty string without commas, not {name!r}",
                             value=name)
        if obj is None:
            def decorate(target):
                self.register(name, target, replace=replace)
                return target
            return decorate
        key = self._fold(name)
        if key in self._entries and not replace:
            raise UsageError(Param("name"), f": {self.kind} {self._names[key]!r} is already registered; "
                             "pass replace=True to replace it", value=name)
        if not isinstance(obj, str):
            self._check_kind(obj, name)
        self._add(name, obj)
        return obj

    def unregister(self, name: str) -> None:
        """Forget `name` (a test's or a session's own entry); an unknown name is the usual error."""
        key = self._key(name)
        del self._entries[key], self._names[key]

    def _add(self, name: str, obj: object) -> None:
        key = self._fold(name)
        self._entries[key], self._names[key] = obj, name

    # ---------------------------------------------------------------- asking for names

    def get(self, name: str):
        """The object registered as `name` (imported or loaded from its plugin on first use); an
        unknown name is this registry's error naming the parameter and listing the known names."""
        key = self._key(name)
        entry = self._entries[key]
        if isinstance(entry, str):
            entry = _import(entry)
            self._check_kind(entry, name)
        elif _is_entry_point(entry):
            entry = self._load_plugin(entry)
        self._entries[key] = entry
        return entry

    def find(self, name: str):
        """The object registered as `name`, or None (for a lookup that falls back to something else)."""
        return self.get(name) if name in self else None

    def check(self, name, *, also: tuple[str, ...] = (), among=None) -> str:
        """`name` as registered if it is a name of this registry (or one of `also`, values the
        parameter takes beside the names, such as "auto"); else the unknown-name error, listing
        `also` and the names (or only those of `among`, when the caller takes a subset)."""
        self._discover()    # (first: a plugin taking a built-in name is an error, whatever name is asked)
        if isinstance(name, str):
            if name in also or (among is not None and name in among):
                return name
            if among is None and name in self:
                return self._names[self._fold(name)]
        known = [*also, *(self.names() if among is None else among)]
        hint = f"; {self.hint}" if self.hint else ""
        what = f"{self.kind} {name!r} is not one of those taken here" if among is not None and name in self else \
            f"unknown {self.kind} {name!r}{self._did_you_mean(name, known)}"
        raise self.error(Param(self.param), value=name, reason=f"{what} (known: {', '.join(known)}{hint})")

    def _key(self, name: str) -> str:
        return self._fold(self.check(name))

    @staticmethod
    def _did_you_mean(name, known) -> str:
        from fairpairs.suggest import did_you_mean

        return did_you_mean(str(name), known)

    def names(self) -> tuple[str, ...]:
        """Every registered name (plugins' entry points read on the first call)."""
        self._discover()
        return tuple(self._names.values())

    def values(self) -> list:
        """Every registered object (each loaded)."""
        return [self.get(name) for name in self.names()]

    def __contains__(self, name) -> bool:
        self._discover()
        return isinstance(name, str) and self._fold(name) in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        return len(self.names())

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}: {', '.join(self.names())})"

    # ---------------------------------------------------------------- kinds and plugins

    def expects(self) -> type | None:
        """The type this registry's objects are (None: any callable)."""
        if isinstance(self._expects, str):
            self._expects = _import(self._expects)
        return self._expects

    def _kind_problem(self, obj, name: str) -> str | None:
        """Why `obj` cannot be one of this registry's objects under `name` (None: it can)."""
        expected = self.expects()
        if expected is None:
            return None if callable(obj) else f"expected a callable, not {type(obj).__name__}"
        if not isinstance(obj, expected):
            return f"expected a {expected.__module__}.{expected.__qualname__}, not {type(obj).__name__}"
        own = getattr(obj, self._named_by, name) if self._named_by else name
        if self._fold(own) != self._fold(name):
            return f"its {self._named_by} is {own!r}, not {name!r}"
        return None

    def _check_kind(self, obj, name: str) -> None:
        problem = self._kind_problem(obj, name)
        if problem:
            raise UsageTypeError(Param("obj"), f": {self.kind} {name!r}: {problem}", value=obj)

    def _discover(self) -> None:
        """Add the names of this registry's entry-point group (read once per process; a plugin
        that takes a name already registered - compared case-insensitively, whatever the
        registry's own folding - is the same PluginError on every call)."""
        if self._plugin_error is not None:
            raise self._plugin_error
        if self._discovered:
            return
        self._discovered = True
        from importlib.metadata import entry_points

        for ep in entry_points(group=self.group):
            taken = {n.casefold(): n for n in self._names.values()}.get(ep.name.casefold())
            if taken is not None:
                which = "a built-in" if taken in self.built_in else "an already registered"
                same = "" if taken == ep.name else f" (names are compared ignoring case: it is {taken!r})"
                self._plugin_error = PluginError(
                    f"plugin {_plugin(ep)}: entry point {ep.group} {ep.name} = {ep.value}: {ep.name!r} is {which} "
                    f"{self.kind}{same}; a plugin may not replace it (rename the entry point)")
                raise self._plugin_error
            self._add(ep.name, ep)

    def _load_plugin(self, ep):
        where = f"plugin {_plugin(ep)}: entry point {ep.group} {ep.name} = {ep.value}"
        if ep.pattern.match(ep.value) is None:      # (ep.load would fail inside importlib on it)
            raise PluginError(f"{where}: the value is not of the form module:attr (or module), so it names "
                              "nothing to load; fix the plugin's entry point")
        try:
            obj = ep.load()
        except Exception as exc:     # (anything a plugin's import raises: one line naming the plugin)
            raise PluginError(f"{where} cannot be loaded: {type(exc).__name__}: {one_line(exc)}") from None
        except SystemExit as exc:    # (a module that exits when imported would end the command silently)
            raise PluginError(f"{where} cannot be loaded: importing it called sys.exit({exc.code!r})") from None
        problem = self._kind_problem(obj, ep.name)
        if problem:
            raise PluginError(f"{where}: {problem}")
        return obj


def _is_entry_point(entry) -> bool:
    from importlib.metadata import EntryPoint

    return isinstance(entry, EntryPoint)


def _plugin(ep) -> str:
    """The distribution (name and version) an entry point comes from."""
    dist = getattr(ep, "dist", None)
    return f"{dist.name} {dist.version}" if dist is not None else "?"


# the six kinds users extend; each built-in entry is imported only when it is used
STRATEGIES = Registry("strategy", "strategy", {
    "search": "fairpairs.control.loop:SEARCH",
    "resample": "fairpairs.control.loop:RESAMPLE",
}, group="fairpairs.strategies", expects="fairpairs.control.loop:Strategy")
NORMALIZATIONS = Registry("normalisation", "normalize", {
    name: f"fairpairs.scoring.normalize:{name.upper()}" for name in (
        "lp", "mean_lp", "pen_lp", "slor", "morcela", "slln_lp", "word_lp", "word_mean_lp", "centered_lp",
        "entropy_lp", "tc_lp", "tcf_lp")
}, group="fairpairs.scores", expects="fairpairs.scoring.normalize:Normalization")
PLL_VARIANTS = Registry("pseudo-log-likelihood variant", "pll", {
    "original": "fairpairs.scoring.encoding:ORIGINAL",
    "word_l2r": "fairpairs.scoring.encoding:WORD_L2R",
    "whole_word": "fairpairs.scoring.encoding:WHOLE_WORD",
    "sentence_l2r": "fairpairs.scoring.encoding:SENTENCE_L2R",
}, group="fairpairs.pll", expects="fairpairs.scoring.encoding:PLLVariant")
READERS = Registry("dataset format", "format", {
    "blimp": "fairpairs.analysis.readers:read_blimp",
    "clams": "fairpairs.analysis.readers:read_clams",
    "multiblimp": "fairpairs.analysis.readers:read_multiblimp",
    "zhoblimp": "fairpairs.analysis.readers:read_zhoblimp",
}, group="fairpairs.readers")
LANGUAGES = Registry("language", "language", {
    code: f"fairpairs.generation.languages.{code}:LANGUAGE" for code in ("de", "en", "fr", "he", "ru")
}, group="fairpairs.languages", expects="fairpairs.generation.languages:Language", error=GrammarError,
    hint="docs/multilingual.md says how to add one", named_by="code")
# (packaged tokenizer files: fairpairs.tokenization.packaged.PACKAGED, a Registry of its TABLE's rows)

# the names each registry holds before any user registers more (kind -> names)
BUILT_IN = {r.kind: r.built_in for r in (STRATEGIES, NORMALIZATIONS, PLL_VARIANTS, READERS, LANGUAGES)}
