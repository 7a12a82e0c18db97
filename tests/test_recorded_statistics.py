"""Issue 48 items 4 and 5: the original set's token-length bias is in the manifest, the end-of-run
table and the dataset card; `balance` and `publish` read what the run recorded where it still holds
and recompute the rest, with the same bytes.

References: the A=U / A>U / A<U counts are counted here with the reference tokenizer files read by
the `tokenizers` library itself (tests/references.py), not with fairpairs' loader or the rows'
`token_lengths`; "the same bytes" is checked against a recomputation of the same run whose manifest
has no `statistics` record (every figure recomputed from the rows, as before issue 48); a stale
statistic is made by editing a file or the manifest after the run. On the code before issue 48
the manifest has no `original_bias` and the table and card show no A=U / A>U / A<U counts, so the
first tests fail there.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from references import reference_tokenizer

import fairpairs as fp

TOKENIZERS = ("gpt2", "bert-base-cased")
PARADIGMS = "causative,determiner_noun_agreement_1,anaphor_gender_agreement"
SPLITS = ("A=U", "A>U", "A<U")


def counted(path: Path, tok: str) -> dict[str, int]:
    """A=U / A>U / A<U of a jsonl file's pairs, from the reference tokenizer (content tokens of
    each sentence as written: no special tokens)."""
    t = reference_tokenizer(tok)
    out = dict.fromkeys(SPLITS, 0)
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        g = len(t.encode(row["sentence_good"], add_special_tokens=False).ids)
        b = len(t.encode(row["sentence_bad"], add_special_tokens=False).ids)
        out["A=U" if g == b else "A>U" if g > b else "A<U"] += 1
    return out


@pytest.fixture(scope="module")
def generated(tmp_path_factory, fairpairs_cli):
    """A small run made by the CLI, and its end-of-run table (stdout)."""
    root = tmp_path_factory.mktemp("rec")
    r = fairpairs_cli("generate", "--models", ",".join(TOKENIZERS), "--paradigms", PARADIGMS, "--pairs", "40",
                      "--out", str(root / "run"))
    assert r.returncode == 0
    return root / "run"


def test_the_original_bias_is_counted_in_the_manifest(generated):
    manifest = json.loads((generated / "manifest.json").read_text())
    total = {tok: dict.fromkeys(SPLITS, 0) for tok in TOKENIZERS}
    for uid in PARADIGMS.split(","):
        for tok in TOKENIZERS:
            want = counted(generated / "original" / f"{uid}.jsonl", tok)
            assert manifest["paradigms"][uid]["original_bias"][tok] == want, (uid, tok)
            for s in SPLITS:
                total[tok][s] += want[s]
    for tok in TOKENIZERS:
        pooled = manifest["original_bias"][tok]
        assert pooled["counts"] == total[tok] and pooled["pairs"] == 3 * 40
        assert pooled["shares"] == {s: round(total[tok][s] / 120, 4) for s in SPLITS}
    assert any(total[tok]["A>U"] and total[tok]["A<U"] for tok in TOKENIZERS)   # (a run with bias to show)
    for uid in PARADIGMS.split(","):     # the debiased set: A=U under both, by the same reference count
        for tok in TOKENIZERS:
            assert counted(generated / "debiased" / f"{uid}.jsonl", tok)["A>U"] == 0


def test_the_table_and_the_card_show_the_original_bias(tmp_path, fairpairs_cli):
    code, out, _ = fairpairs_cli("generate", "--models", ",".join(TOKENIZERS), "--paradigms", PARADIGMS,
                         "--pairs", "40", "--out", tmp_path / "run")
    assert code == 0
    run = tmp_path / "run"
    total = {tok: dict.fromkeys(SPLITS, 0) for tok in TOKENIZERS}
    for uid in PARADIGMS.split(","):
        line = next(ln for ln in out.splitlines() if f" {uid} " in ln)
        for tok in TOKENIZERS:
            c = counted(run / "original" / f"{uid}.jsonl", tok)
            assert f"{c['A=U']}/{c['A>U']}/{c['A<U']}" in line, (uid, tok, line)
            for s in SPLITS:
                total[tok][s] += c[s]
    for tok in TOKENIZERS:
        t = total[tok]
        assert (f"Original set under {tok}: A=U {t['A=U']} ({t['A=U'] / 120:.1%}), A>U {t['A>U']} "
                f"({t['A>U'] / 120:.1%}), A<U {t['A<U']} ({t['A<U'] / 120:.1%}) of 120 pairs.") in out
    # search dropped nothing here: yield = retention, one column, said so in the legend
    header = next(ln for ln in out.splitlines() if "retention" in ln and "paradigm" in ln)
    assert "yield" not in header and "(= yield, kept with their own context / contexts drawn" in out
    code, _, _ = fairpairs_cli("publish", run, "--repo-id", "me/fair", "--dry-run")
    card = (run / "hub" / "README.md").read_text(encoding="utf-8")
    section = card.split("## Token-length bias of the original set", 1)[1].split("\n## ", 1)[0]
    for tok in TOKENIZERS:
        t = total[tok]
        assert (f"| {tok} | 120 | {t['A=U']} ({100 * t['A=U'] / 120:.1f}%) | {t['A>U']} ({100 * t['A>U'] / 120:.1f}%) "
                f"| {t['A<U']} ({100 * t['A<U'] / 120:.1f}%) |") in section
    c = [counted(run / "original" / "causative.jsonl", tok) for tok in TOKENIZERS]
    assert "| causative | " + " | ".join(f"{x['A=U']} / {x['A>U']} / {x['A<U']}" for x in c) + " |" in section


def test_the_yield_column_appears_where_contexts_were_dropped(tmp_path, fairpairs_cli):
    """resample drops the contexts it cannot equalise in 10 redraws: yield and retention differ."""
    code, out, _ = fairpairs_cli("generate", "--models", ",".join(TOKENIZERS), "--paradigms", "causative",
                         "--pairs", "30", "--strategy", "resample", "--out", tmp_path / "run")
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    stats = manifest["paradigms"]["causative"]["debiased_stats"]
    assert code == 0 and stats["dropped"] > 0 and stats["yield"] != stats["retention"]
    header = next(ln for ln in out.splitlines() if "retention" in ln and "paradigm" in ln)
    assert "yield" in header and "yield = kept with their own context / contexts drawn (= kept + dropped)" in out


def _without_record(run: Path, to: Path) -> Path:
    """A copy of a run whose manifest has no `statistics`: every figure is recomputed from the rows."""
    shutil.copytree(run, to)
    m = json.loads((to / "manifest.json").read_text())
    del m["statistics"]
    (to / "manifest.json").write_text(json.dumps(m, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return to


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_reuse_gives_the_bytes_of_a_recomputation(generated, tmp_path, fairpairs_cli):
    from fairpairs.control.statistics import reuse
    from fairpairs.manifest import read_manifest

    run = tmp_path / "reuse"      # (two names of one length: the table's centred title is the same)
    shutil.copytree(generated, run)
    held = reuse(run, read_manifest(run))
    assert held.complete       # what this test compares is the reused path
    again = _without_record(run, tmp_path / "fresh")
    assert not reuse(again, read_manifest(again)).current
    outs = {}
    for name, folder in (("reused", run), ("recomputed", again)):
        code, out, err = fairpairs_cli("balance", folder, "--out", tmp_path / f"{name}.csv")
        assert code == 0, err
        outs[name] = out.replace(str(folder), "RUN")
        code, out, err = fairpairs_cli("publish", folder, "--repo-id", "me/fair", "--set", "both", "--dry-run",
                               "--out", tmp_path / f"hub-{name}")
        assert code == 0, err
        outs[f"publish-{name}"] = out.replace(str(tmp_path / f"hub-{name}"), "HUB")
    assert (tmp_path / "reused.csv").read_bytes() == (tmp_path / "recomputed.csv").read_bytes()
    assert outs["reused"] == outs["recomputed"]
    assert outs["publish-reused"] == outs["publish-recomputed"]
    a, b = _files(tmp_path / "hub-reused"), _files(tmp_path / "hub-recomputed")
    assert a.keys() == b.keys()
    assert {k for k in a if a[k] != b[k]} == {"fairpairs_manifest.json"}    # (the run's manifest, copied as it is)


def test_a_file_edited_after_the_run_is_recomputed_not_trusted(generated, tmp_path, fairpairs_cli):
    from fairpairs.control.statistics import reuse
    from fairpairs.manifest import read_manifest

    run = tmp_path / "run"
    shutil.copytree(generated, run)
    path = run / "original" / "causative.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(lines[:-5]), encoding="utf-8")       # five pairs fewer
    held = reuse(run, read_manifest(run))
    assert held.current["causative"] is False and held.current["anaphor_gender_agreement"] is True
    table = fp.balance(run)
    assert table.set_index("uid").loc["causative", "n_original"] == 35      # the file's count, not the manifest's 40
    assert table.set_index("uid").loc["ALL", "n_original"] == 115
    fresh = fp.balance(_without_record(run, tmp_path / "fresh"))
    assert table.to_csv(index=False) == fresh.to_csv(index=False)
    code, _, err = fairpairs_cli("publish", run, "--repo-id", "me/fair", "--dry-run")
    assert code == 1 and "paradigms.causative.original is 40, but original/causative.jsonl gives 35" in err


def test_a_statistic_edited_in_the_manifest_is_recomputed_not_trusted(generated, tmp_path, fairpairs_cli):
    run = tmp_path / "run"
    shutil.copytree(generated, run)
    m = json.loads((run / "manifest.json").read_text())
    true = m["paradigms"]["causative"]["balance"]["smd_words_good"]
    m["paradigms"]["causative"]["balance"]["smd_words_good"] = 0.5
    (run / "manifest.json").write_text(json.dumps(m, indent=2) + "\n", encoding="utf-8")
    assert fp.balance(run).set_index("uid").loc["causative", "smd_words_good"] == true
    code, _, err = fairpairs_cli("publish", run, "--repo-id", "me/fair", "--dry-run")
    assert code == 1 and "paradigms.causative.balance.smd_words_good is 0.5" in err


def test_another_paradigm_file_recomputes_the_slot_features(generated, tmp_path):
    """A grammar folder whose paradigm differs from the run's (a slot feature it names) is read
    again: the reused entries are only those of the paradigm files the run read."""
    from fairpairs.io.paths import data_dir

    grammars = tmp_path / "grammars"
    shutil.copytree(data_dir("grammars"), grammars, ignore=shutil.ignore_patterns("??"))
    path = grammars / "causative.yaml"
    path.write_text(path.read_text(encoding="utf-8") + "\n# edited after the run\ndescription: another file\n",
                    encoding="utf-8")
    from fairpairs.control.balance_run import paradigm_paths
    from fairpairs.control.statistics import reuse
    from fairpairs.manifest import read_manifest

    manifest = read_manifest(generated)
    paths, _, language = paradigm_paths(list(manifest.paradigms), {}, grammars, "en")
    from fairpairs.control.statistics import vocabulary_sha256
    from fairpairs.generation.vocab import default_vocabulary

    held = reuse(generated, manifest).check(language, paths, vocabulary_sha256(default_vocabulary()))
    assert held.balanced == {"causative": False, "determiner_noun_agreement_1": True, "anaphor_gender_agreement": True}
    assert fp.balance(generated, grammars=grammars).to_csv(index=False) == \
        fp.balance(_without_record(generated, tmp_path / "fresh"), grammars=grammars).to_csv(index=False)


def test_publish_reads_a_recorded_file_as_the_checked_reader_does(generated):
    """A file whose sha256 is the run's is read without checking each row again: the same PairSet
    (rows, their order and fields, origin) as the one pair reader's, which checks every row."""
    from fairpairs.pairsets import read_run_file
    from fairpairs.api.common import run_manifest
    from fairpairs.publishing.reading import read_checked_run

    from fairpairs.control.statistics import reuse
    from fairpairs.manifest import read_manifest

    assert reuse(generated, read_manifest(generated)).complete      # (so the files are read unchecked)
    _, configs, _, _ = read_checked_run(generated, ("debiased", "original"), "fair", run_manifest)
    assert len(configs) == 6
    for c in configs:
        checked = read_run_file(generated / c.set / f"{c.uid}.jsonl")
        assert c.pairs.name == checked.name and c.pairs.origin == checked.origin
        assert [list(r.items()) for r in c.pairs.rows] == [list(r.items()) for r in checked.rows]   # (order too)


