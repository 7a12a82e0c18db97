"""Registries (issue 37): one class for every closed list - it refuses a taken name unless asked,
checks the kind of what is registered, loads lazily, and reads plugin packages' entry points so
that a plugin works in the `fairpairs` command.

The plugins here are real distributions as Python finds them: a ``*.dist-info`` folder with an
``entry_points.txt`` on the path (fast), and in the slow tier a package built and pip-installed
into a fresh virtual environment. What the plugin's strategy must do is known by construction
(keep only pairs whose lengths already match, never redraw), and checked against the tokenizers
library's own counts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import textwrap
import venv
from pathlib import Path

import pytest

from fairpairs.errors import PluginError
from fairpairs.registry import LANGUAGES, NORMALIZATIONS, PLL_VARIANTS, READERS, STRATEGIES, Registry
from references import dist_info, plugin_environment, reference_tokenizer

CHECKOUT = Path(__file__).resolve().parents[1]

# the plugin's module: a strategy, a reader, and two broken entries
PLUGIN_SOURCE = '''
import os
import pandas as pd
from fairpairs.control.loop import Strategy


def keep_equal(sampler, searcher, live, meters, retries, budget):
    """No redraws: keep the drawn pairs whose lengths already match under every tokenizer."""
    with open(os.environ["PLUGIN_LOG"], "a") as log:
        log.write(f"{len(live)}\\n")
    return {p.k for p in live if all(m.lengths([p.sentence_good]) == m.lengths([p.sentence_bad]) for m in meters)}


KEEP_EQUAL = Strategy(keep_equal, default_retries=0, doc="keep pairs of equal lengths")
NOT_A_STRATEGY = 42


def read_psv(path, columns=None):
    rows = [line.split("|") for line in path.read_text(encoding="utf-8").splitlines()]
    return {"pairs": pd.DataFrame({"uid": "psv", "pair_id": [str(i) for i in range(len(rows))],
                                   "sentence_good": [r[0] for r in rows], "sentence_bad": [r[1] for r in rows]})}
'''
ENTRY_POINTS = """\
[fairpairs.strategies]
keep_equal = fp_plugin_demo:KEEP_EQUAL
not_a_strategy = fp_plugin_demo:NOT_A_STRATEGY
missing = fp_plugin_demo:NO_SUCH_NAME

