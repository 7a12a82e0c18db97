"""The held-out sets of the preregistered judgement of the length-robust score
(benchmarks/preregistration/robust-score.md), and the token counts its power calculation uses.
Token lengths only: nothing here scores a sentence with a language model.

    python benchmarks/preregistration/sets.py count --out benchmarks/preregistration/counts.json
    python benchmarks/preregistration/sets.py build --out /tmp/prereg/sets      # then: sha256sum -c

`count`: per model (smollm2-135m, gemma3-270m: each model's own tokenizer), the A=U / A>U / A<U
pairs of every BLiMP paradigm (eligible positions and all), CLAMS English file and Linguistic
Inquiry article; the development history's paradigm lists (rule below); and a generation pilot
(`fairpairs generate --models MODEL --paradigms all --pairs 1000 --seed 4600`, a seed never
scored and never used for the test) counted per paradigm: original A>U / A<U / A=U pairs and
matched contexts by the original pair's direction (`fp.matched_pairs`).

`build`: the files `fairpairs score` reads (.jsonl pairs: uid, pair_id, sentence_good,
sentence_bad, and columns of ours that the scorer ignores), each pair chosen by the rule of the
preregistration, seeded, in files small enough that a crashed scoring loses one file (`fairpairs
score` does not resume), and OUT/SHA256SUMS:
- `heldout/au/<cluster>.jsonl`: the A=U test: the 16 untouched BLiMP paradigms (`blimp.<uid>`) and
  the 22 CLAMS English files (`clams.<file>`), M_AU pairs each (all when fewer), drawn from the
  pairs of equal length under both tokenizers (BLiMP: only positions 0-99 and 200-999);
- `heldout/li.jsonl`: every Linguistic Inquiry pair (uid: the article, e.g. 32.1.martin);
- `heldout/clams_unequal/<file>.jsonl`: per CLAMS file, up to M_CLAMS_UNEQUAL A>U and as many A<U
  pairs under SmolLM2's tokenizer (Gemma's splits no CLAMS pair), `split` saying which;
- `runs/<model>/`: the fresh run, `fairpairs generate --models MODEL --paradigms all --pairs
  FRESH_PAIRS --seed FRESH_SEED` (its pairs are in SHA256SUMS: the run must come out byte for byte);
- `fresh/<model>/part-<k>.jsonl` (whole paradigms, about CHUNK pairs a file): every original pair
  of unequal length under MODEL's tokenizer (`set` original, `split` A>U / A<U) and FRESH_AU of its
  A=U pairs per paradigm (seeded), and the debiased pair of every matched context
  (`fp.matched_pairs`) whose original pair has unequal length (`set` debiased, `split_original`;
  `pair_id_original` names its original pair). Pair ids are prefixed with the set.
Reads ../shared (a benchmark, never the product).
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import subprocess
import sys
import zlib
from collections import Counter
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
SHARED = Path("/work/shared") if Path("/work/shared").is_dir() else REPO.parent / "shared"
BLIMP = SHARED / "reference" / "blimp"
CLAMS = SHARED / "reference" / "clams" / "en_evalset"
LI = SHARED / "reference" / "linguistic_inquiry_judgments.csv"
MODELS = ("smollm2-135m", "gemma3-270m")
EXCLUDED = range(100, 200)        # BLiMP positions scored for held-out paradigms (issue 35, the issue-46 review)
SAMPLE_SEED = 4602                # draws of the held-out pairs
PILOT_SEED, PILOT_PAIRS = 4600, 1000
M_AU = 200                        # A=U pairs per cluster (power.py)
M_CLAMS_UNEQUAL = 100             # per CLAMS file and direction (descriptive gap and veto)
FRESH_SEED, FRESH_PAIRS = 4601, 1000   # the fresh run (second test): a seed never used before
FRESH_AU = 10                     # A=U original pairs per paradigm of the fresh run (descriptive)
CHUNK = 2000                      # pairs per file of the fresh run's pairs


def split(g: int, b: int) -> str:
    return "A=U" if g == b else ("A>U" if g > b else "A<U")


def blimp_rows(uid: str) -> list[dict]:
    return [json.loads(x) for x in (BLIMP / f"{uid}.jsonl").read_text().splitlines() if x.strip()]


def history() -> dict[str, list[str]]:
    """The development history's paradigm lists: BLiMP's 67 UIDs sorted; `development_half` = even
    positions (issue 35); `issue25_selection` = the paradigms with a pair of unequal SmolLM2 length
    among their first 100 pairs (benchmarks/robustness.py); `untouched` = the rest of the odd
    positions (never in development, never used to choose a candidate)."""
    from fairpairs.tokenization.lengths import LengthMeter

    uids = sorted(f.stem for f in BLIMP.glob("*.jsonl"))
    meter = LengthMeter("smollm2-135m")
    sel = []
    for uid in uids:
        rows = blimp_rows(uid)[:100]
        g, b = meter.lengths([r["sentence_good"] for r in rows]), meter.lengths([r["sentence_bad"] for r in rows])
        if any(x != y for x, y in zip(g, b)):
            sel.append(uid)
    dev, held = uids[0::2], uids[1::2]
    return {"development_half": dev, "heldout_half": held, "issue25_selection": sel,
            "untouched": [u for u in held if u not in sel]}


def clams_pairs() -> dict[str, list[tuple[str, str]]]:
    out = {}
    for f in sorted(CLAMS.glob("*.txt")):
        lines = [x.split("\t", 1) for x in f.read_text().splitlines() if x.strip()]
        out[f.stem] = [(lines[i][1], lines[i + 1][1]) for i in range(0, len(lines), 2)]
        assert all(lines[i][0] == "True" and lines[i + 1][0] == "False" for i in range(0, len(lines), 2)), f
    return out


def li_pairs() -> list[tuple[str, str, str, str]]:
    """(article, pair_id, good, bad): the article is the ID's first three fields (32.1.martin)."""
    with LI.open(newline="") as fh:
        return [(".".join(r["Good ID"].split(".")[:3]), r["Good ID"], r["Good Sentence"], r["Bad Sentence"])
                for r in csv.DictReader(fh)]


