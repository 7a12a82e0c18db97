"""The default test run, timed as issue 36 states its target: README's `python -m pytest`, serial,
in a plain clone with nothing beside it.

    python benchmarks/tests.py                              # HEAD
    python benchmarks/tests.py --commits b096d41,HEAD --rounds 2

For each commit: `git clone` of this repository into a new temporary folder, checked out at the
commit, then its own `.ci/run` there (a fresh virtual environment, README's install command, then
README's test command; no ../shared beside the clone, so no slow tier). Commits take turns in each
round (in the order given), so that a busy machine slows them alike. Prints, per run, pytest's own
time (its summary line: the figure the target is about), the tests passed, the load average when
the run started and .ci/run's whole time (venv and install included); then the median per commit.
A run whose tests do not all pass is reported as failed, not timed. Target: at most 4 minutes.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SUMMARY = re.compile(r"^=*\s*(?P<counts>.*?) in (?P<seconds>[\d.]+)s(?: \((?P<clock>[\d:]+)\))?\s*=*$")


def one_run(commit: str) -> dict:
    """Clone, check out `commit`, run its .ci/run; pytest's summary of the default tier."""
    with tempfile.TemporaryDirectory(prefix="fairpairs-tests-bench.") as tmp:
        clone = Path(tmp) / "fairpairs"
        subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True)
        subprocess.run(["git", "-C", str(clone), "checkout", "-q", commit], check=True)
        load = os.getloadavg()[0]
        start = time.monotonic()
        env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV"}}
        proc = subprocess.run(["bash", ".ci/run"], cwd=clone, env=env, capture_output=True, text=True)
        total = time.monotonic() - start
    lines = [m for m in (SUMMARY.match(line.strip()) for line in proc.stdout.splitlines()) if m]
    if proc.returncode != 0 or not lines or "failed" in lines[-1]["counts"] or "error" in lines[-1]["counts"]:
        tail = "\n".join((proc.stdout + proc.stderr).splitlines()[-15:])
        return {"commit": commit, "ok": False, "load": load, "detail": tail}
    last = lines[-1]
    return {"commit": commit, "ok": True, "load": load, "pytest_s": float(last["seconds"]),
            "counts": last["counts"], "ci_s": total}


def clock(seconds: float) -> str:
    return f"{int(seconds // 60)}:{seconds % 60:04.1f}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--commits", default="HEAD", help="comma-separated commits, taking turns (default HEAD)")
    ap.add_argument("--rounds", type=int, default=1, help="runs per commit (default 1)")
    args = ap.parse_args(argv)
    commits = [c.strip() for c in args.commits.split(",") if c.strip()]
    resolved = {c: subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", c], capture_output=True,
                                  text=True, check=True).stdout.strip() for c in commits}
    print(f"# README's test command in a plain clone (.ci/run), {args.rounds} round(s); "
          f"command: python benchmarks/tests.py --commits {args.commits} --rounds {args.rounds}")
    head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                          check=True).stdout.strip()
    print(f"# at {head}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} CPUs")
    print("| round | commit | load at start | tests | pytest's time | .ci/run incl. venv + install |")
    print("|---:|---|---:|---|---:|---:|")
    runs = []
    for rnd in range(1, args.rounds + 1):
        for c in commits:
            r = one_run(resolved[c])
            runs.append(r)
            if r["ok"]:
                print(f"| {rnd} | {r['commit']} | {r['load']:.2f} | {r['counts']} | {r['pytest_s']:.1f} s "
                      f"({clock(r['pytest_s'])}) | {r['ci_s']:.0f} s |", flush=True)
            else:
                print(f"| {rnd} | {r['commit']} | {r['load']:.2f} | FAILED | - | - |", flush=True)
                print(r["detail"], file=sys.stderr)
    print()
    for c in commits:
        times = [r["pytest_s"] for r in runs if r["commit"] == resolved[c] and r["ok"]]
        if times:
            med = statistics.median(times)
            print(f"{resolved[c]}: median {med:.1f} s ({clock(med)}) of {len(times)}; target 240 s: "
                  f"{'met' if med <= 240 else 'not met'}")
    return 0 if all(r["ok"] for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