[fairpairs.readers]
psv = fp_plugin_demo:read_psv
"""


# ---------------------------------------------------------------- the class


class Colour:
    def __init__(self, rgb):
        self.rgb = rgb


def colours(**kw) -> Registry:
    return Registry("colour", "colour", {"red": Colour((255, 0, 0)), "blue": f"{__name__}:BLUE"},
                    expects=Colour, **kw)


BLUE = Colour((0, 0, 255))


def test_a_taken_name_is_refused_unless_replace_is_asked():
    r = colours()
    green = Colour((0, 255, 0))
    assert r.register("green", green) is green and r.get("green") is green
    with pytest.raises(ValueError, match=r"^name: colour 'green' is already registered; pass replace=True"):
        r.register("green", Colour((0, 128, 0)))
    with pytest.raises(ValueError, match="colour 'red' is already registered"):     # a built-in too
        r.register("red", Colour((200, 0, 0)))
    assert r.get("green") is green and r.get("red").rgb == (255, 0, 0)
    dark = r.register("green", Colour((0, 128, 0)), replace=True)
    assert r.get("green") is dark and r.names() == ("red", "blue", "green")

    readers = Registry("reader", "format", {})

    @readers.register("tsv")           # the decorator form follows the same rule
    def read_tsv(path, columns=None):
        return {}
    assert readers.get("tsv") is read_tsv
    with pytest.raises(ValueError, match="reader 'tsv' is already registered"):
        readers.register("tsv")(read_tsv)
    readers.unregister("tsv")
    assert "tsv" not in readers
    with pytest.raises(TypeError, match=r"colour 'cyan': expected a .*Colour, not type"):   # a class is not one
        r.register("cyan", Colour)


def test_the_kind_is_checked_when_registered_and_a_lazy_entry_when_first_loaded():
    r = colours()
    with pytest.raises(TypeError, match=r"^obj: colour 'pink': expected a test_registry_plugins.Colour, not tuple"):
        r.register("pink", (255, 192, 203))
    assert "pink" not in r
    r.register("grey", f"{__name__}:dist_info")      # a string is checked when it is imported
    with pytest.raises(TypeError, match=r"colour 'grey': expected a .*Colour, not function"):
        r.get("grey")
    callables = Registry("reader", "format", {})
    with pytest.raises(TypeError, match="expected a callable, not int"):
        callables.register("n", 3)
    callables.register("f", len)
    assert callables.get("f") is len


def test_a_lazy_entry_is_imported_on_first_use_only(tmp_path, monkeypatch):
    (tmp_path / "fp_lazy_colour.py").write_text(f"from {__name__} import Colour\nLIME = Colour((50, 205, 50))\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    r = colours()
    r.register("lime", "fp_lazy_colour:LIME")
    assert "lime" in r and "lime" in r.names()
    assert "fp_lazy_colour" not in sys.modules
    assert r.get("lime").rgb == (50, 205, 50) and "fp_lazy_colour" in sys.modules
    monkeypatch.delitem(sys.modules, "fp_lazy_colour")


def test_an_unknown_name_is_one_error_with_a_did_you_mean():
    r = colours()
    with pytest.raises(ValueError) as info:
        r.get("bleu")
    assert str(info.value) == "colour: unknown colour 'bleu' (did you mean blue?) (known: red, blue)"
    assert (info.value.param, info.value.value, info.value.reason) == \
        ("colour", "bleu", "unknown colour 'bleu' (did you mean blue?) (known: red, blue)")
    # values the parameter takes beside the names, and a subset a caller allows, are in the list
    with pytest.raises(ValueError, match=r"^colour: unknown colour 'aut' \(did you mean auto\?\) \(known: auto, red, blue\)$"):
        r.check("aut", also=("auto",))
    with pytest.raises(ValueError, match=r"^colour: colour 'red' is not one of those taken here \(known: blue\)$"):
        r.check("red", among=("blue",))
    with pytest.raises(ValueError, match=r"^colour: unknown colour 'bleu' \(did you mean blue\?\) \(known: blue\)$"):
        r.check("bleu", among=("blue",))
    with pytest.raises(ValueError, match=r"^colour: unknown colour 3 \(known: red, blue\)$"):
        r.check(3)


def test_case_insensitive_names_keep_their_spelling():
    from fairpairs.tokenization.packaged import PACKAGED, lookup

    r = colours(fold=str.lower)
    r.register("Dark-Red", Colour((139, 0, 0)))
    assert r.check("dark-red") == "Dark-Red" and r.get("DARK-RED").rgb == (139, 0, 0)
    with pytest.raises(ValueError, match="already registered"):
        r.register("dark-red", Colour((1, 1, 1)))
    assert lookup("META-LLAMA/meta-llama-3-8b").name == "meta-llama/Meta-Llama-3-8B" and lookup("gpt2") is None
    with pytest.raises(ValueError, match="packaged tokenizer 'meta-llama/Meta-Llama-3-8B' is already registered"):
        PACKAGED.register("meta-llama/meta-llama-3-8b", lookup("meta-llama/Meta-Llama-3-8B"))


def test_every_list_is_one_registry_that_refuses_a_taken_name():
    from fairpairs.generation.languages import Language, get_language, register
    from fairpairs.tokenization.packaged import PACKAGED

    for r in (STRATEGIES, NORMALIZATIONS, PLL_VARIANTS, READERS, LANGUAGES, PACKAGED):
        assert isinstance(r, Registry)
        with pytest.raises(ValueError, match="already registered"):
            r.register(r.names()[0], r.get(r.names()[0]))
    with pytest.raises(ValueError, match="language 'fr' is already registered"):
        register(Language(code="fr", name="Not French", vocabulary="fr.csv"))
    assert get_language("fr").name == "French"
    with pytest.raises(TypeError, match="expected a fairpairs.generation.languages.Language"):
        LANGUAGES.register("xx", {"code": "xx"})
    with pytest.raises(TypeError, match="language 'xx': its code is 'yy', not 'xx'"):     # the name is the code
        LANGUAGES.register("xx", Language(code="yy", name="Y", vocabulary="yy.csv"))
    assert "xx" not in LANGUAGES


# ---------------------------------------------------------------- entry points, in this process


def test_entry_points_are_read_when_the_names_are_listed_and_loaded_when_used(tmp_path, monkeypatch):
    r = Registry("strategy", "strategy", {"search": "fairpairs.control.loop:SEARCH"}, group="fairpairs.strategies",
                 expects="fairpairs.control.loop:Strategy")
    site = dist_info(tmp_path, "fp-plugin-demo", ENTRY_POINTS, PLUGIN_SOURCE)
    monkeypatch.syspath_prepend(str(site))
    # asking for any name, a built-in one too, reads the entry points first (issue 45: a plugin
    # taking a built-in name must not be shadowed unseen), once; nothing of the plugin is imported
    assert r.get("search").default_retries == 100
    assert r.names() == ("search", "keep_equal", "not_a_strategy", "missing")
    assert "fp_plugin_demo" not in sys.modules
    assert r.get("keep_equal").default_retries == 0 and "fp_plugin_demo" in sys.modules
    with pytest.raises(PluginError) as info:
        r.get("not_a_strategy")
    assert str(info.value) == ("plugin fp-plugin-demo 0.1: entry point fairpairs.strategies not_a_strategy = "
                               "fp_plugin_demo:NOT_A_STRATEGY: expected a fairpairs.control.loop.Strategy, not int")
    with pytest.raises(PluginError, match=r"^plugin fp-plugin-demo 0.1: entry point fairpairs.strategies missing = "
                                          r"fp_plugin_demo:NO_SUCH_NAME cannot be loaded: AttributeError: "):
        r.get("missing")
    monkeypatch.delitem(sys.modules, "fp_plugin_demo")


def test_an_unknown_name_reads_the_entry_points_first(tmp_path, monkeypatch):
    r = Registry("dataset format", "format", {}, group="fairpairs.readers")
    site = dist_info(tmp_path, "fp-plugin-demo", ENTRY_POINTS, PLUGIN_SOURCE)
    monkeypatch.syspath_prepend(str(site))
    assert r.check("psv") == "psv"
    monkeypatch.delitem(sys.modules, "fp_plugin_demo", raising=False)


def test_a_plugin_may_not_replace_a_built_in(tmp_path, monkeypatch):
    site = dist_info(tmp_path, "fp-sneaky", "[fairpairs.strategies]\nsearch = fp_sneaky:S\n")
    monkeypatch.syspath_prepend(str(site))
    r = Registry("strategy", "strategy", {"search": "fairpairs.control.loop:SEARCH"}, group="fairpairs.strategies")
    with pytest.raises(PluginError, match=r"^plugin fp-sneaky 0.1: entry point fairpairs.strategies search = fp_sneaky:S: "
                                          r"'search' is a built-in strategy; a plugin may not replace it"):
        r.names()


# ---------------------------------------------------------------- the fairpairs command sees a plugin


def check_plugin_run(run: Path, calls: Path) -> None:
    """A run made with the plugin's keep_equal strategy: it ran (its log), every kept pair has equal
    lengths under gpt2 by the tokenizers library's own count, and none was redrawn."""
    gpt2 = reference_tokenizer("gpt2")
    assert calls.exists() and sum(int(n) for n in calls.read_text().split()) >= 8
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["strategy"] == "keep_equal"
    rows = [json.loads(line) for line in (run / "debiased" / "determiner_noun_agreement_1.jsonl").open()]
    assert len(rows) == 8
    for r in rows:
        good, bad = (len(gpt2.encode(r[k], add_special_tokens=False).ids) for k in ("sentence_good", "sentence_bad"))
        assert good == bad == r["token_lengths"]["gpt2"]["good"] == r["token_lengths"]["gpt2"]["bad"]
    assert manifest["paradigms"]["determiner_noun_agreement_1"]["debiased_stats"]["kept_redrawn"] == 0


