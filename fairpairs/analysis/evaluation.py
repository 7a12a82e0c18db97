"""Score minimal pairs with language models and analyse the effect of token-length bias.

Accuracy is the share of pairs whose good sentence scores *strictly* higher than its bad one; ties
are counted separately (they are neither right nor wrong but count in the denominator).

The A=U / A>U / A<U split of a pair uses, by default, the token lengths of the *scoring model's own
tokenizer* (the ``n_tokens`` the scorer reports): the bias being measured is the model's, so the
model under evaluation decides what "longer" means. ``split_tokenizer`` fixes one tokenizer for
every model instead (e.g. to compare models on identical splits).

Scores are cached per (model, scorer settings, sentence set) under the cache folder. The pure
functions (`pair_scores`, `accuracy_table`, ..., `analyse`) need no model; pairs scored in a
stratified sample carry weights (`fairpairs.analysis.sampling`). `analysis.report` writes the report."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

from fairpairs.analysis.length_audit import ALL, SPLITS, split_label
from fairpairs.analysis.sampling import tally, without_unit_weights
from fairpairs.errors import FairpairsError
from fairpairs.scoring.cache import (Settings, cached_scores, default_loader,
                                     score_column, scorer_settings)

# ---------------------------------------------------------------------------- pure analyses


def display_name(model: str) -> str:
    """A short label: a local model folder is shown by its folder name."""
    p = Path(model).expanduser()
    return p.name if p.is_dir() else model


def pair_scores(pairs: pd.DataFrame, scores: pd.DataFrame, model: str, normalize: tuple[str, ...],
                lengths: dict[str, int] | None = None) -> pd.DataFrame:
    """One row per pair and normalisation: scores, token lengths, split and outcome.

    `pairs` has set, uid, pair_id, sentence_good, sentence_bad (and optionally draw, kept); `scores` has sentence, n_tokens and
    a column per normalisation (see `score_column`). `lengths` (sentence -> tokens) overrides the
    scorer's n_tokens for the split. outcome: 1 good strictly higher, 0 tie, -1 bad higher.
    """
    by_sentence = scores.set_index("sentence")
    length = lengths if lengths is not None else by_sentence["n_tokens"].to_dict()
    len_good = pairs["sentence_good"].map(length).astype(int)
    len_bad = pairs["sentence_bad"].map(length).astype(int)
    base = pd.DataFrame({
        "set": pairs["set"].to_numpy(), "uid": pairs["uid"].to_numpy(), "pair_id": pairs["pair_id"].to_numpy(),
        "model": model, "sentence_good": pairs["sentence_good"].to_numpy(),
        "sentence_bad": pairs["sentence_bad"].to_numpy(), "len_good": len_good.to_numpy(),
        "len_bad": len_bad.to_numpy(),
    })
    if "draw" in pairs.columns:   # which draw a generated pair came from: matches contexts (fairpairs.analysis.effects)
        base["draw"] = pairs["draw"].to_numpy()
    if "weight" in pairs.columns:   # survey weight of a pair scored in a sample (fairpairs.analysis.sampling)
        base["weight"] = pairs["weight"].to_numpy(dtype=float)
    base["len_diff"] = base["len_bad"] - base["len_good"]
    base["split"] = [split_label(g, b) for g, b in zip(base["len_good"], base["len_bad"])]
    frames = []
    for norm in normalize:
        col = by_sentence[score_column(norm)]
        f = base.copy()
        f.insert(4, "normalization", norm)
        f["score_good"] = pairs["sentence_good"].map(col).to_numpy(dtype=float)
        f["score_bad"] = pairs["sentence_bad"].map(col).to_numpy(dtype=float)
        f["outcome"] = np.sign(f["score_good"] - f["score_bad"]).astype(int)
        frames.append(f)
    return pd.concat(frames, ignore_index=True)


def _with_all(ps: pd.DataFrame) -> pd.DataFrame:
    return pd.concat([ps, ps.assign(uid=ALL)], ignore_index=True)


def accuracy_table(ps: pd.DataFrame) -> pd.DataFrame:
    """Per set, paradigm (plus ``ALL``, pooled over pairs), model and normalisation: counts and
    accuracy, and ``best`` = this model has the highest accuracy of all models in its row."""
    keys = ["set", "uid", "model", "normalization"]
    rows = [dict(zip(keys, k), **tally(g)) for k, g in _with_all(without_unit_weights(ps)).groupby(keys, sort=False)]
    acc = pd.DataFrame(rows)
    top = acc.groupby(["set", "uid", "normalization"])["accuracy"].transform("max")
    acc["best"] = acc["accuracy"] == top
    return _sorted(acc, keys)


def split_table(ps: pd.DataFrame) -> pd.DataFrame:
    """Per set, paradigm (plus ``ALL``), model, normalisation and split (A=U, A>U, A<U): counts
    and accuracy; an empty split has n_pairs 0 and accuracy NaN (N/A)."""
    keys = ["set", "uid", "model", "normalization"]
    rows = []
    for k, g in _with_all(without_unit_weights(ps)).groupby(keys, sort=False):
        for split in SPLITS:
            rows.append(dict(zip(keys, k), split=split, **tally(g[g["split"] == split])))
    out = pd.DataFrame(rows)
    out["_s"] = out["split"].map(SPLITS.index)
    return _sorted(out, keys + ["_s"]).drop(columns="_s")


def diff_curve(ps: pd.DataFrame) -> pd.DataFrame:
    """Accuracy per token-length difference len(bad) - len(good), per set, model, normalisation."""
    keys = ["set", "model", "normalization", "len_diff"]
    rows = [dict(zip(keys, k), **tally(g)) for k, g in without_unit_weights(ps).groupby(keys, sort=False)]
    return _sorted(pd.DataFrame(rows), keys)


def sentence_table(ps: pd.DataFrame) -> pd.DataFrame:
    """Unique sentences per model and normalisation with role (good/bad), token length and score."""
    cols = ["model", "normalization", "sentence", "n_tokens", "score"]
    parts = []
    for role in ("good", "bad"):
        part = ps[["model", "normalization", f"sentence_{role}", f"len_{role}", f"score_{role}"]].set_axis(cols, axis=1)
        parts.append(part.assign(role=role))
    return pd.concat(parts, ignore_index=True).drop_duplicates(["model", "normalization", "sentence"])


def length_fit(sentences: pd.DataFrame) -> pd.DataFrame:
    """Least-squares line score = slope * n_tokens + intercept per model and normalisation, with
    Pearson's r (NaN where the token lengths do not vary)."""
    rows = []
    for (model, norm), g in sentences.groupby(["model", "normalization"], sort=False):
        x, y = g["n_tokens"].to_numpy(float), g["score"].to_numpy(float)
        if np.unique(x).size >= 2:
            slope, intercept = np.polyfit(x, y, 1)
            r = float(np.corrcoef(x, y)[0, 1])
        else:
            slope = intercept = r = float("nan")
        rows.append({"model": model, "normalization": norm, "n_sentences": len(g), "slope": float(slope),
                     "intercept": float(intercept), "pearson_r": r})
    return _sorted(pd.DataFrame(rows), ["model", "normalization"])


