"""One pair schema, one reader (issue 24, item 1): `fp.read_pairs` and `fairpairs.records.check_row`.

References: the bytes `fairpairs generate` writes, public BLiMP's own rows (tests/fixtures/blimp),
hand-written rows, pyarrow's reading of the published parquet, and the package's source (one
place words a row error).
"""

from __future__ import annotations

import ast
import json
import warnings
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest

import fairpairs as fp
from fairpairs.errors import DatasetError, FairpairsDeprecationWarning
from fairpairs.manifest import RunManifest
from fairpairs.records import PAIR_FIELDS, PairRecord

REPO = Path(__file__).resolve().parents[1]
BLIMP = REPO / "tests" / "fixtures" / "blimp"
UID = "determiner_noun_agreement_1"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("pairsets") / "run"
    fp.generate_run(out, paradigms=[UID, "causative"], models=["gpt2"], pairs=12, seed=5)
    return out


def test_a_run_folder_reads_as_typed_sets_whose_records_are_the_jsonl_lines(run):
    sets = fp.read_pairs(run)
    assert list(sets) == ["original", "debiased"] and isinstance(sets.manifest, RunManifest)
    assert sets.manifest.seed == 5
    for name in ("original", "debiased"):
        lines = [line for f in sorted((run / name).glob("*.jsonl")) for line in f.read_text("utf-8").splitlines()]
        s = sets[name]
        assert len(s) == len(lines)
        # the records are the file's lines, byte for byte (PairRecord.to_json is what generate writes)
        assert [r.to_json() for r in s.records()] == lines
        # one schema: the frame's columns are the jsonl keys, which are PairRecord's fields (but the
        # two-prefix fields, which neither paradigm allows: BLiMP leaves them out of such rows too)
        keys = set().union(*(json.loads(line) for line in lines))
        assert set(s.frame.columns) == keys == set(PAIR_FIELDS) - {"two_prefix_prefix_good", "two_prefix_prefix_bad",
                                                                    "two_prefix_word"}
        assert list(s.pairs.columns) == ["uid", "pair_id", "sentence_good", "sentence_bad"]
        # each row's origin is its file and line
        first = sorted((run / name).glob("*.jsonl"))[0]
        assert s.origin[0] == (str(first), 1) and s.origin[1] == (str(first), 2)


def test_the_published_parquet_has_the_jsonl_names_and_types(run, tmp_path):
    from fairpairs.api.common import run_manifest
    from fairpairs.publishing.hub import build_folder

    built = build_folder(run, "me/x", tmp_path / "hub", which="debiased", read_manifest=run_manifest)
    table = pq.read_table(built.folder / "data" / UID / "train-00000-of-00001.parquet")
    rows = [json.loads(line) for line in (run / "debiased" / f"{UID}.jsonl").read_text("utf-8").splitlines()]
    assert set(table.column_names) == set(rows[0])
    assert str(table.schema.field("uid").type) == "string" and str(table.schema.field("pair_id").type) == "string"
    assert table.column("pair_id").to_pylist() == [r["pair_id"] for r in rows]


def test_blimps_old_names_read_as_the_schema(tmp_path):
    # public BLiMP's rows (UID, pairID and BLiMP's other fields), as they are and with today's names
    src = BLIMP / f"{UID}.jsonl"
    old = [json.loads(line) for line in src.read_text("utf-8").splitlines()]
    renamed = [{("uid" if k == "UID" else "pair_id" if k == "pairID" else k): v for k, v in r.items()} for r in old]
    new = tmp_path / f"{UID}.jsonl"
    new.write_text("".join(json.dumps(r) + "\n" for r in renamed), encoding="utf-8")
    a, b = fp.read_pairs(src)[UID].frame, fp.read_pairs(new)[UID].frame
    pd.testing.assert_frame_equal(a, b[a.columns])
    assert a["uid"].tolist() == [r["UID"] for r in old] and a["pair_id"].tolist() == [r["pairID"] for r in old]
    assert "UID" not in a.columns and "pairID" not in a.columns and "one_prefix_method" in a.columns


def test_rows_without_ids_are_grouped_by_file_and_numbered(tmp_path):
    f = tmp_path / "mine.csv"
    f.write_text("sentence_good,sentence_bad,lexically_identical\nA cat sleeps.,A cat sleep.,True\n"
                 "Dogs bark.,Dogs barks.,False\n", encoding="utf-8")
    frame = fp.read_pairs(f)["mine"].frame
    assert frame["uid"].tolist() == ["mine", "mine"] and frame["pair_id"].tolist() == ["0", "1"]
    assert frame["lexically_identical"].tolist() == ["True", "False"]   # a csv's text, not checked as a bool