BASE = ["generate", "--paradigms", "determiner_noun_agreement_1", "--pairs", "8", "--models", "gpt2", "--quiet"]
GENERATE = [*BASE, "--strategy", "keep_equal", "--out", "run"]


def test_a_plugin_on_the_path_works_in_the_fairpairs_command(tmp_path, fairpairs_cli):
    site = dist_info(tmp_path / "site", "fp-plugin-demo", ENTRY_POINTS, PLUGIN_SOURCE)
    work = tmp_path / "work"
    work.mkdir()
    r = fairpairs_cli.process(*GENERATE, cwd=work, env=plugin_environment(work, site))
    assert r.returncode == 0, r.stderr
    check_plugin_run(work / "run", work / "calls.log")
    helped = fairpairs_cli.process("generate", "--help", cwd=work, env=plugin_environment(work, site))
    assert "keep_equal" in helped.stdout     # the choices come from it
    (work / "pairs.psv").write_text("The cat sat.|The cat sit.\nThe dogs bark.|The dogs barks.\n", encoding="utf-8")
    r = fairpairs_cli.process("audit", "pairs.psv", "--models", "gpt2", "--format", "psv", cwd=work,
                              env=plugin_environment(work, site))
    assert r.returncode == 0 and "2" in r.stdout, r.stderr
    # a name near the plugin's: the registry's did-you-mean, as a usage error
    r = fairpairs_cli.process(*BASE, "--strategy", "keep_equl", "--out", "run2", cwd=work,
                              env=plugin_environment(work, site))
    assert r.returncode == 2 and r.stderr.strip().splitlines()[-1] == (
        "Error: Invalid value for '--strategy': unknown strategy 'keep_equl' (did you mean keep_equal?) "
        "(known: search, resample, keep_equal, not_a_strategy, missing)")
    # a broken entry point: one line naming the plugin and the entry point, no traceback
    r = fairpairs_cli.process(*BASE, "--strategy", "missing", "--out", "run2", cwd=work,
                              env=plugin_environment(work, site))
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.startswith("fairpairs: error: plugin fp-plugin-demo 0.1: entry point fairpairs.strategies "
                               "missing = fp_plugin_demo:NO_SUCH_NAME cannot be loaded: AttributeError:")
    assert len(r.stderr.strip().splitlines()) == 1 and not (work / "run2").exists()


