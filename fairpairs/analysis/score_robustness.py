"""The length-robustness test bed: how far does each acceptability score depend on token length?

For every model and score, on each set of pairs split by the *model's own tokenizer* into A=U,
A>U (good sentence longer) and A<U:

- the accuracy of the whole set and of each split, with 95% Wilson intervals;
- the **length gap**: A>U accuracy minus A<U accuracy (0 for a length-robust score), with
  Newcombe's interval (the two splits hold different pairs), as the evaluation report's headline;
- the **A=U fidelity**: the score's A=U accuracy minus LP's, on the same A=U pairs (Newcombe's
  paired interval and the exact McNemar p-value, `stats.newcombe_paired`: it keeps a width where
  no pair differs, which a bootstrap does not): a score that closes the gap by getting A=U
  pairs wrong is not robust, it is blind;
- where the data has an ``original`` and a ``debiased`` set (a run folder of `fairpairs generate`):
  on the contexts in both sets (pairs of the same paradigm whose good sentence is in both), the
  score's accuracy on the original pairs minus LP's accuracy on the debiased pairs (paired); and
  the score's own effect of length control per direction of the original pair (`effect_longer`,
  `effect_shorter`, `effect_equal`, as `fairpairs.analysis.effects.directions`: contexts matched as
  the evaluation report matches them): a score that over-corrects has a positive gap or
  effect_longer < 0.

The markdown follows the evaluation report's small-sample rule: a figure from fewer than
`directions.MIN_PAIRS` pairs (a split, a gap's smaller side, the matched contexts of a direction) is
printed as "too few pairs (n = ...)"; the CSV keeps every figure with its n.

Scores (docs/robustness.md): lp, mean_lp, pen_lp, slor, morcela (needs fitted parameters),
slln_lp, tc_lp, tcf_lp (need length parameters fitted on unlabelled text), word_lp, word_mean_lp,
centered_lp, entropy_lp (causal LMs only). A score a model cannot have is reported with `available` False and
the reason. All scores of a model come from one scoring pass, cached with `evaluate.cached_scores`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from fairpairs.analysis.length_audit import SPLITS, split_label
from fairpairs.analysis.evaluation import Settings, cached_scores
from fairpairs.scoring import normalize as nz
from fairpairs.scoring.settings import SCORING
from fairpairs.analysis.directions import MIN_PAIRS
from fairpairs.stats import newcombe_paired, wilson

SCORES = ("lp", "mean_lp", "pen_lp", "slor", "morcela", "slln_lp", "tc_lp", "tcf_lp", "word_lp", "word_mean_lp",
          "centered_lp", "entropy_lp")
FITTED_ON = {
    "lp": "nothing", "mean_lp": "nothing", "pen_lp": "nothing (alpha 0.8, Lau et al. 2020)",
    "slor": "unigram frequencies (wordfreq)", "morcela": "human judgments (supervised)",
    "slln_lp": "unlabelled text (length params)", "tc_lp": "unlabelled text (length params)",
    "tcf_lp": "unlabelled text (length params) + wordfreq", "word_lp": "nothing", "word_mean_lp": "nothing",
    "centered_lp": "nothing", "entropy_lp": "nothing",
}
CAUSAL = Settings(normalize=("lp", "slor", "word_lp", "centered_lp"))
MASKED = ("lp", "slor")


class _Masked(Exception):
    """Raised by the loader when the model turns out to be masked (the causal pass does not apply)."""

    def __init__(self, scorer):
        self.scorer = scorer


def model_scores(model: str, sentences: list[str], cache_dir, load_scorer, pll: str = SCORING.pll) -> tuple[pd.DataFrame, str]:
    """The raw columns of every sentence (sum_logprob, n_tokens, unigram_logprob and, for a causal
    LM, word_correction and entropy_sum), through the score cache; and the model's kind."""
    loaded = {}

    def causal_loader(m, s):
        scorer = load_scorer(m, s)
        if getattr(scorer, "kind", "causal") != "causal":
            raise _Masked(scorer)
        loaded["scorer"] = scorer
        return scorer

    masked = Settings(pll=pll, normalize=MASKED)
    cache = None if cache_dir is None else Path(cache_dir)
    from fairpairs.scoring.cache import cache_file, read_cache

    if cache is not None:   # a masked model scored before: no need to load it to find its kind
        hit = read_cache(cache_file(cache, model, masked, sentences), sentences, ["sentence", "n_tokens", "sum_logprob",
                                                                                 "slor"])
        if hit is not None:
            return hit, "masked"
    try:
        df, _ = cached_scores(model, sentences, CAUSAL, cache, causal_loader)
        return df, "causal"
    except _Masked as exc:
        loaded = exc.scorer      # (a name of its own: `exc` is unbound once the except block ends)
        df, _ = cached_scores(model, sentences, masked, cache, lambda m, s: loaded)
        return df, "masked"


