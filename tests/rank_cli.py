"""The fairpairs CLI as one rank of a torchrun launch, started in a folder of its own, for
tests/test_rank_agreement.py (the product has no such hook):

    torchrun --nproc_per_node 2 tests/rank_cli.py DIR0,DIR1 score --models model --input pairs.jsonl ...

Rank R changes to folder DIR_R before running the CLI, so that one relative path names different
files on different ranks - as when one node holds another checkpoint at the same path.
"""

from __future__ import annotations

import os
import sys


def main() -> None:
    dirs = sys.argv[1].split(",")
    os.chdir(dirs[int(os.environ.get("RANK", "0"))])
    from fairpairs.cli import main as cli

    cli(sys.argv[2:])


if __name__ == "__main__":
    main()