def test_entry_points_are_not_read_at_import_nor_for_the_top_help(tmp_path, fairpairs_cli):
    """A plugin that clashes with a built-in breaks only what lists the strategies."""
    site = dist_info(tmp_path / "site", "fp-sneaky", "[fairpairs.strategies]\nsearch = fp_sneaky:S\n")
    r = fairpairs_cli.process("--help", cwd=tmp_path, env=plugin_environment(tmp_path, site))
    assert r.returncode == 0 and "generate" in r.stdout, r.stderr
    r = fairpairs_cli.process("generate", "--help", cwd=tmp_path, env=plugin_environment(tmp_path, site))
    assert r.returncode == 1 and r.stderr.strip() == (
        "fairpairs: error: plugin fp-sneaky 0.1: entry point fairpairs.strategies search = fp_sneaky:S: 'search' is a "
        "built-in strategy; a plugin may not replace it (rename the entry point)")


# ---------------------------------------------------------------- a real package in a fresh venv


@pytest.mark.slow
def test_a_pip_installed_plugin_works_in_the_fairpairs_command_of_its_venv(tmp_path):
    """Build a tiny plugin package, pip-install it (offline) into a new virtual environment that
    sees this environment's packages and this checkout, and run that environment's fairpairs."""
    pkg = tmp_path / "fp-plugin-demo"
    pkg.mkdir()
    (pkg / "fp_plugin_demo.py").write_text(PLUGIN_SOURCE)
    (pkg / "pyproject.toml").write_text(textwrap.dedent("""\
        [build-system]
        requires = ["setuptools>=61"]
        build-backend = "setuptools.build_meta"

        [project]
        name = "fp-plugin-demo"
        version = "0.1"

        [tool.setuptools]
        py-modules = ["fp_plugin_demo"]

        [project.entry-points."fairpairs.strategies"]
        keep_equal = "fp_plugin_demo:KEEP_EQUAL"
        """))
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=False)
    python = env_dir / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    site = Path(subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    # the checkout first (its fairpairs, not an installed one), then this environment's packages
    (site / "outer.pth").write_text(f"{CHECKOUT}\n{sysconfig.get_paths()['purelib']}\n")
    pip = subprocess.run([python, "-m", "pip", "install", "--no-index", "--no-deps", "--no-build-isolation", "-q",
                          str(pkg)], capture_output=True, text=True, timeout=600)
    assert pip.returncode == 0, pip.stderr
    assert list(site.glob("fp_plugin_demo-0.1.dist-info/entry_points.txt"))     # installed into the new venv
    work = tmp_path / "work"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    r = subprocess.run([python, "-m", "fairpairs.cli", *GENERATE], capture_output=True, text=True, cwd=work,
                       env={**env, "PLUGIN_LOG": str(work / "calls.log"), "HF_HUB_OFFLINE": "1"}, timeout=600)
    assert r.returncode == 0, r.stderr
    check_plugin_run(work / "run", work / "calls.log")
    # this environment does not have the plugin: the same command is refused here
    r = subprocess.run([sys.executable, "-m", "fairpairs.cli", *GENERATE], capture_output=True, text=True, cwd=work,
                       env={**env, "PYTHONPATH": str(CHECKOUT)}, timeout=600)
    assert r.returncode == 2 and "unknown strategy 'keep_equal'" in r.stderr
