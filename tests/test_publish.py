"""`fairpairs publish`: the built folder loads with datasets and lm-eval's YAML, the upload sends
the right files over HTTP (huggingface_hub's own client, network replaced by an httpx transport),
and bad input or a missing token / network fails with one line and keeps the folder."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import jinja2
import pytest
import yaml
from references import MANIFEST, PAIRS, REPO_ID, TOKENIZERS, make_run

import fairpairs as fp

REPO = Path(__file__).resolve().parents[1]
PREFIX = "fair_blimp"  # what the task names must start with for REPO_ID


def expected_rows(run: Path, set_name: str, uid: str) -> list[dict]:
    """The jsonl rows as the Hub rows should read: the same fields (one pair schema), a run folder
    written before 0.2.0 (as make_run's) read with its `UID` / `pairID` as `uid` / `pair_id`."""
    out = []
    for line in (run / set_name / f"{uid}.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        for old, new in (("UID", "uid"), ("pairID", "pair_id")):
            if old in row:
                row[new] = row.pop(old)
        out.append(row)
    return out


def front_matter(readme: Path) -> dict:
    text = readme.read_text(encoding="utf-8")
    assert text.startswith("---\n")
    return yaml.safe_load(text.split("---\n")[1])


@pytest.fixture(scope="module")
def built_both(tmp_path_factory, fairpairs_cli):
    """One --set both dry run shared by the read-only tests."""
    root = tmp_path_factory.mktemp("both")
    run = make_run(root / "run")
    out = root / "hub"
    assert fairpairs_cli("publish", run, "--repo-id", REPO_ID, "--set", "both", "--dry-run", "--out",
                         out).returncode == 0
    return run, out


def test_dry_run_rows_load_with_datasets_and_equal_the_jsonl(built_both, tmp_path):
    import datasets

    run, out = built_both
    for uid in PAIRS:
        for set_name, config in (("debiased", uid), ("original", f"{uid}-original")):
            ds = datasets.load_dataset(str(out), config, split="train", cache_dir=str(tmp_path / "cache"))
            assert ds.to_list() == expected_rows(run, set_name, uid)
    ds = datasets.load_dataset(str(out), "anaphor_number_agreement", split="train", cache_dir=str(tmp_path / "c2"))
    assert ds[1]["sentence_good"] == "The KÖLN boys hurt themselves."
    assert ds[1]["token_lengths"]["bert-base-cased"] == {"good": 9, "bad": 9}   # (as the tokenizers library counts)
    assert ds.features["pair_id"].dtype == "string" and ds.features["uid"].dtype == "string"


def test_card_front_matter_lists_every_config_and_the_licence(built_both):
    run, out = built_both
    meta = front_matter(out / "README.md")
    names = [c["config_name"] for c in meta["configs"]]
    assert sorted(names) == sorted(list(PAIRS) + [f"{u}-original" for u in PAIRS])
    for c in meta["configs"]:
        (split,) = c["data_files"]
        assert split["split"] == "train" and (out / split["path"]).is_file()
        assert split["path"].startswith(f"data/{c['config_name']}/")
    assert meta["license"] == "cc-by-4.0" and meta["language"] == ["en"]
    assert meta["size_categories"] == ["n<1K"]  # 12 pairs
    assert meta["task_categories"] == ["text-classification"]
    body = (out / "README.md").read_text(encoding="utf-8").split("---\n", 2)[2]
    for needle in (*[MANIFEST["tokenizers"][t]["files"]["tokenizer.json"] for t in TOKENIZERS],
                   MANIFEST["vocabulary"]["sha256"], "'sketchs' -> 'sketches'", "Seed: 7", "0.1.0",
                   "| determiner_noun_agreement_1 | morphology | 3 | 3 | 1 | 1 | 1 | 1 | 0.5 | 0.6667 |",
                   "Warstadt", "Token-length Bias in Minimal-pair Paradigm Datasets",
                   f'load_dataset("{REPO_ID}"', "UID-original"):
        assert needle in body, needle
    assert json.loads((out / "fairpairs_manifest.json").read_text()) == MANIFEST


def test_card_shows_lexical_diversity_and_warns_below_the_floor(tmp_path, fairpairs_cli):
    """Distinct critical words per paradigm in the table; a note names the paradigms under 0.7."""
    uid = "determiner_noun_agreement_1"
    more = [("Raymond is selling this cup.", "Raymond is selling this cups.", "cup", "cups"),
            ("Craig explored that old house.", "Craig explored that old houses.", "house", "houses"),
            ("Eva has scared these women.", "Eva has scared these woman.", "women", "woman"),
            ("Eva has scared this dog.", "Eva has scared this dogs.", "dog", "dogs")]
    original = {u: rows[::-1] for u, rows in PAIRS.items()} | {uid: PAIRS[uid] + more}
    manifest = json.loads(json.dumps(MANIFEST))
    # by hand: the debiased set's 3 pairs use 6 critical words, the original's 7 pairs 6 + 8 = 14
    manifest["paradigms"][uid] |= {"original": 7, "reorder": False, "balance": {
        "distinct_original": 14, "distinct_debiased": 6, "distinct_ratio": round(6 / 14, 4),
        "flags": ["vocabulary: 6 distinct critical words (original 14)"],
        "causes": ["only 6 of the 14 candidate words of slot word have good and bad forms of equal token length"]}}
    # herself / themselves, themselves / himself: 3 distinct words in either set
    manifest["paradigms"]["anaphor_number_agreement"] |= {"reorder": False, "balance": {
        "distinct_original": 3, "distinct_debiased": 3, "distinct_ratio": 1.0, "flags": []}}
    run = make_run(tmp_path / "run", original=original, manifest=manifest)
    assert fairpairs_cli("publish", run, "--repo-id", REPO_ID, "--dry-run", "--out", tmp_path / "hub").returncode == 0
    body = (tmp_path / "hub" / "README.md").read_text(encoding="utf-8").split("---\n", 2)[2]
    assert "| 6 / 14 (0.43) |" in body and "| 3 / 3 (1.00) |" in body
    assert "In 1 paradigm(s) the debiased set uses fewer than\n70% of the original set's distinct" in body
    assert "`determiner_noun_agreement_1` (0.43)." in body and "`anaphor_number_agreement` (1" not in body
    # the out-of-balance section names what is out and why
    assert ("- `determiner_noun_agreement_1`: vocabulary: 6 distinct critical words (original 14); only 6 of "
            "the 14 candidate words") in body and "- `anaphor_number_agreement`" not in body


def lm_eval_config(path: Path) -> dict:
    """A task YAML with its `include:` merged under it, as lm-eval resolves it."""
    cfg = yaml.safe_load(path.read_text())
    if "include" in cfg:
        base = yaml.safe_load((path.parent / cfg.pop("include")).read_text())
        cfg = {**base, **cfg}
    return cfg


def test_lm_eval_tasks_name_the_repo_and_configs(built_both, tmp_path):
    import datasets

    run, out = built_both
    folder = out / "lm_eval" / PREFIX
    tasks = {}
    for path in sorted(folder.glob("*.yaml")):
        if path.name.startswith("_"):
            continue
        cfg = lm_eval_config(path)
        assert path.stem == cfg["task"]
        tasks[cfg["task"]] = cfg
    expected = {f"{PREFIX}_{u}": u for u in PAIRS} | {f"{PREFIX}_original_{u}": f"{u}-original" for u in PAIRS}
    assert {t: c["dataset_name"] for t, c in tasks.items()} == expected
    for cfg in tasks.values():
        assert cfg["dataset_path"] == REPO_ID and cfg["output_type"] == "multiple_choice"
        assert cfg["doc_to_text"] == "" and cfg["doc_to_target"] == 0
        assert [m["metric"] for m in cfg["metric_list"]] == ["acc"]
        assert cfg["validation_split"] == "train"
    groups = {yaml.safe_load(p.read_text())["group"]: yaml.safe_load(p.read_text())["task"]
              for p in folder.glob("_*.yaml")}
    assert groups == {PREFIX: sorted(f"{PREFIX}_{u}" for u in PAIRS),
                      f"{PREFIX}_original": sorted(f"{PREFIX}_original_{u}" for u in PAIRS)}
    # lm-eval renders doc_to_choice with jinja2 and literal_evals it: it must give [good, bad]
    cfg = tasks[f"{PREFIX}_wh_vs_that_no_gap"]
    doc = datasets.load_dataset(str(out), cfg["dataset_name"], split=cfg["validation_split"],
                                cache_dir=str(tmp_path / "cache"))[0]
    choices = ast.literal_eval(jinja2.Template(cfg["doc_to_choice"]).render(**doc))
    assert choices == ["Cheryl thinks that the man broke a vase.", "Cheryl thinks who the man broke a vase."]


def test_set_original_alone_uses_the_original_names(tmp_path, fairpairs_cli):
    run = make_run(tmp_path / "run")
    assert fairpairs_cli("publish", run, "--repo-id", REPO_ID, "--set", "original", "--dry-run").returncode == 0
    out = run / "hub"  # the default --out
    names = [c["config_name"] for c in front_matter(out / "README.md")["configs"]]
    assert sorted(names) == sorted(f"{u}-original" for u in PAIRS)
    assert sorted(p.name for p in (out / "lm_eval" / PREFIX).glob("_*.yaml")) == [f"_{PREFIX}_original.yaml"]


def test_same_run_gives_byte_identical_folders_and_rebuild_replaces(tmp_path, fairpairs_cli):
    run = make_run(tmp_path / "run")
    a, b = tmp_path / "a", tmp_path / "b"
    for out in (a, b):
        assert fairpairs_cli("publish", run, "--repo-id", REPO_ID, "--dry-run", "--out", out).returncode == 0
    files_a = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    assert files_a == sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    assert all((a / p).read_bytes() == (b / p).read_bytes() for p in files_a)
    (a / "data" / "stale").mkdir()
    assert fairpairs_cli("publish", run, "--repo-id", REPO_ID, "--dry-run", "--out", a).returncode == 0
    assert not (a / "data" / "stale").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "b", "run"]  # no temp folders left


def test_refuses_to_replace_a_foreign_folder(tmp_path, fairpairs_cli):
    run = make_run(tmp_path / "run")
    other = tmp_path / "mine"
    other.mkdir()
    (other / "notes.txt").write_text("keep me")
    r = fairpairs_cli("publish", run, "--repo-id", REPO_ID, "--dry-run", "--out", other)
    assert r.returncode == 1
    err = r.stderr
    assert err.count("\n") == 1 and str(other) in err and "--out" in err
    assert [p.name for p in other.iterdir()] == ["notes.txt"]


def _break(run: Path, how: str) -> str:
    """Damage a run folder; return what the error line must contain."""
    path = run / "debiased" / "anaphor_number_agreement.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    row = json.loads(lines[1])
    if how == "manifest":
        (run / "manifest.json").unlink()
        return "manifest.json"
    if how == "json":
        lines[1] = lines[1][:-3]
        path.write_text("\n".join(lines) + "\n")
        return f"{path}:2: invalid JSON"
    if how == "pairID":
        row["pairID"] = 2.5
    elif how == "missing":
        del row["sentence_bad"]
    elif how == "uid":
        row["UID"] = "wh_vs_that_no_gap"
    elif how == "lengths":
        row["token_lengths"]["gpt2"] = {"good": 7}
    lines[1] = json.dumps(row)
    path.write_text("\n".join(lines) + "\n")
    return f"{path}:2: "


@pytest.mark.parametrize("how", ["manifest", "json", "pairID", "missing", "uid", "lengths"])
def test_bad_run_folder_is_one_line_naming_file_and_field(tmp_path, how, fairpairs_cli):
    run = make_run(tmp_path / "run")
    needle = _break(run, how)
    r = fairpairs_cli("publish", run, "--repo-id", REPO_ID, "--dry-run")
    assert r.returncode == 1
    err = r.stderr
    assert err.startswith("fairpairs: error: ") and err.count("\n") == 1 and needle in err
    if how not in ("manifest", "json"):
        assert {"pairID": "'pairID'", "missing": "'sentence_bad'", "uid": "'uid'",
                "lengths": "'token_lengths'"}[how] in err
    assert not (run / "hub").exists() and not list(run.glob(".hub*"))  # nothing half-written


def test_rows_are_read_as_json_lines_not_text_lines(tmp_path, fairpairs_cli):
    """A sentence may hold a raw U+2028 (json.dumps with ensure_ascii=False writes it unescaped) and
    a file may start with a byte-order mark: one JSON object per \\n-ended line, as the jsonl reader
    reads it (str.splitlines would cut the row at U+2028)."""
    import datasets

    sep = "\u2028"
    pairs = {"wh_vs_that_no_gap": [(f"Cheryl thinks that{sep}the man broke a vase.",
                                    f"Cheryl thinks who{sep}the man broke a vase.", "that", "who")]}
    run = make_run(tmp_path / "run", pairs)
    path = run / "debiased" / "wh_vs_that_no_gap.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert sep.encode() in path.read_bytes()
    assert fairpairs_cli("publish", run, "--repo-id", REPO_ID, "--dry-run", "--out", tmp_path / "hub").returncode == 0
    rows = datasets.load_dataset(str(tmp_path / "hub"), "wh_vs_that_no_gap", split="train",
                                 cache_dir=str(tmp_path / "cache")).to_list()
    assert [r["sentence_good"] for r in rows] == [pairs["wh_vs_that_no_gap"][0][0]]


def test_bad_repo_id(tmp_path, fairpairs_cli):
    run = make_run(tmp_path / "run")
    r = fairpairs_cli("publish", run, "--repo-id", "no-slash", "--dry-run")
    assert r.returncode == 1
    assert "--repo-id 'no-slash'" in r.stderr


def test_publishes_a_real_generated_run(tmp_path, fairpairs_cli):
    import datasets

    run = tmp_path / "run"
    assert fairpairs_cli("generate", "--paradigms", "determiner_noun_agreement_1", "--pairs", "12", "--seed", "3",
                         "--out", run, "--quiet").returncode == 0
    assert fairpairs_cli("publish", run, "--repo-id", REPO_ID, "--set", "both", "--dry-run").returncode == 0
    out = run / "hub"
    uid = "determiner_noun_agreement_1"
    for set_name, config in (("debiased", uid), ("original", f"{uid}-original")):
        rows = datasets.load_dataset(str(out), config, split="train", cache_dir=str(tmp_path / "cache")).to_list()
        assert rows == expected_rows(run, set_name, uid) and len(rows) > 0
    stats = json.loads((run / "manifest.json").read_text())["paradigms"][uid]
    d = stats["debiased_stats"]
    # (yield has a column only where contexts were dropped: it equals retention otherwise, issue 48)
    row = (f"| {uid} | {stats['field']} | {stats['original']} | {stats['debiased']} | {d['kept_as_drawn']} | "
           f"{d['kept_redrawn']} | {d['replaced']} | {d['dropped']} | " + (f"{d['yield']} | " if d["dropped"] else "")
           + f"{d['retention']} |")
    assert row in (out / "README.md").read_text(encoding="utf-8")
    assert yaml.safe_load((out / "lm_eval" / PREFIX / f"{PREFIX}_{uid}.yaml").read_text())["dataset_name"] == uid


def test_empty_paradigm_is_left_out_with_a_warning(tmp_path, fairpairs_cli):
    manifest = json.loads(json.dumps(MANIFEST))
    manifest["paradigms"]["wh_vs_that_no_gap"]["debiased"] = 0     # length control kept no pair
    run = make_run(tmp_path / "run", manifest=manifest)
    (run / "debiased" / "wh_vs_that_no_gap.jsonl").write_text("")
    captured = fairpairs_cli("publish", run, "--repo-id", REPO_ID, "--dry-run")
    assert captured.returncode == 0
    assert "built " in captured.stdout and "2 configs, 5 pairs" in captured.stdout
    assert "fairpairs: warning: wh_vs_that_no_gap has no pairs; not published" in captured.stderr
    names = [c["config_name"] for c in front_matter(run / "hub" / "README.md")["configs"]]
    assert sorted(names) == ["anaphor_number_agreement", "determiner_noun_agreement_1"]
    assert "hold no pairs: wh_vs_that_no_gap" in (run / "hub" / "README.md").read_text(encoding="utf-8")
    assert not (run / "hub" / "lm_eval" / PREFIX / f"{PREFIX}_wh_vs_that_no_gap.yaml").exists()


def test_api_publish_builds_what_the_cli_builds_and_names_its_parameters(built_both, tmp_path):
    run, cli_out = built_both
    seen = []
    built = fp.publish(run, REPO_ID, out=tmp_path / "api", set="both", dry_run=True, on_built=seen.append)
    assert seen == [built] and built.repo_url is None and built.commit_url is None
    jsonl_lines = sum(len(f.read_text(encoding="utf-8").splitlines()) for f in run.glob("*/*.jsonl"))
    assert len(built.configs) == 2 * len(PAIRS) and built.n_pairs == jsonl_lines
    files = {p.relative_to(built.folder): p.read_bytes() for p in built.folder.rglob("*") if p.is_file()}
    assert files == {p.relative_to(cli_out): p.read_bytes() for p in cli_out.rglob("*") if p.is_file()}
    with pytest.raises(ValueError, match=r"^set 'all': expected debiased, original or both$"):
        fp.publish(run, REPO_ID, set="all", dry_run=True)
    with pytest.raises(ValueError, match=r"^repo_id 'a/b/c': expected owner/name"):
        fp.publish(run, "a/b/c", dry_run=True)
    assert not (run / "hub").exists()


def test_docs_publish_example_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    text = (REPO / "docs" / "api.md").read_text(encoding="utf-8").split("## `fp.publish(", 1)[1]
    ns = {"fp": fp}
    exec(compile(text.split("```python\n", 1)[1].split("```", 1)[0], "docs/api.md", "exec"), ns)
    built, uid = ns["built"], "determiner_noun_agreement_1"
    assert [c.name for c in built.configs] == [uid, f"{uid}-original"]
    assert built.n_pairs == sum(len(expected_rows(tmp_path / "run", s, uid)) for s in ("debiased", "original"))
    assert front_matter(tmp_path / "run" / "hub" / "README.md")["configs"][0]["config_name"] == uid
