"""Scoring throughput: fairpairs vs a naive one-masked-copy-per-target reference vs minicons.

Prints sentences/second for causal scoring and each PLL variant, and the largest difference between
our scores and the references' (a correctness check on the very sentences timed).

    # CPU, tiny random models (built on the fly), 400 BLiMP sentences, minicons in its own venv:
    python benchmarks/score.py --minicons-python /tmp/mc-venv/bin/python
    # GPU: a real model folder, or a full-size random bert-base-cased, over all of public BLiMP:
    python benchmarks/score.py --device cuda --model <dir> --blimp-dir DIR --all
    python benchmarks/score.py --device cuda --dtype bfloat16 --full-size-bert --variants word_l2r \
        --blimp-dir DIR --all --naive-limit 0

Scale-out (--ranks): `fairpairs evaluate` of generated data (all 67 paradigms x --pairs pairs, original
and debiased) with a tiny causal and a tiny masked model, as one process and under torchrun with N
processes of --threads threads each; prints wall times and the speed-up over one process:
    python benchmarks/score.py --ranks 1,2            # 1 thread per process, 30 pairs
    python benchmarks/score.py --ranks 1,2 --device cuda --model <dir>   # one process per GPU

score_pairs vs evaluate (--api): the same loaded Scorer and the same generated pairs (original +
debiased), timed through fp.score_pairs, fp.evaluate(data, [scorer]) and fp.evaluate(data, [name]),
no cache; prints sentences/s of each (issue 23: score_pairs must run as fast as evaluate):
    python benchmarks/score.py --api                  # tiny random gpt2 and bert, 10 paradigms x 20 pairs
    python benchmarks/score.py --api --model smollm2-135m --pairs 10 --results benchmarks/results/score_api.md

Whole process (--whole-process): `fairpairs score` (CLI, a fresh process: imports, model load,
tokenisation, scoring, writing the table) against a fresh minicons process doing the same (imports,
load, score in batches of --minicons-batch, write a csv), alternating runs (--code DIR adds another
fairpairs checkout, e.g. a baseline, to the rotation); median wall and CPU (user + sys) time and peak RSS
of each, their ratios (per round and of the medians), and the largest score difference:
    python benchmarks/score.py --whole-process --minicons-python /work/venv-minicons/bin/python \
        --n-sentences 1000 --repeats 3 --code base=/tmp/base        # tiny random bert-base-cased, word_l2r
    python benchmarks/score.py --whole-process --minicons-python ... --model smollm2-135m --n-sentences 200

Issue 49's ratios (the targets are printed with the figures, met or not; --results FILE adds the table
to FILE with the commit, the command and the machine's load before and after):
    python benchmarks/score.py --whole-process --minicons-python /work/venv-minicons/bin/python --threads 1 \
        --models smollm2-135m --n-sentences 500 --repeats 3 --results benchmarks/results/score_speed.md
    python benchmarks/score.py --whole-process --minicons-python /work/venv-minicons/bin/python --threads 1 \
        --n-sentences 1000 --repeats 3 --results benchmarks/results/score_speed.md      # PLL word_l2r
(PLL at the default 400 sentences is mostly both programs' start-up: ~2.9x at best, whatever our
scoring does; benchmarks/results/score_speed.md, 2026-11-27 17:40.)
    python benchmarks/score.py --evaluate-memory --results benchmarks/results/score_speed.md
    python benchmarks/score.py --evaluate-speed --minicons-python /work/venv-minicons/bin/python --threads 1 \
        --paradigms-list determiner_noun_agreement_1,causative,wh_island --pairs 50 --repeats 3 \
        --results benchmarks/results/score_speed.md
(--evaluate-memory: peak RSS of a one-step `fairpairs evaluate --models smollm2-135m` of two paradigms
against a process that only loads the model; target at most 1.2x. --evaluate-speed: the one-step
`fairpairs evaluate` - generation, scoring, analysis, report and figures, seed 0, no cache - against a
minicons process that scores the same pairs (the original and debiased pairs of a first, untimed
evaluate run; every round's run must write the same pair files, which it checks) and computes their
accuracy per set and paradigm; target at least 1.5x.) --whole-process also scores the sentences once
more, untimed, through fairpairs' plain path (`scorer.shared_prefixes = False`: today's scores, the
issue's reference) and says whether ours are within 1e-4 nats of them per sentence; the difference to
minicons is printed apart, for reference (another program's batching and arithmetic).

minicons 0.3.39 runs in a separate interpreter (--minicons-python); its MaskedLMScorer calls the
tokenizer's batch_encode_plus, which transformers 5 no longer has: the scripts alias it to __call__
(what it was in transformers 4), so minicons can share fairpairs' transformers version:
    python -m venv /work/venv-minicons && /work/venv-minicons/bin/pip install torch==2.13.0 \
        && /work/venv-minicons/bin/pip install torch==2.13.0 minicons==0.3.39 transformers==<fairpairs'> gguf
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
DEFAULT_BLIMP = REPO.parent / "shared" / "reference" / "blimp"
MINICONS_METRIC = {"original": "original", "word_l2r": "within_word_l2r"}
TARGETS = {"causal": 1.5, "word_l2r": 3.5}      # minicons / fairpairs, whole process (issue 49)
MEMORY_TARGET = 1.2                             # one-step evaluate's peak RSS / the model's own (issue 49)
SAME_TOL = 1e-4                                 # nats per sentence

MINICONS_SCRIPT = r'''
import json, sys, time
import torch
spec = json.load(open(sys.argv[1]))
torch.set_num_threads(spec["threads"]) if spec["threads"] else None
from transformers import AutoModelForCausalLM, AutoModelForMaskedLM, PreTrainedTokenizerFast
from minicons import scorer
cfg = json.load(open(spec["model"] + "/tokenizer_config.json"))
special = {k: cfg[k] for k in ("bos_token", "eos_token", "unk_token", "pad_token", "mask_token",
                               "cls_token", "sep_token") if isinstance(cfg.get(k), str)}
tok = PreTrainedTokenizerFast(tokenizer_file=spec["model"] + "/tokenizer.json", **special)
tok.batch_encode_plus = tok.__call__   # (minicons 0.3.39 calls it; transformers 5 has only __call__)
if spec["kind"] == "causal":
    model = AutoModelForCausalLM.from_pretrained(spec["model"])
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    lm = scorer.IncrementalLMScorer(model, spec["device"], tokenizer=tok)
    run = lambda b: lm.sequence_score(b, reduction=lambda x: x.sum(0).item(), bos_token=True)
else:
    model = AutoModelForMaskedLM.from_pretrained(spec["model"])
    lm = scorer.MaskedLMScorer(model, spec["device"], tokenizer=tok)
    run = lambda b: lm.sequence_score(b, reduction=lambda x: x.sum(0).item(), PLL_metric=spec["metric"])
sents, bs = spec["sentences"], spec["batch_size"]
run(sents[:bs])  # warm-up
best, scores = None, None
for _ in range(spec["repeats"]):
    t0 = time.perf_counter()
    out = []
    for i in range(0, len(sents), bs):
        out += run(sents[i:i + bs])
    dt = time.perf_counter() - t0
    best = dt if best is None else min(best, dt)
    scores = out
print(json.dumps({"seconds": best, "scores": scores}))
'''

# What both minicons processes do first: the tokenizer (as minicons 0.3.39 needs it under transformers
# 5) and, for a causal model, the scorer (BOS, padding as minicons' docs set them).
MINICONS_TOKENIZER = r'''
kw = {"gguf_file": spec["gguf_file"]} if spec.get("gguf_file") else {}
tok = AutoTokenizer.from_pretrained(spec["model"], **kw)
tok.batch_encode_plus = tok.__call__   # (minicons 0.3.39 calls it; transformers 5 has only __call__)
def causal_lm():
    model = AutoModelForCausalLM.from_pretrained(spec["model"], dtype=torch.float32, **kw)
    if spec.get("bos_token"):
        tok.bos_token = spec["bos_token"]
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    return scorer.IncrementalLMScorer(model, "cpu", tokenizer=tok)
'''

# One whole minicons process: imports, model load, scoring in batches, a csv of the sums.
MINICONS_WHOLE = r'''
import csv, json, sys
spec = json.loads(sys.argv[1])
import torch
from transformers import AutoModelForCausalLM, AutoModelForMaskedLM, AutoTokenizer
from minicons import scorer
sents = [l for l in open(spec["input"], encoding="utf-8").read().splitlines() if l.strip()]
''' + MINICONS_TOKENIZER + r'''
if spec["kind"] == "causal":
    lm = causal_lm()
    run = lambda b: lm.sequence_score(b, reduction=lambda x: x.sum(0).item(), bos_token=True)
else:
    model = AutoModelForMaskedLM.from_pretrained(spec["model"], dtype=torch.float32)
    lm = scorer.MaskedLMScorer(model, "cpu", tokenizer=tok)
    run = lambda b: lm.sequence_score(b, reduction=lambda x: x.sum(0).item(), PLL_metric=spec["metric"])
bs, out = spec["batch_size"], []
for i in range(0, len(sents), bs):
    out += run(sents[i:i + bs])
with open(spec["out"], "w", newline="", encoding="utf-8") as f:
    w = csv.writer(f)
    w.writerow(["sentence", "sum_logprob"])
    w.writerows(zip(sents, out))
'''


# Today's fairpairs scores (issue 49's reference): the same sentences through the plain path, shared
# prefixes off, untimed, in a process of its own (the checkout under test on PYTHONPATH).
PLAIN_SCRIPT = r'''
import json, sys
spec = json.loads(sys.argv[1])
from fairpairs.scoring import Scorer
sents = [l for l in open(spec["input"], encoding="utf-8").read().splitlines() if l.strip()]
scorer = Scorer.from_pretrained(spec["model"], kind=spec["kind"], device="cpu")
scorer.shared_prefixes = False      # (the plain path: every sentence whole, as before issue 49)
df = scorer.score(sents, normalize=(), pll=spec["pll"])
df[["sentence", "sum_logprob"]].to_csv(spec["out"], index=False)
'''


def plain_scores(model: str, kind: str, variant: str, inp: Path, root: Path, env: dict) -> np.ndarray:
    """Sums of the plain path (shared prefixes off: `scorer.shared_prefixes = False`), in input order."""
    import pandas as pd

    out = root / "plain.csv"
    spec = {"model": model, "kind": kind, "pll": None if kind == "causal" else variant, "input": str(inp),
            "out": str(out)}
    (root / "plain.py").write_text(PLAIN_SCRIPT)
    _timed([sys.executable, str(root / "plain.py"), json.dumps(spec)], dict(env, PYTHONPATH=str(REPO)), root)
    return pd.read_csv(out)["sum_logprob"].to_numpy()


def score_check(ours: np.ndarray, plain: np.ndarray, minicons: np.ndarray, kind: str) -> list[str]:
    """The issue's check (our scores within SAME_TOL nats per sentence of today's plain path) and,
    labelled apart, the difference to minicons (another program's arithmetic: no tolerance of the issue)."""
    d_plain = float(np.abs(ours - plain).max())
    d_mc = float(np.abs(ours - minicons).max())
    what = "shared prefixes vs the plain path" if kind == "causal" else "PLL has no shared prefixes: plain path twice"
    return [f"scores vs today's fairpairs ({what}), per sentence: max abs diff {d_plain:.1e} nats; within "
            f"{SAME_TOL} (issue 49): {'yes' if d_plain <= SAME_TOL else 'NO'}",
            f"for reference, max abs diff vs minicons 0.3.39 (its own batching and arithmetic; not the "
            f"issue's tolerance): {d_mc:.1e} nats"]


def load_sentences(blimp_dir: Path, n: int | None) -> list[str]:
    files = sorted(blimp_dir.glob("*.jsonl"))
    if not files:
        sys.exit(f"--blimp-dir {blimp_dir}: no *.jsonl files")
    rows = [[json.loads(x) for x in f.read_text(encoding="utf-8").splitlines() if x.strip()] for f in files]
    if n is None:
        return [r[k] for rs in rows for r in rs for k in ("sentence_good", "sentence_bad")]
    per = max(1, n // (2 * len(files)))
    out, i = [], 0
    while len(out) < n and i < max(len(r) for r in rows):  # round-robin over paradigms
        for rs in rows:
            if i < len(rs) and len(out) < n:
                out += [rs[i]["sentence_good"], rs[i]["sentence_bad"]][: n - len(out)]
        i += 1
        if i >= per and len(out) >= n:
            break
    return out


def full_size_bert(out_dir: Path) -> Path:
    """Random-initialised bert-base-cased (real size and tokenizer): speed figures without weights."""
    import torch
    from transformers import AutoTokenizer, BertConfig, BertForMaskedLM

    from fairpairs.tokenization.sources import ASSETS

    tok = AutoTokenizer.from_pretrained(str(ASSETS / "bert-base-cased"))
    torch.manual_seed(0)
    model = BertForMaskedLM(BertConfig(vocab_size=len(tok), architectures=["BertForMaskedLM"]))
    model.save_pretrained(out_dir)
    tok.save_pretrained(out_dir)
    return out_dir


def time_ours(scorer, sentences, variant, repeats):
    scorer.score(sentences[:32], normalize=(), pll=None if variant == "causal" else variant)  # warm-up
    best, scores = None, None
    for _ in range(repeats):
        t0 = time.perf_counter()
        df = scorer.score(sentences, normalize=(), pll=None if variant == "causal" else variant)
        dt = time.perf_counter() - t0
        best = dt if best is None else min(best, dt)
        scores = df["sum_logprob"].to_numpy()
    return best, scores


def naive_scores(scorer, sentences, variant):
    """One masked copy per target token (all copies of a sentence in one batch), full logits."""
    import torch

    model, tok, dev = scorer.model, scorer.tokenizer, scorer.device
    out = []
    with torch.inference_mode():
        for s in sentences:
            if variant == "causal":
                ids = [scorer.bos_id] + tok(s, add_special_tokens=False)["input_ids"]
                lp = torch.log_softmax(model(torch.tensor([ids], device=dev)).logits[0].float(), -1)
                out.append(float(sum(lp[i - 1, ids[i]] for i in range(1, len(ids)))))
                continue
            enc = tok(s)
            ids, words = enc["input_ids"], enc.word_ids()
            content = [i for i, w in enumerate(words) if w is not None]
            copies, targets = [], []
            for t in content:
                if variant == "original":
                    masked = [t]
                elif variant == "word_l2r":
                    masked = [k for k in content if k >= t and words[k] == words[t]]
                elif variant == "whole_word":
                    masked = [k for k in content if words[k] == words[t]]
                else:
                    masked = [k for k in content if k >= t]
                c = list(ids)
                for k in masked:
                    c[k] = tok.mask_token_id
                copies.append(c)
                targets.append(t)
            logits = model(torch.tensor(copies, device=dev)).logits.float()
            lp = torch.log_softmax(logits, -1)
            out.append(float(sum(lp[r, t, ids[t]] for r, t in enumerate(targets))))
    return np.array(out)


def run_minicons(python, model_dir, kind, variant, sentences, args):
    spec = {"model": str(model_dir), "kind": kind, "metric": MINICONS_METRIC.get(variant),
            "sentences": sentences, "batch_size": args.minicons_batch, "repeats": args.repeats,
            "device": "cuda" if str(args.device).startswith("cuda") else "cpu", "threads": args.threads}
    with tempfile.TemporaryDirectory() as tmp:
        sf, script = Path(tmp) / "spec.json", Path(tmp) / "mc.py"
        sf.write_text(json.dumps(spec))
        script.write_text(MINICONS_SCRIPT)
        env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_NO_ADVISORY_WARNINGS="1")
        proc = subprocess.run([python, str(script), str(sf)], capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        print(f"  minicons failed: {proc.stderr.strip().splitlines()[-1] if proc.stderr else proc.returncode}")
        return None
    return json.loads(proc.stdout.strip().splitlines()[-1])


def print_row(row: dict) -> None:
    def fmt(k):
        return f"{row[k]:.1f}" if k in row else "-"

    naive = f"{row['ours_vs_naive']:.1f}x" if "ours_vs_naive" in row else "-"
    mc = f"{row['ours_sps'] / row['minicons_sps']:.1f}x" if "minicons_sps" in row else "-"

    diff = f"{row['max_abs_diff']:.1e}" if row["max_abs_diff"] is not None else "-"
    print(f"  {row['variant']:<13}{fmt('ours_sps'):>10}{fmt('naive_sps'):>11}{fmt('minicons_sps'):>14}"
          f"{naive:>12}{mc:>15}{diff:>11}", flush=True)


def _evaluate_cmd(ranks: int, models: list[str], data: Path, out: Path, device: str) -> list[str]:
    launch = [sys.executable] if ranks == 1 else [
        sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", str(ranks)]
    return launch + ["-m", "fairpairs.cli", "evaluate", "--models", ",".join(models), "--data", str(data),
                     "--out", str(out), "--device", device]


def _load() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def scale_out(args, ranks: list[int]) -> None:
    """Wall time of whole `fairpairs evaluate` runs with 1..N processes (see the module docstring),
    and of their scoring alone (rank 0's time from a model loaded to all its sentences gathered)."""
    import pandas as pd

    from fairpairs.scoring import build_tiny_model

    tmp = tempfile.TemporaryDirectory()
    root = Path(tmp.name)
    models = list(args.models or []) or [str(build_tiny_model(a, root / f"tiny-{a}"))
                                        for a in ("gpt2", "bert-base-cased")]
    data = root / "data"
    env = dict(os.environ, HF_HUB_OFFLINE="1", OMP_NUM_THREADS=str(args.threads or 1), PYTHONPATH=str(REPO))
    gen = subprocess.run([sys.executable, "-m", "fairpairs.cli", "generate", "--pairs", str(args.pairs),
                          "--out", str(data)], env=env, capture_output=True, text=True)
    if gen.returncode != 0:
        sys.exit(f"generate failed: {gen.stderr.strip()[-500:]}")
    n_pairs = sum(len(f.read_text().splitlines()) for f in data.glob("*/*.jsonl"))
    print(f"evaluate of {len(list(data.glob('original/*.jsonl')))} paradigms x {args.pairs} pairs "
          f"(original + debiased: {n_pairs} pairs) with {', '.join(Path(m).name for m in models)}; "
          f"{args.threads or 1} thread(s) per process; {os.cpu_count()} CPUs; device {args.device}")
    print(f"load before: {_load()}")
    times: dict[int, list[float]] = {r: [] for r in ranks}
    scoring: dict[int, list[float]] = {r: [] for r in ranks}
    accuracy = {}
    for rep in range(args.repeats):
        for r in ranks:  # interleaved, so a change in the machine's load hits every setting alike
            out = root / f"out-{r}-{rep}"
            t0 = time.perf_counter()
            proc = subprocess.run(_evaluate_cmd(r, models, data, out, args.device), env=env,
                                  capture_output=True, text=True)
            wall = time.perf_counter() - t0
            if proc.returncode != 0:
                sys.exit(f"{r} process(es): evaluate failed:\n{proc.stderr.strip()[-2000:]}")
            secs = [float(x) for x in re.findall(r"scored in ([0-9.]+) s after", proc.stderr)]
            if len(secs) != len(models):
                sys.exit(f"{r} process(es): no 'scored in' figure per model in:\n{proc.stderr[-1000:]}")
            loads = [float(x) for x in re.findall(r"after ([0-9.]+) s loading", proc.stderr)]
            times[r].append(wall)
            scoring[r].append(sum(secs))
            accuracy[r] = pd.read_csv(out / "accuracy.csv")
            print(f"  run {rep + 1}, {r} process(es): {wall:6.1f} s wall, {sum(secs):6.1f} s scoring "
                  f"(load {os.getloadavg()[0]:.2f})", flush=True)
    print(f"load after: {_load()}")
    base, base_scoring = min(times[ranks[0]]), min(scoring[ranks[0]])
    print(f"\n  {'processes':>9}{'wall s':>9}{'scoring s':>11}{'speed-up':>10}{'scoring speed-up':>18}"
          f"{'pairs/s':>9}  same accuracies")
    for r in ranks:
        same = accuracy[r].equals(accuracy[ranks[0]])
        print(f"  {r:>9}{min(times[r]):>9.1f}{min(scoring[r]):>11.1f}{base / min(times[r]):>9.2f}x"
              f"{base_scoring / min(scoring[r]):>17.2f}x{n_pairs * len(models) / min(times[r]):>9.1f}  {same}")
        if not same:
            sys.exit(f"{r} processes: accuracy.csv differs from {ranks[0]} process(es)")
    tmp.cleanup()


def api_speed(args) -> None:
    """fp.score_pairs vs fp.evaluate on the same model and pairs (module docstring)."""
    import torch

    import fairpairs as fp
    from fairpairs.scoring import Scorer, build_tiny_model

    if args.threads:
        torch.set_num_threads(args.threads)
    tmp = tempfile.TemporaryDirectory()
    root = Path(tmp.name)
    models = list(args.models or []) or [str(build_tiny_model(a, root / f"tiny-{a}")) for a in ("gpt2", "bert-base-cased")]
    run = root / "run"
    uids = [p["uid"] for p in fp.paradigms() if p["standard"]][: args.paradigms]
    fp.generate_run(run, paradigms=uids, pairs=args.pairs, seed=0)
    sets = fp.load_sets(run)
    n = len({s for df in sets.values() for s in (*df.sentence_good, *df.sentence_bad)})
    lines = [f"score_pairs vs evaluate: {len(uids)} paradigms x {args.pairs} pairs, original + debiased "
             f"({n} distinct sentences), no cache; torch {torch.__version__}, {torch.get_num_threads()} CPU "
             f"threads, device {args.device}; best of {args.repeats}", "",
             "| model | score_pairs(scorer) s/s | evaluate([scorer]) s/s | evaluate([name]) s/s (load s) | same outcomes |",
             "|---|---:|---:|---:|---|"]
    print(lines[0])
    for m in models:
        scorer = Scorer.from_pretrained(m, device=args.device, dtype=args.dtype, progress=False)
        dtype = str(scorer.dtype).removeprefix("torch.")
        best = {"pairs": [], "scorer": [], "name": []}
        load = []
        for _ in range(args.repeats):   # in turns, so a change in the machine's load hits all three alike
            t0 = time.perf_counter()
            sp = fp.score_pairs(scorer, sets, "lp,mean_lp,pen_lp")
            best["pairs"].append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            ev = fp.evaluate(sets, [scorer])
            best["scorer"].append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            named = fp.evaluate(sets, [m], device=args.device, dtype=dtype)
            label = next(iter(named.load_seconds))
            best["name"].append(time.perf_counter() - t0 - named.load_seconds[label])
            load.append(named.load_seconds[label])
        first = ev.pairs[ev.pairs.normalization == "lp"].reset_index(drop=True)
        same = sp["correct"].tolist() == first["outcome"].eq(1).tolist()
        sps = {k: n / min(v) for k, v in best.items()}
        lines.append(f"| {Path(m).name} | {sps['pairs']:.1f} | {sps['scorer']:.1f} | {sps['name']:.1f} "
                     f"({min(load):.1f}) | {same} |")
        print(lines[-1], flush=True)
    if args.results:
        commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True).stdout.strip()
        command = "python benchmarks/score.py " + " ".join(sys.argv[1:])
        args.results.write_text("# score_pairs vs evaluate: the same model, the same pairs\n\n"
                                f"Commit {commit}; command: `{command}`\n\n" + "\n".join(lines) + "\n"
                                "\nevaluate([name]) excludes loading (shown apart). score_pairs and evaluate "
                                "score the same distinct sentences with the same Scorer.\n")
    tmp.cleanup()


def _timed(cmd: list[str], env: dict, cwd: Path) -> tuple[float, float, float, str]:
    """Wall seconds, CPU seconds (user + sys), peak RSS (MB) and stderr of one whole process, run in
    `cwd` (`python -m` puts its working folder first on sys.path, before PYTHONPATH: started in a
    checkout, every process would import that checkout's fairpairs, whatever --code says)."""
    t0 = time.perf_counter()
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        text = err.read().decode("utf-8", "replace")
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd[:4])} ... failed ({proc.returncode}):\n{text[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, text


def gguf_note(args) -> str:
    """How the timed rounds of --whole-process and --evaluate-speed read a GGUF model."""
    if args.gguf_each_time:
        return "every fairpairs process reads the GGUF file (FAIRPAIRS_KEEP_CONVERTED=off)"
    return ("fairpairs reads the de-quantised model an untimed first load kept (scoring.converted; a user's second "
            "and later runs); minicons reads the GGUF file every time")


def whole_process(args) -> None:
    """`fairpairs score` vs a minicons process, whole process, alternating (module docstring)."""
    import pandas as pd

    from fairpairs.scoring import build_tiny_model
    from fairpairs.scoring.models import resolve_model_name

    if not args.minicons_python:
        sys.exit("--whole-process needs --minicons-python")
    tmp = tempfile.TemporaryDirectory()
    root = Path(tmp.name)
    model = (args.models or [None])[0] or str(build_tiny_model("bert-base-cased", root / "tiny-bert-base-cased"))
    sentences = load_sentences(args.blimp_dir, None if args.all else args.n_sentences)
    inp = root / "sentences.txt"
    inp.write_text("\n".join(sentences) + "\n", encoding="utf-8")
    src = resolve_model_name(model)
    kind = args.kind or ("causal" if src.gguf_file else "masked")
    variant = "causal" if kind == "causal" else (args.variants or "word_l2r").split(",")[0].strip()
    codes = [("fairpairs", str(REPO))] + [tuple(c.split("=", 1)) for c in args.code or []]
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_NO_ADVISORY_WARNINGS="1",
               FAIRPAIRS_MODEL_CACHE=str(root / "models"), FAIRPAIRS_KEEP_CONVERTED="off" if args.gguf_each_time else "on")
    if args.threads:
        env["OMP_NUM_THREADS"] = str(args.threads)
    if src.gguf_file and not args.gguf_each_time:     # (untimed: the first load keeps the de-quantised model)
        (root / "one.txt").write_text(sentences[0] + "\n", encoding="utf-8")
        _timed([sys.executable, "-m", "fairpairs.cli", "score", "--models", model, "--input", str(root / "one.txt"),
                "--out", str(root / "one.csv"), "--no-progress", "--device", "cpu"], dict(env, PYTHONPATH=str(REPO)), root)
        print(f"GGUF: {gguf_note(args)}", flush=True)
    spec = {"model": src.path, "gguf_file": src.gguf_file, "bos_token": src.bos_token, "kind": kind,
            "metric": MINICONS_METRIC.get(variant), "input": str(inp), "out": str(root / "minicons.csv"),
            "batch_size": args.minicons_batch}
    (root / "mc.py").write_text(MINICONS_WHOLE)
    runs = {name: [] for name, _ in codes + [("minicons", "")]}
    outs = {}
    print(f"whole process: {len(sentences)} BLiMP sentences, {Path(model).name} ({kind}, "
          f"{'PLL ' + variant if kind == 'masked' else 'causal'}), {args.repeats} alternating rounds; "
          f"{os.cpu_count()} CPUs; OMP_NUM_THREADS={env.get('OMP_NUM_THREADS', 'unset')}")
    load_before = _load()
    print(f"load before: {load_before}", flush=True)
    for rep in range(args.repeats):
        for name, code in codes + [("minicons", "")]:
            if name == "minicons":
                cmd = [args.minicons_python, str(root / "mc.py"), json.dumps(spec)]
                out = root / "minicons.csv"
            else:
                out = root / f"{name}.csv"
                out.unlink(missing_ok=True)
                cmd = [sys.executable, "-m", "fairpairs.cli", "score", "--models", model, "--input", str(inp),
                       "--out", str(out), "--normalize", "lp", "--no-progress", "--device", "cpu"]
                cmd += ["--kind", kind] + (["--pll", variant] if kind == "masked" else [])
            wall, cpu, rss, _ = _timed(cmd, dict(env, PYTHONPATH=code) if code else env, root)
            runs[name].append((wall, cpu, rss))
            outs[name] = pd.read_csv(out)["sum_logprob"].to_numpy()
            print(f"  round {rep + 1} {name:<12} {wall:7.1f} s wall {cpu:7.1f} s CPU {rss:7.0f} MB "
                  f"(load {os.getloadavg()[0]:.1f})", flush=True)
    load_after = _load()
    print(f"load after: {load_after}")
    for name, _ in codes:
        print(f"minicons / {name} per round: wall " + ", ".join(
            f"{m[0] / o[0]:.2f}x" for m, o in zip(runs["minicons"], runs[name])) + "; CPU " + ", ".join(
            f"{m[1] / o[1]:.2f}x" for m, o in zip(runs["minicons"], runs[name])))
    med = {k: (float(np.median([w for w, _, _ in v])), float(np.median([c for _, c, _ in v])),
               max(r for _, _, r in v)) for k, v in runs.items()}
    mc_wall, mc_cpu, _ = med["minicons"]
    lines = ["| process | wall s, median | CPU s, median | peak RSS MB, max | minicons / it, wall | "
             "minicons / it, CPU | max abs score diff vs minicons |", "|---|---:|---:|---:|---:|---:|---:|"]
    for name, (wall, cpu, rss) in med.items():
        diff = "-" if name == "minicons" else f"{float(np.abs(outs[name] - outs['minicons']).max()):.1e}"
        ratio = "-" if name == "minicons" else f"{mc_wall / wall:.2f}x"
        cratio = "-" if name == "minicons" else f"{mc_cpu / cpu:.2f}x"
        lines.append(f"| {name} | {wall:.1f} | {cpu:.1f} | {rss:.0f} | {ratio} | {cratio} | {diff} |")
    for name, _ in codes[1:]:
        same = bool(np.array_equal(outs[name], outs["fairpairs"]))
        lines.append(f"\n{name} vs fairpairs: scores identical: {same}; max abs diff "
                     f"{float(np.abs(outs[name] - outs['fairpairs']).max()):.1e}")
    target = TARGETS.get(variant)
    verdict = (f"minicons / fairpairs, median wall: {mc_wall / med['fairpairs'][0]:.2f}x, CPU "
               f"{mc_cpu / med['fairpairs'][1]:.2f}x; target >= {target}x: "
               f"{'met' if mc_wall / med['fairpairs'][0] >= target else 'NOT met'} (wall)" if target else "")
    lines.append(f"\n{verdict}")
    if src.gguf_file:
        lines.append(f"\nGGUF: {gguf_note(args)}")
    lines += ["", *score_check(outs["fairpairs"], plain_scores(model, kind, variant, inp, root, env), outs["minicons"],
                               kind)]
    print("\n".join(lines))
    if args.results:
        what = f"{len(sentences)} BLiMP sentences, {Path(model).name}, {'PLL ' + variant if kind == 'masked' else 'causal'}"
        append_results(args.results, f"whole process vs minicons: {what}", lines, load_before, load_after)
    if args.json_out:
        args.json_out.write_text(json.dumps({"runs": runs, "median": med}, indent=2) + "\n")
    tmp.cleanup()


def append_results(path: Path, title: str, lines: list[str], load_before: str, load_after: str) -> None:
    """Add a section to a results file (markdown): the date, the commit (and whether the checkout has
    changes), the command, the machine (CPUs, load before and after) and the table."""
    git = ["git", "-C", str(REPO)]
    commit = subprocess.run(git + ["rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(git + ["status", "--porcelain", "--untracked-files=no"], capture_output=True,
                           text=True).stdout.strip()
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    command = "python benchmarks/score.py " + " ".join(sys.argv[1:])
    text = (f"\n## {when}: {title}\n\nCommit {commit}{' (with uncommitted changes)' if dirty else ''}; command:\n\n"
            f"    {command}\n\nMachine: {os.cpu_count()} CPUs; load before: {load_before}; after: {load_after}\n\n"
            + "\n".join(lines) + "\n")
    with open(path, "a", encoding="utf-8") as f:
        f.write(text)
    print(f"results added to {path}")


# One minicons process standing for a one-step evaluation: imports, load, the unique sentences of
# the run's original and debiased pairs scored (batches of 32), accuracy per set and paradigm.
MINICONS_EVALUATE = r'''
import csv, json, sys
from pathlib import Path
spec = json.loads(sys.argv[1])
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer
from minicons import scorer
pairs = []
for part in ("original", "debiased"):
    for f in sorted((Path(spec["run"]) / part).glob("*.jsonl")):
        for line in f.read_text(encoding="utf-8").splitlines():
            if line.strip():
                r = json.loads(line)
                pairs.append((part, r["uid"], r["sentence_good"], r["sentence_bad"]))
sents = list(dict.fromkeys(s for p in pairs for s in p[2:]))
''' + MINICONS_TOKENIZER + r'''
lm = causal_lm()
bs, out = spec["batch_size"], []
for i in range(0, len(sents), bs):
    out += lm.sequence_score(sents[i:i + bs], reduction=lambda x: x.sum(0).item(), bos_token=True)
score = dict(zip(sents, out))
acc = {}
for part, uid, g, b in pairs:
    for key in ((part, uid), (part, "ALL")):
        n, k = acc.get(key, (0, 0))
        acc[key] = (n + 1, k + (score[g] > score[b]))
with open(spec["out"], "w", newline="", encoding="utf-8") as f:
    w = csv.writer(f)
    w.writerow(["set", "uid", "n_pairs", "accuracy"])
    w.writerows([part, uid, n, k / n] for (part, uid), (n, k) in sorted(acc.items()))
'''


def _tree_digest(folder: Path) -> str:
    """sha256 over the relative names and bytes of the pair files under `folder` (run/original, run/debiased)."""
    import hashlib

    h = hashlib.sha256()
    for f in sorted(folder.glob("*/*.jsonl")):
        h.update(f"{f.parent.name}/{f.name}\0".encode() + f.read_bytes())
    return h.hexdigest()


def _accuracies(pair_scores: Path) -> dict[tuple[str, str], float]:
    """(set, uid or ALL) -> share of pairs whose `lp` outcome is correct, from evaluate's pair_scores.csv."""
    import pandas as pd

    ps = pd.read_csv(pair_scores)
    ps = ps[ps["normalization"] == "lp"]
    out = {(k[0], k[1]): float(v) for k, v in ps.groupby(["set", "uid"])["outcome"].apply(lambda o: (o == 1).mean()).items()}
    out.update({(k, "ALL"): float(v) for k, v in ps.groupby("set")["outcome"].apply(lambda o: (o == 1).mean()).items()})
    return out


def evaluate_speed(args) -> None:
    """One-step `fairpairs evaluate` (generation, scoring, analysis, report, figures) against a minicons
    process scoring the same pairs plus their accuracy, whole processes, alternating rounds (issue 49)."""
    import pandas as pd

    from fairpairs.scoring.models import resolve_model_name

    if not args.minicons_python:
        sys.exit("--evaluate-speed needs --minicons-python")
    model = (args.models or ["smollm2-135m"])[0]
    src = resolve_model_name(model)
    tmp = tempfile.TemporaryDirectory()
    root = Path(tmp.name)
    env = dict(os.environ, HF_HUB_OFFLINE="1", PYTHONPATH=str(REPO), FAIRPAIRS_DISABLE_PROGRESS_BARS="1",
               TRANSFORMERS_NO_ADVISORY_WARNINGS="1", FAIRPAIRS_MODEL_CACHE=str(root / "models"),
               FAIRPAIRS_KEEP_CONVERTED="off" if args.gguf_each_time else "on")
    if args.threads:
        env["OMP_NUM_THREADS"] = str(args.threads)
    pairs = args.pairs or 50
    kept = gguf_note(args)

    def evaluate(out: Path) -> list[str]:
        return [sys.executable, "-m", "fairpairs.cli", "evaluate", "--models", model, "--paradigms",
                args.paradigms_list, "--pairs", str(pairs), "--seed", "0", "--no-cache", "--out", str(out),
                "--device", "cpu"]

    print(f"one-step evaluate vs minicons: {model}, {args.paradigms_list}, {pairs} pairs per paradigm and set, "
          f"seed 0, no cache; {args.repeats} alternating rounds; OMP_NUM_THREADS={env.get('OMP_NUM_THREADS', 'unset')}; "
          f"{kept}", flush=True)
    _timed(evaluate(root / "first"), env, root)      # (untimed: writes the pairs minicons scores)
    digest = _tree_digest(root / "first" / "run")
    n_sent = len({s for f in (root / "first" / "run").glob("*/*.jsonl") for line in f.read_text().splitlines()
                  if line.strip() for s in (json.loads(line)["sentence_good"], json.loads(line)["sentence_bad"])})
    spec = {"run": str(root / "first" / "run"), "model": src.path, "gguf_file": src.gguf_file,
            "bos_token": src.bos_token, "batch_size": args.minicons_batch, "out": str(root / "minicons.csv")}
    (root / "mc_eval.py").write_text(MINICONS_EVALUATE)
    load_before = _load()
    runs = {"fairpairs evaluate": [], "minicons": []}
    same_pairs = True
    for rep in range(args.repeats):
        out = root / f"eval-{rep}"
        for name, cmd in (("fairpairs evaluate", evaluate(out)),
                          ("minicons", [args.minicons_python, str(root / "mc_eval.py"), json.dumps(spec)])):
            wall, cpu, rss, _ = _timed(cmd, env, root)
            runs[name].append((wall, cpu, rss))
            print(f"  round {rep + 1} {name:<18} {wall:7.1f} s wall {cpu:7.1f} s CPU {rss:7.0f} MB "
                  f"(load {os.getloadavg()[0]:.1f})", flush=True)
        same_pairs &= _tree_digest(out / "run") == digest
    load_after = _load()
    ours = _accuracies(root / f"eval-{args.repeats - 1}" / "pair_scores.csv")
    theirs = {(r.set, r.uid): r.accuracy for r in pd.read_csv(root / "minicons.csv").itertuples()}
    ratio_w = [m[0] / o[0] for m, o in zip(runs["minicons"], runs["fairpairs evaluate"])]
    ratio_c = [m[1] / o[1] for m, o in zip(runs["minicons"], runs["fairpairs evaluate"])]
    med = {k: (float(np.median([w for w, _, _ in v])), float(np.median([c for _, c, _ in v])), max(r for _, _, r in v))
           for k, v in runs.items()}
    target = TARGETS["causal"]
    wall_ratio, cpu_ratio = med["minicons"][0] / med["fairpairs evaluate"][0], med["minicons"][1] / med["fairpairs evaluate"][1]
    lines = ["| process | wall s (rounds) | CPU s (rounds) | peak RSS MB, max |", "|---|---|---|---:|"]
    for name, v in runs.items():
        lines.append(f"| {name} | {', '.join(f'{w:.1f}' for w, _, _ in v)} | {', '.join(f'{c:.1f}' for _, c, _ in v)} "
                     f"| {med[name][2]:.0f} |")
    acc_rows = sorted(set(ours) | set(theirs))
    acc_diff = max(abs(ours.get(k, np.nan) - theirs.get(k, np.nan)) for k in acc_rows)
    lines += ["", f"GGUF: {kept}",
              f"{n_sent} distinct sentences (original + debiased pairs of the first run, which every round "
              f"generated again: same pair files {'in every round' if same_pairs else 'NOT in every round'})",
              f"minicons / fairpairs per round: wall {', '.join(f'{r:.2f}x' for r in ratio_w)}; CPU "
              f"{', '.join(f'{r:.2f}x' for r in ratio_c)}",
              f"medians: wall {wall_ratio:.2f}x, CPU {cpu_ratio:.2f}x; target >= {target}x: "
              f"{'met' if wall_ratio >= target else 'NOT met'} (wall), {'met' if cpu_ratio >= target else 'NOT met'} (CPU)",
              f"lp accuracy per set and paradigm, fairpairs vs minicons: largest difference {acc_diff * 100:.1f} points "
              f"(ALL: " + ", ".join(f"{k[0]} {ours.get(k, np.nan):.3f} vs {theirs.get(k, np.nan):.3f}"
                                    for k in acc_rows if k[1] == "ALL") + ")"]
    print("\n".join(lines))
    if args.results:
        append_results(args.results, f"one-step evaluate vs minicons: {model}, {args.paradigms_list}, {pairs} pairs",
                       lines, load_before, load_after)
    tmp.cleanup()


def evaluate_memory(args) -> None:
    """Peak RSS of a one-step `fairpairs evaluate` (generate + score) against the model's own: the
    peak RSS of a process that only loads the model (`Scorer.from_pretrained`) and scores nothing."""
    model = (args.models or ["smollm2-135m"])[0]
    tmp = tempfile.TemporaryDirectory()
    root = Path(tmp.name)
    env = dict(os.environ, HF_HUB_OFFLINE="1", PYTHONPATH=str(REPO), FAIRPAIRS_DISABLE_PROGRESS_BARS="1")
    if args.threads:
        env["OMP_NUM_THREADS"] = str(args.threads)
    load_before = _load()
    alone = [sys.executable, "-c", "import sys; from fairpairs.scoring import Scorer; "
             "Scorer.from_pretrained(sys.argv[1], device='cpu')", model]
    evaluate = [sys.executable, "-m", "fairpairs.cli", "evaluate", "--models", model, "--paradigms", args.paradigms_list,
                "--pairs", str(args.pairs or 20), "--out", str(root / "eval"), "--device", "cpu"]
    w_alone, c_alone, rss_alone, _ = _timed(alone, env, root)
    w_eval, c_eval, rss_eval, _ = _timed(evaluate, env, root)
    ratio = rss_eval / rss_alone
    lines = ["| process | wall s | CPU s | peak RSS MB |", "|---|---:|---:|---:|",
             f"| the model loaded alone | {w_alone:.1f} | {c_alone:.1f} | {rss_alone:.0f} |",
             f"| one-step evaluate ({args.paradigms_list}, {args.pairs or 20} pairs) | {w_eval:.1f} | {c_eval:.1f} | "
             f"{rss_eval:.0f} |",
             f"\nevaluate's peak / the model's own: {ratio:.2f}x; target <= {MEMORY_TARGET}x: "
             f"{'met' if ratio <= MEMORY_TARGET else 'NOT met'}"]
    print("\n".join(lines))
    if args.results:
        append_results(args.results, f"one-step evaluate's peak memory, {model}", lines, load_before, _load())
    tmp.cleanup()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", action="append", help="model folder / name (repeatable); default: tiny "
                    "random gpt2 and bert-base-cased built on the fly")
    ap.add_argument("--full-size-bert", action="store_true", help="add a random full-size bert-base-cased")
    ap.add_argument("--blimp-dir", type=Path, default=DEFAULT_BLIMP, help="folder of BLiMP *.jsonl")
    ap.add_argument("--n-sentences", type=int, default=400)
    ap.add_argument("--all", action="store_true", help="every sentence in --blimp-dir")
    ap.add_argument("--variants", default=None, help="PLL variants for masked models (default: all four; "
                    "--whole-process: word_l2r)")
    ap.add_argument("--device", default="auto")
    ap.add_argument("--dtype", default=None, help="bfloat16 / float16 on a GPU")
    ap.add_argument("--batch-tokens", type=int, default=None)
    ap.add_argument("--threads", type=int, default=None, help="torch CPU threads (ours and minicons)")
    ap.add_argument("--repeats", type=int, default=2, help="timed runs; the best is reported")
    ap.add_argument("--naive-limit", type=int, default=200, help="sentences timed for the naive reference "
                    "(0: skip)")
    ap.add_argument("--minicons-python", default=None, help="python of a venv with minicons 0.3.39")
    ap.add_argument("--minicons-batch", type=int, default=32)
    ap.add_argument("--json-out", type=Path, default=None)
    ap.add_argument("--ranks", default=None, help="scale-out: comma-separated process counts, e.g. 1,2")
    ap.add_argument("--pairs", type=int, default=None, help="scale-out (default 30) and --api (default 20): "
                    "pairs per paradigm and set")
    ap.add_argument("--api", action="store_true", help="time fp.score_pairs against fp.evaluate")
    ap.add_argument("--paradigms", type=int, default=10, help="--api: the first N standard paradigms")
    ap.add_argument("--whole-process", action="store_true", help="time whole `fairpairs score` processes "
                    "against whole minicons processes, alternating")
    ap.add_argument("--code", action="append", help="--whole-process: NAME=DIR, another fairpairs checkout to "
                    "time in the rotation (e.g. base=/tmp/base)")
    ap.add_argument("--kind", default=None, help="--whole-process: causal or masked (default: masked, "
                    "causal for a GGUF)")
    ap.add_argument("--results", type=Path, default=None, help="--whole-process, --evaluate-memory: add the "
                    "table to this markdown file with the commit, the command and the machine's load; --api: write it")
    ap.add_argument("--evaluate-memory", action="store_true", help="peak RSS of a one-step `fairpairs evaluate` "
                    "(--models, default smollm2-135m; --paradigms-list, --pairs) against the model loaded alone")
    ap.add_argument("--paradigms-list", default="determiner_noun_agreement_1,wh_island",
                    help="--evaluate-memory, --evaluate-speed: the paradigms evaluated")
    ap.add_argument("--evaluate-speed", action="store_true", help="one-step `fairpairs evaluate` (--models, default "
                    "smollm2-135m; --paradigms-list; --pairs, default 50; seed 0, no cache) against a minicons process "
                    "scoring the same pairs and their accuracy, whole processes, alternating (issue 49)")
    ap.add_argument("--gguf-each-time", action="store_true", help="--evaluate-speed, --whole-process: fairpairs reads the GGUF file in "
                    "every round (FAIRPAIRS_KEEP_CONVERTED=off), as minicons does; default: the de-quantised model "
                    "the first, untimed run kept")
    args = ap.parse_args()
    if args.evaluate_speed:
        return evaluate_speed(args)
    if args.evaluate_memory:
        return evaluate_memory(args)
    if args.whole_process:
        return whole_process(args)
    if args.api:
        args.pairs = args.pairs or 20
        return api_speed(args)
    args.pairs = args.pairs or 30
    if args.ranks:
        ranks = [int(r) for r in args.ranks.split(",")]
        return scale_out(args, ranks)

    import torch

    from fairpairs.scoring import Scorer, build_tiny_model

    if args.threads:
        torch.set_num_threads(args.threads)
    sentences = load_sentences(args.blimp_dir, None if args.all else args.n_sentences)
    tmp = tempfile.TemporaryDirectory()
    models = list(args.models or [])
    if not models and not args.full_size_bert:
        models = [str(build_tiny_model(a, Path(tmp.name) / a)) for a in ("gpt2", "bert-base-cased")]
    if args.full_size_bert:
        models.append(str(full_size_bert(Path(tmp.name) / "bert-base-cased-random")))
    print(f"{len(sentences)} BLiMP sentences; torch {torch.__version__}, {torch.get_num_threads()} CPU threads; "
          f"device {args.device}")
    results = []
    for m in models:
        scorer = Scorer.from_pretrained(m, device=args.device, dtype=args.dtype,
                                        batch_tokens=args.batch_tokens, progress=False)
        variants = ["causal"] if scorer.kind == "causal" else [v.strip() for v in (args.variants or "original,word_l2r,whole_word,sentence_l2r").split(",")]
        print(f"\n{Path(m).name} ({scorer.kind}, {sum(p.numel() for p in scorer.model.parameters()) / 1e6:.1f}M "
              f"params, device {scorer.device}, batch budget {scorer.batch_tokens} tokens)")
        print(f"  {'variant':<13}{'ours s/s':>10}{'naive s/s':>11}{'minicons s/s':>14}{'ours/naive':>12}"
              f"{'ours/minicons':>15}{'max|diff|':>11}")
        for v in variants:
            secs, ours = time_ours(scorer, sentences, v, args.repeats)
            row = {"model": Path(m).name, "variant": v, "sentences": len(sentences), "ours_sps": len(sentences) / secs}
            diffs = []
            if args.naive_limit:
                sub = sentences[: args.naive_limit]
                naive_scores(scorer, sub[:4], v)
                t0 = time.perf_counter()
                ref = naive_scores(scorer, sub, v)
                naive_secs = time.perf_counter() - t0
                row["naive_sps"] = len(sub) / naive_secs
                # the speed-up compares the same sentences (the naive run may time only a subset)
                sub_secs = secs if len(sub) == len(sentences) else time_ours(scorer, sub, v, args.repeats)[0]
                row["ours_vs_naive"] = naive_secs / sub_secs
                diffs.append(float(np.abs(ref - ours[: len(sub)]).max()))
            if args.minicons_python and (v == "causal" or v in MINICONS_METRIC):
                mc = run_minicons(args.minicons_python, m, scorer.kind, v, sentences, args)
                if mc:
                    row["minicons_sps"] = len(sentences) / mc["seconds"]
                    diffs.append(float(np.abs(np.array(mc["scores"]) - ours).max()))
            row["max_abs_diff"] = max(diffs) if diffs else None
            results.append(row)
            print_row(row)
    if args.json_out:
        args.json_out.write_text(json.dumps(results, indent=2) + "\n")
    tmp.cleanup()


if __name__ == "__main__":
    main()