@pytest.mark.parametrize("row,needle", [
    ({"sentence_good": "A b.", "UID": "u", "pairID": "0"}, ":2: missing field 'sentence_bad'"),
    ({"sentence_good": "A b.", "sentence_bad": " ", "uid": "u"}, ":2: field 'sentence_bad' is empty or not a string"),
    ({"sentence_good": "A b.", "sentence_bad": "A c.", "UID": "u", "pairID": "0"},
     ":2: field 'pairID' '0' repeats an earlier pair of u"),
    ({"sentence_good": "A b.", "sentence_bad": "A c.", "uid": "u", "pair_id": 1.5},
     ":2: field 'pair_id' must be a string or an integer (the pair's id), got 1.5"),
    ({"sentence_good": "A b.", "sentence_bad": "A c.", "uid": "u", "pair_id": "1", "token_lengths": {"gpt2": 3}},
     ":2: field 'token_lengths' must"),
    ({"sentence_good": "A b.", "sentence_bad": "A c.", "uid": "u", "pair_id": "1", "lexically_identical": "no"},
     ":2: field 'lexically_identical' must be true or false"),
    (["A b.", "A c."], ":2: expected a JSON object, got list"),
])
def test_a_bad_row_is_one_line_naming_file_line_and_field(tmp_path, row, needle):
    f = tmp_path / "p.jsonl"
    first = {"sentence_good": "A b.", "sentence_bad": "A c.", "UID": "u", "pairID": "0"}
    f.write_text(json.dumps(first) + "\n" + json.dumps(row) + "\n", encoding="utf-8")
    with pytest.raises(DatasetError) as info:
        fp.read_pairs(f)
    assert str(info.value).startswith(f"{f}:2: ") and needle in str(info.value)
    assert "\n" not in str(info.value)


def test_in_memory_rows_are_checked_like_a_files_and_name_the_parameter():
    with pytest.raises(DatasetError, match=r"^source: item 2: missing field 'sentence_bad'"):
        fp.read_pairs([{"sentence_good": "A.", "sentence_bad": "B."}, {"sentence_good": "A."}], name="source")
    recs = fp.generate(UID, pairs=3, models=["gpt2"], seed=0)
    got = fp.read_pairs(recs)["pairs"].records()
    assert got == recs


def test_the_old_attribute_names_warn_once_each_and_still_work():
    rec = fp.generate(UID, pairs=1, models=["gpt2"], seed=0)[0]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert rec.UID == rec.uid and rec.pairID == rec.pair_id == "0"
    assert [w.category for w in caught] == [FairpairsDeprecationWarning] * 2
    assert "PairRecord.uid" in str(caught[0].message) and "PairRecord.pair_id" in str(caught[1].message)
    old = rec.to_dict()
    old["UID"], old["pairID"] = old.pop("uid"), old.pop("pair_id")
    assert fp.read_pairs([old])["pairs"].records() == [rec]   # a pre-0.2.0 jsonl row reads back as the same record
    with pytest.warns(FairpairsDeprecationWarning) as got:
        assert PairRecord(**old) == rec              # code that built records with the old keywords
    assert sorted(str(w.message).split()[0] for w in got) == ["PairRecord.UID", "PairRecord.pairID"]
    with pytest.raises(TypeError, match="both 'UID' and 'uid'"):
        PairRecord(**old, uid="x")


def test_one_place_words_a_row_error():
    """Every reader of pairs goes through records.check_row: no other module words the sentence
    checks (a second wording would mean a second check)."""
    words = ("is empty or not a string", "missing field ")
    found = []
    for path in sorted((REPO / "fairpairs").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and any(w in node.value for w in words):
                found.append(path.relative_to(REPO).as_posix())
    assert set(found) <= {"fairpairs/records.py"}, found


def test_a_file_that_is_not_json_lines_is_reported_before_its_rows(tmp_path):
    f = tmp_path / "broken.jsonl"
    f.write_text('{"sentence_good": "A dog barks."}\nnot json\n', encoding="utf-8")
    with pytest.raises(DatasetError, match=r"broken\.jsonl:2: invalid JSON"):
        fp.read_pairs(f)


@pytest.mark.parametrize("text", [
    '{"sentence_good": "A cat sleeps.", "sentence_bad": ""}\n',                                    # a bad field
    '{"sentence_good": "A cat sleeps.", "sentence_bad": "A cat sleep."}\n[1]\n',                   # not an object
    '{"sentence_good": "A.", "sentence_bad": "B.", "pair_id": 1}\n{"sentence_good": "C.", "sentence_bad": "D.", '
    '"pair_id": 1}\n',                                                                              # a repeated pair
])
def test_a_row_error_names_its_file_as_a_field_too(tmp_path, text):
    """Issue 37: errors are structured (docs/architecture.md), and a reader of pairs fills in the
    `file` field, so a caller need not take the file out of the message."""
    f = tmp_path / "p.jsonl"
    f.write_text(text, encoding="utf-8")
    with pytest.raises(DatasetError) as exc:
        fp.read_pairs(f)
    assert exc.value.file == str(f) and str(exc.value).startswith(f"{f}:")
