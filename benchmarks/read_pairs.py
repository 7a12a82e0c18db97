"""How long reading a run folder takes, by the one pair reader (issue 37: typed pair sets must not
make reading slower).

    python benchmarks/read_pairs.py RUN                 # RUN: a `fairpairs generate` folder (67 x 1000 pairs)
    python benchmarks/read_pairs.py RUN --repeat 5

Run it with `PYTHONPATH=<checkout>` to measure that checkout (it prints the commit). Two readings:

  sets     `read_pair_sets(RUN)` and each set's `.frame` (what audit, `load_sets`, `to_frame` and evaluate read)
  files    every `<set>/<uid>.jsonl` by `read_run_file` (what publish and balance read)

Each is timed `--repeat` times in this process; the median and the fastest are printed (CPU seconds,
as the machine is shared; wall time is noisier).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import time
from pathlib import Path


def _commit() -> str:
    import fairpairs

    root = Path(fairpairs.__file__).resolve().parent.parent
    out = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return f"{out.stdout.strip() or '?'} ({root})"


def read_sets(run: Path) -> int:
    from fairpairs.pairsets import read_pair_sets

    return sum(len(s.frame) for s in read_pair_sets(run).values())


def read_files(run: Path) -> int:
    from fairpairs.pairsets import read_run_file

    n = 0
    for f in sorted(run.glob("*/*.jsonl")):
        got = read_run_file(f)
        n += len(got.rows) if hasattr(got, "rows") else len(got[0])    # (before issue 37: (rows, origin))
    return n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run", type=Path)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    print(f"commit {_commit()}; run folder {args.run}")
    import pandas  # noqa: F401  (imported once, outside the timings)

    for name, fn in (("sets", read_sets), ("files", read_files)):
        times = []
        for _ in range(args.repeat):
            t0 = time.process_time()
            pairs = fn(args.run)
            times.append(time.process_time() - t0)
        print(f"{name:6} {pairs:,} pairs: median {statistics.median(times):.2f} s, fastest {min(times):.2f} s CPU "
              f"({args.repeat} runs)")


if __name__ == "__main__":
    main()
