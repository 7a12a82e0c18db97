"""Fit the length parameters of `tc_lp`, `tcf_lp` and `slln_lp` (fairpairs/scoring/length.py) for a
model on unlabelled WikiText-2 sentences, and store them in a `fairpairs-length/1` file (merged
with the entries already there). The bundled fairpairs/assets/length_params.json was written by

    python benchmarks/fit_length.py --model smollm2-135m \\
        --corpus /work/shared/reference/wikitext-2/valid.txt --corpus /work/shared/reference/wikitext-2/test.txt \\
        --n 1000 --seed 0 --out fairpairs/assets/length_params.json

(reads /work/shared (the ../shared of a plain checkout): a benchmark, never the product). No minimal pair is used.
`fairpairs fit-length --model smollm2-135m --out FILE` fits the same 1,000 sentences (the bundled excerpt,
fairpairs/assets/corpus, holds them; seed 0). The bundled entry's `model_sha256` (the GGUF's content
fingerprint, `fairpairs.scoring.fingerprint`) was added after the fit, without refitting.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import time
from pathlib import Path

from fairpairs.scoring import Scorer
from fairpairs.scoring.length import fit_length_params, read_params_file, save_params_file


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", required=True)
    ap.add_argument("--name", default=None, help="key to store the entry under (default: the model)")
    ap.add_argument("--corpus", action="append", required=True)
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    start = time.perf_counter()
    scorer = Scorer.from_pretrained(args.model, device="cpu")
    entry = fit_length_params(scorer, args.corpus, n=args.n, seed=args.seed, model=args.name or args.model)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    entry["command"] = ("python benchmarks/fit_length.py --model " + args.model
                        + "".join(f" --corpus {c}" for c in args.corpus)
                        + f" --n {args.n} --seed {args.seed} --out {args.out}")
    entry["commit"] = commit
    models = read_params_file(args.out) if Path(args.out).is_file() else {}
    models[args.name or args.model] = entry
    save_params_file(args.out, models)
    print(json.dumps(entry, indent=1))
    print(f"{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
