"""`python benchmarks/preregistration/analyse.py --self-test`: the analysis on synthetic sets and
score files (in `fairpairs score`'s format) whose answers are known by construction, so that the
analysis is checked before any real pair is scored.

Per model: 12 A=U clusters of 100 pairs (6 named blimp.*, 6 clams.*) (LP right on 80%; tcf_lp disagrees on 1%, both ways
equally; tc_lp = LP); 14 fresh paradigms of 120 A>U, 120 A<U and 10 A=U original pairs, 80
matched debiased pairs per direction. LP is right on 55% of A>U and 90% of A<U pairs and on 75%
of the debiased ones: gap -35, effects +20 / -15 (both checks pass). tcf_lp is right on 75% of
both directions, and keeps its original outcome on 85% of the matched contexts, flipping both ways
equally: gap 0, effects 0, A=U within 1 point. Expected: tcf_lp passes E1-E4 on both models and
is recommended; tc_lp (= LP) fails E2. A second world gives tcf_lp a gap of -12 (right on 69% /
81%): not recommended, with E2 named.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import numpy as np

MODELS = ("smollm2-135m", "gemma3-270m")
PARAMS = {"delta_token": -0.4, "delta_word": 1.8, "beta_unigram": 0.75, "slln_alpha": 0.6, "r2": 0.6,
          "std_errors": {"delta_token": 0.15, "delta_word": 0.3, "beta_unigram": 0.04}}


def exact(rng, n: int, p: float) -> np.ndarray:
    """n outcomes with round(p n) ones, shuffled: shares exact by construction."""
    k = round(p * n)
    return rng.permutation(np.r_[np.ones(k, int), np.zeros(n - k, int)])


def flip(rng, y: np.ndarray, share: float) -> np.ndarray:
    """`y` with `share` of its entries changed, half of them 1 -> 0 and half 0 -> 1 (as far as
    there are), so the mean barely moves."""
    y = y.copy()
    k = round(share * len(y)) // 2
    ones, zeros = rng.permutation(np.flatnonzero(y == 1))[:k], rng.permutation(np.flatnonzero(y == 0))[:k]
    y[ones], y[zeros] = 0, 1
    return y


def write_pair_files(sets: Path, run: Path, rel: str, model: str, rows: list[dict], right: dict) -> None:
    """The set file and its score file: per score, good 0 and bad -1 (right) or +1 (wrong)."""
    f = sets / rel
    f.parent.mkdir(parents=True, exist_ok=True)
    f.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = []
    for i, r in enumerate(rows):
        ng, nb = {"A=U": (5, 5), "A>U": (6, 5), "A<U": (5, 6)}[r.get("split", r.get("split_original", "A=U"))
                                                               if r.get("set") != "debiased" else "A=U"]
        for which, sent, n in (("good", r["sentence_good"], ng), ("bad", r["sentence_bad"], nb)):
            row = {"pair_index": i, "which": which, "uid": r["uid"], "pair_id": r["pair_id"], "sentence": sent,
                   "n_tokens": n, "n_words": len(sent.split()), "unigram_logprob": -10.0 * n}
            for s, y in right.items():
                row["sum_logprob" if s == "lp" else s] = 0.0 if which == "good" else (-1.0 if y[i] else 1.0)
            out.append(row)
    g = run / "scores" / model / rel
    g.parent.mkdir(parents=True, exist_ok=True)
    g.write_text("".join(json.dumps(r) + "\n" for r in out))


def scores(rng, lp: np.ndarray, tcf: np.ndarray) -> dict:
    return {"lp": lp, "tc_lp": lp, "tcf_lp": tcf, "mean_lp": tcf, "pen_lp": lp, "slor": tcf, "slln_lp": lp}


def world(root: Path, gap_tcf: float) -> tuple[Path, Path]:
    sets, run = root / "sets", root / "run"
    rng = np.random.default_rng(46)
    for model in MODELS:
        for c in range(12):
            name = f"blimp.c{c}" if c < 6 else f"clams.c{c}"
            rows = [{"uid": name, "pair_id": str(i), "sentence_good": f"g {c} {i} .", "sentence_bad": f"b {c} {i} ."}
                    for i in range(100)]
            lp = exact(rng, 100, 0.8)
            write_pair_files(sets, run, f"heldout/au/{name}.jsonl", model, rows, scores(rng, lp, flip(rng, lp, 0.01)))
        rows = [{"uid": f"a{i % 10}", "pair_id": str(i), "sentence_good": f"lg {i}", "sentence_bad": f"lb {i}",
                 "split": ("A=U", "A>U", "A<U")[i % 3]} for i in range(90)]
        lp = exact(rng, 90, 0.7)
        write_pair_files(sets, run, "heldout/li.jsonl", model, rows, scores(rng, lp, lp))
        if model == "smollm2-135m":
            rows = [{"uid": f"clams.c{i % 11}", "pair_id": str(i), "split": ("A>U", "A<U")[i % 2],
                     "sentence_good": f"cg {i}", "sentence_bad": f"cb {i}"} for i in range(220)]
            lp = exact(rng, 220, 0.7)
            write_pair_files(sets, run, "heldout/clams_unequal/c.jsonl", model, rows, scores(rng, lp, lp))
        for p in range(14):
            fresh_paradigm(rng, sets, run, model, p, gap_tcf)
    return sets, run


def fresh_paradigm(rng, sets: Path, run: Path, model: str, p: int, gap_tcf: float) -> None:
    rows, lp, tcf = [], [], []
    for split, n, p_lp, p_tcf in (("A>U", 120, 0.55, 0.75 + gap_tcf / 2), ("A<U", 120, 0.90, 0.75 - gap_tcf / 2),
                                  ("A=U", 10, 0.8, 0.8)):
        base = len(rows)
        rows += [{"set": "original", "uid": f"p{p}", "pair_id": f"original:{base + i}", "draw": base + i, "split": split,
                  "sentence_good": f"fg {p} {base + i}", "sentence_bad": f"fb {p} {base + i}"} for i in range(n)]
        y_lp, y_tcf = exact(rng, n, p_lp), exact(rng, n, p_tcf)
        lp.append(y_lp)
        tcf.append(y_tcf)
        if split != "A=U":
            rows += [{"set": "debiased", "uid": f"p{p}", "pair_id": f"debiased:{base + i}", "draw": base + i,
                      "pair_id_original": f"original:{base + i}", "split_original": split,
                      "sentence_good": f"fg {p} {base + i}", "sentence_bad": f"fd {p} {base + i}"} for i in range(80)]
            lp.append(exact(rng, 80, 0.75))
            tcf.append(flip(rng, y_tcf[:80], 0.15))
    write_pair_files(sets, run, f"fresh/{model}/part-{p:03d}.jsonl", model, rows,
                     scores(rng, np.concatenate(lp), np.concatenate(tcf)))


def self_test(analyse) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        sets, run = world(Path(tmp) / "fair", 0.0)
        text = analyse(sets, run, MODELS, {m: PARAMS for m in MODELS})
        assert "**Recommended score: tcf_lp.**" in text, text
        assert text.count("| tcf_lp | E") == 8 and "| tc_lp | E2 gap within paradigms (fresh) |" in text, text
        print(text)
        sets, run = world(Path(tmp) / "biased", -0.12)
        text = analyse(sets, run, MODELS, {m: PARAMS for m in MODELS})
        assert "**No candidate passes: LP stays the default.**" in text, text
        assert "tcf_lp on smollm2-135m: E2 gap within paradigms (fresh) not shown equivalent" in text, text
    print("self-test passed: a length-neutral tcf_lp is recommended; one with a gap of -12 is not, E2 named")
