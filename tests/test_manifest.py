"""`read_manifest` returns the typed RunManifest (issue 24): a real run's manifest.json reads back
as RunManifest / ParadigmEntry / ParadigmStats and writes back as the same JSON; hand-made, partial
manifests stay readable (None for what the file lacks, unknown keys ignored); a wrongly typed field
is refused with the message of before, in the API and on the command line; and the consumers
(publish's checks and card) work on the typed record."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fairpairs.errors import DatasetError
from fairpairs.manifest import ParadigmEntry, ParadigmStats, RunManifest, read_manifest

UID = "causative"


@pytest.fixture(scope="module")
def run(tmp_path_factory, fairpairs_cli) -> Path:
    """A real run folder: `fairpairs generate --paradigms causative --pairs 5 --out X`."""
    root = tmp_path_factory.mktemp("manifest")
    r = fairpairs_cli("generate", "--paradigms", UID, "--pairs", "5", "--out", "run", cwd=root)
    assert r.returncode == 0, r.stderr
    return root / "run"


def _run_with(tmp_path: Path, run: Path, doc) -> Path:
    """A copy of the run folder whose manifest.json is `doc`."""
    import shutil

    copy = tmp_path / "run"
    shutil.copytree(run, copy)
    (copy / "manifest.json").write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    return copy


def test_a_generated_manifest_reads_as_typed_records_and_writes_back_unchanged(run):
    text = (run / "manifest.json").read_text(encoding="utf-8")
    m = read_manifest(run)
    assert isinstance(m, RunManifest)
    entry = m.paradigms[UID]
    assert isinstance(entry, ParadigmEntry) and entry.field == "syntax" and entry.reorder is False
    assert isinstance(entry.original_stats, ParadigmStats) and isinstance(entry.debiased_stats, ParadigmStats)
    assert entry.debiased == entry.debiased_stats.kept == 5
    assert isinstance(entry.balance, dict) and entry.balance["n_debiased"] == 5    # TypedDicts stay dicts
    assert isinstance(m.tokenizers["gpt2"], dict) and m.models == ["gpt2", "bert-base-cased"]
    assert m.seed == 0 and m.lexicon is None
    assert m.to_dict() == json.loads(text)
    assert list(m.to_dict()) == list(json.loads(text))       # key order, `lexicon` left out as written
    assert m.to_json() == text


def test_the_apis_reader_gives_the_manifest_with_its_language_resolved_once(run):
    """Issue 50: a run's language is resolved once, by the API's reader, into the manifest the later
    stages read (publishing, balance, the datasets API); manifest.json stays as written. Fails on
    the code before it: `RunManifest` had no `run_language`, and each stage resolved the code itself."""
    import fairpairs as fp
    from fairpairs.api.common import run_manifest

    text = (run / "manifest.json").read_text(encoding="utf-8")
    assert read_manifest(run).run_language is None          # read as written: nothing resolved
    for manifest in (fp.read_pairs(run).manifest, run_manifest(run)):
        lang = manifest.run_language
        # causative is an English paradigm drawn from the bundled BLiMP table (vocab/blimp_vocabulary.csv)
        assert (lang.code, lang.name, lang.wordfreq) == ("en", "English", "en")
        assert lang.fixes_table == "blimp_vocabulary.csv" == manifest.vocabulary["file"]
        assert lang.table_sha256 is None                    # (an English run: checked against fixes_table)
        assert manifest.to_json() == text                   # never written: manifest.json's bytes as before
        assert manifest == read_manifest(run)               # and the same manifest


def test_an_old_manifests_language_is_its_paradigm_files(run, tmp_path):
    """A manifest written before fairpairs recorded `language` takes the one language of the
    paradigm files it names (`grammars/fr/` holds French ones) - resolved by the API's reader."""
    from fairpairs.api.common import run_manifest

    doc = json.loads((run / "manifest.json").read_text(encoding="utf-8"))
    del doc["language"]
    doc["paradigms"] = {"fr_long_vp_coord_n1pl": doc["paradigms"][UID]}
    assert run_manifest(_run_with(tmp_path, run, doc)).run_language.name == "French"


def test_a_partial_hand_made_manifest_reads_with_none_for_what_it_lacks(tmp_path):
    (tmp_path / "manifest.json").write_text(json.dumps({
        "seed": 3,
        "paradigms": {UID: {"original": 5, "reorder": False, "debiased_stats": {"kept": 4, "yield": 0.5}}},
        "written_by": "hand",          # unknown keys are ignored
    }), encoding="utf-8")
    m = read_manifest(tmp_path)
    assert m.seed == 3
    assert m.command is None and m.models is None and m.tokenizers is None and m.vocabulary is None
    assert m.match_frequency is None and m.lexicon is None
    assert not hasattr(m, "written_by")
    entry = m.paradigms[UID]
    assert entry.original == 5 and entry.reorder is False
    assert entry.balance is None and entry.field is None and entry.original_stats is None
    stats = entry.debiased_stats
    assert stats.kept == 4 and stats.yield_ == 0.5
    assert stats.draws is None and stats.kept_as_drawn is None     # absent: None, not ParadigmStats' 0
    empty = RunManifest.from_dict({}, "m")
    assert all(getattr(empty, f) is None for f in RunManifest.__dataclass_fields__)