def summary_table(acc: pd.DataFrame) -> pd.DataFrame:
    """Overall accuracy per set, model and normalisation: pooled over pairs (``accuracy``, with its
    Wilson interval where `acc` has one) and the mean over paradigms (``macro_accuracy``), and the
    model's rank (1 = best; ties share a rank)."""
    cols = ["set", "model", "normalization", "n_pairs", "n_ties", "accuracy"]
    cols += [c for c in ("accuracy_low", "accuracy_high") if c in acc.columns]
    pooled = acc[acc["uid"] == ALL][cols]
    macro = (acc[acc["uid"] != ALL].groupby(["set", "model", "normalization"], sort=False)["accuracy"]
             .mean().rename("macro_accuracy").reset_index())
    out = pooled.merge(macro, on=["set", "model", "normalization"], how="left")
    out["rank"] = (out.groupby(["set", "normalization"])["accuracy"]
                   .rank(ascending=False, method="min").astype(int))
    return _sorted(out, ["set", "normalization", "rank", "model"])


def ranking_change(summary: pd.DataFrame, before: str = "original", after: str = "debiased") -> pd.DataFrame:
    """Per model and normalisation: accuracy and rank on `before` and `after`, and the change."""
    a = summary[summary["set"] == before].set_index(["model", "normalization"])
    b = summary[summary["set"] == after].set_index(["model", "normalization"])
    out = pd.DataFrame({
        f"accuracy_{before}": a["accuracy"], f"accuracy_{after}": b["accuracy"],
        f"rank_{before}": a["rank"], f"rank_{after}": b["rank"],
    }).dropna().reset_index()
    out["accuracy_change"] = out[f"accuracy_{after}"] - out[f"accuracy_{before}"]
    out["rank_change"] = (out[f"rank_{before}"] - out[f"rank_{after}"]).astype(int)  # > 0: moved up
    for c in (f"rank_{before}", f"rank_{after}"):
        out[c] = out[c].astype(int)
    return _sorted(out, ["normalization", f"rank_{after}", "model"])


