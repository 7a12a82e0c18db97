"""Issue 22 item 3: `fairpairs publish` checks what it publishes against the run's files - token
lengths recomputed with the manifest's tokenizers, counts and statistics recounted, tokenizer and
vocabulary hashes compared - and refuses what does not agree, naming the file and line; what it
cannot check (a tokenizer it cannot load) it says, in its output and in the card.

The run folders are test_publish's hand-made one (token lengths from the `tokenizers` library,
hashes from hashlib), damaged by hand as the issue's QA did.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from references import MANIFEST, REPO_ID, lengths, make_run

UID = "determiner_noun_agreement_1"


def manifest_line(run: Path, *keys: str) -> int:
    """The line of manifest.json (indent=2, as make_run writes it) holding the last of `keys`,
    each looked for after the previous one: found by reading the lines."""
    lines = (run / "manifest.json").read_text(encoding="utf-8").splitlines()
    i = 0
    for key in keys:
        while f'"{key}":' not in lines[i]:
            i += 1
    return i + 1


def publish(run: Path, fairpairs_cli, *extra) -> tuple[int, str, str]:
    return tuple(fairpairs_cli("publish", run, "--repo-id", REPO_ID, "--dry-run", *extra))


def refused(run: Path, fairpairs_cli) -> str:
    code, _, err = publish(run, fairpairs_cli)
    lines = [ln for ln in err.splitlines() if ln.startswith("fairpairs: error:")]
    assert code == 1 and len(lines) == 1, err
    assert not (run / "hub").exists() and not list(run.glob(".hub*"))    # nothing built
    return lines[0]


def edit_row(path: Path, line: int, change) -> None:
    rows = path.read_text(encoding="utf-8").splitlines()
    row = json.loads(rows[line - 1])
    change(row)
    rows[line - 1] = json.dumps(row, ensure_ascii=False)
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")


def edit_manifest(run: Path, change) -> None:
    doc = json.loads((run / "manifest.json").read_text(encoding="utf-8"))
    change(doc)
    (run / "manifest.json").write_text(json.dumps(doc, indent=2), encoding="utf-8")


def test_a_lengthened_bad_sentence_with_its_old_lengths_is_refused(tmp_path, fairpairs_cli):
    run = make_run(tmp_path / "run")
    path = run / "debiased" / "anaphor_number_agreement.jsonl"
    edit_row(path, 2, lambda r: r.update(sentence_bad="The KÖLN boys hurt himself badly."))
    line = refused(run, fairpairs_cli)
    assert f"{path}:2: token_lengths.gpt2 says good 10, bad 10, but gpt2 gives the sentences 10 and " in line
    # the lengths edited too: now they are true, and the pair is not length-controlled
    new = lengths("The KÖLN boys hurt himself badly.")
    edit_row(path, 2, lambda r: r["token_lengths"].update({t: {"good": r["token_lengths"][t]["good"], "bad": n}
                                                          for t, n in new.items()}))
    line = refused(run, fairpairs_cli)
    assert f"{path}:2: a debiased pair whose sentences have 10 and {new['gpt2']} tokens under gpt2" in line


def test_counts_and_statistics_must_match_the_files(tmp_path, fairpairs_cli):
    run = make_run(tmp_path / "run")
    path = run / "debiased" / f"{UID}.jsonl"
    path.write_text("".join(path.read_text(encoding="utf-8").splitlines(keepends=True)[:2]), encoding="utf-8")
    line = refused(run, fairpairs_cli)
    at = manifest_line(run, "paradigms", UID, "debiased")
    assert line.startswith(f"fairpairs: error: {run / 'manifest.json'}:{at}: paradigms.{UID}.debiased is 3, but "
                           f"debiased/{UID}.jsonl gives 2")
    # a statistic that can be recounted: distinct critical words (sketch, sketches, store, stores,
    # children, child: 6 in either set)
    run = make_run(tmp_path / "run2")
    edit_manifest(run, lambda m: m["paradigms"][UID].update(
        reorder=False, balance={"distinct_original": 6, "distinct_debiased": 9, "distinct_ratio": 1.5}))
    line = refused(run, fairpairs_cli)
    at = manifest_line(run, "paradigms", UID, "balance", "distinct_debiased")
    assert f"manifest.json:{at}: paradigms.{UID}.balance.distinct_debiased is 9, but" in line
    assert line.endswith("give 6; the files and the manifest disagree (edited by hand?)")
    edit_manifest(run, lambda m: m["paradigms"][UID].update(
        balance={"distinct_original": 6, "distinct_debiased": 6, "distinct_ratio": 1.0}))
    assert publish(run, fairpairs_cli)[0] == 0


def test_a_manifest_without_paradigms_or_without_a_published_one_is_refused(tmp_path, fairpairs_cli):
    run = make_run(tmp_path / "run")
    edit_manifest(run, lambda m: m.pop("paradigms"))
    line = refused(run, fairpairs_cli)
    assert f"{run / 'manifest.json'}: has no 'paradigms'" in line
    run = make_run(tmp_path / "run2")
    edit_manifest(run, lambda m: m["paradigms"].pop("wh_vs_that_no_gap"))
    line = refused(run, fairpairs_cli)
    assert "paradigms has no entry for wh_vs_that_no_gap" in line and "debiased/wh_vs_that_no_gap.jsonl" in line


def test_fake_tokenizer_and_vocabulary_hashes_are_refused(tmp_path, fairpairs_cli):
    run = make_run(tmp_path / "run")
    edit_manifest(run, lambda m: m["tokenizers"]["bert-base-cased"]["files"].update({"tokenizer.json": "2" * 64}))
    line = refused(run, fairpairs_cli)
    at = manifest_line(run, "tokenizers", "bert-base-cased", "files", "tokenizer.json")
    assert f"manifest.json:{at}: tokenizers.bert-base-cased.files.tokenizer.json is 222222222222..." in line
    run = make_run(tmp_path / "run2")
    edit_manifest(run, lambda m: m["vocabulary"].update(sha256="3" * 64))
    line = refused(run, fairpairs_cli)
    assert f"manifest.json:{manifest_line(run, 'vocabulary')}: vocabulary lists fixes of the bundled table" in line
    # lengths under a tokenizer the manifest does not list
    run = make_run(tmp_path / "run3")
    path = run / "debiased" / "wh_vs_that_no_gap.jsonl"
    edit_row(path, 1, lambda r: r["token_lengths"].update({"roberta-base": {"good": 1, "bad": 1}}))
    line = refused(run, fairpairs_cli)
    assert f"{path}:1: token_lengths has roberta-base, which the manifest's models do not list" in line


def test_what_cannot_be_checked_is_said_in_the_output_and_the_card(tmp_path, fairpairs_cli):
    manifest = json.loads(json.dumps(MANIFEST))
    manifest["models"].append("some-org/unreachable-tokenizer")     # (offline: it cannot be loaded)
    manifest["vocabulary"] = {"file": "my_table.csv", "sha256": "4" * 64, "fixes": []}
    run = make_run(tmp_path / "run", manifest=manifest)
    code, out, err = publish(run, fairpairs_cli)
    assert code == 0, err
    assert ("checked against the files: the counts and statistics of 3 paradigm(s) (original, debiased, "
            "debiased_stats.kept); the "
            "token lengths of 6 pair(s) under gpt2, bert-base-cased and their tokenizer files' sha256") in out
    warnings = [ln for ln in err.splitlines() if ln.startswith("fairpairs: warning: not checked: ")]
    assert len(warnings) == 2, err
    assert "token lengths and file hashes under some-org/unreachable-tokenizer: the tokenizer could not be " \
           "loaded here" in warnings[0]
    assert "the sha256 of the vocabulary table my_table.csv" in warnings[1]
    card = (run / "hub" / "README.md").read_text(encoding="utf-8")
    section = card.split("### Checked when published", 1)[1].split("\n## ", 1)[0]
    assert "token lengths of 6 pair(s) under gpt2, bert-base-cased" in section
    assert "Not checked:" in section and "some-org/unreachable-tokenizer: the tokenizer could not be loaded" in section


def test_a_generated_run_passes_every_check(tmp_path, fairpairs_cli):
    run = tmp_path / "run"
    assert fairpairs_cli("generate", "--paradigms", f"{UID},causative", "--pairs", "6", "--out", run,
                         "--quiet").returncode == 0
    code, out, err = publish(run, fairpairs_cli, "--set", "both")
    assert code == 0, err
    assert "not checked" not in err
    assert "the counts and statistics of 2 paradigm(s) (original, debiased, debiased_stats.kept, " \
           "debiased_stats.kept_as_drawn, debiased_stats.kept_redrawn, debiased_stats.replaced, balance." in out
    for stat in ("balance.smd_zipf_good", "balance.smd_words_good", "balance.retention", "balance.distinct_ratio"):
        assert stat in out, out
    assert "the token lengths of 24 pair(s) under gpt2, bert-base-cased" in out and "vocabulary table's sha256" in out


@pytest.mark.parametrize("field", ["original", "debiased_stats.replaced", "balance.distinct_debiased",
                                   "balance.smd_words_good"])
def test_a_generated_run_edited_by_hand_is_refused(tmp_path, field, fairpairs_cli):
    run = tmp_path / "run"
    assert fairpairs_cli("generate", "--paradigms", UID, "--pairs", "5", "--out", run, "--quiet").returncode == 0
    *path, key = field.split(".")

    def change(m):
        entry = m["paradigms"][UID]
        for k in path:
            entry = entry[k]
        entry[key] = (entry[key] or 0) + 1
    edit_manifest(run, change)
    line = refused(run, fairpairs_cli)
    assert f"manifest.json:{manifest_line(run, 'paradigms', UID, *path, key)}: paradigms.{UID}.{field} is " in line