def test_the_yield_key_is_the_yield__field():
    doc = {"paradigms": {"p": {"debiased_stats": {"yield": 0.25, "retention": 0.5}},
                         "q": {"debiased_stats": {"yield_": 0.25}}}}   # the Python name is not a JSON key
    m = RunManifest.from_dict(doc, "m")
    assert m.paradigms["p"].debiased_stats.yield_ == 0.25
    assert m.paradigms["q"].debiased_stats.yield_ is None
    plain = m.paradigms["p"].debiased_stats.as_dict()
    assert plain["yield"] == 0.25 and "yield_" not in plain


@pytest.mark.parametrize("change,message", [
    (lambda m: m.update(seed="7"), "field 'seed' must be an integer"),
    (lambda m: m.update(match_frequency="x"), "field 'match_frequency' must be a number or null"),
    (lambda m: m["paradigms"][UID]["debiased_stats"].update(drawn=1.5),
     f"field 'paradigms.{UID}.debiased_stats.drawn' must be an integer"),
    (lambda m: m["paradigms"][UID]["debiased_stats"].update({"yield": "high"}),
     f"field 'paradigms.{UID}.debiased_stats.yield' must be a number or null"),
    (lambda m: m["paradigms"].update({UID: 5}), f"field 'paradigms.{UID}' must be a JSON object"),
])
def test_a_wrongly_typed_field_gives_the_message_of_before(run, tmp_path, change, message):
    doc = json.loads((run / "manifest.json").read_text(encoding="utf-8"))
    change(doc)
    bad = _run_with(tmp_path, run, doc)
    path = bad / "manifest.json"
    with pytest.raises(DatasetError) as info:
        read_manifest(bad)
    assert str(info.value) == f"{path}: {message}"
    with pytest.raises(DatasetError) as info:
        RunManifest.from_dict(doc, "x.json")
    assert str(info.value) == f"x.json: {message}"


def test_not_an_object_at_the_top_level():
    with pytest.raises(DatasetError) as info:
        RunManifest.from_dict([], "m.json")
    assert str(info.value) == "m.json: expected a JSON object at the top level"


def test_the_command_line_names_the_wrongly_typed_field(run, tmp_path, fairpairs_cli):
    doc = json.loads((run / "manifest.json").read_text(encoding="utf-8"))
    doc["seed"] = "7"
    bad = _run_with(tmp_path, run, doc)
    r = fairpairs_cli("publish", bad, "--dry-run", "--repo-id", "me/x", "--out", tmp_path / "hub")
    assert r.returncode == 1
    assert r.stderr.strip().splitlines()[-1] == f"fairpairs: error: {bad / 'manifest.json'}: field 'seed' must be an integer"


def test_publish_checks_and_cards_a_partial_manifest(run, tmp_path):
    """The consumers on the typed record: what the manifest lacks is neither checked nor claimed."""
    from fairpairs.api.common import run_manifest
    from fairpairs.publishing.hub import build_folder

    partial = _run_with(tmp_path, run, {"models": ["gpt2", "bert-base-cased"],
                                        "paradigms": {UID: {"original": 5, "debiased": 5}}})
    built = build_folder(partial, "me/x", tmp_path / "hub", which="both", read_manifest=run_manifest)
    card = (built.folder / "README.md").read_text(encoding="utf-8")
    assert "- Command: `unknown`\n" in card
    assert "- Seed: unknown; pairs requested per paradigm: unknown;\n" in card
    assert "The run's manifest lists no tokenizers." in card
    assert f"| {UID} |  | 5 | 5 |  |  |  |  |  |  |" in card        # no field, no statistics
    assert "- Length-controlled for: gpt2, bert-base-cased\n" in card and "Library versions" not in card
    assert built.checks.tokenizers == ["gpt2", "bert-base-cased"] and built.checks.statistics == ["original", "debiased"]


def test_publish_refuses_a_recount_that_disagrees_with_the_typed_statistics(run, tmp_path):
    from fairpairs.api.common import run_manifest
    from fairpairs.publishing.hub import build_folder

    doc = json.loads((run / "manifest.json").read_text(encoding="utf-8"))
    doc["paradigms"][UID]["debiased_stats"]["kept_as_drawn"] += 1
    bad = _run_with(tmp_path, run, doc)
    with pytest.raises(DatasetError, match=rf"paradigms\.{UID}\.debiased_stats\.kept_as_drawn is \d+, but "
                                           rf"debiased/{UID}\.jsonl gives \d+"):
        build_folder(bad, "me/x", tmp_path / "hub", which="both", read_manifest=run_manifest)