def score_columns(raw: pd.DataFrame, kind: str, params: dict) -> tuple[pd.DataFrame, dict[str, str]]:
    """Every score's column from the raw columns; and {score: reason} for the scores left out.
    `params`: {'length': entry or None, 'morcela': {beta, gamma} or None, 'length_reason': str}."""
    out = raw[["sentence"]].copy()
    lp, n = raw["sum_logprob"].to_numpy(float), raw["n_tokens"].to_numpy(float)
    u = raw["unigram_logprob"].to_numpy(float)
    missing = {}
    out["lp"] = lp
    out["mean_lp"] = nz.mean_lp(lp, n)
    out["pen_lp"] = nz.pen_lp(lp, n)
    out["slor"] = nz.slor(lp, u, n)
    if params.get("morcela"):
        out["morcela"] = nz.morcela(lp, u, n, params["morcela"]["beta"], params["morcela"]["gamma"])
    else:
        missing["morcela"] = "no MORCELA parameters given (morcela_params)"
    names = [s for s in ("slln_lp", "tc_lp", "tcf_lp") if params.get("length")]
    names += [s for s in ("word_lp", "word_mean_lp", "centered_lp", "entropy_lp") if kind == "causal"]
    frame = raw.copy()
    nz.add_columns(frame, names, length=params.get("length"))
    for s in names:
        out[s] = frame[s].to_numpy(float)
    if not params.get("length"):
        missing.update({s: params.get("length_reason", "no length parameters") for s in ("slln_lp", "tc_lp", "tcf_lp")})
    if kind != "causal":
        missing.update({s: "needs a causal LM" for s in ("word_lp", "word_mean_lp", "centered_lp", "entropy_lp")})
    return out, missing


def pair_table(pairs: pd.DataFrame, scores: pd.DataFrame, raw: pd.DataFrame) -> pd.DataFrame:
    """One row per pair: set, uid, pair_id, good/bad sentences, the model's token lengths, split
    and `<score>` = 1 when the good sentence scores strictly higher, else 0 (ties are not right)."""
    length = raw.set_index("sentence")["n_tokens"]
    by = scores.set_index("sentence")
    keep = ["set", "uid", "pair_id", "sentence_good", "sentence_bad"] + (["draw"] if "draw" in pairs.columns else [])
    out = pairs[keep].reset_index(drop=True).copy()
    out["len_good"] = out["sentence_good"].map(length).astype(int).to_numpy()
    out["len_bad"] = out["sentence_bad"].map(length).astype(int).to_numpy()
    out["split"] = [split_label(g, b) for g, b in zip(out["len_good"], out["len_bad"])]
    for col in by.columns:
        good = out["sentence_good"].map(by[col]).to_numpy(float)
        bad = out["sentence_bad"].map(by[col]).to_numpy(float)
        out[col] = (good > bad).astype(int)
    return out


def gap_estimate(correct: np.ndarray, split: np.ndarray) -> tuple[float, float, float]:
    """A>U accuracy minus A<U accuracy with Newcombe's interval (the two splits hold different
    pairs), as `fairpairs.analysis.effects` reports it."""
    from fairpairs.stats import newcombe

    c = np.asarray(correct, dtype=float)
    longer, shorter = c[split == "A>U"], c[split == "A<U"]
    if not len(longer) or not len(shorter):
        return float("nan"), float("nan"), float("nan")
    e = newcombe(int(shorter.sum()), len(shorter), int(longer.sum()), len(longer))
    return e.value, e.low, e.high


