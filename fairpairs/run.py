"""A generation run: paradigms x tokenizers -> original/ and debiased/ jsonl files + manifest.

The whole run is written into a temporary folder beside the destination and renamed into place at
the end (`fairpairs.io.OutputFolder`), so an interrupted or failed run never leaves a half-written
output, and a folder fairpairs did not write is never replaced.
"""

from __future__ import annotations

import platform
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

from . import __version__
from .control import (
    DEFAULT_RETRIES,
    STRATEGIES,
    ParadigmStats,
    SetResult,
    check_request,
    generate_debiased,
    generate_original,
)
from .arguments import count, number, text
from .errors import UsageError
from .generate import Sampler
from .grammar import Paradigm
from .io import OutputFolder
from .records import (
    DistinctWords,
    LexiconInfo,
    MeanDeltaZipf,
    PairRecord,
    ParadigmEntry,
    RunManifest,
    TokenizerInfo,
    VocabularyInfo,
)
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
    lexicon: LexiconInfo | None = None  # the corpus restriction (fairpairs.lexicon), recorded in the manifest

    def __post_init__(self):
        self.models = expand(self.models)      # preset:NAME -> its tokenizers


@dataclass
class RunResult:
    stats: dict[str, dict[str, ParadigmStats]] = field(default_factory=dict)   # uid -> set -> stats
    strategy: str = "search"


@dataclass
class ParadigmSets:
    """The sets generated for one paradigm, with the sampler that drew them (it renders records)."""

    paradigm: Paradigm
    sampler: Sampler
    original: SetResult | None = None
    debiased: SetResult | None = None

    def records(self, which: str) -> list[PairRecord]:
        """The typed records of set `which` ("original" or "debiased"), in output order."""
        res = getattr(self, which)
        return [self.sampler.record(pair, lengths, i) for i, (pair, lengths) in enumerate(zip(res.pairs, res.lengths))]


def write_jsonl(path: Path, records: list[PairRecord]) -> None:
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        for rec in records:
            fh.write(rec.to_json() + "\n")


def check_config(cfg: RunConfig, need_models: bool = True) -> None:
    """Fail fast, before any work, on settings no run can use (errors name the parameter)."""
    check_request(cfg.pairs, cfg.max_draws)
    count(cfg.seed, "seed", 0)
    text(cfg.strategy, "strategy")
    if cfg.strategy not in STRATEGIES:
        raise UsageError(f"strategy: expected one of {', '.join(STRATEGIES)}, not {cfg.strategy!r}")
    if (need_models and not cfg.models) or len(set(cfg.models)) != len(cfg.models):
        raise UsageError(f"tokenizers: expected distinct tokenizer names, not {cfg.models!r}")
    number(cfg.match_frequency, "match_frequency", minimum=0, optional=True)   # (Zipf units)
    count(cfg.max_retries, "max_retries", 0, optional=True)


def generate_paradigm(p: Paradigm, vocab: Vocabulary, cfg: RunConfig, meters: list[LengthMeter],
                      sets: tuple[str, ...] = ("original", "debiased"), progress=None) -> ParadigmSets:
    """Generate the sets `sets` of one paradigm (lengths measured with `meters`). `progress(n)` is
    told the pairs done so far, the original set's first. The one code path of `fairpairs generate`
    and `fairpairs.generate`: every pair has its own seeded stream, so a set is the same whether or
    not the other set is generated too."""
    out = ParadigmSets(paradigm=p, sampler=Sampler(p, vocab, cfg.seed))
    retries = DEFAULT_RETRIES[cfg.strategy] if cfg.max_retries is None else cfg.max_retries
    done = cfg.pairs if "original" in sets else 0
    if "original" in sets:
        out.original = generate_original(out.sampler, cfg.pairs, meters, max_draws=cfg.max_draws,
                                         progress=progress)
    if "debiased" in sets:
        out.debiased = generate_debiased(out.sampler, cfg.pairs, meters, strategy=cfg.strategy,
                                         max_retries=retries, match_frequency=cfg.match_frequency,
                                         max_draws=cfg.max_draws,
                                         progress=(lambda n: progress(done + n)) if progress else None)
    if out.original is not None and out.debiased is not None and out.original.stats.distinct_words:
        out.debiased.stats.distinct_ratio = out.debiased.stats.distinct_words / out.original.stats.distinct_words
    return out