def _sorted(df: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Stable order: paradigms alphabetically with ALL last; `set` keeps first-seen order."""
    df = df.copy()
    sort_keys = []
    for k in keys:
        if k == "uid":
            df["_all"] = df["uid"] == ALL
            sort_keys += ["_all", "uid"]
        elif k == "set":
            order = {s: i for i, s in enumerate(dict.fromkeys(df["set"]))}
            df["_set"] = df["set"].map(order)
            sort_keys.append("_set")
        else:
            sort_keys.append(k)
    df = df.sort_values(sort_keys, kind="stable").drop(columns=[c for c in ("_all", "_set") if c in df])
    return df.reset_index(drop=True)


# ---------------------------------------------------------------------------- run


@dataclass
class Report:
    """Every table of one evaluation run."""

    pairs: pd.DataFrame
    accuracy: pd.DataFrame
    splits: pd.DataFrame
    curve: pd.DataFrame
    fits: pd.DataFrame
    summary: pd.DataFrame
    change: pd.DataFrame | None
    cache_hits: dict[str, bool]
    seconds: dict[str, float] = field(default_factory=dict)  # per model: scoring (or reading) its sentences
    load_seconds: dict[str, float] = field(default_factory=dict)  # per model: loading it (0 on a cache hit)
    effects: pd.DataFrame | None = None   # length vs selection per model, normalisation, paradigm (fairpairs.analysis.effects)
    headline: pd.DataFrame | None = None  # per model and normalisation: length effect, A=U baseline, distinct ratio
    balance: pd.DataFrame | None = None   # fp.balance of the run folder evaluated (None for other data)
    notes: list[str] = field(default_factory=list)  # what the pairs are (provenance, warnings): report.md's first lines
    settings: dict = field(default_factory=dict)    # how the pairs were scored (results.json: models, scores, ...)
    comparison: pd.DataFrame | None = None   # every two models pair for pair (fairpairs.analysis.comparison)
    placebo: pd.DataFrame | None = None      # the placebo of control per paradigm (fairpairs.analysis.placebo)

    def markdown(self) -> str:
        """What `fairpairs evaluate` prints: report.md's headline (the bias by direction, what length
        control did; `analysis.headline`), then accuracy and ranking for every score (`analysis.report`)."""
        from fairpairs.analysis.headline import headline_markdown
        from fairpairs.analysis.report import summary_markdown

        return ("### Token-length bias by direction, and what length control did (report.md's headline)\n\n"
                + headline_markdown(self.headline, self.notes) + "\n" + summary_markdown(self.summary, self.change, self.effects))

    def timings(self) -> str:
        """Per model: cached, or how long scoring and loading took."""
        return ", ".join(f"{m}: cached" if h else f"{m}: scored in {self.seconds[m]:.1f} s after "
                         f"{self.load_seconds[m]:.1f} s loading" for m, h in self.cache_hits.items())


def analyse(ps: pd.DataFrame, balance: pd.DataFrame | None = None, seed: int = 0) -> Report:
    """All tables from the per-pair scores of one or more models: accuracies with their Wilson
    intervals, and, with an original and a debiased set, the length/selection decomposition
    (`fairpairs.analysis.effects`, bootstrap seeded by `seed`) and its headline (with `balance`'s
    distinct-word ratio when given)."""
    from fairpairs.analysis.directions import headline_table
    from fairpairs.analysis.effects import effects_table, with_wilson
    from fairpairs.analysis.placebo import split_placebo

    ps, placebo = split_placebo(ps)

    acc = with_wilson(accuracy_table(ps))
    summary = summary_table(acc)
    splits = with_wilson(split_table(ps))
    sets = set(ps["set"])
    effects = effects_table(ps, seed=seed)
    from fairpairs.analysis.clustered import with_clustered
    from fairpairs.analysis.comparison import comparison_table
    from fairpairs.analysis.effects import unit_outcomes
    from fairpairs.analysis.placebo import beside_headline

    if effects is not None:   # the gap's and the effects' intervals clustered by paradigm (fairpairs.analysis.clustered)
        effects = with_clustered(effects, unit_outcomes(ps), seed=seed)

    return Report(pairs=ps, accuracy=acc, splits=splits, curve=with_wilson(diff_curve(ps)),
                  fits=length_fit(sentence_table(ps)),
                  summary=summary, change=ranking_change(summary) if {"original", "debiased"} <= sets else None,
                  cache_hits={}, effects=effects, headline=beside_headline(headline_table(effects, balance), placebo),
                  balance=balance,
                  comparison=comparison_table(ps, seed=seed), placebo=placebo)


def _split_lengths(split_tokenizer: str, sentences: list[str]) -> dict[str, int]:
    """Token lengths under `split_tokenizer` (one tokenizer deciding every model's splits)."""
    from fairpairs.tokenization.lengths import LengthMeter

    try:
        meter = LengthMeter(split_tokenizer)
    except FairpairsError as exc:   # (the tokenizer is this call's `split_tokenizer`)
        raise exc.with_param("models", "split_tokenizer") from None
    return dict(zip(sentences, meter.lengths(sentences)))


def _labels(models: list) -> tuple[list[str], list[str]]:
    """Each model's key (its name; a Scorer's name) and its label in the tables (unique)."""
    keys = [m if isinstance(m, str) else str(getattr(m, "name", "") or "") for m in models]
    labels = [display_name(k) if k else f"scorer {i + 1}" for i, k in enumerate(keys)]
    if len(set(labels)) < len(labels):
        labels = [k or label for k, label in zip(keys, labels)]
    return keys, labels


def evaluate_sets(sets: dict[str, pd.DataFrame], models: list, settings: Settings, cache_dir: Path | None,
             split_tokenizer: str | None = None, load_scorer: Callable[[str, Settings], object] = default_loader,
             balance: pd.DataFrame | None = None, samples: dict | None = None,
             placebo: pd.DataFrame | None = None) -> Report | None:
    """Score every sentence of `sets` with each model (through the cache) and analyse (`analyse`;
    `balance`: the balance report of the run folder the sets come from, if any). A model is a name
    (loaded with `load_scorer` when its scores are not cached) or a loaded `Scorer` (used as it is;
    cached under its content fingerprint and its own settings, `scorer_settings`; not cached without a name).

    `samples` (model key -> `fairpairs.analysis.sampling.Sample`): a model with one scores only its
    rows, weighted; `placebo` (`fp.placebo_pairs(...).pairs.frame`): scored too, with their originals.

    Under a multi-process launch (torchrun, accelerate launch) every rank calls this; the ranks
    share the scoring and rank 0 alone analyses and returns the report (the others return None).
    """
    from fairpairs.analysis.placebo import with_placebo
    from fairpairs.analysis.sampling import sampled_pairs, sentences_of
    from fairpairs.scoring.launch import is_main

    pairs = pd.concat([df.assign(set=name) for name, df in sets.items()], ignore_index=True)
    lengths = _split_lengths(split_tokenizer, sentences_of(with_placebo(pairs, placebo, sets))) if split_tokenizer \
        else None
    keys, labels = _labels(models)
    frames, hits, seconds, loading = [], {}, {}, {}

    def timed_load(model, s):
        start = time.perf_counter()
        scorer = load_scorer(model, s)
        loading[model] = time.perf_counter() - start
        return scorer

    for model, key, label in zip(models, keys, labels):
        start = time.perf_counter()
        part = with_placebo(sampled_pairs(pairs, (samples or {}).get(key)), placebo, sets)
        sentences = sentences_of(part)
        if isinstance(model, str):
            scores, hits[label] = cached_scores(model, sentences, settings, cache_dir, timed_load)
        else:   # a loaded Scorer: no loading, its own settings
            from fairpairs.scoring.fingerprint import model_fingerprint

            scores, hits[label] = cached_scores(key, sentences, scorer_settings(model, settings),
                                                cache_dir if key else None, lambda m, s, obj=model: obj,
                                                fingerprint=model_fingerprint(model) if key and cache_dir else None)
        seconds[label] = time.perf_counter() - start - loading.get(key, 0.0)
        frames.append(pair_scores(part, scores, label, settings.normalize, lengths))
    if not is_main():
        return None
    report = analyse(pd.concat(frames, ignore_index=True), balance=balance)
    report.cache_hits, report.seconds = hits, seconds
    report.settings = {"models": keys, "labels": labels, "normalize": list(settings.normalize), "pll": settings.pll,
                       "dtype": settings.dtype, "unigrams": settings.unigrams, "split_tokenizer": split_tokenizer,
                       "split_by": split_tokenizer or "each model's own tokenizer"}
    report.load_seconds = {label: loading.get(key, 0.0) for key, label in zip(keys, labels)}
    return report
