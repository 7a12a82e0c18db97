"""Fidelity report: each generated paradigm vs the public BLiMP file of the same UID.

    python benchmarks/fidelity.py                                  # text statistics, all standard paradigms
    python benchmarks/fidelity.py --score --out benchmarks/results/fidelity.md   # + SmolLM2 accuracy
    python benchmarks/fidelity.py --run outputs/gpt2+bert-base-cased-s0 --paradigms transitive,causative

Generates the original (uncontrolled) set of every paradigm with the package API (or reads
--run DIR/original/<uid>.jsonl) and compares it with BLiMP (--blimp DIR/<uid>.jsonl): words per
sentence, share of BLiMP's vocabulary used, same-words pairs (not BLiMP's lexically_identical) and, with --score, the
accuracy of a causal LM (SmolLM2-135M by default, CPU) on the first --score-pairs pairs of each,
flagging |ours - BLiMP| > --threshold points. See docs/fidelity.md.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_BLIMP = REPO.parent / "shared" / "reference" / "blimp"


def parse_args(argv=None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--paradigms", default=None,
                    help="comma-separated UIDs or 'all' (default: all standard paradigms; with --run, "
                         "every file in the run)")
    ap.add_argument("--pairs", type=int, default=1000, help="pairs per file for the text statistics")
    ap.add_argument("--seed", type=int, default=0, help="generation seed")
    ap.add_argument("--run", type=Path, default=None,
                    help="read pairs from this run folder (DIR/original/<uid>.jsonl, or DIR/<uid>.jsonl) "
                         "instead of generating")
    ap.add_argument("--blimp", type=Path, default=DEFAULT_BLIMP, help="folder of BLiMP <uid>.jsonl files")
    ap.add_argument("--score", action="store_true", help="also compare LM accuracy (loads the model)")
    ap.add_argument("--models", default="smollm2-135m", help="causal LM for --score")
    ap.add_argument("--device", default="cpu", help="device for --score")
    ap.add_argument("--score-pairs", type=int, default=100, help="pairs per file scored")
    ap.add_argument("--threshold", type=float, default=10.0, help="flag |accuracy diff| above this (points)")
    ap.add_argument("--out", type=Path, default=None, help="also write the markdown report here (atomically)")
    ap.add_argument("--scores", type=Path, default=None,
                    help="with --score: write every scored pair (uid, source, index, sentences, log-probs) "
                         "to this CSV (atomically)")
    args = ap.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    for name in ("pairs", "score_pairs"):
        if getattr(args, name) < 1:
            ap.error(f"--{name.replace('_', '-')}: must be at least 1")
    return args


def load_ours(args) -> tuple[dict[str, list], str]:
    """uid -> our pairs, and a line saying where they came from."""
    from fairpairs.analysis import fidelity
    from fairpairs.errors import FairpairsError

    if args.run is not None:
        folder = args.run / "original" if (args.run / "original").is_dir() else args.run
        if not folder.is_dir():
            raise FairpairsError(f"--run: {args.run} is not a folder")
        if args.paradigms in (None, "all", "standard"):
            uids = sorted(p.stem for p in folder.glob("*.jsonl"))
            if not uids:
                raise FairpairsError(f"--run: no <uid>.jsonl files in {folder}")
        else:
            uids = [u.strip() for u in args.paradigms.split(",") if u.strip()]
        ours = {u: fidelity.sentence_pairs(folder / f"{u}.jsonl", args.pairs) for u in uids}
        return ours, f"pairs read from {folder}"

    from tqdm import tqdm

    from fairpairs.generation.selection import select_paradigms

    vocab, paradigms = select_paradigms(args.paradigms or "all", None, None)
    ours = {}
    for p in tqdm(paradigms, desc="generating", unit="paradigm", file=sys.stderr, dynamic_ncols=True):
        ours[p.uid] = fidelity.generate_original_pairs(p, vocab, args.pairs, args.seed)
    return ours, f"original (uncontrolled) sets generated with seed {args.seed}"


def run(args) -> int:
    from fairpairs.analysis import fidelity
    from fairpairs.io.files import atomic_write
    from fairpairs.errors import FairpairsError

    t0 = time.perf_counter()
    if not args.blimp.is_dir():
        raise FairpairsError(f"--blimp: {args.blimp} is not a folder")
    ours, source = load_ours(args)
    rows = []
    blimp = {}
    for uid, pairs in ours.items():
        path = args.blimp / f"{uid}.jsonl"
        if not path.is_file():
            raise FairpairsError(f"--blimp: {path}: no BLiMP file for paradigm {uid}")
        blimp[uid] = fidelity.sentence_pairs(path, args.pairs)
        rows.append(fidelity.compare(uid, pairs, blimp[uid], args.pairs))
    t_text = time.perf_counter() - t0

    if args.score:
        from fairpairs.scoring import Scorer

        scorer = Scorer.from_pretrained(args.model, device=args.device, progress=True)
        sets = {}
        for uid in ours:
            sets[(uid, "ours")] = ours[uid]
            sets[(uid, "blimp")] = blimp[uid]
        print(f"scoring {2 * sum(min(len(v), args.score_pairs) for v in sets.values())} sentences with "
              f"{args.model} ...", file=sys.stderr)
        lps = fidelity.score_fidelity_pairs(scorer, sets, args.score_pairs)
        for r in rows:
            o, b = lps[(r.uid, "ours")], lps[(r.uid, "blimp")]
            r.acc_ours = fidelity.share_correct([g for g, _ in o], [x for _, x in o])
            r.acc_blimp = fidelity.share_correct([g for g, _ in b], [x for _, x in b])
            r.scored_pairs = (len(o), len(b))
        if args.scores is not None:
            atomic_write(args.scores, scores_csv(sets, lps))
            print(f"written: {args.scores}", file=sys.stderr)

    missing = []
    if args.run is None and args.paradigms in (None, "all", "standard"):
        missing = sorted(p.stem for p in args.blimp.glob("*.jsonl") if p.stem not in ours)
    text = report(args, rows, source, missing)
    print(text)
    if args.out is not None:
        atomic_write(args.out, text)
        print(f"written: {args.out}", file=sys.stderr)
    print(f"time: {time.perf_counter() - t0:.1f} s (text statistics {t_text:.1f} s)", file=sys.stderr)
    return 0


def scores_csv(sets, lps) -> str:
    import pandas as pd

    rows = [(uid, source, i, g, b, lg, lb, lg > lb)
            for (uid, source), scored in lps.items()
            for i, ((g, b), (lg, lb)) in enumerate(zip(sets[(uid, source)], scored))]
    df = pd.DataFrame(rows, columns=["uid", "source", "index", "sentence_good", "sentence_bad",
                                     "logprob_good", "logprob_bad", "correct"])
    return df.to_csv(index=False, lineterminator="\n")


def report(args, rows, source, missing) -> str:
    from fairpairs import __version__ as version
    from fairpairs.analysis import fidelity

    cmd = " ".join(["python", "benchmarks/fidelity.py", *map(shlex.quote, args.argv)])
    n_text = sorted({r.ours.pairs for r in rows})
    lines = [
        "# Fidelity: generated pairs vs public BLiMP",
        "",
        (f"`{cmd}` (fairpairs {version}); {source}; text statistics on the first "
         f"{', '.join(map(str, n_text))} pairs of each file."),
    ]
    if args.score:
        lines.append(f"Accuracy: {args.model} on {args.device}, sum log-probability, good > bad, on the first "
                     f"{args.score_pairs} pairs of each file; diff = ours - BLiMP in points; "
                     f"FLAG = |diff| > {args.threshold:g}.")
    lines += [("Words = runs of `[\\w']+` (punctuation excluded); mean ± population sd over good and bad "
               "sentences. Vocab share = BLiMP word types also used in our file, both cut to the same "
               "number of pairs."), "",
              fidelity.fidelity_table(rows, args.threshold), "",
              "**Summary.** " + fidelity.summary_line(rows, args.threshold)]
    if missing:
        lines.append(f"BLiMP paradigms with no generated counterpart: {', '.join(missing)}.")
    notes = [f"{r.uid}: {n}" for r in rows for n in r.notes]
    if notes:
        lines.append("Notes: " + "; ".join(notes) + ".")
    lines += ["", "## Details", "", fidelity.markdown_details(rows), ""]
    return "\n".join(lines)


def main(argv=None) -> int:
    args = parse_args(argv)
    from fairpairs.errors import FairpairsError

    try:
        return run(args)
    except FairpairsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