def lengths(model: str, sentences) -> dict[str, int]:
    from fairpairs.tokenization.lengths import LengthMeter

    sentences = sorted(set(sentences))
    return dict(zip(sentences, (int(x) for x in LengthMeter(model).lengths(sentences))))


def count_sources(model: str) -> dict:
    blimp = {u: blimp_rows(u) for u in sorted(f.stem for f in BLIMP.glob("*.jsonl"))}
    clams, li = clams_pairs(), li_pairs()
    sents = [s for rows in blimp.values() for r in rows for s in (r["sentence_good"], r["sentence_bad"])]
    sents += [s for v in clams.values() for p in v for s in p] + [s for *_, g, b in li for s in (g, b)]
    n = lengths(model, sents)
    out = {"blimp": {}, "blimp_eligible": {}, "clams": {}, "li": {}}
    for u, rows in blimp.items():
        sp = [split(n[r["sentence_good"]], n[r["sentence_bad"]]) for r in rows]
        out["blimp"][u] = dict(Counter(sp))
        out["blimp_eligible"][u] = dict(Counter(s for i, s in enumerate(sp) if i not in EXCLUDED))
    for f, v in clams.items():
        out["clams"][f] = dict(Counter(split(n[g], n[b]) for g, b in v))
    arts: dict[str, Counter] = {}
    for art, _, g, b in li:
        arts.setdefault(art, Counter())[split(n[g], n[b])] += 1
    out["li"] = {a: dict(c) for a, c in sorted(arts.items())}
    return out


def generate(model: str, run: Path, pairs: int, seed: int) -> Path:
    """`fairpairs generate` of every paradigm controlled for `model`'s tokenizer (kept if there)."""
    if not (run / "manifest.json").is_file():
        subprocess.run([sys.executable, "-m", "fairpairs.cli", "generate", "--models", model, "--paradigms", "all",
                        "--pairs", str(pairs), "--seed", str(seed), "--out", str(run), "--quiet"], check=True, cwd=REPO)
    return run


def pilot(model: str, work: Path) -> dict:
    """Per paradigm of a generation pilot controlled for `model`'s tokenizer: original pairs by
    direction and matched contexts by the original pair's direction."""
    import fairpairs as fp

    run = generate(model, work / f"pilot-{model}-s{PILOT_SEED}-{PILOT_PAIRS}", PILOT_PAIRS, PILOT_SEED)
    o = fp.load_sets(run)["original"]
    mp = fp.matched_pairs(run)
    n = lengths(model, list(o["sentence_good"]) + list(o["sentence_bad"]))
    per: dict[str, Counter] = {}
    for u, g, b in zip(o["uid"], o["sentence_good"], o["sentence_bad"]):
        per.setdefault(u, Counter())[split(n[g], n[b])] += 1
    for u, g, b in zip(mp["uid"], mp["sentence_good"], mp["sentence_bad_original"]):
        per.setdefault(u, Counter())["matched " + split(n[g], n[b])] += 1
    return {u: dict(c) for u, c in sorted(per.items())}


def stage_count(args) -> None:
    doc = {"history": history(), "excluded_blimp_positions": [EXCLUDED.start, EXCLUDED.stop - 1],
           "pilot": {"seed": PILOT_SEED, "pairs": PILOT_PAIRS}, "models": {}}
    for model in MODELS:
        doc["models"][model] = count_sources(model) | {"pilot": pilot(model, args.work)}
        print(f"{model}: counted", flush=True)
    args.out.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")


def draw(items: list, m: int, key: str) -> list:
    """m items drawn without replacement (all when fewer), in their original order; seeded by
    SAMPLE_SEED and the cluster's name, so a cluster's draw does not depend on the others."""
    if len(items) <= m:
        return list(items)
    rng = np.random.default_rng([SAMPLE_SEED, zlib.crc32(key.encode())])
    return [items[i] for i in sorted(rng.choice(len(items), size=m, replace=False))]


