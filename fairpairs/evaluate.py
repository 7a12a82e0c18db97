"""Score minimal pairs with language models and analyse the effect of token-length bias.

Accuracy is the share of pairs whose good sentence scores *strictly* higher than its bad one; ties
are counted separately (they are neither right nor wrong but count in the denominator).

The A=U / A>U / A<U split of a pair uses, by default, the token lengths of the *scoring model's own
tokenizer* (the ``n_tokens`` the scorer reports): the bias being measured is the model's, so the
model under evaluation decides what "longer" means. ``split_tokenizer`` fixes one tokenizer for
every model instead (e.g. to compare models on identical splits).

Scores are cached per (model, scorer settings, sentence set) as parquet under the cache folder.
The pure functions `pair_scores`, `accuracy_table`, `split_table`, `diff_curve`, `length_fit`
and `summary_table` work on plain DataFrames and need no model.
"""

from __future__ import annotations

import hashlib
import inspect
import io
import json
import re
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

from .audit import ALL, SPLITS, split_label, write_csv
from .io import atomic_write
from .markdown import markdown_table
from .errors import FairpairsError, ModelError

NORMALIZATIONS = ("lp", "mean_lp", "pen_lp", "slor")
CACHE_VERSION = 1


@dataclass(frozen=True)
class Settings:
    """Scorer settings that change scores (and so are part of the cache key)."""

    pll: str = "word_l2r"
    normalize: tuple[str, ...] = ("lp", "mean_lp", "pen_lp")
    dtype: str | None = None
    unigrams: str | None = None  # for slor: None/"wordfreq" or a unigram table file

    def scorer_normalize(self) -> tuple[str, ...]:
        return tuple(n for n in self.normalize if n != "lp")


def score_column(norm: str) -> str:
    """The scorer's output column holding normalisation `norm` (``lp`` is the raw sum)."""
    return "sum_logprob" if norm == "lp" else norm


def parse_normalize(value) -> tuple[str, ...]:
    """The normalisations to report ('lp,mean_lp' or an iterable; at least one; MORCELA needs fitted
    parameters, so it is not among them)."""
    from .scoring.normalize import parse_normalize as parse

    return parse(value, NORMALIZATIONS, at_least_one=True)


# ---------------------------------------------------------------------------- cache


def sentences_hash(sentences: list[str]) -> str:
    """sha256 of a list of sentences (order matters; callers pass them sorted)."""
    return hashlib.sha256(json.dumps(sentences, ensure_ascii=False).encode("utf-8")).hexdigest()


def model_fingerprint(model: str) -> str:
    """The model name, plus size and mtime of each file when it is a local folder (so that a
    rebuilt model in the same place is scored afresh)."""
    p = Path(model).expanduser()
    if not p.is_dir():
        return model
    files = sorted(f for f in p.rglob("*") if f.is_file())
    parts = [f"{f.relative_to(p)}:{f.stat().st_size}:{f.stat().st_mtime_ns}" for f in files]
    return f"{p.resolve()}|" + "|".join(parts)