def _acc(prefix: str, correct) -> dict:
    e = wilson(int(np.sum(correct)), len(correct))
    return {f"n_{prefix}": len(correct), f"acc_{prefix}": e.value, f"acc_{prefix}_low": e.low,
            f"acc_{prefix}_high": e.high}


def measure(pt: pd.DataFrame, score: str, *, debiased: pd.DataFrame | None = None) -> dict:
    """The figures of one score on one set's pair table `pt` (see the module docstring)."""
    row = _acc("all", pt[score].to_numpy())
    for split, key in zip(SPLITS, ("equal", "longer", "shorter")):
        row.update(_acc(key, pt.loc[pt["split"] == split, score].to_numpy()))
    row["gap"], row["gap_low"], row["gap_high"] = gap_estimate(pt[score].to_numpy(), pt["split"].to_numpy())
    eq = pt[pt["split"] == "A=U"]
    f = newcombe_paired(eq["lp"].to_numpy(float), eq[score].to_numpy(float))
    row.update({"fidelity": f.value, "fidelity_low": f.low, "fidelity_high": f.high, "fidelity_p": f.p_value})
    if debiased is not None:
        m = pt.drop_duplicates(["uid", "sentence_good"], keep=False).merge(
            debiased.drop_duplicates(["uid", "sentence_good"], keep=False)[["uid", "sentence_good", "lp"]],
            on=["uid", "sentence_good"], suffixes=("", "_debiased"))
        d = newcombe_paired(m["lp_debiased"].to_numpy(float), m[score].to_numpy(float))
        row.update({"n_matched": len(m), "vs_debiased_lp": d.value, "vs_debiased_lp_low": d.low,
                    "vs_debiased_lp_high": d.high, "vs_debiased_lp_p": d.p_value})
        row.update(direction_effects(pt, debiased, score))
    return row


def direction_effects(original: pd.DataFrame, debiased: pd.DataFrame, score: str) -> dict:
    """The score's effect of length control per direction of the original pair (and on the changed
    contexts) on the matched contexts, as the evaluation report computes it."""
    from fairpairs.analysis.directions import directions
    from fairpairs.analysis.effects import unit_outcomes

    both = pd.concat([original, debiased], ignore_index=True)
    frame = both.assign(model="", normalization=score, outcome=both[score].to_numpy())
    u = unit_outcomes(frame)
    row = directions(u["o"].to_numpy(), u["d"].to_numpy(), u["split"].to_numpy(), u["changed"].to_numpy())
    return {k: v for k, v in row.items() if k.startswith(("effect_", "n_matched_", "share_"))}


def robustness_table(pairs: pd.DataFrame, scores: pd.DataFrame, raw: pd.DataFrame, model: str,
                     missing: dict[str, str]) -> pd.DataFrame:
    """Rows (model, set, score) of `measure` for every score (and a row saying why for a missing one)."""
    pt = pair_table(pairs, scores, raw)
    sets = list(dict.fromkeys(pt["set"]))
    rows = []
    for set_name in sets:
        part = pt[pt["set"] == set_name]
        deb = pt[pt["set"] == "debiased"] if set_name == "original" and "debiased" in sets else None
        for score in SCORES:
            base = {"model": model, "set": set_name, "score": score, "fitted_on": FITTED_ON[score]}
            if score in missing:
                rows.append({**base, "available": False, "note": missing[score]})
            else:
                rows.append({**base, "available": True, "note": "",
                             **measure(part, score, debiased=deb)})
    return pd.DataFrame(rows)


def length_params_for(model: str, spec) -> tuple[dict | None, str]:
    """The length parameters for `model` (None and the reason when the bundled ones have none for
    it). Parameters given (`spec` not None) that are not `model`'s are an error, not a note."""
    from fairpairs.errors import ModelError
    from fairpairs.scoring.length import load_length_params

    try:
        return load_length_params(spec, model), ""
    except ModelError as exc:
        if spec is not None:
            raise
        return None, str(exc)