def test_a_paradigm_added_to_the_folder_recomputes_the_pooled_row(generated, tmp_path):
    """The ALL row pools every paradigm in the folder: a paradigm's files copied in after the run
    (not in the manifest) must enter it. Before, the recorded ALL row of the run's three paradigms
    was reused while n_original counted the fourth (found in review: smd_chars_good -0.0108 reused
    where the rows give -0.0077). The reference is the same folder with no record at all."""
    run = tmp_path / "run"
    shutil.copytree(generated, run)
    extra = tmp_path / "extra"
    fp.generate_run(extra, paradigms="adjunct_island", pairs=30, models=list(TOKENIZERS))
    for part in ("original", "debiased"):
        shutil.copy(extra / part / "adjunct_island.jsonl", run / part / "adjunct_island.jsonl")
    table = fp.balance(run).set_index("uid")
    assert table.loc["ALL", "n_original"] == 150
    fresh = fp.balance(_without_record(run, tmp_path / "fresh"))
    assert table.reset_index().to_csv(index=False) == fresh.to_csv(index=False)


def test_a_vocabulary_read_from_no_file_is_not_taken_for_the_runs(tmp_path):
    """A vocabulary built in memory has no sha256, so two such tables of one size shared an identity
    (found in review): a run generated with one, balanced with another, reused the first's slot
    features. Here the second sets one slot feature (animate) by row number; the reference is the
    same folder with no record (every figure computed from the table given)."""
    from fairpairs.generation.vocab import Vocabulary, default_vocabulary

    base = default_vocabulary()
    table = {c: base.column(c).copy() for c in base.column_names}
    run = tmp_path / "run"
    fp.generate_run(run, paradigms="causative", pairs=40, models=list(TOKENIZERS), vocab=Vocabulary(table))
    table["animate"] = ["1" if i % 3 == 0 else "0" for i in range(len(table["animate"]))]
    mine = Vocabulary(table)
    assert mine.sha256 == ""
    got = fp.balance(run, vocab=mine)
    want = fp.balance(_without_record(run, tmp_path / "fresh"), vocab=mine)
    assert got.to_csv(index=False) == want.to_csv(index=False)