def write(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))


def build_fresh(model: str, out: Path) -> None:
    """The fresh run's pairs to score under `model` (module docstring): per paradigm, its original
    rows then its debiased rows, in files of about CHUNK pairs (whole paradigms), so that a good
    sentence shared by a context's two pairs is scored once."""
    import fairpairs as fp

    run = generate(model, out / "runs" / model, FRESH_PAIRS, FRESH_SEED)
    o = fp.load_sets(run)["original"].reset_index(drop=True)
    n = lengths(model, list(o["sentence_good"]) + list(o["sentence_bad"]))
    o["split"] = [split(n[g], n[b]) for g, b in zip(o["sentence_good"], o["sentence_bad"])]
    keep = o["split"] != "A=U"
    for uid, part in o[o["split"] == "A=U"].groupby("uid", sort=True):
        keep[draw(list(part.index), FRESH_AU, f"fresh:{model}:{uid}")] = True
    rows: dict[str, list] = {}
    for r in o[keep].itertuples():
        rows.setdefault(r.uid, []).append({"set": "original", "uid": r.uid, "pair_id": f"original:{r.pair_id}",
                                           "draw": int(r.draw), "split": r.split, "sentence_good": r.sentence_good,
                                           "sentence_bad": r.sentence_bad})
    unequal = o[o["split"] != "A=U"][["uid", "pair_id", "split"]].rename(columns={"pair_id": "pair_id_original"})
    mp = fp.matched_pairs(run).merge(unequal, on=["uid", "pair_id_original"], validate="one_to_one")
    for r in mp.itertuples():
        rows[r.uid].append({"set": "debiased", "uid": r.uid, "pair_id": f"debiased:{r.pair_id_debiased}",
                            "draw": int(r.draw), "pair_id_original": f"original:{r.pair_id_original}",
                            "split_original": r.split, "sentence_good": r.sentence_good,
                            "sentence_bad": r.sentence_bad_debiased})
    part, k = [], 0
    for uid in sorted(rows):
        part += rows[uid]
        if len(part) >= CHUNK or uid == max(rows):
            write(out / "fresh" / model / f"part-{k:03d}.jsonl", part)
            part, k = [], k + 1


def stage_build(args) -> None:
    for model in MODELS:
        build_fresh(model, args.out)
    hist = history()
    clams, li = clams_pairs(), li_pairs()
    n = {m: lengths(m, [s for v in clams.values() for p in v for s in p]
                    + [s for u in hist["untouched"] for r in blimp_rows(u) for s in (r["sentence_good"], r["sentence_bad"])])
         for m in MODELS}
    equal = lambda g, b: all(n[m][g] == n[m][b] for m in MODELS)   # noqa: E731
    for u in hist["untouched"]:
        rows = [r for i, r in enumerate(blimp_rows(u)) if i not in EXCLUDED and equal(r["sentence_good"], r["sentence_bad"])]
        write(args.out / "heldout" / "au" / f"blimp.{u}.jsonl", [{"uid": f"blimp.{u}", "pair_id": str(r["pairID"]),
              "sentence_good": r["sentence_good"], "sentence_bad": r["sentence_bad"]} for r in draw(rows, M_AU, u)])
    for f, v in clams.items():
        idx = [i for i, (g, b) in enumerate(v) if equal(g, b)]
        write(args.out / "heldout" / "au" / f"clams.{f}.jsonl", [{"uid": f"clams.{f}", "pair_id": str(i), "sentence_good": v[i][0],
              "sentence_bad": v[i][1]} for i in draw(idx, M_AU, f)])
        s = n["smollm2-135m"]
        rows = []
        for d in ("A>U", "A<U"):
            pick = draw([i for i, (g, b) in enumerate(v) if split(s[g], s[b]) == d], M_CLAMS_UNEQUAL, f"{f}:{d}")
            rows += [{"uid": f"clams.{f}", "pair_id": str(i), "split": d, "sentence_good": v[i][0],
                      "sentence_bad": v[i][1]} for i in pick]
        if rows:
            write(args.out / "heldout" / "clams_unequal" / f"clams.{f}.jsonl", rows)
    write(args.out / "heldout" / "li.jsonl", [{"uid": a, "pair_id": i, "sentence_good": g, "sentence_bad": b} for a, i, g, b in li])
    sums = [f"{hashlib.sha256(p.read_bytes()).hexdigest()}  {p.relative_to(args.out)}"
            for p in sorted(args.out.rglob("*.jsonl"))]
    (args.out / "SHA256SUMS").write_text("\n".join(sums) + "\n")
    total = hashlib.sha256((args.out / "SHA256SUMS").read_bytes()).hexdigest()
    print(f"{len(sums)} files; sha256 of SHA256SUMS: {total}")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("stage", choices=("count", "build"))
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--work", type=Path, default=Path("/tmp/prereg"), help="count: where the pilot runs go")
    args = ap.parse_args(argv)
    {"count": stage_count, "build": stage_build}[args.stage](args)


if __name__ == "__main__":
    main()
