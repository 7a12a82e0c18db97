"""Every FAIRPAIRS_* variable that holds a number or a switch (issue 45, items 9 and 10): a value it
cannot use is one line naming the variable and the form it takes, exit 2 (usage), never a
traceback and never output; an empty value is the default.

The forms are what a person means by a count or a time, in ASCII: '²' passes `str.isdigit` but
not `int` (the traceback of issue 45.9), '١' (an Arabic-Indic one) and '1_0' pass `int`, 'inf'
and 'nan' pass `float`; none is a count of workers or a number of seconds. (On the code before
this test: '²' was a ValueError traceback from `int`, the timeouts and the switch ended with
exit 1, and the switch's message listed only 1 and 0.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

GEN = ["generate", "--paradigms", "causative,transitive", "--pairs", "3", "--models", "gpt2", "--quiet"]
SWITCH_VALUES = ("1", "true", "yes", "on", "0", "false", "no", "off", "empty")


def one_usage_line(proc, variable: str, value: str) -> str:
    """The one line of a run refused for `variable`=`value`: exit 2, nothing on stdout."""
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr and proc.stdout == "", proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith(f"fairpairs: error: environment variable {variable}={value!r}: expected "), lines[0]
    return lines[0]


@pytest.mark.parametrize("value", ["²", "-1", "abc", "0", "١", "1_0", "2.5"])
def test_a_workers_value_that_is_no_count_is_one_usage_line(value, fairpairs_cli, tmp_path, monkeypatch):
    monkeypatch.setenv("FAIRPAIRS_WORKERS", value)
    proc = fairpairs_cli(*GEN, "--out", tmp_path / "run")
    assert "a whole number of worker processes, 1 or more" in one_usage_line(proc, "FAIRPAIRS_WORKERS", value)
    assert list(tmp_path.iterdir()) == []      # (nothing written, no temporary folder left)


@pytest.mark.parametrize("value", ["", "  ", " 2 "])
def test_an_empty_workers_value_is_the_default_and_spaces_are_ignored(value, fairpairs_cli, tmp_path, monkeypatch):
    from fairpairs.control.workers import default_workers

    monkeypatch.setenv("FAIRPAIRS_WORKERS", value)
    assert default_workers(2) == (2 if value.strip() else min(2, default_workers(100)))
    assert fairpairs_cli(*GEN, "--out", tmp_path / "run").returncode == 0


@pytest.mark.parametrize("value", ["²", "-1", "abc", "0", "inf", "nan", "١٠", "1e400"])
def test_a_hub_timeout_that_is_no_time_is_one_usage_line(value, fairpairs_cli, tmp_path, monkeypatch):
    """Read when a command first asks the Hub (here: a name that is not a bundled tokenizer)."""
    monkeypatch.setenv("FAIRPAIRS_HUB_TIMEOUT", value)
    proc = fairpairs_cli(*GEN[:-3], "--models", "some-org/some-model", "--out", tmp_path / "run")
    assert "a number of seconds > 0" in one_usage_line(proc, "FAIRPAIRS_HUB_TIMEOUT", value)


@pytest.mark.parametrize("value", ["²", "-1", "abc", "0", "inf"])
def test_a_dist_timeout_that_is_no_time_is_one_usage_line(value, fairpairs_cli, tiny_models, tmp_path, monkeypatch):
    """Read when a rank of a launch (RANK, WORLD_SIZE set, as torchrun sets them) joins its group:
    refused before it waits for any other rank (no rank 1 is ever started here)."""
    (tmp_path / "s.txt").write_text("A dog barks.\n")
    for key, v in {"RANK": "0", "WORLD_SIZE": "2", "LOCAL_RANK": "0", "LOCAL_WORLD_SIZE": "2",
                   "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": "1", "FAIRPAIRS_DIST_TIMEOUT": value}.items():
        monkeypatch.setenv(key, v)
    proc = fairpairs_cli("score", "--models", tiny_models["gpt2"], "--input", tmp_path / "s.txt", "--normalize", "",
                         "--out", tmp_path / "s.csv")
    assert "a number of seconds > 0" in one_usage_line(proc, "FAIRPAIRS_DIST_TIMEOUT", value)
    assert not (tmp_path / "s.csv").exists()


def test_empty_timeouts_are_the_defaults_and_decimals_are_taken(monkeypatch):
    from fairpairs.errors import VariableError
    from fairpairs.io.network import hub_timeout
    from fairpairs.scoring.launch import timeout_seconds

    for variable, read, default in (("FAIRPAIRS_HUB_TIMEOUT", hub_timeout, 60),        # (docs/environment.md)
                                    ("FAIRPAIRS_DIST_TIMEOUT", timeout_seconds, 1800)):
        monkeypatch.setenv(variable, "")
        assert read() == default
        monkeypatch.setenv(variable, " 2.5 ")
        assert read() == 2.5
        monkeypatch.setenv(variable, "-1")
        with pytest.raises(VariableError) as got:
            read()
        assert got.value.exit_code == 2 and got.value.param == variable and isinstance(got.value, ValueError)


@pytest.mark.parametrize("value", ["maybe", "²", "-1", "2"])
def test_a_progress_switch_it_does_not_take_lists_every_value_it_takes(value, fairpairs_cli, tmp_path, monkeypatch):
    monkeypatch.setenv("FAIRPAIRS_DISABLE_PROGRESS_BARS", value)
    proc = fairpairs_cli(*GEN[:-1], "--out", tmp_path / "run")       # (not --quiet: the switch is read)
    line = one_usage_line(proc, "FAIRPAIRS_DISABLE_PROGRESS_BARS", value)
    told = line.split(": expected ", 1)[1]
    assert all(v in told.replace(",", " ").split() for v in SWITCH_VALUES), line
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("value", ["", "0", "OFF", " yes "])
def test_every_value_the_progress_switch_lists_is_taken(value, fairpairs_cli, tmp_path, monkeypatch):
    monkeypatch.setenv("FAIRPAIRS_DISABLE_PROGRESS_BARS", value)
    proc = fairpairs_cli(*GEN[:-1], "--out", tmp_path / "run")
    assert proc.returncode == 0, proc.stderr
    assert ("generating 2 paradigms" in proc.stderr) == (value.strip().lower() != "yes")


# issue 50: one module defines every variable (fairpairs.environment) and one page lists them
DOCS = Path(__file__).resolve().parents[1] / "docs" / "environment.md"
PACKAGE = Path(__file__).resolve().parents[1] / "fairpairs"
NAME = re.compile(r"FAIRPAIRS_[A-Z0-9_]+")


def test_the_docs_page_lists_every_variable_with_its_default_and_form():
    """Each variable of `fairpairs.environment.VARIABLES` is a row of docs/environment.md with the
    default and the values it takes that the module says (a variable added without its row, or a
    default changed in one place only, fails), and the page's table names no other variable."""
    from fairpairs.environment import VARIABLES

    text = DOCS.read_text()
    rows = {m.group(1): m.group(0) for m in re.finditer(r"^\| `(FAIRPAIRS_[A-Z_]+)` \|.*$", text, re.M)}
    assert set(rows) == {v.name for v in VARIABLES}
    for v in VARIABLES:
        assert rows[v.name].startswith(f"| `{v.name}` | {v.default} | {v.takes} | "), (v.name, rows[v.name])
    assert "docs/environment.md" in (DOCS.parents[1] / "README.md").read_text()


