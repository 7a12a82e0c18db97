"""Issue 34 items 4 and 9 ("Trust, round 4"): a pair is read once per folder, and what cannot be
right fails instead of exiting 0.

* item 4: the same (uid, pair_id) in two files of one folder was read twice by to_frame,
  load_sets, audit and evaluate (n doubled); now one key check runs over the whole folder, in the
  one reader (fairpairs.pairsets), and names both places;
* item 9: balance read rows whose uid names another paradigm than their file; `balance --out
  x.jsonl` wrote CSV into it; publish skipped a paradigm its manifest lists whose files are gone;
  a row with both `uid` and `UID` (or `pair_id` and `pairID`) that disagree was read silently.

Each test passed the bad input through on c7e230c.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import fairpairs as fp
from fairpairs.errors import DatasetError
from references import error_line

UID = "determiner_noun_agreement_1"
OTHER = "determiner_noun_agreement_2"


def row(good, bad, **ids) -> dict:
    return {"sentence_good": good, "sentence_bad": bad, **ids}


def write_jsonl(path: Path, rows) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


# ------------------------------------------------------------------ item 4: one key per pair across a folder
@pytest.fixture
def repeated(tmp_path) -> Path:
    """A folder whose b.jsonl line 2 repeats a.jsonl line 1's pair (uid x, pair 0)."""
    data = tmp_path / "data"
    data.mkdir()
    write_jsonl(data / "a.jsonl", [row("The dog barks.", "The dog bark.", uid="x", pair_id="0")])
    write_jsonl(data / "b.jsonl", [row("A cat sleeps.", "A cat sleep.", uid="y", pair_id="0"),
                                   row("The dog barks.", "The dog bark.", uid="x", pair_id="0")])
    return data


def places(data: Path) -> tuple[str, str]:
    return f"{data / 'b.jsonl'}:2", f"{data / 'a.jsonl'}:1"


@pytest.mark.parametrize("call", [fp.to_frame, fp.load_sets, fp.read_pairs, lambda d: fp.audit(d, ["gpt2"])])
def test_a_pair_repeated_across_files_is_refused_by_every_reader(repeated, call):
    later, earlier = places(repeated)
    with pytest.raises(DatasetError) as exc:
        call(repeated)
    assert str(exc.value).startswith(f"{later}: field 'pair_id' '0' repeats an earlier pair of x") and earlier in str(exc.value)


def test_audit_and_evaluate_refuse_it_in_one_line(repeated, tmp_path, fairpairs_cli):
    later, earlier = places(repeated)
    code, _, err = fairpairs_cli("audit", repeated, "--models", "gpt2")
    assert code == 1 and error_line(err).startswith(f"fairpairs: error: {later}: ") and earlier in err
    broken = tmp_path / "model"     # the data is refused before any model is loaded
    broken.mkdir()
    code, _, err = fairpairs_cli("evaluate", "--models", broken, "--data", repeated, "--out", tmp_path / "ev")
    assert code == 1 and error_line(err).startswith(f"fairpairs: error: {later}: ") and earlier in err
    assert not (tmp_path / "ev").exists()


def test_the_key_check_spans_tables_too_and_ids_may_repeat_across_paradigms(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / "a.csv").write_text("sentence_good,sentence_bad,UID,pairID\nThe dog barks.,The dog bark.,x,3\n")
    (data / "b.tsv").write_text("sentence_good\tsentence_bad\tUID\tpairID\nA cat sleeps.\tA cat sleep.\tx\t3\n")
    with pytest.raises(DatasetError, match=r"b\.tsv: row 1: field 'pairID' '3' repeats an earlier pair of x "
                                           r"\(.*a\.csv: row 1\)"):
        fp.load_sets(data)
    (data / "b.tsv").write_text("sentence_good\tsentence_bad\tUID\tpairID\nA cat sleeps.\tA cat sleep.\ty\t3\n")
    frame = fp.to_frame(data)        # the same pair id in two paradigms: two pairs
    assert sorted(zip(frame["uid"], frame["pair_id"])) == [("x", "3"), ("y", "3")]


# ------------------------------------------------------------------ item 9: uid and UID, pair_id and pairID
@pytest.mark.parametrize("ids,fields", [
    ({"uid": "x", "UID": "y", "pair_id": "0"}, ("'uid' ('x')", "'UID' ('y')")),
    ({"uid": "x", "pair_id": "0", "pairID": "1"}, ("'pair_id' ('0')", "'pairID' ('1')")),
])
def test_one_field_under_two_names_that_disagree_is_an_error(tmp_path, ids, fields):
    f = write_jsonl(tmp_path / "p.jsonl", [row("A cat sleeps.", "A cat sleep.", uid="x", pair_id="9"),
                                           row("The dog barks.", "The dog bark.", **ids)])
    with pytest.raises(DatasetError) as exc:
        fp.load_sets(f)
    text = str(exc.value)
    assert text.startswith(f"{f}:2: fields ") and all(part in text for part in fields) and "disagree" in text


def test_the_two_names_agreeing_are_one_field(tmp_path):
    f = write_jsonl(tmp_path / "p.jsonl", [row("The dog barks.", "The dog bark.", uid="x", UID="x", pair_id=0,
                                               pairID="0")])
    frame = fp.to_frame(f)
    assert frame[["uid", "pair_id"]].values.tolist() == [["x", "0"]]


