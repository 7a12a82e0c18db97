"""The preregistered analysis (benchmarks/preregistration/robust-score.md, sections 5-7): reads the
sets `sets.py build` wrote and the score files `fairpairs score` wrote for them, computes E1-E4 for
every score and model, the checks, the decision and the secondary analyses, and writes them as
markdown. Run once, after every file is scored for both models:

    python benchmarks/preregistration/analyse.py --sets $SETS --run $RUN --out benchmarks/results/robustness.md
    python benchmarks/preregistration/analyse.py --self-test      # synthetic scores with known answers

Layout: $SETS/heldout/au/*.jsonl, $SETS/heldout/li.jsonl, $SETS/heldout/clams_unequal/*.jsonl,
$SETS/fresh/<model>/part-*.jsonl; the scores of a set file F under model M in
$RUN/scores/<M>/<F relative to $SETS>; the parameters in $RUN/length.json. tcf_lp[bundled]
(SmolLM2) is computed from the score files' raw columns with fairpairs/assets/length_params.json.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from fairpairs import stats
from fairpairs.analysis.clustered import paired_variance, partial_pool
from fairpairs.analysis.equivalence import gap_contrast, gap_equivalence, paired_difference, paired_equivalence

MODELS = ("smollm2-135m", "gemma3-270m")
CANDIDATES = ("tcf_lp", "tc_lp")                      # the fixed sequence
EXPLORATORY = ("lp_then_tcf", "tcf_lp[bundled]", "mean_lp", "pen_lp", "slor", "slln_lp")
ALPHA, MARGIN = 0.05, {"E1": 0.01, "E2": 0.05, "E3": 0.05, "E4": 0.05}
SEED = 0
NAMES = {"E1": "A=U fidelity (held-out)", "E2": "gap within paradigms (fresh)",
         "E3": "effect, formerly A>U (fresh)", "E4": "effect, formerly A<U (fresh)"}


def split(g, b):
    return np.where(g == b, "A=U", np.where(g > b, "A>U", "A<U"))


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def outcomes(set_file: Path, score_file: Path) -> pd.DataFrame:
    """One row per pair of `set_file`: its own columns, the scored lengths and split, the raw
    columns of both sentences and, per score, 1 when the good sentence scores strictly higher."""
    pairs = pd.DataFrame(read_jsonl(set_file))
    sc = pd.DataFrame(read_jsonl(score_file))
    good = sc[sc["which"] == "good"].set_index("pair_index").sort_index()
    bad = sc[sc["which"] == "bad"].set_index("pair_index").sort_index()
    if len(good) != len(pairs) or (good["sentence"].to_numpy() != pairs["sentence_good"].to_numpy()).any() \
            or (bad["sentence"].to_numpy() != pairs["sentence_bad"].to_numpy()).any():
        sys.exit(f"{score_file}: its rows are not the pairs of {set_file}")
    out = pairs.copy()
    for side, t in (("good", good), ("bad", bad)):
        out[f"lp_{side}"], out[f"n_{side}"] = t["sum_logprob"].to_numpy(float), t["n_tokens"].to_numpy(int)
        out[f"w_{side}"] = t["sentence"].str.split().str.len().to_numpy(int)
        u = t["unigram_logprob"] if "unigram_logprob" in t else t["sum_logprob"] - t["n_tokens"] * t["slor"]
        out[f"u_{side}"] = u.to_numpy(float)
    out["scored_split"] = split(out["n_good"].to_numpy(), out["n_bad"].to_numpy())
    out["lp"] = (good["sum_logprob"].to_numpy() > bad["sum_logprob"].to_numpy()).astype(int)
    for s in ("mean_lp", "pen_lp", "slor", "slln_lp", "tc_lp", "tcf_lp"):
        if s in good:
            out[s] = (good[s].to_numpy() > bad[s].to_numpy()).astype(int)
    same = out["n_good"].to_numpy() == out["n_bad"].to_numpy()
    out["lp_then_tcf"] = np.where(same, out["lp"], out["tcf_lp"])
    return out


def load(sets: Path, run: Path, model: str) -> dict[str, pd.DataFrame]:
    """au, li, clams (SmolLM2) and fresh outcomes of `model` (a part missing: an error naming it)."""
    def part(files):
        frames = []
        for f in files:
            rel = f.relative_to(sets)
            score = run / "scores" / model / rel
            if not score.is_file():
                sys.exit(f"{score}: not scored (every file of step 3 must be scored before the analysis)")
            frames.append(outcomes(f, score))
        return pd.concat(frames, ignore_index=True) if frames else None
    data = {"au": part(sorted((sets / "heldout" / "au").glob("*.jsonl"))), "li": part([sets / "heldout" / "li.jsonl"]),
            "fresh": part(sorted((sets / "fresh" / model).glob("part-*.jsonl")))}
    if model == "smollm2-135m":
        data["clams"] = part(sorted((sets / "heldout" / "clams_unequal").glob("*.jsonl")))
    return data


# ---------------------------------------------------------------------------- counts per cluster


def paired_table(df: pd.DataFrame, before: str, after: str, cluster: str = "uid") -> list[np.ndarray]:
    """Per cluster: both right, gained (right only after), lost (right only before), neither."""
    b, a = df[before].astype(bool), df[after].astype(bool)
    t = pd.DataFrame({cluster: df[cluster], "both": b & a, "gained": ~b & a, "lost": b & ~a, "neither": ~b & ~a})
    t = t.groupby(cluster, sort=True).sum()
    return [t[k].to_numpy(float) for k in ("both", "gained", "lost", "neither")]


def gap_table(df: pd.DataFrame, score: str, cluster: str = "uid") -> np.ndarray:
    """Per cluster: [right A>U, n A>U, right A<U, n A<U] of `score` (splits as scored)."""
    rows = []
    for _, g in df.groupby(cluster, sort=True):
        lo, sh = g[g["scored_split"] == "A>U"], g[g["scored_split"] == "A<U"]
        rows.append([lo[score].sum(), len(lo), sh[score].sum(), len(sh)])
    return np.array(rows, dtype=float).reshape(-1, 4)


def matched(fresh: pd.DataFrame) -> pd.DataFrame:
    """Each debiased row beside its original row (the original's outcomes suffixed _o, the debiased
    pair's _d); the direction is the original pair's split as scored."""
    o = fresh[fresh["set"] == "original"]
    d = fresh[fresh["set"] == "debiased"]
    return d.merge(o, left_on=["uid", "pair_id_original"], right_on=["uid", "pair_id"], suffixes=("_d", "_o"),
                   validate="one_to_one")


def criteria(data: dict, score: str) -> dict:
    """E1-E4 of `score` (TOST verdicts, `equivalence.Equivalence`)."""
    au = data["au"][data["au"]["scored_split"] == "A=U"]
    orig = data["fresh"][data["fresh"]["set"] == "original"]
    m = matched(data["fresh"])
    out = {"E1": paired_equivalence(*paired_table(au, "lp", score), MARGIN["E1"], ALPHA, seed=SEED),
           "E2": gap_equivalence(*gap_table(orig, score).T, MARGIN["E2"], ALPHA, seed=SEED)}
    for key, direction in (("E3", "A>U"), ("E4", "A<U")):
        part = m[m["scored_split_o"] == direction].rename(columns={f"{score}_o": "o", f"{score}_d": "d"})
        out[key] = paired_equivalence(*paired_table(part, "o", "d"), MARGIN[key], ALPHA, seed=SEED)
    return out


def checks(data: dict) -> dict:
    """The two pre-specified checks on LP: its gap shown below -5 and its E3 effect shown above 0."""
    c = criteria(data, "lp")
    return {"LP gap below -5": bool(c["E2"].high < -MARGIN["E2"]), "LP effect on formerly-A>U above 0": bool(c["E3"].low > 0)}


def decide(results: dict, checked: dict) -> tuple[str | None, list[str]]:
    """(the recommended score or None, why not). The fixed sequence of section 6: the first
    candidate (tcf_lp) is recommended when it passes every criterion on every model (a criterion its
    LP check makes blind counts as not shown); the second (tc_lp) is tested only after the first
    passed, so it can never be the recommendation, and its verdicts are reported beside."""
    cand = CANDIDATES[0]
    bad = [f"{cand} on {m}: {k} {NAMES[k]} {results[m][cand][k].verdict} ({fmt(results[m][cand][k])}, "
           f"margin ±{100 * MARGIN[k]:.0f})" for m in results for k in NAMES if not results[m][cand][k].equivalent]
    bad += [f"{cand} on {m}: {'E2' if 'gap' in name else 'E3'} cannot discriminate ({name}: not shown)"
            for m in results for name, ok in checked[m].items() if not ok]
    return (None, bad) if bad else (cand, [])


# ---------------------------------------------------------------------------- secondary


def secondary(data: dict, model: str, params: dict) -> list[str]:
    lines = []
    orig = data["fresh"][data["fresh"]["set"] == "original"]
    for s in ("lp", "tc_lp", "tcf_lp"):
        c = gap_table(orig, s)
        lo, hi = stats.cluster_bootstrap(lambda x: x[:, 0] / x[:, 1] - x[:, 2] / x[:, 3], c, seed=SEED, resamples=10_000)
        lines.append(f"- pooled gap (fresh), {s}: {100 * (c[:, 0].sum() / c[:, 1].sum() - c[:, 2].sum() / c[:, 3].sum()):+.1f} "
                     f"[{100 * lo:+.1f}, {100 * hi:+.1f}] (95%, clustered by paradigm)")
    tabs = [gap_table(orig, s) for s in ("tcf_lp", "tc_lp", "lp")]
    for name, coef in (("F = G(tcf_lp) - G(tc_lp)", (1, -1, 0)), ("L = G(tc_lp) - G(lp)", (0, 1, -1)),
                       ("F - L", (1, -2, 1))):
        lines.append(f"- frequency analysis, {name}: {fmt(gap_contrast(tabs, coef, level=0.95, seed=SEED))} (95%)")
    held = [("LI", data["li"], "uid")] + ([("CLAMS unequal", data["clams"], "uid")] if "clams" in data else [])
    for name, df, cl in held:
        for s in ("lp", *CANDIDATES):
            e = gap_equivalence(*gap_table(df, s, cl).T, MARGIN["E2"], ALPHA, seed=SEED)
            lines.append(f"- held-out gap within clusters, {name}, {s}: {fmt(e)} (90%, {e.method}, {e.clusters} clusters; "
                         f"descriptive: {e.verdict})")
    lines += au_by_source(data)
    lines += pooled_clusters(data)
    lines += sensitivity(data, params)
    lines += accuracies(data)
    lines.append("- fitted parameters: " + ", ".join(f"{k} {params[k]:.4f} (s.e. {params['std_errors'].get(k, float('nan')):.4f})"
                                                     for k in ("delta_token", "delta_word", "beta_unigram"))
                 + f", slln_alpha {params.get('slln_alpha', float('nan')):.4f}, R2 {params.get('r2', float('nan')):.3f}")
    return lines


def accuracies(data: dict) -> list[str]:
    """Accuracy (95% Wilson) of every score on every set."""
    sets = {"held-out A=U": data["au"], "LI": data["li"], "CLAMS unequal": data.get("clams"),
            "fresh original": data["fresh"][data["fresh"]["set"] == "original"],
            "fresh debiased": data["fresh"][data["fresh"]["set"] == "debiased"]}
    lines = []
    for name, df in sets.items():
        if df is None or not len(df):
            continue
        cells = []
        for s in ("lp", *CANDIDATES, *EXPLORATORY):
            if s in df:
                w = stats.wilson(int(df[s].sum()), len(df))
                cells.append(f"{s} {100 * w.value:.1f} [{100 * w.low:.1f}, {100 * w.high:.1f}]")
        lines.append(f"- accuracy, {name} (n = {len(df):,}): " + "; ".join(cells))
    return lines


def au_by_source(data: dict) -> list[str]:
    au = data["au"][data["au"]["scored_split"] == "A=U"]
    li = data["li"][data["li"]["scored_split"] == "A=U"]
    fa = data["fresh"][(data["fresh"]["set"] == "original") & (data["fresh"]["scored_split"] == "A=U")]
    parts = [("16 BLiMP", au[au["uid"].str.startswith("blimp.")]), ("22 CLAMS", au[au["uid"].str.startswith("clams.")]),
             ("LI (articles)", li), ("fresh A=U sample", fa)]
    return [f"- A=U fidelity, {name}, {s}: {fmt(paired_difference(*paired_table(df, 'lp', s), level=0.95, seed=SEED)[0])} (95%)"
            for name, df in parts for s in CANDIDATES]


def pooled_clusters(data: dict) -> list[str]:
    au = data["au"][data["au"]["scored_split"] == "A=U"]
    lines = []
    for s in CANDIDATES:
        both, gained, lost, neither = paired_table(au, "lp", s)
        n = both + gained + lost + neither
        p = partial_pool((gained - lost) / n, paired_variance(gained, lost, n), min_clusters=10)
        names = sorted(au["uid"].unique())
        low = [f"{u} {100 * e:+.1f}" for u, e in zip(names, p.estimate) if e < -0.05]
        lines.append(f"- A=U clusters more than 5 points below LP after partial pooling, {s}: {', '.join(low) or 'none'} "
                     f"(between-cluster SD {100 * np.sqrt(p.tau2):.1f} points)")
    return lines


def sensitivity(data: dict, params: dict) -> list[str]:
    """tcf_lp's E1-E4 with delta_token and beta_unigram moved by one standard error of the fit."""
    lines = []
    for key in ("delta_token", "beta_unigram"):
        for sign in (-1, 1):
            p = dict(params)
            p[key] = params[key] + sign * params["std_errors"][key]
            moved = {k: df.assign(tcf_moved=rescore(df, p)) for k, df in data.items() if df is not None}
            c = criteria(moved, "tcf_moved")
            lines.append(f"- tcf_lp with {key} {'+' if sign > 0 else '-'}1 s.e. ({p[key]:.3f}): "
                         + "; ".join(f"{k} {fmt(v)}" for k, v in c.items()))
    return lines


def add_recomputed(data: dict, model: str, params: dict) -> str:
    """Adds tcf_lp[bundled] (the bundled parameters, where the model has them); returns how often
    tcf_lp recomputed from the raw columns with the model's own parameters agrees with the
    scorer's tcf_lp (a check of the columns the sensitivity analysis uses)."""
    from fairpairs.scoring.length import ASSET, read_params_file

    bundled = read_params_file(ASSET).get(model)
    same = total = 0
    for df in (d for d in data.values() if d is not None):
        if bundled is not None:
            df["tcf_lp[bundled]"] = rescore(df, bundled)
        same += int((rescore(df, params) == df["tcf_lp"].to_numpy()).sum())
        total += len(df)
    return f"- tcf_lp recomputed from the raw columns with the fitted parameters agrees with the scorer's on {same:,} of {total:,} pairs"


def rescore(df: pd.DataFrame, p: dict) -> np.ndarray:
    side = {s: df[f"lp_{s}"] - p["delta_token"] * df[f"n_{s}"] - p["delta_word"] * df[f"w_{s}"] - p["beta_unigram"] * df[f"u_{s}"]
            for s in ("good", "bad")}
    return (side["good"] > side["bad"]).astype(int).to_numpy()


# ---------------------------------------------------------------------------- report


def fmt(e) -> str:
    v, lo, hi = (e.estimate, e.low, e.high) if hasattr(e, "estimate") else (e.value, e.low, e.high)
    return f"{100 * v:+.2f} [{100 * lo:+.2f}, {100 * hi:+.2f}]"


def criteria_rows(model: str, res: dict) -> list[list[str]]:
    return [[model, s, f"{k} {NAMES[k]}", fmt(e), f"±{100 * MARGIN[k]:.0f}", e.method, str(e.clusters), f"{e.n:,}",
             f"**{e.verdict}**" if e.equivalent else e.verdict] for s, r in res.items() for k, e in r.items()]


def report(results: dict, checked: dict, chosen, failed, extra: dict) -> str:
    from fairpairs.analysis.markdown import markdown_table

    head = ["model", "score", "criterion", "estimate [90% CI], points", "margin", "interval", "clusters", "n", "verdict"]
    conf = [r for m in results for r in criteria_rows(m, {s: results[m][s] for s in CANDIDATES})]
    ref = [r for m in results for r in criteria_rows(m, {"lp": results[m]["lp"]})]
    expl = [r for m in results for r in criteria_rows(m, {s: results[m][s] for s in EXPLORATORY if s in results[m]})]
    text = ["## Decision", "", f"**Recommended score: {chosen}.**" if chosen else
            "**No candidate passes: LP stays the default.**", ""] + [f"- {x}" for x in failed]
    text += ["", "## Checks on LP", ""] + [f"- {m}: {k}: {'yes' if v else '**no**'}" for m, c in checked.items() for k, v in c.items()]
    text += ["", "## Candidates (TOST at alpha 0.05; tc_lp is confirmatory only where tcf_lp passes, else descriptive)",
             "", markdown_table(head, conf),
             "", "## LP (reference)", "", markdown_table(head, ref),
             "", "## Exploratory scores (decide nothing)", "", markdown_table(head, expl)]
    for m, lines in extra.items():
        text += ["", f"## Secondary analyses, {m}", "", *lines]
    return "\n".join(text) + "\n"


def analyse(sets: Path, run: Path, models=MODELS, params: dict | None = None) -> str:
    """The markdown of sections 5-7 (`params`: {model: fit-length entry}, default $RUN/length.json)."""
    from fairpairs.scoring.length import read_params_file

    params = params or read_params_file(run / "length.json")
    results, checked, extra = {}, {}, {}
    for m in models:
        data = load(sets, run, m)
        agree = add_recomputed(data, m, params[m])
        scores = ["lp", *CANDIDATES] + [s for s in EXPLORATORY if s in data["au"]]
        results[m] = {s: criteria(data, s) for s in scores}
        checked[m] = checks(data)
        extra[m] = [agree, *secondary(data, m, params[m])]
    chosen, failed = decide(results, checked)
    return report(results, checked, chosen, failed, extra)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sets", type=Path)
    ap.add_argument("--run", type=Path)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--self-test", action="store_true")
    args = ap.parse_args(argv)
    if args.self_test:
        from selftest import self_test      # (benchmarks/preregistration/selftest.py, next to this script)

        return self_test(analyse)
    text = analyse(args.sets, args.run)
    if args.out:
        from fairpairs.io.files import atomic_write

        atomic_write(args.out, text)
    print(text)


if __name__ == "__main__":
    main()