def paradigm_manifest(sets: ParadigmSets) -> ParadigmEntry:
    """A paradigm's entry in the run manifest."""
    p, orig, d = sets.paradigm, sets.original, sets.debiased.stats
    ds = d.as_dict()
    return ParadigmEntry(
        phenomenon=p.phenomenon, field=p.field, linguistics_term=p.linguistics_term,
        grammar_file=p.path.name, reorder=p.reorder,
        original=len(orig.pairs), debiased=len(sets.debiased.pairs), drawn=d.drawn,
        redraws=d.redraws, dropped=d.dropped, yield_=ds["yield"],
        draws_per_kept=ds["draws_per_kept"], first_try=d.first_try,
        invalid_draws=d.invalid, duplicates=d.duplicates,
        distinct_critical_words=DistinctWords(original=orig.stats.distinct_words, debiased=d.distinct_words,
                                              ratio=ds["distinct_ratio"]),
        mean_abs_delta_zipf=MeanDeltaZipf(original=orig.stats.as_dict()["mean_dzipf"], debiased=ds["mean_dzipf"]),
        original_stats=orig.stats.as_dict(),
    )


def versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for pkg in ("tokenizers", "transformers", "numpy", "pandas", "jinja2", "pyyaml"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            pass
    return out


def tokenizer_info(meter: LengthMeter) -> TokenizerInfo:
    b = bundled_path(meter.name)
    source = f"bundled:{BUNDLED[meter.name.lower()]}" if b is not None else str(meter.name)
    info = TokenizerInfo(source=source, files=meter.file_hashes())
    src = resolve_tokenizer(meter.name)
    if src.mapped_from is not None:   # a Hub name read from local files ($FAIRPAIRS_TOKENIZER_MAP)
        info["read_from"] = src.path
    return info


def generate_run(paradigms: list[Paradigm], vocab: Vocabulary, cfg: RunConfig, out: Path,
                 progress_factory=None) -> RunResult:
    """Generate every paradigm and write the run folder `out` atomically."""
    check_config(cfg)
    if not paradigms:
        raise UsageError("paradigms: none selected")
    folder = OutputFolder(out, "out")   # checked before any work
    meters = [LengthMeter(m) for m in cfg.models]
    result = RunResult(strategy=cfg.strategy)
    retries = DEFAULT_RETRIES[cfg.strategy] if cfg.max_retries is None else cfg.max_retries
    with folder as tmp:
        (tmp / "original").mkdir()
        (tmp / "debiased").mkdir()
        manifest_paradigms = {}
        for p in paradigms:
            bar = progress_factory(p.uid, 2 * cfg.pairs) if progress_factory else None
            sets = generate_paradigm(p, vocab, cfg, meters, progress=bar)
            for which in ("original", "debiased"):
                write_jsonl(tmp / which / f"{p.uid}.jsonl", sets.records(which))
            result.stats[p.uid] = {"original": sets.original.stats, "debiased": sets.debiased.stats}
            manifest_paradigms[p.uid] = paradigm_manifest(sets)
        manifest = RunManifest(
            fairpairs_version=__version__,
            command=cfg.command,
            seed=cfg.seed,
            pairs=cfg.pairs,
            strategy=cfg.strategy,
            max_retries=retries,
            match_frequency=cfg.match_frequency,
            models=list(cfg.models),
            token_length="content tokens of the sentence as written (special tokens excluded)",
            tokenizers={m.name: tokenizer_info(m) for m in meters},
            versions=versions(),
            vocabulary=VocabularyInfo(file=Path(vocab.source).name, sha256=vocab.sha256, fixes=vocab.fixes),
            paradigms=manifest_paradigms,
            lexicon=cfg.lexicon,
        )
        (tmp / "manifest.json").write_text(manifest.to_json(), encoding="utf-8")
    return result