def run(sets: dict[str, pd.DataFrame], models: list[str], cache_dir=None, load_scorer=None,
        length_params=None, morcela_params=None, pll: str = SCORING.pll) -> pd.DataFrame:
    """The test bed over `models` (see `fairpairs.api.robustness`, which checks the arguments)."""
    from fairpairs.analysis.evaluation import default_loader, display_name

    pairs = pd.concat([df.assign(set=name) for name, df in sets.items()], ignore_index=True)
    sentences = sorted(set(pairs["sentence_good"]) | set(pairs["sentence_bad"]))
    load_scorer = load_scorer or default_loader
    frames = []
    for model in models:
        raw, kind = model_scores(model, sentences, cache_dir, load_scorer, pll)
        lparams, reason = length_params_for(model, length_params)
        scores, missing = score_columns(raw, kind, {"length": lparams, "length_reason": reason,
                                                   "morcela": morcela_params})
        frames.append(robustness_table(pairs, scores, raw, display_name(model), missing))
    return pd.concat(frames, ignore_index=True)


def _pct(x, digits: int = 1) -> str:
    return "N/A" if x is None or pd.isna(x) else f"{100 * x:.{digits}f}"


def _few(n) -> str | None:
    """"too few pairs (n = ...)" where `n` pairs are fewer than MIN_PAIRS (evaluate's rule), else None."""
    n = 0 if n is None or pd.isna(n) else int(n)
    return None if n >= MIN_PAIRS else f"too few pairs (n = {n})"


def _ci(row, key: str, signed: bool = False, n=None) -> str:
    """`key`'s figure with its interval in points; "too few pairs" when `n` is given and below MIN_PAIRS."""
    if n is not None and _few(n):
        return _few(n)
    v = row.get(key)
    if v is None or pd.isna(v):
        return "N/A"
    fmt = "{:+.1f}" if signed else "{:.1f}"
    low, high = row.get(f"{key}_low"), row.get(f"{key}_high")
    if low is None or pd.isna(low):
        return fmt.format(100 * v)
    return f"{fmt.format(100 * v)} [{fmt.format(100 * low)}, {fmt.format(100 * high)}]"


def markdown(table: pd.DataFrame) -> str:
    """The table as markdown: per model and set, one line per score (percentage points)."""
    from fairpairs.analysis.markdown import markdown_table

    out = []
    for (model, set_name), g in table.groupby(["model", "set"], sort=False):
        has_deb = "vs_debiased_lp" in g and g["vs_debiased_lp"].notna().any()
        header = ["score", "fitted on", "accuracy", "A=U (n)", "A>U (n)", "A<U (n)", "length gap", "A=U fidelity"]
        header += ["vs LP on debiased", "effect A>U", "effect A<U", "effect A=U"] if has_deb else []
        rows = []
        for r in g.to_dict("records"):
            if not r["available"]:
                rows.append([r["score"], r["fitted_on"], f"not available: {r['note']}"] + [""] * (len(header) - 3))
                continue
            cells = [r["score"], r["fitted_on"], _ci(r, "acc_all", n=r["n_all"])]
            cells += [_few(r[f"n_{k}"]) or f"{_pct(r[f'acc_{k}'])} ({int(r[f'n_{k}'])})"
                      for k in ("equal", "longer", "shorter")]
            cells += [_ci(r, "gap", True, n=min(r["n_longer"], r["n_shorter"])), _ci(r, "fidelity", True, n=r["n_equal"])]
            if has_deb:
                for key, n in [("vs_debiased_lp", r.get("n_matched"))] + \
                        [(f"effect_{k}", r.get(f"n_matched_{k}")) for k in ("longer", "shorter", "equal")]:
                    cells.append(_few(n) or _ci(r, key, True) + f" (n={int(n)})")
            rows.append(cells)
        out.append(f"### {model}, set `{set_name}`\n\n" + markdown_table(header, rows))
    return "\n".join(out)
