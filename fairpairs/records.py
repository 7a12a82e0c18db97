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
import typing
from dataclasses import dataclass, fields
from typing import Any, TypedDict


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

        from fairpairs.errors import Param, DatasetError, UsageTypeError

        if not isinstance(row, Mapping):
            raise UsageTypeError(Param("row"), f": expected a dict (one jsonl row), not {type(row).__name__}")
        names = [f.name for f in fields(cls)]
        extra = sorted(set(row) - set(names))
        missing = [n for n in names if n not in row]
        if extra or missing:
            raise DatasetError(Param("row"), f": missing field(s) {missing} / unknown field(s) {extra}")
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


