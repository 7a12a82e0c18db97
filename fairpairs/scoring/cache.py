"""The score cache of `fairpairs evaluate` and `fp.score_pairs`: scores per model (a name, or a
loaded `Scorer`), scorer settings and sentence set, as parquet files in a cache folder.

A cache file's name is ``<model>-<model and settings key>-<sentences key>.parquet``. A new set of
sentences reuses the scores of every earlier file of the same model and settings (the sentences they
share) and scores only the others: `score_pairs` on the debiased set, then `evaluate` on the run,
scores each sentence once. The key covers the model (its content fingerprint: config and weights,
`scoring.fingerprint`; never its files' sizes or times), the settings that change scores (`Settings`), and the versions of fairpairs, torch
and transformers.
"""

from __future__ import annotations

import hashlib
import inspect
import io
import json
import re
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Callable

import pandas as pd

from fairpairs.errors import Param, ModelError
from fairpairs.io.files import atomic_write
from fairpairs.scoring.settings import SCORING

CACHE_VERSION = 2


@dataclass(frozen=True)
class Settings:
    """Scorer settings that change scores (and so are part of the cache key)."""

    pll: str = SCORING.pll
    normalize: tuple[str, ...] = SCORING.normalize
    dtype: str | None = None
    unigrams: str | None = None  # for slor: None/"wordfreq" or a unigram table file
    length_params: str | None = None  # for slln_lp/tc_lp/tcf_lp: None (bundled) or the JSON of the parameters given

    def length_spec(self):
        """The `length_params` to score with: None (the bundled ones) or the parameters given."""
        return None if self.length_params is None else json.loads(self.length_params)

    def scorer_normalize(self) -> tuple[str, ...]:
        return tuple(n for n in self.normalize if n != "lp")


def score_column(norm: str) -> str:
    """The scorer's output column holding normalisation `norm` (``lp`` is the raw sum)."""
    return "sum_logprob" if norm == "lp" else norm


def sentences_hash(sentences: list[str]) -> str:
    """sha256 of a list of sentences (order matters; callers pass them sorted)."""
    return hashlib.sha256(json.dumps(sentences, ensure_ascii=False).encode("utf-8")).hexdigest()


