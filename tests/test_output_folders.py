"""No command writes into a run folder (issue 45, item 6).

A run folder of `fairpairs generate` is data: `audit`, `evaluate`, `balance` and `publish` read its
original/ and debiased/ whole, so a file another command leaves there makes the run unreadable
(`audit RUN` then fails on it). `balance --out` refused such a path; `unigrams --out` and `score
--out` wrote it and exited 0, as did every folder output aimed into a run's sets while the
command read another dataset. The one check (`fairpairs.io.destinations.check_not_in_ours`, called by
`check_output_file` and `check_output_folder`) now runs for every command that writes: each case
below exits 1 with one line naming the option and the run folder, and the run stays readable
byte for byte. Folders of ours beside a run's sets stay allowed (`publish`'s default RUN/hub,
`evaluate --out RUN/evaluation`), and a publish folder or a score cache takes nothing either.

On the code before issue 45 every case but balance's exits 0 (or, for the model commands, reaches
the model and fails there), and leaves a file or folder inside the run.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import fairpairs as fp

UID = "determiner_noun_agreement_1"


@pytest.fixture(scope="module")
def made_run(tmp_path_factory) -> Path:
    run = tmp_path_factory.mktemp("made") / "run"
    fp.generate_run(run, UID, ["gpt2"], pairs=4)
    return run


@pytest.fixture
def run(made_run, tmp_path) -> Path:
    """A copy of a small run folder (marker included), in the test's own folder."""
    return Path(shutil.copytree(made_run, tmp_path / "run"))


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def refused(result, option: str, target: Path, folder: Path) -> None:
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 1 and len(lines) == 1, result.stderr
    assert lines[0].startswith(f"fairpairs: error: {option} {target}: is inside "), lines[0]
    assert str(folder) in lines[0] and "write it elsewhere" in lines[0], lines[0]


@pytest.fixture
def texts(tmp_path) -> dict[str, Path]:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("The cat sat on the mat.\nDogs bark at night.\n", encoding="utf-8")
    judgments = tmp_path / "judgments.csv"
    judgments.write_text("sentence,judgment\n" + "".join(f"The cat sat {i}.,{i / 10}\n" for i in range(12)),
                         encoding="utf-8")
    return {"corpus": corpus, "judgments": judgments}


def file_commands(run: Path, texts, tiny: str) -> list[tuple[list, str, Path]]:
    """(arguments, option, output) of each command that writes one file, aimed at the run's root
    and into its sets."""
    return [
        (["unigrams", "--models", "gpt2", "--corpus", texts["corpus"], "--out", run / "u.json"], "--out", run / "u.json"),
        (["unigrams", "--models", "gpt2", "--corpus", texts["corpus"], "--out", run / "debiased" / "u.json"], "--out",
         run / "debiased" / "u.json"),
        (["score", "--models", tiny, "--input", texts["corpus"], "--normalize", "lp", "--out", run / "s.jsonl"], "--out",
         run / "s.jsonl"),
        (["score", "--models", tiny, "--input", texts["corpus"], "--normalize", "lp", "--out",
          run / "original" / "s.jsonl"], "--out", run / "original" / "s.jsonl"),
        (["morcela", "fit", "--models", tiny, "--judgments", texts["judgments"], "--folds", "2", "--out",
          run / "m.json"], "--out", run / "m.json"),
        (["fit-length", "--models", tiny, "--sentences", "10", "--out", run / "debiased" / "p.json"], "--out",
         run / "debiased" / "p.json"),
        (["balance", run, "--out", run / "b.csv"], "--out", run / "b.csv"),
    ]


def test_no_command_writes_a_file_into_a_run_folder(run, texts, tiny_models, fairpairs_cli):
    before = snapshot(run)
    for args, option, target in file_commands(run, texts, tiny_models["gpt2"]):
        refused(fairpairs_cli(*args), option, target, run)
        assert snapshot(run) == before, args
    assert fp.audit(run, models=["gpt2"]) is not None      # still readable


def test_no_folder_is_written_into_a_runs_sets(run, made_run, tmp_path, tiny_models, fairpairs_cli):
    """The commands read another dataset (`made_run`), so `run` is no input of theirs: only the new
    check stands between them and its sets."""
    other = made_run
    before = snapshot(run)
    cases = [
        (["generate", "--paradigms", UID, "--models", "gpt2", "--pairs", "2", "--quiet", "--out",
          run / "original" / "g"], "--out", run / "original" / "g"),
        (["audit", other, "--models", "gpt2", "--out", run / "debiased" / "a"], "--out", run / "debiased" / "a"),
        (["audit", other, "--models", "gpt2", "--select", run / "debiased" / "s"], "--select", run / "debiased" / "s"),
        (["evaluate", "--data", other, "--models", tiny_models["gpt2"], "--out", run / "original" / "e"], "--out",
         run / "original" / "e"),
        (["evaluate", "--data", other, "--models", tiny_models["gpt2"], "--out", tmp_path / "e", "--cache-dir",
          run / "debiased" / "c"], "--cache-dir", run / "debiased" / "c"),
        (["robustness", "--data", other, "--models", tiny_models["gpt2"], "--out", run / "debiased" / "r"], "--out",
         run / "debiased" / "r"),
        (["publish", other, "--repo-id", "someone/x", "--dry-run", "--out", run / "original" / "h"], "--out",
         run / "original" / "h"),
    ]
    for args, option, target in cases:
        refused(fairpairs_cli(*args), option, target, run)
        assert snapshot(run) == before, args
    assert not (tmp_path / "e").exists()
    assert fp.audit(run, models=["gpt2"]) is not None


def test_folders_of_ours_beside_the_sets_are_fine_but_take_no_file(run, texts, fairpairs_cli):
    r = fairpairs_cli("publish", run, "--repo-id", "someone/x", "--dry-run")     # its default: RUN/hub
    assert r.returncode == 0, r.stderr
    assert (run / "hub" / ".fairpairs").is_file()
    hub = snapshot(run / "hub")
    r = fairpairs_cli("unigrams", "--models", "gpt2", "--corpus", texts["corpus"], "--out", run / "hub" / "u.json")
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 1 and len(lines) == 1 and "a dataset folder of `fairpairs publish`" in lines[0], r.stderr
    assert snapshot(run / "hub") == hub
    assert fp.audit(run, models=["gpt2"]) is not None
