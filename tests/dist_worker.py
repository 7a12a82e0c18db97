"""A scoring process for tests/test_distributed.py, run alone or as one rank under torchrun.

It counts the real work independently of fairpairs' own bookkeeping: a forward hook on the model's
input embeddings (a torch module of transformers, not our code) logs every row that goes through
the model to ``rows-<rank>.jsonl``, one line per batch, trailing padding stripped.

    python tests/dist_worker.py SPEC.json

SPEC: model, sentences (list), mode ("score": Scorer.score; "cached": evaluate.cached_scores),
log_dir, out (parquet written by rank 0), cache_dir (mode cached), batch_tokens, progress,
kill_after ({"rank": R, "batches": N}: rank R SIGKILLs itself when batch N+1 starts, i.e. right
after N batches finished). A SPEC of {"jobs": [SPEC, ...]} runs each job in turn in the same
processes (one launch for several models).
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
    for job in spec.get("jobs", [spec]):
        run(job)


def run(spec: dict) -> None:
    rank = int(os.environ.get("RANK", "0"))
    log_dir = Path(spec["log_dir"])
    log_dir.mkdir(parents=True, exist_ok=True)
    if spec.get("progress"):
        sys.stderr = TtyFile(log_dir / f"stderr-{rank}.txt")

    from fairpairs.analysis.evaluation import Settings, cached_scores
    from fairpairs.scoring import Scorer

    scorer = Scorer.from_pretrained(spec["model"], batch_tokens=spec.get("batch_tokens"))   # (stderr: a "terminal")
    pad = scorer.pad_id
    log = open(log_dir / f"rows-{rank}.jsonl", "a", encoding="utf-8")
    kill = spec.get("kill_after") or {}
    batches = 0

    def hook(module, args):
        nonlocal batches
        if kill.get("rank") == rank and batches == kill["batches"]:
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

    scorer.model.get_input_embeddings().register_forward_pre_hook(hook)
    sentences = spec["sentences"]
    if spec["mode"] == "score":
        df = scorer.score(sentences, normalize=())
    else:
        df, _ = cached_scores(spec["model"], sentences, Settings(normalize=("lp",)), Path(spec["cache_dir"]),
                              lambda model, settings: scorer)
    if rank == 0:
        df.to_parquet(spec["out"], index=False)


if __name__ == "__main__":
    main()
