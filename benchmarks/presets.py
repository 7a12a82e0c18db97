"""A preset's whole `fairpairs generate` run, timed against an earlier commit (issue 36, second row).

    python benchmarks/presets.py --baseline-tree /work/wt/c7 [--rounds 3]   # preset:modern, 67 x 1000
    python benchmarks/presets.py --baseline-tree /work/wt/c7 --cold          # ... converting every tokenizer again

Each run is the command `python -m fairpairs.cli generate --models preset:modern --paradigms all
--pairs 1000 --seed 0 --out RUN`, a process of its own, the checkout's code on PYTHONPATH; the
checkout here and the baseline checkout (a worktree of the baseline commit, e.g. `git worktree
add --detach ../c7 c7e230c`) take turns, so that a busy machine slows both alike. Measured per run
(the whole process, imports and tokenizers too): wall seconds, CPU seconds (user + system, from
wait4), peak resident memory (maxrss: the largest process) and the peak of the process tree's memory
with pages its forked workers share counted once (as benchmarks/generate.py measures it); the load average before the run. Printed: every run, the
median of the rounds per checkout, the ratios (CPU is the fairer one on a shared machine), and
whether the two checkouts' first runs wrote the same bytes (original/ and debiased/ byte for byte;
the manifest's fields that differ).

The converted-tokenizer cache (fairpairs.tokenization.cache) is a fresh folder: one untimed run of
this checkout fills it first (the "warm" figures: what every run after the first costs); with
`--cold` it is emptied before each run of this checkout (the first run on a machine).
Target (issue 36): preset:modern within 30 s and 700 MB, i.e. CPU at most 0.46x of c7e230c's.
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from generate import process_tree, tree_memory  # noqa: E402  (benchmarks/generate.py: the same measure)


def run(root: Path, out: Path, args, cache: Path) -> dict:
    """One whole `fairpairs generate` process with the code of `root`; its figures."""
    env = {**os.environ, "PYTHONPATH": str(root), "FAIRPAIRS_TOKENIZER_CACHE": str(cache)}
    cmd = [sys.executable, "-m", "fairpairs.cli", "generate", "--models", args.models, "--paradigms",
           args.paradigms, "--pairs", str(args.pairs), "--seed", "0", "--out", str(out)]
    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=out.parent)
    peak, done = [0], threading.Event()

    def watch():     # the process tree's memory, a page its forked workers share counted once
        while not done.is_set():
            peak[0] = max(peak[0], tree_memory(process_tree(proc.pid))[1])
            time.sleep(0.05)
    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    _, status, usage = os.wait4(proc.pid, 0)
    done.set()
    watcher.join()
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    if proc.returncode != 0:
        sys.exit(f"{root}: fairpairs generate failed ({proc.returncode}):\n{err[-2000:]}")
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "peak_mb": usage.ru_maxrss / 1024,
            "tree_mb": peak[0] / 1024, "load": load}


def same_bytes(a: Path, b: Path) -> list[str]:
    """What differs between two run folders: files of original/ and debiased/, and manifest fields."""
    diff = []
    for sub in ("original", "debiased"):
        names = sorted({p.name for p in (a / sub).iterdir()} | {p.name for p in (b / sub).iterdir()})
        diff += [f"{sub}/{n}" for n in names
                 if not ((a / sub / n).is_file() and (b / sub / n).is_file()
                         and filecmp.cmp(a / sub / n, b / sub / n, shallow=False))]
    ma, mb = (json.loads((r / "manifest.json").read_text()) for r in (a, b))
    diff += [f"manifest.json:{k}" for k in sorted(set(ma) | set(mb)) if ma.get(k) != mb.get(k)]
    return diff


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--baseline-tree", type=Path, required=True, help="a checkout of the baseline commit")
    ap.add_argument("--tree", type=Path, default=REPO,
                    help="the checkout to time (default: this one; a detached worktree keeps edits out of the runs)")
    ap.add_argument("--models", default="preset:modern")
    ap.add_argument("--paradigms", default="all")
    ap.add_argument("--pairs", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--cold", action="store_true", help="empty the tokenizer cache before each run of this checkout")
    args = ap.parse_args()

    work = Path(tempfile.mkdtemp(prefix="fairpairs-presets-"))
    cache = work / "tokenizer-cache"
    sides = {"this": args.tree.resolve(), "baseline": args.baseline_tree.resolve()}
    figures: dict[str, list[dict]] = {s: [] for s in sides}
    try:
        if not args.cold:
            f = run(sides["this"], work / "warm-up", args, cache)
            print(f"warm-up  this     wall {f['wall']:6.1f} s  cpu {f['cpu']:6.1f} s  peak {f['peak_mb']:5.0f} MB  shared once {f['tree_mb']:5.0f} MB  "
                  f"load {f['load']:.1f}  (empty tokenizer cache: every file converted)", flush=True)
            shutil.rmtree(work / "warm-up")
        for rnd in range(args.rounds):
            for side, root in sides.items():
                out = work / f"{side}-{rnd}"
                if side == "this" and args.cold:
                    shutil.rmtree(cache, ignore_errors=True)
                f = run(root, out, args, cache)
                figures[side].append(f)
                print(f"round {rnd + 1} {side:<8} wall {f['wall']:6.1f} s  cpu {f['cpu']:6.1f} s  "
                      f"peak {f['peak_mb']:5.0f} MB  shared once {f['tree_mb']:5.0f} MB  load {f['load']:.1f}", flush=True)
            if rnd == 0:     # (compared at once: a long run on a busy machine may be cut short)
                diff = same_bytes(work / "this-0", work / "baseline-0")
                print("same bytes: " + ("yes" if not diff else ", ".join(diff)), flush=True)
            for side in sides:
                shutil.rmtree(work / f"{side}-{rnd}")
    finally:
        shutil.rmtree(work, ignore_errors=True)

    med = {s: {k: statistics.median(f[k] for f in figures[s]) for k in ("wall", "cpu", "peak_mb", "tree_mb", "load")}
           for s in sides}
    head = subprocess.run(["git", "-C", str(sides["this"]), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    base = subprocess.run(["git", "-C", str(sides["baseline"]), "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True)
    dirty = subprocess.run(["git", "-C", str(sides["this"]), "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    print(f"\n{args.models}, {args.paradigms} x {args.pairs}, {'cold' if args.cold else 'warm'} tokenizer cache, "
          f"median of {args.rounds}: this {head.stdout.strip()}{' (+ uncommitted changes)' if dirty else ''}, "
          f"baseline {base.stdout.strip()}")
    print("| checkout | wall s | CPU s | peak MB (largest process) | peak MB, shared pages once | load |\n"
          "|---|---|---|---|---|---|")
    for s in sides:
        m = med[s]
        print(f"| {s} | {m['wall']:.1f} | {m['cpu']:.1f} | {m['peak_mb']:.0f} | {m['tree_mb']:.0f} | {m['load']:.1f} |")
    print(f"ratio this / baseline: wall {med['this']['wall'] / med['baseline']['wall']:.2f}x, "
          f"CPU {med['this']['cpu'] / med['baseline']['cpu']:.2f}x")
    print("same bytes: " + ("yes (original/, debiased/; manifest equal)" if not diff else ", ".join(diff)))


if __name__ == "__main__":
    main()
