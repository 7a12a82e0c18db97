"""The fairpairs CLI as one rank of a torchrun launch, with a failure injected on one rank, for
tests/test_distributed.py (the product has no failure hook of its own):

    torchrun --nproc_per_node 2 tests/fail_cli.py RANK BATCHES evaluate --models ...

Rank RANK raises a RuntimeError ("failure injected ...") right after its BATCHES-th batch of
scores is handed to fairpairs; the other ranks run unchanged.
"""

from __future__ import annotations

import os
import sys


def main() -> None:
    fail_rank, after = int(sys.argv[1]), int(sys.argv[2])
    from fairpairs.cli import main as cli
    from fairpairs.scoring.scorer import Scorer

    score_subset = Scorer._score_subset

    def failing(self, enc, idx, pll, on_done):
        batches = 0

        def done(indices, sums):
            nonlocal batches
            on_done(indices, sums)
            batches += 1
            if batches >= after:
                raise RuntimeError(f"failure injected on rank {fail_rank} after {batches} batch(es)")
        return score_subset(self, enc, idx, pll, done)

    if int(os.environ.get("RANK", "0")) == fail_rank:
        Scorer._score_subset = failing
    cli(sys.argv[3:])


if __name__ == "__main__":
    main()
