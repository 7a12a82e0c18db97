"""Power of the preregistered equivalence tests (benchmarks/preregistration/robust-score.md): the
sample sizes the document quotes, and the power under other assumptions. Standard library only:
no model, no network; reads the token counts of counts.json (`sets.py count`: token lengths only).

    python benchmarks/preregistration/power.py            # the tables of the document

Model (normal approximation, per model and criterion). A figure is a ratio of sums over clusters
(paradigms, CLAMS files): theta_hat = sum_k n_k x_k / sum_k n_k with cluster means
x_k = theta + u_k + e_k, u_k ~ (0, tau^2) between clusters, e_k the pairs' own noise, so

    Var(theta_hat) = tau^2 sum n_k^2 / N^2 + sigma^2 / N          (N = sum n_k)

with sigma^2 = the discordance rate d for a paired difference of 0/1 outcomes whose true mean is 0
(the A=U difference to LP; a direction effect). The within-paradigm gap (Mantel-Haenszel weights
w_k = n1 n2 / (n1 + n2)) has Var = tau^2 sum w^2 / (sum w)^2 + a(1 - a) / sum w. TOST at level
alpha with margin D and true value theta has power
Phi((D - theta)/SE - z_(1-alpha)) + Phi((D + theta)/SE - z_(1-alpha)) - 1 (0 when negative).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from statistics import NormalDist

HERE = Path(__file__).resolve().parent
SHARED = Path("/work/shared") if Path("/work/shared").is_dir() else HERE.parents[2] / "shared"
PUBLISHED = SHARED / "reference" / "blimp_models_summary.jsonl"    # BLiMP's per-paradigm accuracies
MODELS = ("smollm2-135m", "gemma3-270m")
ALPHA = 0.05        # each TOST (the 90% interval inside the margins); candidates in a fixed sequence, each at alpha
TARGET = 0.80                               # power of each test at the base assumptions
MARGIN = {"A=U": 0.01, "gap": 0.05, "effect_longer": 0.05, "effect_shorter": 0.05}
# base assumptions (robust-score.md, "Power"), and the alternatives shown beside them
D_AU, TAU_AU, TAUS_AU = 0.06, 0.010, (0.0, 0.005, 0.010, 0.015, 0.020)
A_GAP, TAU_GAP, TAUS_GAP = 0.75, 0.03, (0.0, 0.03, 0.05, 0.10)
D_EFFECT, TAU_EFFECT, TAUS_EFFECT = 0.22, 0.02, (0.0, 0.02, 0.04, 0.06)
PILOT_PAIRS = 1000
Z = NormalDist()


def power(se: float, margin: float, theta: float = 0.0, alpha: float = ALPHA) -> float:
    """TOST power at true value `theta` for an estimate with standard error `se`."""
    if se <= 0:
        return 1.0 if abs(theta) < margin else 0.0
    z = Z.inv_cdf(1 - alpha)
    return max(0.0, Z.cdf((margin - theta) / se - z) + Z.cdf((margin + theta) / se - z) - 1)


def se_ratio(sizes, tau: float, sigma2: float) -> float:
    """SE of a ratio-of-sums mean over clusters of `sizes` pairs (module docstring)."""
    n = sum(sizes)
    return math.sqrt(tau * tau * sum(s * s for s in sizes) / n ** 2 + sigma2 / n) if n else math.inf


def se_gap(pairs, tau: float, a: float = A_GAP) -> float:
    """SE of the within-paradigm gap over paradigms with (n_longer, n_shorter) `pairs`."""
    w = [n1 * n2 / (n1 + n2) for n1, n2 in pairs if n1 and n2]
    return math.sqrt(tau * tau * sum(x * x for x in w) / sum(w) ** 2 + a * (1 - a) / sum(w)) if w else math.inf


def au_clusters(counts: dict, m: int) -> list[int]:
    """A=U pairs per cluster of the A=U test at m per cluster: the 16 untouched BLiMP paradigms
    (positions 0-99 and 200-999) and the 22 CLAMS files, pairs of equal length under both
    tokenizers (bounded here by the smaller of the two models' A=U counts: exact for these sources,
    where Gemma's tokenizer splits no CLAMS pair and neither splits an untouched BLiMP pair)."""
    models = [counts["models"][mod] for mod in MODELS]
    avail = [min(c["blimp_eligible"][u].get("A=U", 0) for c in models) for u in counts["history"]["untouched"]]
    avail += [min(c["clams"][f].get("A=U", 0) for c in models) for f in sorted(models[0]["clams"])]
    return [min(m, a) for a in avail]


def fresh(counts: dict, model: str, pairs: int) -> dict:
    """The fresh run's per-paradigm counts at `pairs` per paradigm, scaled from the pilot (1,000)."""
    f = pairs / PILOT_PAIRS
    per = counts["models"][model]["pilot"].values()
    return {"gap": [(c.get("A>U", 0) * f, c.get("A<U", 0) * f) for c in per],
            "effect_longer": [c.get("matched A>U", 0) * f for c in per if c.get("matched A>U")],
            "effect_shorter": [c.get("matched A<U", 0) * f for c in per if c.get("matched A<U")]}


def f_power(counts: dict, model: str, pairs: int, taus=(TAU_GAP, TAU_EFFECT)) -> dict:
    r = fresh(counts, model, pairs)
    return {"gap": power(se_gap(r["gap"], taus[0]), MARGIN["gap"]),
            "effect_longer": power(se_ratio(r["effect_longer"], taus[1], D_EFFECT), MARGIN["effect_longer"]),
            "effect_shorter": power(se_ratio(r["effect_shorter"], taus[1], D_EFFECT), MARGIN["effect_shorter"])}


def choose(counts: dict) -> tuple[int, int, int | None]:
    """(M, N, N_min): M = the smallest number of A=U pairs per cluster (a multiple of 25) whose test
    reaches TARGET at the base assumptions; N = the fresh run's pairs per paradigm, fixed at the
    pilot's 1,000 (BLiMP's size, the most the designed evaluation plans; its counts are then the
    pilot's own, not scaled); N_min = the smallest multiple of 100 at which every fresh-run test
    would reach TARGET (None if none up to 1,000)."""
    m = next(m for m in range(25, 2001, 25) if power(se_ratio(au_clusters(counts, m), TAU_AU, D_AU), MARGIN["A=U"]) >= TARGET)
    n_min = next((n for n in range(100, 1001, 100)
                  if all(p >= TARGET for mod in MODELS for p in f_power(counts, mod, n).values())), None)
    return m, PILOT_PAIRS, n_min


def composition_gaps(counts: dict) -> list[str]:
    """The pooled gap (all A>U pairs against all A<U pairs) of a score equally right on both
    directions of every paradigm, with BLiMP's own direction counts under each tokenizer and the
    published per-paradigm BLiMP accuracies (Warstadt et al. 2020) of each model as the paradigms'
    accuracy: not 0, because the directions sit in different paradigms in different shares."""
    if not PUBLISHED.is_file():
        return [f"(no {PUBLISHED}: composition gaps not computed)"]
    rows = [json.loads(line) for line in PUBLISHED.read_text().splitlines() if line.strip()]
    acc = {r["UID"]: r for r in rows if "UID" in r}
    out = []
    for mod in MODELS:
        blimp = counts["models"][mod]["blimp"]
        nl = {u: c.get("A>U", 0) for u, c in blimp.items()}
        ns = {u: c.get("A<U", 0) for u, c in blimp.items()}
        gaps = []
        for lm in ("gpt2", "txl", "lstm", "ngram"):
            a = {u: acc[u][lm] for u in blimp}
            gaps.append(f"{lm} {100 * (sum(nl[u] * a[u] for u in a) / sum(nl.values()) - sum(ns[u] * a[u] for u in a) / sum(ns.values())):+.1f}")
        out.append(f"{mod}: " + ", ".join(gaps))
    return out


def table(rows, header) -> str:
    return "\n".join(["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
                     + ["| " + " | ".join(str(x) for x in r) + " |" for r in rows])


def report(counts: dict) -> str:
    m, n, n_min = choose(counts)
    au = au_clusters(counts, m)
    z = Z.inv_cdf(1 - ALPHA) + Z.inv_cdf(1 - (1 - TARGET) / 2)
    out = [f"TOST at alpha {ALPHA} (candidates in a fixed sequence, each at alpha); target power "
           f"{TARGET:.0%} per test; needed margin/SE >= {z:.3f}",
           f"unclustered sizes for comparison: A=U {math.ceil(D_AU * (z / MARGIN['A=U']) ** 2)} pairs; gap "
           f"{math.ceil(2 * A_GAP * (1 - A_GAP) * (z / MARGIN['gap']) ** 2)} per direction; an effect "
           f"{math.ceil(D_EFFECT * (z / MARGIN['effect_longer']) ** 2)} matched contexts",
           f"", f"A=U test: {m} pairs per cluster -> {len(au)} clusters, {sum(au)} pairs (2 x {sum(au)} sentences a model)"]
    out.append(table([[f"{100 * t:.1f}", f"{100 * se_ratio(au, t, D_AU):.2f}",
                       f"{power(se_ratio(au, t, D_AU), MARGIN['A=U']):.2f}",
                       f"{power(se_ratio(au, t, D_AU), MARGIN['A=U'], theta=0.005):.2f}"] for t in TAUS_AU],
                     ["tau (points)", "SE (points)", "power, true 0", "power, true 0.5"]))
    out += ["", f"fresh run: {n} pairs per paradigm and set, each model's own run (every fresh-run test reaches "
                f"{TARGET:.0%} at the base assumptions from {n_min} pairs per paradigm)"]
    rows = []
    for mod in MODELS:
        r = fresh(counts, mod, n)
        k = sum(1 for a, b in r["gap"] if a and b)
        rows.append([mod, f"{sum(a for a, _ in r['gap']):.0f} / {sum(b for _, b in r['gap']):.0f}", k,
                     f"{sum(r['effect_longer']):.0f} ({len(r['effect_longer'])})",
                     f"{sum(r['effect_shorter']):.0f} ({len(r['effect_shorter'])})"])
    out.append(table(rows, ["model", "A>U / A<U pairs", "paradigms with both", "matched formerly-A>U (paradigms)",
                            "matched formerly-A<U (paradigms)"]))
    rows = []
    for mod in MODELS:
        r = fresh(counts, mod, n)
        for tg, te in zip(TAUS_GAP, TAUS_EFFECT):
            p = f_power(counts, mod, n, (tg, te))
            rows.append([mod, f"{100 * tg:.0f} / {100 * te:.0f}", f"{100 * se_gap(r['gap'], tg):.2f}",
                         f"{p['gap']:.2f}", f"{power(se_gap(r['gap'], tg), MARGIN['gap'], theta=-0.04):.2f}",
                         f"{p['effect_longer']:.2f}", f"{p['effect_shorter']:.2f}"])
    out.append(table(rows, ["model", "tau gap / effect (points)", "gap SE", "gap power, true 0",
                            "gap power, true -4", "effect_longer power", "effect_shorter power"]))
    joint = power(se_ratio(au, TAU_AU, D_AU), MARGIN["A=U"]) ** 2
    for mod in MODELS:
        for p in f_power(counts, mod, n).values():
            joint *= p
    out += ["", "pooled gap of a score equally right on both directions of every paradigm (points; BLiMP's "
                "direction counts, published BLiMP accuracies of each LM as the paradigms' accuracy):",
            *composition_gaps(counts)]
    out += ["", f"joint power of one candidate at the base assumptions (8 tests, treated as independent: a lower "
                f"bound when passes go together): {joint:.2f}"]
    return "\n".join(out)


def main() -> None:
    print(report(json.loads((HERE / "counts.json").read_text())))


if __name__ == "__main__":
    main()
