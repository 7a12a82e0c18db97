"""A generation run: paradigms x tokenizers -> original/ and debiased/ jsonl files + manifest.

The whole run is written into a temporary folder beside the destination and renamed into place at
the end (`fairpairs.io.OutputFolder`), so an interrupted or failed run never leaves a half-written
output, and a folder fairpairs did not write is never replaced.
"""

from __future__ import annotations

import json
import math
import platform
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

from . import __version__
from .control import (
    DEFAULT_RETRIES,
    ParadigmStats,
    SetResult,
    check_request,
    generate_debiased,
    generate_original,
)
from .errors import FairpairsError
from .generate import Sampler
from .grammar import Paradigm
from .io import OutputFolder
from .sources import BUNDLED, bundled_path, expand, resolve_tokenizer
from .tokenization import LengthMeter
from .vocab import Vocabulary


@dataclass
class RunConfig:
    models: list[str]
    pairs: int = 1000
    seed: int = 0
    max_retries: int | None = None      # None: the strategy's default (control.DEFAULT_RETRIES)
    max_draws: int | None = None
    strategy: str = "search"
    match_frequency: float | None = None
    command: str = ""
    lexicon: dict | None = None         # the corpus restriction (fairpairs.lexicon), recorded in the manifest

    def __post_init__(self):
        self.models = expand(self.models)      # preset:NAME -> its tokenizers


@dataclass
class RunResult:
    stats: dict[str, dict[str, ParadigmStats]] = field(default_factory=dict)   # uid -> set -> stats
    strategy: str = "search"


def dumps_row(row: dict) -> str:
    return json.dumps(row, ensure_ascii=False, separators=(", ", ": "))


def write_jsonl(path: Path, sampler: Sampler, res: SetResult) -> None:
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        for i, (pair, lengths) in enumerate(zip(res.pairs, res.lengths)):
            fh.write(dumps_row(sampler.row(pair, lengths, i)) + "\n")


def versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for pkg in ("tokenizers", "transformers", "numpy", "pandas", "jinja2", "pyyaml"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            pass
    return out


def tokenizer_info(meter: LengthMeter) -> dict:
    b = bundled_path(meter.name)
    source = f"bundled:{BUNDLED[meter.name.lower()]}" if b is not None else str(meter.name)
    info = {"source": source, "files": meter.file_hashes()}
    src = resolve_tokenizer(meter.name)
    if src.mapped_from is not None:   # a Hub name read from local files ($FAIRPAIRS_TOKENIZER_MAP)
        info["read_from"] = src.path
    return info


def generate_run(paradigms: list[Paradigm], vocab: Vocabulary, cfg: RunConfig, out: Path,
                 progress_factory=None) -> RunResult:
    """Generate every paradigm and write the run folder `out` atomically."""
    check_request(cfg.pairs, cfg.max_draws)
    if not isinstance(cfg.seed, int) or cfg.seed < 0:
        raise FairpairsError(f"seed: expected a whole number >= 0, not {cfg.seed!r}")
    if not cfg.models or len(set(cfg.models)) != len(cfg.models):
        raise FairpairsError(f"models: expected distinct tokenizer names, not {cfg.models!r}")
    if not paradigms:
        raise FairpairsError("paradigms: none selected")
    mf = cfg.match_frequency
    if mf is not None and not (isinstance(mf, (int, float)) and math.isfinite(mf) and mf >= 0):
        raise FairpairsError(f"match_frequency: expected a finite number of Zipf units >= 0, not {mf!r}")
    folder = OutputFolder(out, "out")   # checked before any work
    meters = [LengthMeter(m) for m in cfg.models]
    result = RunResult(strategy=cfg.strategy)
    retries = DEFAULT_RETRIES[cfg.strategy] if cfg.max_retries is None else cfg.max_retries
    with folder as tmp:
        (tmp / "original").mkdir()
        (tmp / "debiased").mkdir()
        manifest_paradigms = {}
        for p in paradigms:
            sampler = Sampler(p, vocab, cfg.seed)
            bar = progress_factory(p.uid, 2 * cfg.pairs) if progress_factory else None
            orig = generate_original(sampler, cfg.pairs, meters, max_draws=cfg.max_draws,
                                     progress=(lambda n: bar(n)) if bar else None)
            deb = generate_debiased(sampler, cfg.pairs, meters, strategy=cfg.strategy, max_retries=retries,
                                    match_frequency=cfg.match_frequency, max_draws=cfg.max_draws,
                                    progress=(lambda n: bar(cfg.pairs + n)) if bar else None)
            write_jsonl(tmp / "original" / f"{p.uid}.jsonl", sampler, orig)
            write_jsonl(tmp / "debiased" / f"{p.uid}.jsonl", sampler, deb)
            result.stats[p.uid] = {"original": orig.stats, "debiased": deb.stats}
            d = deb.stats
            if orig.stats.distinct_words:
                d.distinct_ratio = d.distinct_words / orig.stats.distinct_words
            manifest_paradigms[p.uid] = {
                "phenomenon": p.phenomenon, "field": p.field, "linguistics_term": p.linguistics_term,
                "grammar_file": p.path.name, "reorder": p.reorder,
                "original": len(orig.pairs), "debiased": len(deb.pairs), "drawn": d.drawn,
                "redraws": d.redraws, "dropped": d.dropped, "yield": d.as_dict()["yield"],
                "draws_per_kept": d.as_dict()["draws_per_kept"], "first_try": d.first_try,
                "invalid_draws": d.invalid, "duplicates": d.duplicates,
                "distinct_critical_words": {"original": orig.stats.distinct_words, "debiased": d.distinct_words,
                                            "ratio": d.as_dict()["distinct_ratio"]},
                "mean_abs_delta_zipf": {"original": orig.stats.as_dict()["mean_dzipf"],
                                        "debiased": d.as_dict()["mean_dzipf"]},
                "original_stats": orig.stats.as_dict(),
            }
        manifest = {
            "fairpairs_version": __version__,
            "command": cfg.command,
            "seed": cfg.seed,
            "pairs": cfg.pairs,
            "strategy": cfg.strategy,
            "max_retries": retries,
            "match_frequency": cfg.match_frequency,
            "models": list(cfg.models),
            "token_length": "content tokens of the sentence as written (special tokens excluded)",
            "tokenizers": {m.name: tokenizer_info(m) for m in meters},
            "versions": versions(),
            "vocabulary": {"file": Path(vocab.source).name, "sha256": vocab.sha256, "fixes": vocab.fixes},
            "paradigms": manifest_paradigms,
        }
        if cfg.lexicon is not None:
            manifest["lexicon"] = cfg.lexicon
        (tmp / "manifest.json").write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return result

