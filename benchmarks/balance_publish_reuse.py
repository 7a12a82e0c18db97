"""`fairpairs balance` and `fairpairs publish --dry-run` on the main job's run: this checkout, which
reads what the run recorded (issue 48 item 5), against a baseline commit, which recomputes it.

    python benchmarks/balance_publish_reuse.py                       # the main job: 67 x 1000, gpt2 + bert-base-cased
    python benchmarks/balance_publish_reuse.py --pairs 50 --rounds 1 # a quick check that it works
    python benchmarks/balance_publish_reuse.py --results benchmarks/results/balance_publish_reuse.md

The run is generated once, by this checkout (the baseline reads the same files: its balance and
publish ignore the manifest's newer fields and recompute everything, as they do on their own runs).
The baseline commit (default b4812b2, the code before issue 48) is checked out in a temporary git
worktree and run with PYTHONPATH; the two take turns in every round (the first in round r is the
baseline when r is even), so that a busy machine slows both alike. Timed: the whole command
process, wall and CPU seconds (`resource.getrusage` of the children). Compared, byte for byte:
balance's stdout and CSV (this checkout's against the baseline's: balance's output does not change, but for the CSV columns added by design since, NEW_COLUMNS)
and publish's built folder (this checkout reusing against this checkout recomputing, on a copy of
the run whose manifest has no `statistics`; only the copied manifest may differ). Target: at most
0.3x the baseline's time for each command. `--results FILE` appends the figures as markdown (use it
on an idle machine only: the figures say how loaded it was).
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import resource
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
COMMANDS = ("balance", "publish")


def command(name: str, run: Path, out: Path) -> list[str]:
    if name == "balance":
        return ["balance", str(run), "--out", str(out / "balance.csv")]
    return ["publish", str(run), "--repo-id", "me/fairpairs", "--set", "both", "--dry-run", "--out", str(out / "hub")]


def timed(root: Path, argv: list[str], out: Path) -> dict:
    """`fairpairs ARGV` of checkout `root` in a new process: wall and CPU seconds, stdout."""
    env = {**os.environ, "PYTHONPATH": str(root), "TQDM_DISABLE": "1", "HF_HUB_OFFLINE": "1"}
    out.mkdir(parents=True, exist_ok=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "fairpairs.cli", *argv], env=env, cwd=out, capture_output=True,
                          text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{root}: fairpairs {' '.join(argv)} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    return {"wall": wall, "cpu": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
            "stdout": proc.stdout}


def digest(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


NEW_COLUMNS = ("extension_share",)    # balance.csv's columns added after b4812b2 by design (issue 47)


def without_new(csv_path: Path) -> str:
    """The CSV's text without NEW_COLUMNS (every other byte as written), to compare with the baseline's."""
    import csv
    import io

    rows = list(csv.reader(io.StringIO(csv_path.read_text(encoding="utf-8"), newline="")))
    keep = [i for i, name in enumerate(rows[0]) if name not in NEW_COLUMNS]
    out = io.StringIO(newline="")
    csv.writer(out, lineterminator="\n").writerows([[r[i] for i in keep] for r in rows])
    return out.getvalue()


def same_bytes(tmp: Path, run: Path, kept: dict) -> list[str]:
    """What differs where it must not: balance (this checkout vs the baseline) and publish (reused
    vs recomputed by this checkout, on a copy of the run without the `statistics` record)."""
    problems = []
    a, b = kept["this checkout"]["balance"], kept["baseline"]["balance"]
    if a["stdout"].replace(str(a["run"]), "RUN") != b["stdout"].replace(str(b["run"]), "RUN"):
        problems.append("balance: stdout differs from the baseline's")
    if without_new(a["out"] / "balance.csv") != (b["out"] / "balance.csv").read_text(encoding="utf-8"):
        problems.append("balance: the CSV differs from the baseline's (beyond the columns added by design)")
    copy = tmp / "fresh"
    shutil.copytree(run, copy)
    m = json.loads((copy / "manifest.json").read_text(encoding="utf-8"))
    m.pop("statistics", None)
    (copy / "manifest.json").write_text(json.dumps(m, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    fresh = timed(REPO, command("publish", copy, tmp / "fresh-out"), tmp / "fresh-out")
    reused = kept["this checkout"]["publish"]
    x, y = digest(reused["out"] / "hub"), digest(tmp / "fresh-out" / "hub")
    differ = sorted(k for k in x.keys() | y.keys() if x.get(k) != y.get(k))
    if differ != ["fairpairs_manifest.json"]:
        problems.append(f"publish: the reused folder differs from a recomputation in {differ}")
    if reused["stdout"].replace(str(reused["out"]), "OUT") != fresh["stdout"].replace(str(tmp / "fresh-out"), "OUT"):
        problems.append("publish: stdout differs from a recomputation's")
    return problems


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--baseline", default="b4812b2", metavar="REV")
    ap.add_argument("--pairs", type=int, default=1000)
    ap.add_argument("--paradigms", default="all")
    ap.add_argument("--models", default="gpt2,bert-base-cased")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--results", type=Path, metavar="FILE", help="append the figures to FILE (markdown)")
    args = ap.parse_args()
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    cmdline = f"python benchmarks/balance_publish_reuse.py {' '.join(sys.argv[1:])}".strip()
    load0 = os.getloadavg()
    print(f"commit {commit}; command: {cmdline}; load average at the start {load0[0]:.1f}", flush=True)
    tmp = Path(tempfile.mkdtemp(prefix="fairpairs-reuse-"))
    base = tmp / "baseline"
    subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", str(base), args.baseline],
                   check=True, capture_output=True)
    try:
        run = tmp / "run"
        gen = ["generate", "--models", args.models, "--pairs", str(args.pairs), "--out", str(run), "--quiet"]
        timed(REPO, gen + ([] if args.paradigms == "all" else ["--paradigms", args.paradigms]), tmp / "gen")
        times = {(who, c): [] for who in ("baseline", "this checkout") for c in COMMANDS}
        kept: dict = {"baseline": {}, "this checkout": {}}
        for r in range(args.rounds):
            order = [("baseline", base), ("this checkout", REPO)]
            for who, root in (order if r % 2 == 0 else order[::-1]):
                for c in COMMANDS:
                    out = tmp / f"{who.replace(' ', '-')}-{c}-{r}"
                    fig = timed(root, command(c, run, out), out)
                    times[who, c].append(fig)
                    kept[who][c] = {**fig, "out": out, "run": run}
                    print(f"round {r + 1}, {who}, {c}: {fig['wall']:.1f} s wall, {fig['cpu']:.1f} s CPU "
                          f"(load {os.getloadavg()[0]:.1f})", flush=True)
        problems = same_bytes(tmp, run, kept)
    finally:
        subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(base)], capture_output=True)
    lines = report(args, commit, cmdline, load0, times, problems)
    print("\n".join(lines))
    shutil.rmtree(tmp, ignore_errors=True)
    if args.results is not None:
        with args.results.open("a", encoding="utf-8") as fh:
            fh.write("\n".join(lines) + "\n")
    if problems:
        raise SystemExit(1)


def report(args, commit, cmdline, load0, times, problems) -> list[str]:
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    out = [f"\n## {now}, commit {commit} against {args.baseline}, load average {load0[0]:.1f} at the start, "
           f"{os.getloadavg()[0]:.1f} at the end", "",
           f"Command: `{cmdline}`; the run: {args.paradigms} paradigms x {args.pairs} pairs, {args.models}; "
           f"{args.rounds} round(s), the two codes in turns.", "",
           "| command | baseline wall (s), median (each) | this checkout wall (s), median (each) | ratio wall "
           "| baseline CPU (s) | this checkout CPU (s) | ratio CPU |", "|---|---:|---:|---:|---:|---:|---:|"]
    for c in COMMANDS:
        b, n = times["baseline", c], times["this checkout", c]
        mb, mn = (statistics.median(x["wall"] for x in v) for v in (b, n))
        cb, cn = (statistics.median(x["cpu"] for x in v) for v in (b, n))
        each = lambda v: ", ".join(f"{x['wall']:.1f}" for x in v)   # noqa: E731
        out.append(f"| {c} | {mb:.1f} ({each(b)}) | {mn:.1f} ({each(n)}) | **{mn / mb:.2f}x** | {cb:.1f} | {cn:.1f} "
                   f"| {cn / cb:.2f}x |")
    out += ["", "Same bytes: " + ("; ".join(problems) if problems else
                                  "balance's stdout and CSV equal the baseline's; publish's built folder equals a "
                                  "recomputation's (on a copy without the `statistics` record) but for the copied "
                                  "manifest, and so does its stdout.")]
    return out


if __name__ == "__main__":
    main()
