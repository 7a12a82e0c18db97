"""Issue 34 items 1 and 2 ("Trust, round 4"): a command replaces only its own kind of output folder.

The `.fairpairs` marker says which command wrote a folder (fairpairs.io.marker); `evaluate --out`,
`robustness --out`, `--cache-dir`, `generate --out`, `publish --out` and `audit --out / --select`
refuse a folder another command wrote, in one line, before any work, and leave it as it was.
Markers of 0.1.x (no kind) are read by what those versions listed in them. Each refusal test
deleted or overwrote the folder on c7e230c (or wrote into it), so it fails there.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import fairpairs as fp
from fairpairs.io.files import MARKER
from references import error_line, files

UID = "determiner_noun_agreement_1"

pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture(scope="module")
def run_dir(small_run) -> Path:
    """conftest's small run (4 pairs of UID, the bundled tokenizers), this module's own."""
    return small_run


@pytest.fixture
def other_run(run_dir, tmp_path) -> Path:
    """A second run folder of `generate` (the one the user meant to evaluate)."""
    return Path(shutil.copytree(run_dir, tmp_path / "other"))


@pytest.fixture(scope="module")
def evaluation(run_dir, tiny_models, tmp_path_factory, fairpairs_cli) -> Path:
    out = tmp_path_factory.mktemp("ev") / "ev"
    code = fairpairs_cli("evaluate", "--models", tiny_models["gpt2"], "--data", run_dir, "--out", out, "--normalize",
                         "lp", "--figures", "none").returncode   # (only the folder's kind and files are looked at)
    assert code == 0 and (out / "report.md").is_file()
    return out


@pytest.fixture
def broken(tmp_path) -> Path:
    """A model folder that fails to load: every refusal must come before any model is loaded."""
    folder = tmp_path / "broken-model"
    folder.mkdir()
    (folder / "config.json").write_text('{"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"]}')
    return folder


def refused(args, folder: Path, says: str, fairpairs_cli, option: str = "--out") -> str:
    before = files(folder)
    code, _, err = fairpairs_cli(*args)
    line = error_line(err)
    assert code == 1 and line.startswith(f"fairpairs: error: {option} {folder}: {says}"), line
    assert files(folder) == before
    assert not [p for p in folder.parent.iterdir() if p.name.startswith(f".{folder.name}.")]   # no temporary left
    return line


RUN = "a run folder of `fairpairs generate`"
EVALUATION = "an evaluation report of `fairpairs evaluate`"


# ------------------------------------------------------------------ item 1: one command's output is not another's
def test_evaluate_and_robustness_do_not_replace_a_run_folder(run_dir, other_run, tiny_models, fairpairs_cli):
    """(a model that loads: on c7e230c both exited 0 and the run's original/, debiased/ and
    manifest.json were gone)"""
    refused(["evaluate", "--models", tiny_models["gpt2"], "--data", run_dir, "--out", other_run], other_run,
            f"{RUN}, not {EVALUATION}; refusing to replace it", fairpairs_cli)
    refused(["robustness", "--models", tiny_models["gpt2"], "--data", run_dir, "--out", other_run], other_run,
            f"{RUN}, not a report of `fairpairs robustness`", fairpairs_cli)


def test_one_step_evaluate_without_data_does_not_replace_the_run_meant(other_run, broken, fairpairs_cli):
    """--data forgotten, --out pointing at the run to evaluate: refused before any pair is generated."""
    refused(["evaluate", "--models", "gpt2", "--paradigms", UID, "--pairs", "2", "--out", other_run], other_run,
            f"{RUN}, not {EVALUATION}", fairpairs_cli)


def test_a_run_folder_is_not_a_score_cache(run_dir, other_run, broken, tmp_path, fairpairs_cli):
    refused(["evaluate", "--models", broken, "--data", run_dir, "--out", tmp_path / "ev", "--cache-dir", other_run],
            other_run, f"{RUN}, not a score cache; refusing to write into it", fairpairs_cli, option="--cache-dir")
    assert not (tmp_path / "ev").exists()


def test_generate_publish_robustness_and_audit_do_not_replace_an_evaluation(evaluation, run_dir, broken, fairpairs_cli):
    refused(["generate", "--paradigms", UID, "--pairs", "2", "--out", evaluation], evaluation,
            f"{EVALUATION}, not {RUN}", fairpairs_cli)
    refused(["publish", run_dir, "--repo-id", "me/x", "--dry-run", "--out", evaluation], evaluation,
            f"{EVALUATION}, not a dataset folder of `fairpairs publish`", fairpairs_cli)
    refused(["robustness", "--models", broken, "--data", run_dir, "--out", evaluation], evaluation,
            f"{EVALUATION}, not a report of `fairpairs robustness`", fairpairs_cli)
    refused(["audit", run_dir, "--models", "gpt2", "--select", evaluation], evaluation,
            f"{EVALUATION}, not a selection of `fairpairs audit --select`", fairpairs_cli, option="--select")
    with pytest.raises(fp.errors.OutputError, match="an evaluation report"):   # the library alike
        fp.generate_run(evaluation, paradigms=[UID], pairs=2)


def test_markers_record_the_kind(evaluation, run_dir):
    assert json.loads((run_dir / MARKER).read_text())["kind"] == "run"
    assert json.loads((evaluation / MARKER).read_text())["kind"] == "evaluation"
    assert json.loads((evaluation / "cache" / MARKER).read_text())["kind"] == "cache"


# ------------------------------------------------------------------ item 1: markers of 0.1.x (no kind)
def legacy(folder: Path, files_listed=None) -> None:
    """Rewrite the marker as fairpairs 0.1.x wrote it: no kind."""
    doc = json.loads((folder / MARKER).read_text()) if (folder / MARKER).exists() else {}
    doc = {"signature": "fairpairs output folder/1", "note": "written by fairpairs; it may replace this folder",
           "pid": None, "files": doc.get("files") if files_listed is None else files_listed}
    (folder / MARKER).write_text(json.dumps(doc, indent=1) + "\n")


def test_an_old_run_folder_is_known_by_its_files(other_run, broken, run_dir, fairpairs_cli):
    legacy(other_run)
    refused(["evaluate", "--models", broken, "--data", run_dir, "--out", other_run], other_run,
            f"{RUN}, not {EVALUATION}", fairpairs_cli)
    code, _, err = fairpairs_cli("generate", "--paradigms", UID, "--pairs", "2", "--out", other_run)
    assert code == 0, err                                           # its own command still replaces it
    assert json.loads((other_run / MARKER).read_text())["kind"] == "run"


def test_an_old_folder_whose_files_do_not_say_is_refused_by_every_command(tmp_path, fairpairs_cli):
    old = tmp_path / "old"
    old.mkdir()
    (old / "table.csv").write_text("a,b\n")
    legacy(old, ["table.csv"])
    refused(["generate", "--paradigms", UID, "--pairs", "2", "--out", old], old,
            "written by an earlier fairpairs that did not record which command wrote it", fairpairs_cli)


def test_an_old_score_cache_is_still_a_cache(run_dir, tiny_models, tmp_path):
    cache = tmp_path / "cache"
    fp.evaluate(run_dir, [tiny_models["gpt2"]], normalize="lp", cache_dir=cache)
    legacy(cache, [])                                                 # 0.1.x: a cache's marker lists no files
    assert list(cache.glob("*.parquet"))
    report = fp.evaluate(run_dir, [tiny_models["gpt2"]], normalize="lp", cache_dir=cache,
                         load_scorer=lambda m, s: pytest.fail("scores are cached"))
    assert report is not None and json.loads((cache / MARKER).read_text())["kind"] == "cache"


def test_an_empty_folder_of_ours_is_taken_by_any_command(tmp_path, fairpairs_cli):
    cache = tmp_path / "c"
    cache.mkdir()
    legacy(cache, [])
    code, _, err = fairpairs_cli("generate", "--paradigms", UID, "--pairs", "2", "--out", cache)
    assert code == 0, err


# ------------------------------------------------------------------ item 2: audit's folders are ours
@pytest.fixture
def pairs_file(tmp_path) -> Path:
    f = tmp_path / "pairs.jsonl"
    f.write_text("".join(json.dumps({"sentence_good": g, "sentence_bad": b, "uid": "x", "pair_id": str(i)}) + "\n"
                         for i, (g, b) in enumerate([("The dog barks.", "The dog bark."),
                                                     ("A cat sleeps.", "A cat sleepings.")])))
    return f


@pytest.mark.parametrize("option,names", [("--select", ("selected_ids.csv", "balance.csv")),
                                          ("--out", ("length_bias.csv", "equal_all.csv"))])
def test_audit_does_not_replace_a_users_tables(pairs_file, tmp_path, fairpairs_cli, option, names):
    mine = tmp_path / "mine"
    mine.mkdir()
    for name in names:
        (mine / name).write_text("my own table\n")
    refused(["audit", pairs_file, "--models", "gpt2", option, mine], mine,
            "a non-empty folder that fairpairs did not write", fairpairs_cli, option=option)


def test_audit_select_is_written_as_a_folder_of_ours(pairs_file, other_run, tmp_path, fairpairs_cli):
    sel = tmp_path / "sel"
    code, _, err = fairpairs_cli("audit", pairs_file, "--models", "gpt2", "--select", sel)
    assert code == 0, err
    marker = json.loads((sel / MARKER).read_text())
    assert marker["kind"] == "selection" and marker["files"] == ["balance.csv", "selected_ids.csv"]
    (sel / "notes.md").write_text("mine")
    (sel / "balance.csv").write_text("edited")                      # ours: replaced by the next run
    code, _, err = fairpairs_cli("audit", pairs_file, "--models", "gpt2", "--select", sel)
    assert code == 0, err
    assert (sel / "notes.md").read_text() == "mine" and (sel / "balance.csv").read_text() != "edited"
    refused(["audit", pairs_file, "--models", "gpt2", "--select", other_run], other_run,
            f"{RUN}, not a selection", fairpairs_cli, option="--select")
    code, _, err = fairpairs_cli("audit", pairs_file, "--models", "gpt2", "--select", sel, "--out", sel)
    assert code == 2 and "--select" in err and "--out" in err


def test_a_file_output_does_not_overwrite_a_file_of_another_commands_folder(evaluation, run_dir, tmp_path,
                                                                            fairpairs_cli):
    """`balance --out EV/balance.csv` would replace the evaluation's own balance report (listed in
    its marker); a new file beside it (notes of one's own) is fine, as in any folder."""
    assert (evaluation / "balance.csv").is_file()
    target = evaluation / "balance.csv"
    before = files(evaluation)
    code, _, err = fairpairs_cli("balance", run_dir, "--out", target)
    line = error_line(err)
    assert code == 1 and line.startswith(f"fairpairs: error: --out {target}: is a file of {EVALUATION} {evaluation}")
    assert files(evaluation) == before
    code, _, err = fairpairs_cli("balance", run_dir, "--out", tmp_path / "b.csv")
    assert code == 0, err
