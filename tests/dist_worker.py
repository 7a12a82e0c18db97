"""The process of tests/test_distributed.py: run alone or as one
rank under torchrun, it runs a list of jobs in turn in the same process (the torch and transformers
imports of a launch paid once for several tests; each job keeps its own logs, output and exit code).

    python tests/dist_worker.py SPEC.json          SPEC: {"jobs": [JOB, ...]} or one JOB

With "launch_log": FOLDER in SPEC, each rank first writes its launch variables (RANK, WORLD_SIZE,
LOCAL_RANK, LOCAL_WORLD_SIZE, GROUP_RANK) to FOLDER/rank-<rank>.json.

A scoring JOB counts the real work independently of fairpairs' own bookkeeping: a forward hook on
the model's input embeddings (a torch module of transformers, not our code) logs every row that goes
through the model to ``rows-<rank>.jsonl``, one line per batch, trailing padding stripped.
Its keys: model, sentences (list), mode ("score": Scorer.score; "cached": evaluate.cached_scores),
log_dir, out (parquet written by rank 0), cache_dir (mode cached), batch_tokens, progress,
kill_after ({"rank": R, "batches": N}: rank R SIGKILLs itself when batch N+1 starts, i.e. right
after N batches finished).

A CLI JOB ({"cli": [ARGS...], "log_dir": ...}) runs `fairpairs ARGS` (fairpairs.cli.main, the
console script's entry point) with this process's stdout and stderr (file descriptors 1 and 2) sent
to ``stdout-<rank>.txt`` / ``stderr-<rank>.txt`` and its exit code written to ``code-<rank>.txt``.
Optional: "cwd" (one folder per rank: the rank changes to its own, so one relative path names
different files on different ranks - as when one node holds another checkpoint at the same path),
"fail" ({"rank": R, "batches": N}: rank R raises a RuntimeError, "failure injected ...", right after
its N-th batch of scores is handed to fairpairs - the product has no failure hook of its own).
The process exits with the last job's exit code.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path


class TtyFile:
    """stderr stand-in that says it is a terminal (so tqdm draws) and keeps what is written."""

    def __init__(self, path: Path):
        self.f = open(path, "w", encoding="utf-8")

    def isatty(self):
        return True

    def write(self, s):
        return self.f.write(s)

    def flush(self):
        self.f.flush()


def main() -> None:
    spec = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    import torch
    from transformers.utils import logging as hf_logging

    torch.set_num_threads(1)
    hf_logging.disable_progress_bar()
    if spec.get("launch_log"):   # this rank's place in the launch, as the launcher set it
        log = Path(spec["launch_log"])
        log.mkdir(parents=True, exist_ok=True)
        keys = ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "GROUP_RANK")
        (log / f"rank-{rank()}.json").write_text(json.dumps({k: os.environ.get(k) for k in keys}))
    code = 0
    for job in spec.get("jobs", [spec]):
        code = cli_job(job) if "cli" in job else run(job)
    sys.exit(code)


def rank() -> int:
    return int(os.environ.get("RANK", "0"))


def cli_job(job: dict) -> int:
    from fairpairs.cli import main as cli

    log_dir = Path(job["log_dir"])
    log_dir.mkdir(parents=True, exist_ok=True)
    here = os.getcwd()
    if job.get("cwd"):
        os.chdir(job["cwd"][rank()])
    if job.get("fail", {}).get("rank") == rank():
        inject_failure(job["fail"]["batches"])
    saved = [os.dup(1), os.dup(2)]
    files = [open(log_dir / f"{name}-{rank()}.txt", "w") for name in ("stdout", "stderr")]
    sys.stdout.flush(), sys.stderr.flush()
    for fd, f in zip((1, 2), files):
        os.dup2(f.fileno(), fd)
    try:
        cli([str(a) for a in job["cli"]])
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        sys.stdout.flush(), sys.stderr.flush()
        for fd, old in zip((1, 2), saved):
            os.dup2(old, fd)
            os.close(old)
        for f in files:
            f.close()
        os.chdir(here)
    (log_dir / f"code-{rank()}.txt").write_text(str(code))
    return code


def inject_failure(after: int) -> None:
    from fairpairs.scoring.scorer import Scorer

    score_subset = Scorer._score_subset

    def failing(self, enc, idx, pll, on_done):
        batches = 0

        def done(indices, sums):
            nonlocal batches
            on_done(indices, sums)
            batches += 1
            if batches >= after:
                raise RuntimeError(f"failure injected on rank {rank()} after {batches} batch(es)")
        return score_subset(self, enc, idx, pll, done)

    Scorer._score_subset = failing


def run(spec: dict) -> int:
    log_dir = Path(spec["log_dir"])
    log_dir.mkdir(parents=True, exist_ok=True)
    stderr = sys.stderr
    if spec.get("progress"):
        sys.stderr = TtyFile(log_dir / f"stderr-{rank()}.txt")

    from fairpairs.analysis.evaluation import Settings, cached_scores
    from fairpairs.scoring import Scorer

    scorer = Scorer.from_pretrained(spec["model"], batch_tokens=spec.get("batch_tokens"))   # (stderr: a "terminal")
    scorer.shared_prefixes = False   # (the row log reads whole sentences: the plain path; shared prefixes: test_scoring_prefix)
    pad = scorer.pad_id
    log = open(log_dir / f"rows-{rank()}.jsonl", "a", encoding="utf-8")
    kill = spec.get("kill_after") or {}
    batches = 0

    def hook(module, args):
        nonlocal batches
        if kill.get("rank") == rank() and batches == kill["batches"]:
            log.flush()
            os.kill(os.getpid(), signal.SIGKILL)
        batches += 1
        rows = []
        for row in args[0].tolist():
            while row and row[-1] == pad:
                row.pop()
            rows.append(row)
        log.write(json.dumps(rows) + "\n")
        log.flush()

    handle = scorer.model.get_input_embeddings().register_forward_pre_hook(hook)
    sentences = spec["sentences"]
    if spec["mode"] == "score":
        df = scorer.score(sentences, normalize=())
    else:
        df, _ = cached_scores(spec["model"], sentences, Settings(normalize=("lp",)), Path(spec["cache_dir"]),
                              lambda model, settings: scorer)
    handle.remove()
    log.close()
    if rank() == 0:
        df.to_parquet(spec["out"], index=False)
    if sys.stderr is not stderr:
        sys.stderr.flush()
        sys.stderr = stderr
    return 0


if __name__ == "__main__":
    main()