# ------------------------------------------------------------------ item 9: balance
@pytest.fixture(scope="module")
def run_two(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("run") / "run"
    fp.generate_run(out, paradigms=[UID, OTHER], pairs=3, seed=0)
    return out


@pytest.fixture
def run_copy(run_two, tmp_path) -> Path:
    return Path(shutil.copytree(run_two, tmp_path / "run"))


def test_balance_refuses_a_row_of_another_paradigm(run_copy, fairpairs_cli):
    path = run_copy / "debiased" / f"{UID}.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    moved = json.loads(lines[1])
    moved["uid"] = OTHER
    lines[1] = json.dumps(moved)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    expected = f"{path}:2: field 'uid' is '{OTHER}' but the file is named {UID}.jsonl"
    code, _, err = fairpairs_cli("balance", run_copy)
    assert code == 1 and error_line(err) == f"fairpairs: error: {expected}"
    with pytest.raises(DatasetError, match="but the file is named"):
        fp.balance(run_copy)


@pytest.mark.parametrize("name", ["table.jsonl", "table.json", "table"])
def test_balance_writes_csv_only_to_a_csv_file(run_two, tmp_path, fairpairs_cli, name):
    code, _, err = fairpairs_cli("balance", run_two, "--out", tmp_path / name)
    assert code == 2 and f"--out {tmp_path / name}" in err and ".csv" in err
    assert not (tmp_path / name).exists()
    code, _, err = fairpairs_cli("balance", run_two, "--out", tmp_path / "table.CSV")
    assert code == 0, err
    assert (tmp_path / "table.CSV").read_text(encoding="utf-8").startswith("uid,")


# ------------------------------------------------------------------ item 9: publish
@pytest.mark.parametrize("gone", [("debiased", "original"), ("original",)])
def test_publish_refuses_a_paradigm_the_manifest_lists_without_its_files(run_copy, tmp_path, fairpairs_cli, gone):
    for set_name in gone:
        (run_copy / set_name / f"{OTHER}.jsonl").unlink()
    code, out, err = fairpairs_cli("publish", run_copy, "--repo-id", "me/x", "--dry-run", "--out", tmp_path / "hub")
    line = error_line(err)
    missing = run_copy / gone[-1] / f"{OTHER}.jsonl"
    assert code == 1 and line.startswith(f"fairpairs: error: {run_copy / 'manifest.json'}:") and str(missing) in line
    assert f"lists paradigm {OTHER}" in line and not (tmp_path / "hub").exists()


def test_publish_of_the_whole_run_still_works(run_two, tmp_path, fairpairs_cli):
    code, out, err = fairpairs_cli("publish", run_two, "--repo-id", "me/x", "--dry-run", "--out", tmp_path / "hub")
    assert code == 0, err
    assert sorted(p.name for p in (tmp_path / "hub" / "data").iterdir()) == [UID, OTHER]


def test_rows_without_ids_in_two_files_of_one_name_are_one_key_twice(tmp_path):
    """Without uid and pair_id a row is keyed by its file's name and place: a/x.jsonl and b/x.jsonl
    give the same keys, which the reader refuses (saying the ids were not given) instead of
    counting two pairs under one key."""
    for sub in ("a", "b"):
        (tmp_path / "d" / sub).mkdir(parents=True)
        write_jsonl(tmp_path / "d" / sub / "x.jsonl", [row("The dog barks.", "The dog bark.")])
    with pytest.raises(DatasetError) as exc:
        fp.load_sets(tmp_path / "d")
    assert str(exc.value).startswith(f"{tmp_path / 'd' / 'b' / 'x.jsonl'}:1: pair '0' (no pair id given") \
        and f"{tmp_path / 'd' / 'a' / 'x.jsonl'}:1" in str(exc.value)


# ------------------------------------------------------------------ issue 37: score reads pairs through the one reader
def test_score_refuses_a_repeated_pair_with_the_readers_line(tmp_path, fairpairs_cli):
    """`fairpairs score` read jsonl pairs with its own loop and scored a repeated pair twice (its
    accuracy counted it twice); now the one reader's key check refuses it, worded as for audit."""
    from fairpairs.scoring.tables import read_sentences

    f = write_jsonl(tmp_path / "p.jsonl", [row("The dog barks.", "The dog bark.", uid="x", pair_id="0"),
                                           row("A cat sleeps.", "A cat sleep.", uid="y", pair_id="0"),
                                           row("The dog ran.", "The dog runned.", uid="x", pair_id="0")])
    tail = "field 'pair_id' '0' repeats an earlier pair of x ("
    with pytest.raises(DatasetError) as exc:
        fp.load_sets(f)
    assert str(exc.value) == f"{f}:3: {tail}{f}:1); a pair is counted once"
    code, _, err = fairpairs_cli("score", "--model", "gpt2", "--input", f, "--out", tmp_path / "o.csv")
    assert code == 1
    assert error_line(err) == f"fairpairs: error: --input {f}:3: {tail}--input {f}:1); a pair is counted once"
    assert not (tmp_path / "o.csv").exists()
    with pytest.raises(DatasetError, match=r"^sentences\[1\]: field 'pairID' '7' repeats an earlier pair of pairs "
                                           r"\(sentences\[0\]\); a pair is counted once$"):
        read_sentences([row("A b.", "A c.", pairID=7), row("D e.", "D f.", pairID=7)])
    assert read_sentences([row("A b.", "A c."), row("A b.", "A c.")])[0] == [row("A b.", "A c.")] * 2  # no ids: two pairs
