"""Generation speed: the whole `fairpairs generate` process (imports, tokenizers, original + debiased
sets, balance report, files, and any worker processes it starts), timed.

    python benchmarks/generate.py                                   # the main job: 67 x 1000, gpt2 + bert-base-cased
    python benchmarks/generate.py --baseline c7e230c                # ... and the same with an earlier commit, in one run
    python benchmarks/generate.py --models preset:modern --real-map # 8 real tokenizers (benchmarks/real_tokenizers.py)

Prints per-paradigm statistics of the debiased set (from the run's manifest) and the run's figures.
With `--baseline REV` the commit REV is checked out in a temporary git worktree and both versions
run the same command, taking turns (`--rounds` each, baseline first in each round, so that a busy
machine slows both alike); the figures compared are the medians of the rounds and their ratios:
wall seconds, CPU seconds (the process and every process it started), and peak memory of the
process tree - the peak of the sum of its processes' RSS (a page that forked workers share counts
once per process: an upper bound) and of the main process's RSS plus its workers' private pages
(a page they share counted once: the memory the run holds).
Targets: issue 36 - the main job at most 0.5x of c7e230c's time and 300 MB; preset:modern 67 x
1000 within 30 s and 700 MB: printed with the figures, met or not. `--results FILE` adds the table,
the ratios (medians and per round) and the verdicts to FILE, with the commit, the command and the
machine's load at the start and the end (issue 49, item 4):
    python benchmarks/generate.py --baseline c7e230c --rounds 3 --results benchmarks/results/generate.md
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TARGET_RATIO, TARGET_MAIN_MB = 0.5, 300         # issue 36: the main job vs c7e230c, and its memory
TARGET_MODERN_S, TARGET_MODERN_MB = 30, 700     # issue 36: preset:modern, 67 x 1000


def process_tree(root: int) -> list[int]:
    """`root` and every process under it (from /proc)."""
    children: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as fh:
                    ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(d))
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo += children.get(pid, [])
    return out


def tree_memory(pids: list[int]) -> tuple[int, int]:
    """Memory of the processes `pids` (kB), the first the one that started the others: the sum of
    their RSS (a page forked workers share with it counted once per process: an upper bound), and
    the first's RSS plus the others' private pages (a shared page counted once)."""
    rss = tree = 0
    for i, pid in enumerate(pids):
        try:
            with open(f"/proc/{pid}/smaps_rollup") as fh:
                fields = dict((line.split()[0], int(line.split()[1])) for line in fh if line.split()[-1] == "kB")
        except OSError:
            continue
        rss += fields.get("Rss:", 0)
        tree += fields.get("Rss:", 0) if i == 0 else fields.get("Private_Clean:", 0) + fields.get("Private_Dirty:", 0)
    return rss, tree


def run_once(root: Path, args, real_map: Path | None) -> dict:
    """`fairpairs generate` of checkout `root` in a new process, watched: its figures as a dict."""
    env = {**os.environ, "PYTHONPATH": str(root), "TQDM_DISABLE": "1"}
    if real_map is not None:
        env["FAIRPAIRS_TOKENIZER_MAP"] = str(real_map)
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "fairpairs.cli", "generate", "--models", args.models, "--pairs", str(args.pairs),
               "--seed", str(args.seed), "--strategy", args.strategy, "--out", str(Path(tmp) / "run")]
        if args.paradigms != "all":
            cmd += ["--paradigms", args.paradigms]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, env=env, cwd=tmp, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        peak = [0, 0]

        def watch():
            while proc.poll() is None:
                rss, tree = tree_memory(process_tree(proc.pid))
                peak[0], peak[1] = max(peak[0], rss), max(peak[1], tree)
                time.sleep(0.05)
        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        err = proc.communicate()[1]
        wall = time.perf_counter() - t0
        watcher.join()
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if proc.returncode != 0:
            raise SystemExit(f"{root}: fairpairs generate failed ({proc.returncode}):\n{err[-2000:]}")
        manifest = json.loads((Path(tmp) / "run" / "manifest.json").read_text())
        if args.keep is not None:     # (each run's manifest and its pair files' sha256, to compare them)
            args.keep.mkdir(parents=True, exist_ok=True)
            name = f"{root.name}-{len(list(args.keep.glob('*.json')))}"
            (args.keep / f"{name}.json").write_text((Path(tmp) / "run" / "manifest.json").read_text())
            files = sorted((Path(tmp) / "run").glob("*/*.jsonl"))
            (args.keep / f"{name}.sha256").write_text("".join(
                f"{hashlib.sha256(f.read_bytes()).hexdigest()}  {f.parent.name}/{f.name}\n" for f in files))
    return {"wall": wall, "cpu": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
            "rss_mb": peak[0] / 1024, "tree_mb": peak[1] / 1024, "models": manifest["models"],
            "stats": {uid: e["debiased_stats"] for uid, e in manifest["paradigms"].items()}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--paradigms", default="all", help="comma-separated UIDs or 'all' (the command's default)")
    ap.add_argument("--pairs", type=int, default=1000)
    ap.add_argument("--models", default="gpt2,bert-base-cased")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--strategy", default="search", choices=["search", "resample"])
    ap.add_argument("--real-map", action="store_true", help="load preset:modern's files through a written map")
    ap.add_argument("--baseline", metavar="REV", help="also time commit REV, in turns with this checkout")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--results", type=Path, metavar="FILE", help="add the table, the ratios and the targets' "
                    "verdicts to this markdown file, with the commit, the command and the machine's load")
    ap.add_argument("--keep", type=Path, metavar="DIR", help="keep each run's manifest.json and the sha256 of its jsonl files in DIR")
    args = ap.parse_args()
    real_map = None
    if args.real_map:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import real_tokenizers as real

        real_map = real.write_map(Path(tempfile.mkdtemp()) / "map.yaml")

    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    print(f"commit {commit}; command: python benchmarks/generate.py {' '.join(sys.argv[1:])}")
    load_start = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"load average at the start: {load_start}", flush=True)
    runs = {"this checkout": []}
    base = None
    if args.baseline:
        base = Path(tempfile.mkdtemp(prefix="fairpairs-baseline-")) / "tree"
        subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", str(base), args.baseline],
                       check=True, capture_output=True)
        runs[f"baseline {args.baseline}"] = []
    try:
        for r in range(args.rounds):
            for name, root in ([(f"baseline {args.baseline}", base)] if base else []) + [("this checkout", REPO)]:
                runs[name].append(run_once(root, args, real_map))
                fig = runs[name][-1]
                print(f"round {r + 1}, {name}: {fig['wall']:.1f} s wall, {fig['cpu']:.1f} s CPU, "
                      f"{fig['rss_mb']:.0f} MB RSS, {fig['tree_mb']:.0f} MB (shared pages once) (load "
                      f"{os.getloadavg()[0]:.1f})", flush=True)
    finally:
        if base is not None:
            subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(base)], capture_output=True)
    now = runs["this checkout"][-1]
    print(f"\n{len(now['stats'])} paradigms x {args.pairs} pairs (original + debiased, strategy {args.strategy}), "
          f"tokenizers {', '.join(now['models'])}; load average at the end "
          f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}\n")
    print(f"{'paradigm':55s} {'kept':>5s} {'as drawn':>8s} {'redrawn':>8s} {'replaced':>8s} {'dropped':>7s} "
          f"{'yield':>7s} {'draws/kept':>10s}")
    for uid, d in now["stats"].items():
        print(f"{uid:55s} {d['kept']:5d} {d['kept_as_drawn']:8d} {d['kept_redrawn']:8d} {d['replaced']:8d} "
              f"{d['dropped']:7d} {d['yield'] or 0:7.1%} {d['draws_per_kept'] or 0:10.2f}")
    table_header = ("| code | wall (s), median (each round) | CPU (s), median | peak RSS sum (MB), max "
                    "| peak memory, shared pages once (MB), max |\n|---|---:|---:|---:|---:|")
    print("\n" + table_header)
    med, table_rows = {}, []
    for name, rs in runs.items():
        med[name] = {k: statistics.median(r[k] for r in rs) for k in ("wall", "cpu")}
        walls = ", ".join(f"{r['wall']:.1f}" for r in rs)
        label = f"{name} ({commit})" if name == "this checkout" else name
        table_rows.append(f"| {label} | {med[name]['wall']:.1f} ({walls}) | {med[name]['cpu']:.1f} | "
                          f"{max(r['rss_mb'] for r in rs):.0f} | {max(r['tree_mb'] for r in rs):.0f} |")
        print(table_rows[-1])
    lines = [table_header, *table_rows]
    if base is not None:
        for what in ("wall", "cpu"):
            ratio = med["this checkout"][what] / med[f"baseline {args.baseline}"][what]
            per = ", ".join(f"{a[what] / b[what]:.2f}" for a, b in zip(runs["this checkout"], runs[f"baseline {args.baseline}"]))
            lines.append(f"\n{what} ratio this checkout / baseline {args.baseline}: {ratio:.2f} (medians; per round {per})")
            print(lines[-1])
    met = verdicts(args, med["this checkout"], max(r["tree_mb"] for r in runs["this checkout"]),
                   med.get(f"baseline {args.baseline}"))
    print("\n".join(met))
    lines += met
    if args.results is not None:
        append_results(args.results, commit, load_start, lines)


def verdicts(args, now: dict, memory_mb: float, base: dict | None) -> list[str]:
    """Issue 36's targets for the command run, met or not: the main job at most TARGET_RATIO of c7e230c's
    wall time and TARGET_MAIN_MB; preset:modern 67 x 1000 within TARGET_MODERN_S and TARGET_MODERN_MB."""
    out = []
    main_job = args.paradigms == "all" and args.pairs == 1000
    if main_job and args.models == "gpt2,bert-base-cased":
        if base is not None and args.baseline == "c7e230c":
            ratio = now["wall"] / base["wall"]
            out.append(f"target: wall at most {TARGET_RATIO}x of c7e230c's: {ratio:.2f}x, "
                       f"{'met' if ratio <= TARGET_RATIO else 'NOT met'}")
        out.append(f"target: at most {TARGET_MAIN_MB} MB (shared pages once): {memory_mb:.0f} MB, "
                   f"{'met' if memory_mb <= TARGET_MAIN_MB else 'NOT met'}")
    elif main_job and args.models == "preset:modern":
        ok = now["wall"] <= TARGET_MODERN_S and memory_mb <= TARGET_MODERN_MB
        out.append(f"target: within {TARGET_MODERN_S} s and {TARGET_MODERN_MB} MB: {now['wall']:.1f} s, "
                   f"{memory_mb:.0f} MB, {'met' if ok else 'NOT met'}")
    return out


def append_results(path: Path, commit: str, load_start: str, lines: list[str]) -> None:
    """Add this run's table, ratios and verdicts to a results file (markdown) under a heading with the
    date, the commit (and whether the checkout has changes), the command and the machine's load."""
    dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    load_end = " ".join(f"{x:.1f}" for x in os.getloadavg())
    text = (f"\n## {when}: commit {commit}{' (with uncommitted changes)' if dirty else ''}\n\nCommand:\n\n"
            f"    python benchmarks/generate.py {' '.join(sys.argv[1:])}\n\nMachine: {os.cpu_count()} CPUs; load "
            f"average (1, 5, 15 min) at the start {load_start}, at the end {load_end}\n\n" + "\n".join(lines) + "\n")
    with open(path, "a", encoding="utf-8") as f:
        f.write(text)
    print(f"results added to {path}")


if __name__ == "__main__":
    main()