def _versions() -> dict[str, str]:
    """Versions of the code that computes scores: a new release re-scores rather than reuse."""
    from importlib.metadata import PackageNotFoundError, version

    from . import __version__

    out = {"fairpairs": __version__}
    for pkg in ("torch", "transformers"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            out[pkg] = "none"
    return out


def cache_file(cache_dir: Path, model: str, settings: Settings, sentences: list[str]) -> Path:
    """Where the scores of `sentences` by `model` under `settings` are cached."""
    key = json.dumps({"v": CACHE_VERSION, "model": model_fingerprint(model), "settings": asdict(settings),
                      "data": sentences_hash(sentences), "versions": _versions()}, sort_keys=True)
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", Path(model).name or model)[:60]
    return Path(cache_dir) / f"{slug}-{hashlib.sha256(key.encode()).hexdigest()[:16]}.parquet"


def default_loader(model: str, settings: Settings, device: str = "auto", batch_tokens: int | None = None,
                   progress: bool = True, device_map: str | None = None):
    """Load a `fairpairs.scoring.Scorer` for `model`."""
    from .scoring import Scorer

    return Scorer.from_pretrained(model, device=device, dtype=settings.dtype, pll=settings.pll,
                                  batch_tokens=batch_tokens, progress=progress, device_map=device_map)


def resume_folder(path: Path) -> Path:
    """Where the scores behind cache file `path` are saved while they are produced."""
    return path.with_name(path.stem + ".parts")


def _read_cache(path: Path | None, sentences: list[str], needed: list[str]) -> pd.DataFrame | None:
    if path is None or not path.is_file():
        return None
    try:
        df = pd.read_parquet(path)
    except (OSError, ValueError):  # a damaged cache file is re-scored and replaced
        return None
    if set(needed) <= set(df.columns) and df["sentence"].tolist() == sentences:
        return df
    return None


def cached_scores(model: str, sentences: list[str], settings: Settings, cache_dir: Path | None,
                  load_scorer: Callable[[str, Settings], object]) -> tuple[pd.DataFrame, bool]:
    """Scores of `sentences` (sorted, unique) by `model`: read from the cache when present, else
    scored with ``load_scorer(model, settings)`` and cached. Returns (scores, cache_hit).

    While scoring, finished batches are saved next to the cache file (`resume_folder`), so a run
    that is killed resumes there; the folder is removed once the cache file is written. Under a
    multi-process launch rank 0 reads and writes the cache file, the sentences are shared out
    across the ranks, and every rank returns the same scores.
    """
    from .scoring import distributed
    from .scoring.resume import remove_parts, remove_stale

    group = distributed.init()
    path = cache_file(cache_dir, model, settings, sentences) if cache_dir is not None else None
    if path is not None and (group is None or group.is_main):
        remove_stale(cache_dir, model, keep=resume_folder(path))   # what a killed earlier run left
    needed = ["sentence", "n_tokens"] + [score_column(n) for n in settings.normalize]
    if group is None:
        df = _read_cache(path, sentences, needed)
    else:  # rank 0's view decides, so that all ranks take the same path
        df = group.broadcast(_read_cache(path, sentences, needed) if group.is_main else None)
    if df is not None:
        return df, True
    scorer = load_scorer(model, settings)
    kwargs = {"unigrams": settings.unigrams} if "slor" in settings.normalize else {}
    if path is not None and "resume_dir" in inspect.signature(scorer.score).parameters:
        kwargs["resume_dir"] = resume_folder(path)
    df = scorer.score(list(sentences), normalize=settings.scorer_normalize(), **kwargs)
    missing = [c for c in needed if c not in df.columns]
    if missing or len(df) != len(sentences):
        raise ModelError(f"model {model!r}: scorer returned {len(df)} rows without column(s) {missing}")
    df = df.reset_index(drop=True)
    if path is not None:
        if group is None or group.is_main:
            buf = io.BytesIO()
            df.to_parquet(buf, index=False)
            atomic_write(path, buf.getvalue())
        if group is not None:
            group.barrier()  # the cache file exists before any rank drops the saved batches
        remove_parts(resume_folder(path))
    return df, False


# ---------------------------------------------------------------------------- pure analyses


def display_name(model: str) -> str:
    """A short label: a local model folder is shown by its folder name."""
    p = Path(model).expanduser()
    return p.name if p.is_dir() else model


def pair_scores(pairs: pd.DataFrame, scores: pd.DataFrame, model: str, normalize: tuple[str, ...],
                lengths: dict[str, int] | None = None) -> pd.DataFrame:
    """One row per pair and normalisation: scores, token lengths, split and outcome.

    `pairs` has set, uid, pair_id, sentence_good, sentence_bad; `scores` has sentence, n_tokens and
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


def _tally(g: pd.DataFrame) -> dict:
    n = len(g)
    correct = int((g["outcome"] == 1).sum())
    return {"n_pairs": n, "n_correct": correct, "n_ties": int((g["outcome"] == 0).sum()),
            "n_wrong": int((g["outcome"] == -1).sum()), "accuracy": correct / n if n else float("nan")}


def _with_all(ps: pd.DataFrame) -> pd.DataFrame:
    return pd.concat([ps, ps.assign(uid=ALL)], ignore_index=True)


def accuracy_table(ps: pd.DataFrame) -> pd.DataFrame:
    """Per set, paradigm (plus ``ALL``, pooled over pairs), model and normalisation: counts and
    accuracy, and ``best`` = this model has the highest accuracy of all models in its row."""
    keys = ["set", "uid", "model", "normalization"]
    rows = [dict(zip(keys, k), **_tally(g)) for k, g in _with_all(ps).groupby(keys, sort=False)]
    acc = pd.DataFrame(rows)
    top = acc.groupby(["set", "uid", "normalization"])["accuracy"].transform("max")
    acc["best"] = acc["accuracy"] == top
    return _sorted(acc, keys)


def split_table(ps: pd.DataFrame) -> pd.DataFrame:
    """Per set, paradigm (plus ``ALL``), model, normalisation and split (A=U, A>U, A<U): counts
    and accuracy; an empty split has n_pairs 0 and accuracy NaN (N/A)."""
    keys = ["set", "uid", "model", "normalization"]
    rows = []
    for k, g in _with_all(ps).groupby(keys, sort=False):
        for split in SPLITS:
            rows.append(dict(zip(keys, k), split=split, **_tally(g[g["split"] == split])))
    out = pd.DataFrame(rows)
    out["_s"] = out["split"].map(SPLITS.index)
    return _sorted(out, keys + ["_s"]).drop(columns="_s")


def diff_curve(ps: pd.DataFrame) -> pd.DataFrame:
    """Accuracy per token-length difference len(bad) - len(good), per set, model, normalisation."""
    keys = ["set", "model", "normalization", "len_diff"]
    rows = [dict(zip(keys, k), **_tally(g)) for k, g in ps.groupby(keys, sort=False)]
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
    """Overall accuracy per set, model and normalisation: pooled over pairs (``accuracy``) and the
    mean over paradigms (``macro_accuracy``), and the model's rank (1 = best; ties share a rank)."""
    pooled = acc[acc["uid"] == ALL][["set", "model", "normalization", "n_pairs", "n_ties", "accuracy"]]
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


# ---------------------------------------------------------------------------- markdown


def _pct(x: float) -> str:
    return "N/A" if pd.isna(x) else f"{100 * x:.1f}"


def accuracy_markdown(acc: pd.DataFrame) -> str:
    """Table 4 of the seed paper: accuracy (%) per paradigm, model and set; the best model of each
    row and set in bold."""
    out = []
    sets, models = list(dict.fromkeys(acc["set"])), list(dict.fromkeys(acc["model"]))
    for norm, a in acc.groupby("normalization", sort=False):
        idx = a.set_index(["uid", "model", "set"])
        header = ["paradigm"] + [f"{m} ({s})" for m in models for s in sets]
        rows = []
        for uid in dict.fromkeys(a["uid"]):
            cells = [uid]
            for m in models:
                for s in sets:
                    if (uid, m, s) in idx.index:
                        r = idx.loc[(uid, m, s)]
                        cells.append(f"**{_pct(r['accuracy'])}**" if r["best"] else _pct(r["accuracy"]))
                    else:
                        cells.append("-")
            rows.append(cells)
        out.append(f"### Accuracy (%), normalization `{norm}`; best model per row and set in bold\n\n"
                   + markdown_table(header, rows))
    return "\n".join(out)


def split_markdown(splits: pd.DataFrame) -> str:
    """Table 3 of the seed paper: accuracy (%) and size of the A=U, A>U, A<U splits."""
    out = []
    models = list(dict.fromkeys(splits["model"]))
    for (set_name, norm), a in splits.groupby(["set", "normalization"], sort=False):
        idx = a.set_index(["uid", "model", "split"])
        header = ["paradigm"] + [f"{m} {s}" for m in models for s in SPLITS]
        rows = [[uid] + [f"{_pct(idx.loc[(uid, m, s), 'accuracy'])} ({int(idx.loc[(uid, m, s), 'n_pairs'])})"
                         for m in models for s in SPLITS]
                for uid in dict.fromkeys(a["uid"])]
        out.append(f"### Split accuracy (%) and size (n), set `{set_name}`, normalization `{norm}`\n\n"
                   + markdown_table(header, rows))
    return "\n".join(out)


def curve_markdown(curve: pd.DataFrame) -> str:
    out = []
    for (set_name, norm), a in curve.groupby(["set", "normalization"], sort=False):
        models = list(dict.fromkeys(a["model"]))
        idx = a.set_index(["len_diff", "model"])
        rows = [[int(d)] + [f"{_pct(idx.loc[(d, m), 'accuracy'])} ({int(idx.loc[(d, m), 'n_pairs'])})"
                            if (d, m) in idx.index else "-" for m in models]
                for d in sorted(a["len_diff"].unique())]
        out.append(f"### Accuracy (%) by len(bad) - len(good), set `{set_name}`, normalization `{norm}`\n\n"
                   + markdown_table(["len_diff"] + models, rows))
    return "\n".join(out)


def fit_markdown(fits: pd.DataFrame) -> str:
    rows = [[r.model, r.normalization, r.n_sentences, f"{r.slope:.3f}", f"{r.intercept:.3f}", f"{r.pearson_r:.3f}"]
            for r in fits.itertuples()]
    return ("### Sentence score vs token length (least-squares fit)\n\n"
            + markdown_table(["model", "normalization", "sentences", "slope", "intercept", "pearson r"], rows))


def summary_markdown(summary: pd.DataFrame, change: pd.DataFrame | None) -> str:
    rows = [[r.set, r.normalization, r.rank, r.model, _pct(r.accuracy), _pct(r.macro_accuracy), r.n_pairs, r.n_ties]
            for r in summary.itertuples()]
    text = "### Overall accuracy (%) and model ranking\n\n" + markdown_table(
        ["set", "normalization", "rank", "model", "accuracy", "macro accuracy", "pairs", "ties"], rows)
    if change is not None and not change.empty:
        rows = [[r.normalization, r.model, _pct(r.accuracy_original), _pct(r.accuracy_debiased),
                 f"{100 * r.accuracy_change:+.1f}", r.rank_original, r.rank_debiased, f"{r.rank_change:+d}"]
                for r in change.itertuples()]
        text += "\n### Original vs debiased\n\n" + markdown_table(
            ["normalization", "model", "original", "debiased", "change", "rank original", "rank debiased",
             "rank change"], rows)
    return text


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


def analyse(ps: pd.DataFrame) -> Report:
    """All tables from the per-pair scores of one or more models."""
    acc = accuracy_table(ps)
    summary = summary_table(acc)
    sets = set(ps["set"])
    return Report(pairs=ps, accuracy=acc, splits=split_table(ps), curve=diff_curve(ps),
                  fits=length_fit(sentence_table(ps)),
                  summary=summary, change=ranking_change(summary) if {"original", "debiased"} <= sets else None,
                  cache_hits={})


def evaluate(sets: dict[str, pd.DataFrame], models: list[str], settings: Settings, cache_dir: Path | None,
             split_tokenizer: str | None = None, load_scorer: Callable[[str, Settings], object] = default_loader
             ) -> Report | None:
    """Score every sentence of `sets` with each model (through the cache) and analyse.

    Under a multi-process launch (torchrun, accelerate launch) every rank calls this; the ranks
    share the scoring and rank 0 alone analyses and returns the report (the others return None).
    """
    from .scoring.distributed import is_main

    pairs = pd.concat([df.assign(set=name) for name, df in sets.items()], ignore_index=True)
    sentences = sorted(set(pairs["sentence_good"]) | set(pairs["sentence_bad"]))
    lengths = None
    if split_tokenizer:
        from .tokenization import LengthMeter

        try:
            meter = LengthMeter(split_tokenizer)
        except FairpairsError as exc:   # (the tokenizer is this call's `split_tokenizer`)
            raise type(exc)(re.sub(r"^tokenizers\b", "split_tokenizer", str(exc))) from None
        lengths = dict(zip(sentences, meter.lengths(sentences)))
    labels = [display_name(m) for m in models]
    if len(set(labels)) < len(labels):
        labels = list(models)
    frames, hits, seconds, loading = [], {}, {}, {}

    def timed_load(model, s):
        start = time.perf_counter()
        scorer = load_scorer(model, s)
        loading[model] = time.perf_counter() - start
        return scorer

    for model, label in zip(models, labels):
        start = time.perf_counter()
        scores, hits[label] = cached_scores(model, sentences, settings, cache_dir, timed_load)
        seconds[label] = time.perf_counter() - start - loading.get(model, 0.0)
        frames.append(pair_scores(pairs, scores, label, settings.normalize, lengths))
    if not is_main():
        return None
    report = analyse(pd.concat(frames, ignore_index=True))
    report.cache_hits, report.seconds = hits, seconds
    report.load_seconds = {label: loading.get(model, 0.0) for model, label in zip(models, labels)}
    return report


def write_report(report: Report, out: Path) -> list[Path]:
    """Write the CSV, markdown and PNG files of `report` into the folder `out`, atomically, as a
    folder of ours (fairpairs.io.OutputFolder: a folder fairpairs did not write is refused, files
    a user added to an earlier report are kept); returns the paths."""
    from .arguments import path
    from .errors import UsageTypeError
    from .io import OutputFolder

    if not isinstance(report, Report):
        raise UsageTypeError(f"report: expected a Report (fairpairs.evaluate), not {type(report).__name__}")
    with OutputFolder(path(out, "out", exists=False), "out") as tmp:
        written = _write_report_files(report, tmp)
    return [Path(out) / p.relative_to(tmp) for p in written]


def _write_report_files(report: Report, out: Path) -> list[Path]:
    from . import plots

    out = Path(out)
    files = {
        "pair_scores.csv": report.pairs, "accuracy.csv": report.accuracy, "splits.csv": report.splits,
        "length_diff_accuracy.csv": report.curve, "loglik_length.csv": report.fits, "summary.csv": report.summary,
    }
    if report.change is not None:
        files["ranking_change.csv"] = report.change
    written = []
    for name, df in files.items():
        write_csv(df, out / name)
        written.append(out / name)
    md = {
        "accuracy.md": accuracy_markdown(report.accuracy), "splits.md": split_markdown(report.splits),
        "length_diff_accuracy.md": curve_markdown(report.curve), "loglik_length.md": fit_markdown(report.fits),
        "summary.md": summary_markdown(report.summary, report.change),
    }
    for name, text in md.items():
        atomic_write(out / name, text)
        written.append(out / name)
    figures = {
        "accuracy.png": plots.accuracy_scatter(report.accuracy),
        "splits.png": plots.split_bars(report.splits),
        "length_diff_accuracy.png": plots.diff_curves(report.curve),
        "loglik_length.png": plots.loglik_vs_length(sentence_table(report.pairs), report.fits),
        "summary.png": plots.summary_bars(report.summary),
    }
    for name, png in figures.items():
        atomic_write(out / name, png)
        written.append(out / name)
    sections = [
        ("1. Accuracy per paradigm: original vs debiased", "accuracy"),
        ("2. Accuracy on the A=U / A>U / A<U splits", "splits"),
        ("3. Accuracy vs token-length difference", "length_diff_accuracy"),
        ("4. Sentence score vs token length", "loglik_length"),
        ("5. Summary", "summary"),
    ]
    body = ["# fairpairs evaluation report\n"]
    for title, stem in [sections[4]] + sections[:4]:
        body.append(f"## {title}\n\n![{stem}]({stem}.png)\n\n{md[stem + '.md']}")
    atomic_write(out / "report.md", "\n".join(body))
    written.append(out / "report.md")
    return written
