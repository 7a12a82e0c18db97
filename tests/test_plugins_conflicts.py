"""Plugins that take a built-in name, exit when imported, or give a malformed value (issue 45, item 7).

docs/api.md promises that a plugin may not take a name that is already registered. Before issue
45 the registry read the entry points only when a name it did not know was asked for, so a
plugin named like a built-in (`search`, `lp`, `en`, `blimp`) was never seen by a command that used
only built-in names: the built-in ran, the plugin was silently ignored (`generate --help`, which
lists the names, raised the error). Names are compared case-insensitively (`SEARCH` is `search`),
whatever the registry's own folding. A plugin module that calls sys.exit(0) when imported ended the
command with exit 0 having done nothing (SystemExit is no Exception), and a value that names no
``module:attr`` surfaced as importlib's internal AttributeError.

The plugins are real distributions on the path (tests/test_registry_plugins.py's `dist_info`);
the registries are built as fairpairs builds its own (same built-in names, same groups).
"""

from __future__ import annotations

import sys

import pytest

from fairpairs.errors import PluginError
from fairpairs.registry import Registry
from references import dist_info, plugin_environment

BASE = ["generate", "--paradigms", "determiner_noun_agreement_1", "--pairs", "8", "--models", "gpt2", "--quiet"]

# (group, the built-in name a plugin takes, a registry like fairpairs' own for that group)
BUILT_INS = [
    ("fairpairs.strategies", "search", lambda: Registry("strategy", "strategy", {
        "search": "fairpairs.control.loop:SEARCH"}, group="fairpairs.strategies")),
    ("fairpairs.strategies", "SEARCH", lambda: Registry("strategy", "strategy", {
        "search": "fairpairs.control.loop:SEARCH"}, group="fairpairs.strategies")),
    ("fairpairs.scores", "lp", lambda: Registry("normalisation", "normalize", {
        "lp": "fairpairs.scoring.normalize:LP"}, group="fairpairs.scores")),
    ("fairpairs.languages", "en", lambda: Registry("language", "language", {
        "en": "fairpairs.generation.languages.en:LANGUAGE"}, group="fairpairs.languages")),
    ("fairpairs.readers", "blimp", lambda: Registry("dataset format", "format", {
        "blimp": "fairpairs.analysis.readers:read_blimp"}, group="fairpairs.readers")),
]


@pytest.mark.parametrize("group,name,make", BUILT_INS, ids=[b[1] for b in BUILT_INS])
def test_a_plugin_taking_a_built_in_name_is_an_error_whatever_name_is_asked(group, name, make, tmp_path, monkeypatch):
    site = dist_info(tmp_path, "fp-shadow", f"[{group}]\n{name} = fp_shadow:THING\n")
    monkeypatch.syspath_prepend(str(site))
    built_in = name.lower()
    for ask in (lambda r: r.get(built_in), lambda r: r.check(built_in), lambda r: built_in in r, lambda r: r.names()):
        with pytest.raises(PluginError) as info:
            ask(make())
        assert str(info.value).startswith(f"plugin fp-shadow 0.1: entry point {group} {name} = fp_shadow:THING: "
                                          f"{name!r} is a built-in ")
        assert "a plugin may not replace it" in str(info.value)
    r = make()
    for _ in range(2):    # the same error every time it is asked, never the built-in after the first
        with pytest.raises(PluginError):
            r.get(built_in)


def test_the_command_refuses_a_plugin_named_like_the_default_strategy(tmp_path, fairpairs_cli):
    site = dist_info(tmp_path / "site", "fp-shadow", "[fairpairs.strategies]\nSEARCH = fp_shadow:THING\n")
    # (the default strategy: search)
    r = fairpairs_cli.process(*BASE, "--out", "run", cwd=tmp_path, env=plugin_environment(tmp_path, site))
    assert r.returncode == 1 and r.stderr.strip() == (
        "fairpairs: error: plugin fp-shadow 0.1: entry point fairpairs.strategies SEARCH = fp_shadow:THING: 'SEARCH' "
        "is a built-in strategy (names are compared ignoring case: it is 'search'); a plugin may not replace it "
        "(rename the entry point)")
    assert not (tmp_path / "run").exists()


def test_a_plugin_named_like_a_built_in_reader_stops_audit(tmp_path, fairpairs_cli):
    site = dist_info(tmp_path / "site", "fp-shadow", "[fairpairs.readers]\nblimp = fp_shadow:read\n")
    (tmp_path / "pairs.jsonl").write_text('{"sentence_good": "The cat sat.", "sentence_bad": "The cat sit."}\n')
    r = fairpairs_cli.process("audit", "pairs.jsonl", "--models", "gpt2", cwd=tmp_path,
                              env=plugin_environment(tmp_path, site))
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 1 and len(lines) == 1 and "'blimp' is a built-in dataset format" in lines[0], r.stderr


def test_a_plugin_that_exits_when_imported_is_one_error_not_a_silent_exit(tmp_path, fairpairs_cli):
    site = dist_info(tmp_path / "site", "fp-plugin-demo", "[fairpairs.strategies]\nquits = fp_plugin_demo:Q\n",
                     "import sys\nsys.exit(0)\n")
    r = fairpairs_cli.process(*BASE, "--strategy", "quits", "--out", "run", cwd=tmp_path,
                              env=plugin_environment(tmp_path, site))
    assert r.returncode == 1 and r.stderr.strip() == (
        "fairpairs: error: plugin fp-plugin-demo 0.1: entry point fairpairs.strategies quits = fp_plugin_demo:Q cannot "
        "be loaded: importing it called sys.exit(0)")
    assert not (tmp_path / "run").exists()


def test_a_malformed_entry_point_value_is_named(tmp_path, monkeypatch):
    site = dist_info(tmp_path, "fp-broken", "[fairpairs.strategies]\nodd = fp broken: X!\ncolon = fp_broken:\n")
    monkeypatch.syspath_prepend(str(site))
    r = Registry("strategy", "strategy", {}, group="fairpairs.strategies")
    for name, value in (("odd", "fp broken: X!"), ("colon", "fp_broken:")):
        with pytest.raises(PluginError) as info:
            r.get(name)
        assert str(info.value) == (f"plugin fp-broken 0.1: entry point fairpairs.strategies {name} = {value}: the "
                                   "value is not of the form module:attr (or module), so it names nothing to load; "
                                   "fix the plugin's entry point")
    assert "fp_broken" not in sys.modules