def _versions() -> dict[str, str]:
    """Versions of the code that computes scores: a new release re-scores rather than reuse."""
    from importlib.metadata import PackageNotFoundError, version

    from fairpairs import __version__

    out = {"fairpairs": __version__}
    for pkg in ("torch", "transformers"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            out[pkg] = "none"
    return out


def cache_file(cache_dir: Path, model: str, settings: Settings, sentences: list[str],
               fingerprint: str | None = None) -> Path:
    """Where the scores of `sentences` by `model` under `settings` are cached. The model is keyed by
    its content (`fingerprint`, default `scoring.fingerprint.model_fingerprint(model)`), not by its
    name or its files' sizes and times."""
    from fairpairs.scoring.fingerprint import model_fingerprint

    key = json.dumps({"v": CACHE_VERSION, "model": fingerprint or model_fingerprint(model),
                      "settings": asdict(settings), "versions": _versions()}, sort_keys=True)
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", Path(model).name or model)[:60]
    return (Path(cache_dir) / f"{slug}-{hashlib.sha256(key.encode()).hexdigest()[:12]}-"
                              f"{sentences_hash(sentences)[:16]}.parquet")


def scorer_settings(scorer, settings: Settings) -> Settings:
    """`settings` as they hold for a loaded `Scorer`: its PLL variant and its dtype (what it is, not
    what was asked for), so that `score_pairs` and `evaluate` with the same Scorer share the cache."""
    dtype = getattr(scorer, "dtype", None)
    return replace(settings, pll=getattr(scorer, "pll", settings.pll),
                   dtype=None if dtype is None else str(dtype).removeprefix("torch."))


def default_loader(model: str, settings: Settings, device: str = "auto", batch_tokens: int | None = None,
                   device_map: str | None = None):
    """Load a `fairpairs.scoring.Scorer` for `model`, as the commands that generate or analyse around
    their scoring (`evaluate`, `robustness`) do: on the CPU, freed tensors then go back to the system
    (`memory.return_freed_tensors`), since those processes hold their tables and libraries besides
    the model (issue 49, item 3)."""
    from fairpairs.scoring import Scorer
    from fairpairs.scoring.memory import return_freed_tensors

    scorer = Scorer.from_pretrained(model, device=device, dtype=settings.dtype, pll=settings.pll,
                                    batch_tokens=batch_tokens, device_map=device_map)
    return_freed_tensors(scorer.device)
    return scorer


def resume_folder(path: Path) -> Path:
    """Where the scores behind cache file `path` are saved while they are produced."""
    return path.with_name(path.stem + ".parts")


def _known_scores(path: Path | None, needed: list[str]) -> pd.DataFrame | None:
    """The scores in the other cache files of the same model and settings as `path` (other sets of
    sentences), one row per sentence, or None."""
    if path is None:
        return None
    parts = []
    for f in sorted(path.parent.glob(path.name.rsplit("-", 1)[0] + "-*.parquet")):
        try:
            df = pd.read_parquet(f, columns=needed) if f != path else None
        except (OSError, ValueError, KeyError):   # damaged, or written without a column needed now
            continue
        if df is not None:
            parts.append(df[~df[needed].isna().any(axis=1)])   # (a sentence without a score is scored again)
    return pd.concat(parts, ignore_index=True).drop_duplicates("sentence") if parts else None


def read_cache(path: Path | None, sentences: list[str], needed: list[str]) -> pd.DataFrame | None:
    if path is None or not path.is_file():
        return None
    try:
        df = pd.read_parquet(path)
    except (OSError, ValueError):  # a damaged cache file is re-scored and replaced
        return None
    if set(needed) <= set(df.columns) and df["sentence"].tolist() == sentences \
            and not df[needed].isna().to_numpy().any():   # (missing scores: re-scored and replaced, as a damaged file)
        return df
    return None


def cached_scores(model: str, sentences: list[str], settings: Settings, cache_dir: Path | None,
                  load_scorer: Callable[[str, Settings], object],
                  fingerprint: str | None = None) -> tuple[pd.DataFrame, bool]:
    """Scores of `sentences` (sorted, unique) by `model`: read from the cache when present, else
    scored with ``load_scorer(model, settings)`` and cached (keyed by the model's content,
    `fingerprint`: that of a loaded Scorer's when one is given); sentences that earlier cache files of
    the same model and settings hold are taken from them, and the model is loaded only when some
    are left to score. Returns (scores, cache_hit: nothing was scored).

    While scoring, finished batches are saved next to the cache file (`resume_folder`), so a run
    that is killed resumes there; the folder is removed once the cache file is written. Under a
    multi-process launch rank 0 reads and writes the cache file, the sentences are shared out
    across the ranks, and every rank returns the same scores.
    """
    from fairpairs.scoring import launch
    from fairpairs.scoring.normalize import needing
    from fairpairs.scoring.resume import remove_parts, remove_stale_resumes

    group = launch.init()
    path = cache_file(cache_dir, model, settings, sentences, fingerprint) if cache_dir is not None else None
    if path is not None and (group is None or group.is_main):
        remove_stale_resumes(cache_dir, model, keep=resume_folder(path))   # what a killed earlier run left
    needed = ["sentence", "n_tokens"] + [score_column(n) for n in settings.normalize]
    if group is None:
        df = read_cache(path, sentences, needed)
    else:  # rank 0's view decides, so that all ranks take the same path
        df = group.broadcast(read_cache(path, sentences, needed) if group.is_main else None)
    if df is not None:
        return df, True
    known = _known_scores(path, needed) if group is None else \
        group.broadcast(_known_scores(path, needed) if group.is_main else None)
    todo = sentences if known is None else sorted(set(sentences) - set(known["sentence"]))
    if todo:
        scorer = load_scorer(model, settings)
        kwargs = {"unigrams": settings.unigrams} if needing(settings.normalize, "unigrams") else {}
        if needing(settings.normalize, "length_params"):
            kwargs["length_params"] = settings.length_spec()
        if path is not None and "resume_dir" in inspect.signature(scorer.score).parameters:
            kwargs["resume_dir"] = resume_folder(path)
        df = scorer.score(list(todo), normalize=settings.scorer_normalize(), **kwargs)
        missing = [c for c in needed if c not in df.columns]
        if missing or len(df) != len(todo):
            raise ModelError(Param("model"), f" {model!r}", value=model, reason=f"scorer returned {len(df)} rows without column(s) {missing}")
        df = df.reset_index(drop=True)
    if known is not None:   # the sentences scored before, in the order asked for
        rows = pd.concat([known, df[needed]], ignore_index=True) if todo else known
        df = rows.set_index("sentence").loc[sentences].reset_index()
    if path is not None:
        if group is None or group.is_main:
            buf = io.BytesIO()
            df.to_parquet(buf, index=False)
            atomic_write(path, buf.getvalue())
        if group is not None:
            group.barrier()  # the cache file exists before any rank drops the saved batches
        remove_parts(resume_folder(path))
    return df, not todo