def test_publish_refuses_a_run_drawn_from_another_vocabulary_extension(generated, tmp_path, fairpairs_cli):
    """The manifest records the extension's sha256; a run whose extension is not the bundled one (an
    edited file, another version) is not published as if it were: one line naming the field. The
    manifest's digest is not recomputed here, so the refusal cannot come from the digest check: the
    check compares the recorded sha256 with the bundled file's (hashlib, here)."""
    import hashlib

    from fairpairs.io.paths import data_dir

    run = tmp_path / "run"
    shutil.copytree(generated, run)
    m = json.loads((run / "manifest.json").read_text())
    assert m["vocabulary"]["extension_sha256"] == \
        hashlib.sha256((data_dir("vocab") / "blimp_extension.csv").read_bytes()).hexdigest()
    m["vocabulary"]["extension_sha256"] = "0" * 64
    (run / "manifest.json").write_text(json.dumps(m, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    code, _, err = fairpairs_cli("publish", run, "--repo-id", "me/fair", "--dry-run")
    assert code == 1 and "vocabulary.extension_sha256" in err and "000000000000..." in err, err
    code, _, err = fairpairs_cli("publish", generated, "--repo-id", "me/fair", "--dry-run",
                           "--out", tmp_path / "hub")
    assert code == 0, err
