"""Generation speed: a whole run (original + debiased sets, balance report, files), timed.

    python benchmarks/generate.py                                   # the main job: 67 x 1000, gpt2 + bert-base-cased
    python benchmarks/generate.py --baseline 9b4a4c6                # ... and the same with an earlier commit, in one run
    python benchmarks/generate.py --models preset:modern --real-map # 8 real tokenizers (benchmarks/real_tokenizers.py)

Prints per-paradigm statistics of the debiased set and the run's time. With `--baseline REV` the
commit REV is checked out in a temporary git worktree and both versions run the same job, taking
turns (`--rounds` each, so that a busy machine slows both alike); the figures compared are CPU
seconds of the run and of the whole process (imports and tokenizers too), the median of the rounds,
and their ratios. Targets: issue 36 - the main job at most 0.5x of c7e230c's time and 300 MB;
preset:modern 67 x 1000 within 30 s and 700 MB.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def run_once(args) -> dict:
    """Run the job with the fairpairs on sys.path; its figures as a dict."""
    from fairpairs.generation.selection import select_paradigms
    from fairpairs.control.run import RunConfig, generate_run
    from fairpairs.tokenization.sources import expand
    from fairpairs.tokenization.lengths import LengthMeter

    if args.real_map:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import real_tokenizers as real

        os.environ["FAIRPAIRS_TOKENIZER_MAP"] = str(real.write_map(Path(tempfile.mkdtemp()) / "map.yaml"))
    t0, c0 = time.perf_counter(), time.process_time()
    vocab, paradigms = select_paradigms(args.paradigms, None, None)
    models = expand(args.models.split(","))
    for m in models:
        LengthMeter(m)
    load = (time.perf_counter() - t0, time.process_time() - c0)
    with tempfile.TemporaryDirectory() as tmp:
        t1, c1 = time.perf_counter(), time.process_time()
        res = generate_run(paradigms, vocab, RunConfig(models=models, pairs=args.pairs, seed=args.seed,
                                                       strategy=args.strategy), Path(tmp) / "run")
        gen = (time.perf_counter() - t1, time.process_time() - c1)
    stats = {uid: s["debiased"].as_dict() if hasattr(s["debiased"], "as_dict") else {} for uid, s in res.stats.items()}
    return {"load_wall": load[0], "load_cpu": load[1], "wall": gen[0], "cpu": gen[1], "paradigms": len(paradigms),
            "models": models, "stats": stats,
            "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "process_cpu": time.process_time()}     # the whole process: imports, tokenizers, the run


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--paradigms", default="all", help="comma-separated UIDs or 'all'")
    ap.add_argument("--pairs", type=int, default=1000)
    ap.add_argument("--models", default="gpt2,bert-base-cased")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--strategy", default="search", choices=["search", "resample"])
    ap.add_argument("--real-map", action="store_true", help="load preset:modern's files through a written map")
    ap.add_argument("--baseline", metavar="REV", help="also time commit REV, in turns with this checkout")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", action="store_true", help=argparse.SUPPRESS)   # (one run, figures as JSON)
    args = ap.parse_args()
    if args.json:
        print(json.dumps(run_once(args)))
        return

    def timed(root: Path) -> dict:
        env = {**os.environ, "PYTHONPATH": str(root)}
        cmd = [sys.executable, str(Path(__file__).resolve()), "--json", "--paradigms", args.paradigms,
               "--pairs", str(args.pairs), "--models", args.models, "--seed", str(args.seed),
               "--strategy", args.strategy] + (["--real-map"] if args.real_map else [])
        out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True, cwd=tempfile.gettempdir())
        return json.loads(out.stdout.strip().splitlines()[-1])

    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    print(f"commit {commit}; command: python benchmarks/generate.py {' '.join(sys.argv[1:])}")
    runs = {"this checkout": []}
    base = None
    if args.baseline:
        base = Path(tempfile.mkdtemp(prefix="fairpairs-baseline-")) / "tree"
        subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", str(base), args.baseline],
                       check=True, capture_output=True)
        runs[f"baseline {args.baseline}"] = []
    try:
        for _ in range(args.rounds):
            if base is not None:
                runs[f"baseline {args.baseline}"].append(timed(base))
            runs["this checkout"].append(timed(REPO))
    finally:
        if base is not None:
            subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(base)], capture_output=True)
    now = runs["this checkout"][-1]
    print(f"{now['paradigms']} paradigms x {args.pairs} pairs (original + debiased, strategy {args.strategy}), "
          f"tokenizers {', '.join(now['models'])}; load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}\n")
    print(f"{'paradigm':55s} {'kept':>5s} {'as drawn':>8s} {'redrawn':>8s} {'replaced':>8s} {'dropped':>7s} "
          f"{'yield':>7s} {'draws/kept':>10s}")
    for uid, d in now["stats"].items():
        print(f"{uid:55s} {d['kept']:5d} {d['kept_as_drawn']:8d} {d['kept_redrawn']:8d} {d['replaced']:8d} "
              f"{d['dropped']:7d} {d['yield'] or 0:7.1%} {d['draws_per_kept'] or 0:10.2f}")
    print("\n| code | run CPU (s), median of rounds (each) | whole process CPU (s), median | run wall (s), median "
          "| load tokenizers (s) | peak RSS (MB), max |")
    print("|---|---:|---:|---:|---:|---:|")
    med = {}
    for name, rs in runs.items():
        med[name] = {k: statistics.median(r[k] for r in rs) for k in ("cpu", "process_cpu", "wall", "load_wall")}
        cpus = ", ".join(f"{r['cpu']:.1f}" for r in rs)
        m = med[name]
        print(f"| {name} | {m['cpu']:.1f} ({cpus}) | {m['process_cpu']:.1f} | {m['wall']:.1f} | "
              f"{m['load_wall']:.1f} | {max(r['peak_mb'] for r in rs):.0f} |")
    if base is not None:
        for what in ("cpu", "process_cpu"):
            ratio = med["this checkout"][what] / med[f"baseline {args.baseline}"][what]
            print(f"\n{what} ratio this checkout / baseline (medians): {ratio:.2f}")


if __name__ == "__main__":
    main()