def test_every_variable_the_package_names_is_one_it_reads():
    """A FAIRPAIRS_* name in any module's code, docstring or message is a variable of
    `fairpairs.environment` (a message or a docstring naming a variable nobody reads, or an old name,
    fails), and the module's variables are the eight docs/environment.md lists by hand."""
    from fairpairs.environment import VARIABLES

    known = {v.name for v in VARIABLES}
    unknown = sorted({f"{p.relative_to(PACKAGE.parent)}: {name}" for p in PACKAGE.rglob("*.py")
                      for name in NAME.findall(p.read_text()) if name not in known})
    assert not unknown, unknown
    assert known == {"FAIRPAIRS_WORKERS", "FAIRPAIRS_HUB_TIMEOUT", "FAIRPAIRS_DIST_TIMEOUT", "FAIRPAIRS_MODEL_CACHE",
                     "FAIRPAIRS_DISABLE_PROGRESS_BARS", "FAIRPAIRS_TOKENIZER_MAP", "FAIRPAIRS_TOKENIZER_CACHE",
                     "FAIRPAIRS_KEEP_CONVERTED"}


@pytest.mark.parametrize(("value", "expected"), [(None, True), ("", True), ("  ", True), ("off", False), ("0", False),
                                                 (" NO ", False), ("on", True), ("Yes", True)])
def test_the_keep_converted_switch_is_on_unless_turned_off(value, expected, monkeypatch):
    """Unlike the progress switch, FAIRPAIRS_KEEP_CONVERTED is on when unset or empty (docs/environment.md:
    default on); off and its synonyms turn it off."""
    from fairpairs.environment import KEEP_CONVERTED

    if value is None:
        monkeypatch.delenv("FAIRPAIRS_KEEP_CONVERTED", raising=False)
    else:
        monkeypatch.setenv("FAIRPAIRS_KEEP_CONVERTED", value)
    assert KEEP_CONVERTED.read() is expected


@pytest.mark.parametrize(("variable", "value", "expected"), [
    ("FAIRPAIRS_TOKENIZER_CACHE", None, "xdg/fairpairs/tokenizers"), ("FAIRPAIRS_TOKENIZER_CACHE", "", None),
    ("FAIRPAIRS_TOKENIZER_CACHE", " OFF ", None), ("FAIRPAIRS_TOKENIZER_CACHE", "~/c", "HOME/c"),
    ("FAIRPAIRS_MODEL_CACHE", None, "xdg/fairpairs/models"), ("FAIRPAIRS_MODEL_CACHE", " ", "xdg/fairpairs/models"),
    ("FAIRPAIRS_MODEL_CACHE", " ~/m ", "HOME/m"), ("FAIRPAIRS_TOKENIZER_MAP", None, None),
    ("FAIRPAIRS_TOKENIZER_MAP", "", None), ("FAIRPAIRS_TOKENIZER_MAP", "~/map.yaml", "HOME/map.yaml")])
def test_the_folders_and_the_map_as_docs_environment_md_says(variable, value, expected, monkeypatch, tmp_path):
    """The path variables' defaults and special values, by hand from docs/environment.md (the
    tokenizer cache: set but empty is no cache; the model cache: empty is the default)."""
    from fairpairs.environment import VARIABLES

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("HOME", str(tmp_path))
    if value is None:
        monkeypatch.delenv(variable, raising=False)
    else:
        monkeypatch.setenv(variable, value)
    got = next(v for v in VARIABLES if v.name == variable).read()
    assert got == (None if expected is None else tmp_path / expected.replace("HOME/", ""))
