"""Issue 22 item 2: the ranks of a multi-process launch agree on what they score before they share
the work - model (config and a digest of its weights, its resolved files), tokenizer, scorer
settings and input - and on any disagreement every rank stops with one line naming what differs.

The identities compared are those of real (tiny, random) models loaded from disk; the launch is
a real torchrun launch of two gloo processes on the CPU (one CLI job per case, run in turn in the same
processes: tests/dist_worker.py).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fairpairs.scoring import Scorer, build_tiny_model

REPO = Path(__file__).resolve().parents[1]
WORKER = Path(__file__).with_name("dist_worker.py")   # runs the CLI jobs of one launch in its ranks
SENTENCES = ["The cat sat.", "The cats sat.", "Every dog barks.", "Every dogs barks."]

pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory) -> dict[str, Path]:
    """Two tiny GPT-2 checkpoints with the same config and different weights (seeds 0 and 1)."""
    root = tmp_path_factory.mktemp("ckpt")
    return {seed: build_tiny_model("gpt2", root / f"seed{seed}", seed=seed) for seed in (0, 1)}


def loaded(folder: Path, monkeypatch, name: str = "model", **kw) -> Scorer:
    """A scorer of the checkpoint in `folder`, loaded by the relative path `name` (as a rank
    started in that folder would)."""
    from fairpairs.tokenization.lengths import _backend, _load

    monkeypatch.chdir(folder.parent)
    _load.cache_clear()      # (tokenizers are cached by their path as given: here one relative path, two cwds)
    _backend.cache_clear()
    link = folder.parent / name
    if not link.exists():
        link.symlink_to(folder.name)
    return Scorer.from_pretrained(name, **kw)


def test_identities_of_real_models_name_what_differs(checkpoints, tmp_path, monkeypatch):
    from fairpairs.scoring.launch import disagreement

    a = tmp_path / "a"
    b = tmp_path / "b"
    for d, seed in ((a, 0), (b, 1)):
        d.mkdir()
        shutil.copytree(checkpoints[seed], d / "ckpt")
    s0, s1 = loaded(a / "ckpt", monkeypatch), loaded(b / "ckpt", monkeypatch)
    assert s0.name == s1.name == "model"
    same = s0.identity(SENTENCES, ("lp",))
    assert disagreement([same, s0.identity(SENTENCES, ("lp",))]) is None
    # another checkpoint at the same name: same config, other weights
    msg = disagreement([same, s1.identity(SENTENCES, ("lp",))])
    assert msg.startswith(f"the model: rank 1 has a different checkpoint ({os.path.realpath(b / 'ckpt')}; rank 0: "
                          f"{os.path.realpath(a / 'ckpt')}) (weights digest ")
    # settings and input
    msg = disagreement([same, s0.identity(SENTENCES, ("lp", "pen_lp"), alpha=0.5)])
    assert msg == "the scorer settings: `normalize` is ['lp'] on rank 0 but ['lp', 'pen_lp'] on rank 1"
    msg = disagreement([same, s0.identity(SENTENCES[:3], ("lp",))])
    assert msg.startswith("the input: rank 1 has 3 sentence(s) (sha256 ") and "rank 0 4 (" in msg
    # the tokenizer alone: the same weights with two token ids swapped in the tokenizer's vocabulary
    c = tmp_path / "c"
    shutil.copytree(a, c, symlinks=True)
    spec = json.loads((c / "ckpt" / "tokenizer.json").read_text())
    vocab = spec["model"]["vocab"]
    vocab["Hello"], vocab["ĠWorld"] = vocab["ĠWorld"], vocab["Hello"]
    (c / "ckpt" / "tokenizer.json").write_text(json.dumps(spec))
    s2 = loaded(c / "ckpt", monkeypatch)
    msg = disagreement([same, s2.identity(SENTENCES, ("lp",))])
    assert msg.startswith("the tokenizer of model: rank 1 has another (sha256 ")
    # three ranks: the first that differs is named
    assert disagreement([same, same, s1.identity(SENTENCES, ("lp",))]).startswith(
        "the model: rank 2 has a different checkpoint")


def node(root: Path, checkpoint: Path, name: str, sentences: list[str]) -> Path:
    """A folder as one node sees it: a checkpoint at ./NAME and the input at ./pairs.txt."""
    root.mkdir(parents=True)
    shutil.copytree(checkpoint, root / name)
    (root / "pairs.txt").write_text("\n".join(sentences) + "\n")
    return root


def score(name: str) -> list[str]:
    return ["score", "--models", name, "--input", "pairs.txt", "--out", "scores.csv", "--normalize", "lp",
            "--no-progress"]


DIFFERS = ("model", "input")


@pytest.fixture(scope="module")
def launch(checkpoints, tmp_path_factory) -> dict[str, dict]:
    """One torchrun launch of two gloo processes running one CLI job per case in turn (tests/dist_worker.py),
    each rank started in its node's folder: {case: job} (its node folders in "cwd")."""
    tmp = tmp_path_factory.mktemp("launch")
    jobs = {}
    for differs in DIFFERS:
        other = checkpoints[1] if differs == "model" else checkpoints[0]
        name = f"model-{differs}"   # one relative name per job (models and tokenizers are kept by the name given)
        dirs = [node(tmp / differs / "node0", checkpoints[0], name, SENTENCES),
                node(tmp / differs / "node1", other, name, SENTENCES if differs == "model" else SENTENCES[:3])]
        jobs[differs] = {"cli": score(name), "cwd": [str(d) for d in dirs], "log_dir": str(tmp / differs / "logs")}
    (tmp / "spec.json").write_text(json.dumps({"jobs": list(jobs.values())}))
    env = {k: v for k, v in os.environ.items() if k not in {"RANK", "WORLD_SIZE", "LOCAL_RANK"}}
    env.update(OMP_NUM_THREADS="1", HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", PYTHONPATH=str(REPO))
    cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2",
           str(WORKER), str(tmp / "spec.json")]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    return jobs | {"proc": proc}


@pytest.mark.parametrize("differs", DIFFERS)
def test_a_launch_whose_ranks_differ_stops_every_rank_with_one_line(differs, launch):
    job = launch[differs]
    logs, dirs, name = Path(job["log_dir"]), [Path(d) for d in job["cwd"]], job["cli"][2]
    assert (logs / "code-0.txt").is_file() and (logs / "code-1.txt").is_file(), launch["proc"].stderr[-3000:]
    assert [int((logs / f"code-{r}.txt").read_text()) for r in (0, 1)] == [1, 1]
    stderr = "".join((logs / f"stderr-{r}.txt").read_text() for r in (0, 1))
    lines = [ln for ln in stderr.splitlines() if ln.startswith("fairpairs: error:")]
    assert len(lines) == 1, stderr      # told once, by rank 0
    if differs == "model":
        assert lines[0].startswith(f"fairpairs: error: ranks disagree on the model: rank 1 has a different "
                                   f"checkpoint ({dirs[1] / name}; rank 0: {dirs[0] / name}) (weights digest ")
    else:
        assert lines[0].startswith("fairpairs: error: ranks disagree on the input: rank 1 has 3 sentence(s)")
        assert "this is a bug" not in stderr
    assert lines[0].endswith("all ranks stopped before scoring, no output was written")
    assert not (dirs[0] / "scores.csv").exists() and not (dirs[1] / "scores.csv").exists()
    # (agreeing ranks score as one process: tests/test_distributed.py)
