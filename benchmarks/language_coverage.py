"""Which tokenizers suit which language: per language table and tokenizer set, the share of the
table's predicates (lists V1, VP, LVP of vocab/<lang>.csv) whose singular and plural, written after
the language's subject ("{subject} {form}."), have equal token counts under every tokenizer of
the set. A predicate that is never equal is one length control can never keep, so a low share means
the set will be short of pairs or unbalanced for that language (docs/multilingual.md, "Languages").

    python benchmarks/language_coverage.py            # prints a markdown table

Reads only the bundled tables and the tokenizers named below (preset:multilingual's packages).
"""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SUBJECT = {"fr": "L'auteur", "de": "Der Pilot", "ru": "Автор", "he": "המלצר"}
SETS = {
    "gpt2, bert-base-cased": ["gpt2", "bert-base-cased"],
    "preset:modern": ["preset:modern"],
    "preset:multilingual": ["preset:multilingual"],
    "Llama-4, Tekken, Qwen 2.5": ["meta-llama/Llama-4-Scout-17B-16E", "mistralai/Mistral-Nemo-Base-2407",
                                  "Qwen/Qwen2.5-7B"],
}


def predicates(lang: str) -> list[tuple[str, str]]:
    rows = list(csv.DictReader(open(REPO / "vocab" / f"{lang}.csv", encoding="utf-8")))
    forms: dict[tuple[str, str], dict[str, str]] = {}
    for r in rows:
        if any(r.get(c) == "1" for c in ("V1", "VP", "LVP")) and r["possessor"] in ("", "sg"):
            forms.setdefault((r["category"], r["lemma"]), {})[r["number"]] = r["expression"]
    return [(f["sg"], f["pl"]) for f in forms.values() if "sg" in f and "pl" in f]


def main() -> int:
    from fairpairs.tokenization.sources import expand
    from fairpairs.tokenization.lengths import LengthMeter
    from fairpairs.generation.languages import get_language

    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    print(f"commit {commit}; `python benchmarks/language_coverage.py`\n")
    print("| language | predicates | " + " | ".join(SETS) + " |")
    print("|---|---|" + "---|" * len(SETS))
    meters = {name: [LengthMeter(m) for m in expand(names)] for name, names in SETS.items()}
    for lang in ("fr", "de", "ru", "he"):
        rules = {"fr": ["elision", "contraction"], "he": ["prefixes"]}.get(lang, [])
        fix = lambda t: get_language(lang).apply(rules, t)      # noqa: E731
        preds = predicates(lang)
        goods = [fix(f"{SUBJECT[lang]} {s}.") for s, _ in preds]
        bads = [fix(f"{SUBJECT[lang]} {p}.") for _, p in preds]
        cells = []
        for name, ms in meters.items():
            eq = [True] * len(preds)
            for m in ms:
                eq = [e and a == b for e, a, b in zip(eq, m.lengths(goods), m.lengths(bads))]
            cells.append(f"{sum(eq)} ({sum(eq) / len(preds):.0%})")
        print(f"| {lang} | {len(preds)} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
