"""Generation speed: paradigms x pairs controlled against several tokenizers.

    python benchmarks/generate.py                       # the 12 foundation paradigms x 1000 pairs
    python benchmarks/generate.py --paradigms all       # every standard paradigm

Prints pairs/second and per-paradigm yield. Target (issue 2): the 12 paradigms x 1000 pairs against
gpt2, roberta-base, bert-base-cased, bert-base-uncased in under 15 s on 2 cores; (issue 5) all 67 in
under 60 s.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

FOUNDATION = [
    "determiner_noun_agreement_1", "determiner_noun_agreement_with_adj_irregular_1",
    "regular_plural_subject_verb_agreement_1", "irregular_plural_subject_verb_agreement_2",
    "anaphor_gender_agreement", "animate_subject_passive", "transitive", "causative",
    "irregular_past_participle_verbs", "existential_there_object_raising", "tough_vs_raising_1",
    "left_branch_island_echo_question",
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--paradigms", default=",".join(FOUNDATION), help="comma-separated UIDs or 'all'")
    ap.add_argument("--pairs", type=int, default=1000)
    ap.add_argument("--models", default="gpt2,roberta-base,bert-base-cased,bert-base-uncased")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--strategy", default="search", choices=["search", "resample"])
    args = ap.parse_args()

    from fairpairs.grammar import select_paradigms
    from fairpairs.run import RunConfig, generate_run
    from fairpairs.tokenization import LengthMeter

    t0 = time.perf_counter()
    vocab, paradigms = select_paradigms(args.paradigms, None, None)
    models = args.models.split(",")
    for m in models:
        LengthMeter(m)
    t_load = time.perf_counter() - t0
    with tempfile.TemporaryDirectory() as tmp:
        t1 = time.perf_counter()
        res = generate_run(paradigms, vocab, RunConfig(models=models, pairs=args.pairs, seed=args.seed,
                                                               strategy=args.strategy),
                           Path(tmp) / "run")
        t_gen = time.perf_counter() - t1
    total = sum(s["original"].kept + s["debiased"].kept for s in res.stats.values())
    print(f"{'paradigm':55s} {'yield':>7s} {'drawn':>7s} {'redraws':>8s} {'draws/kept':>10s}")
    for uid, s in res.stats.items():
        d = s["debiased"].as_dict()
        print(f"{uid:55s} {d['yield']:7.1%} {d['drawn']:7d} {d['redraws']:8d} {d['draws_per_kept']:10.2f}")
    print(f"\n{len(paradigms)} paradigms x {args.pairs} pairs (original + debiased, strategy {args.strategy}) "
          f"against {len(models)} tokenizers")
    print(f"load (vocabulary, grammars, tokenizers): {t_load:.2f} s")
    print(f"generation: {t_gen:.2f} s  ->  {total / t_gen:,.0f} pairs/s written ({total} pairs)")
    print(f"total: {t_load + t_gen:.2f} s")


if __name__ == "__main__":
    main()
