"""Typed records of fairpairs' outputs: the one place that says what a pair row and a run manifest
hold.

`PairRecord` is one minimal pair as `fairpairs generate` writes it (one jsonl line of
``original/<uid>.jsonl`` or ``debiased/<uid>.jsonl``) and as `fp.generate` returns it; its
fields, in order, are the jsonl keys (`PAIR_FIELDS`), and the same names are the columns of every
frame, score table and published parquet file (one pair schema; `uid` and `pair_id` are BLiMP's
`UID` and `pairID`, still read under those names). `check_row` checks one row of any source once
(read back, pairs come as `fairpairs.pairsets.PairSet`s: `read_pairs(rows)[name].records()`).
Each field's metadata also says how `fairpairs publish` shows it (its place among the parquet
columns and the dataset card's description), so the card's field table and the parquet schema are
derived from this class (`published_fields`).

A run folder's ``manifest.json`` is `fairpairs.manifest.RunManifest` (`read_manifest` reads it
back typed).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import typing
from dataclasses import dataclass, fields
from collections.abc import Mapping
from typing import Any, TypedDict


def _pair_field(meaning: str, rank: int, *, optional: bool = False, key: str | None = None):
    """A PairRecord field: `meaning` for the dataset card; `rank`: its place among the published
    columns; `optional`: a published row may lack it (data made by other tools); `key`: what a
    mapping's keys are (for messages)."""
    return dataclasses.field(metadata={"meaning": meaning, "rank": rank, "optional": optional, "key": key})


B, SHAPE = "BLiMP's: ", ", the pair has that shape"   # (the meanings of BLiMP's fields below)


def _blimp(meaning: str, rank: int, default=None, *, on: str = ""):
    """A field added with BLiMP's (issue 48): optional, keyword-only with a default (records built by
    name before it still build); `on`: the method ("one", "two") whose prefix field it is (only there)."""
    meaning += f" (where `{on}_prefix_method`)" if on else ""
    return dataclasses.field(metadata={"meaning": meaning, "rank": rank, "optional": True, "key": None},
                             default=default, kw_only=True)


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
    uid: str = _pair_field("paradigm (BLiMP's `UID`)", 2)
    pair_id: str = _pair_field("the pair's id within the paradigm (BLiMP's `pairID`: \"0\", \"1\", ...)", 5)
    simple_LM_method: bool = _blimp(f"{B}the whole sentences may be compared (always true)", 6, True)
    one_prefix_method: bool = _blimp(f"{B}the pair may be scored by its one differing word after the shared "
                                     f"prefix (`one_prefix_*`): the paradigm's contrast allows it{SHAPE}", 7, False)
    two_prefix_method: bool = _blimp(f"{B}the pair may be scored by one shared word after its two differing "
                                     f"prefixes (`two_prefix_*`): the paradigm's contrast allows it{SHAPE}", 8, False)
    lexically_identical: bool | None = _blimp(
        "BLiMP's flag, with BLiMP's value for the paradigm (declared per paradigm by BLiMP's generators, true for "
        "determiner_noun_agreement_1's this sketch / this sketches; absent where the paradigm declares none)", 9)
    same_words: bool | None = _blimp("both sentences have the same multiset of words (case-insensitive): one "
                                     "reorders the other", 10)
    one_prefix_prefix: str | None = _blimp(f"{B}the words both sentences start with, before the differing word",
                                           11, on="one")
    one_prefix_word_good: str | None = _blimp(f"{B}the good sentence's word after `one_prefix_prefix`", 12, on="one")
    one_prefix_word_bad: str | None = _blimp(f"{B}the bad sentence's word after `one_prefix_prefix`", 13, on="one")
    two_prefix_prefix_good: str | None = _blimp(f"{B}the good sentence before `two_prefix_word`", 14, on="two")
    two_prefix_prefix_bad: str | None = _blimp(f"{B}the bad sentence before `two_prefix_word`", 15, on="two")
    two_prefix_word: str | None = _blimp(f"{B}the word both sentences go on with after their prefixes", 16, on="two")
    critical_good: dict[str, str] = _pair_field("the words that differ, by role", 17, optional=True, key="role")
    critical_bad: dict[str, str] = _pair_field("the words that differ, by role", 18, optional=True, key="role")
    token_lengths: dict[str, LengthPair] = _pair_field(
        "per tokenizer, content-token counts `{good, bad}` (special tokens excluded)", 19, optional=True,
        key="tokenizer")
    redraws: int = _pair_field("attempts the length control needed (resample: redraws of the bad sentence; "
                               "search: picks and redraws; 0 in the original set)", 20, optional=True)
    draw: int = _pair_field("the draw (0, 1, ...) whose random stream gave the pair; an original and a debiased "
                            "pair of the same draw start from the same context", 21, optional=True)
    control: str = _pair_field("what length control did to the pair: none (original set), as_drawn (kept as "
                               "first drawn), bad_redrawn (same context, the bad sentence redrawn), replaced "
                               "(a new context drawn for the same draw)", 22, optional=True)
    fillers: dict[str, str] = _pair_field("the good sentence's words by slot (a determiner as <slot>.det, "
                                          "literal slots' values)", 23, optional=True, key="slot")

    def to_dict(self) -> dict[str, Any]:
        """The jsonl row: every field in order, as plain (copied) values, but the `ABSENT_FIELDS` that
        are None (BLiMP too leaves out the prefix fields of a method a pair lacks)."""
        row = dict(zip(PAIR_FIELDS, _field_values()(self)))
        for name, value in row.items():
            if isinstance(value, dict):
                row[name] = _copy(value)
        return drop_absent(row)

    @classmethod
    def of_values(cls, *values) -> "PairRecord":
        """A record from its field values in PAIR_FIELDS order, all given (the generator's constructor:
        it makes them by the hundred thousand; the same object as keyword construction gives)."""
        if len(values) != len(PAIR_FIELDS):
            raise TypeError(f"PairRecord.of_values() takes {len(PAIR_FIELDS)} values, got {len(values)}")
        rec = object.__new__(cls)
        rec.__dict__.update(zip(PAIR_FIELDS, values))
        return rec

    def to_json(self) -> str:
        """The line `fairpairs generate` writes for this pair (without the newline)."""
        return row_json(self.to_dict())

    @property
    def UID(self) -> str:   # noqa: N802 - the old name, kept for one release
        _deprecated("UID", "uid")
        return self.uid

    @property
    def pairID(self) -> str:   # noqa: N802 - the old name, kept for one release
        _deprecated("pairID", "pair_id")
        return self.pair_id


def _accept_old_names(init):
    """PairRecord's constructor, also taking the old keywords `UID` / `pairID` (with a warning)."""
    @functools.wraps(init)
    def __init__(self, *args, **kwargs):
        for old, new in OLD_KEYS.items():
            if old in kwargs:
                if new in kwargs:
                    raise TypeError(f"PairRecord() got both {old!r} and {new!r} (the same field)")
                _deprecated(old, new)
                kwargs[new] = kwargs.pop(old)
        init(self, *args, **kwargs)
    return __init__


def _deprecated(old: str, new: str) -> None:
    import warnings

    from fairpairs.errors import FairpairsDeprecationWarning

    warnings.warn(f"PairRecord.{old} is deprecated; use PairRecord.{new} (the name in the jsonl, frames, score tables "
                  "and the published dataset since fairpairs 0.2.0)", FairpairsDeprecationWarning, stacklevel=3)


PAIR_FIELDS = tuple(f.name for f in fields(PairRecord))
# fields a row leaves out where they have no value (typed `X | None`)
ABSENT_FIELDS = tuple(f.name for f in fields(PairRecord) if str(f.type).endswith("| None"))
# the fields added with BLiMP's (issue 48): a row written before has none of them (`PairSet.records`)
BLIMP_FIELDS = tuple(f.name for f in fields(PairRecord) if f.kw_only)
PAIR_COLUMNS = ("uid", "pair_id", "sentence_good", "sentence_bad")   # what every analysis needs of a pair
OLD_KEYS = {"UID": "uid", "pairID": "pair_id"}   # BLiMP's keys, and fairpairs' jsonl keys before 0.2.0
PairRecord.__init__ = _accept_old_names(PairRecord.__init__)


def check_row(row, where: str | tuple, *, good: str = "sentence_good", bad: str = "sentence_bad",
              group: str | None = None, default_uid: str = "pairs", index: int = 0,
              typed: bool = True) -> dict[str, Any]:
    """One pair row (a dict read from any file, or given in memory) in the one pair schema, checked
    once: `uid`, `pair_id`, `sentence_good`, `sentence_bad` first, then the row's other fields.
    Every reader of pairs calls this (fairpairs.pairsets); nothing downstream checks a row again.

    `good` / `bad`: the input's sentence fields; `group`: the field naming the pair's group (default
    `uid`, else `default_uid`); a row without a pair id gets `index` (its place in its file). The old
    keys `UID` / `pairID` (BLiMP's, and fairpairs' jsonl before 0.2.0) are read as `uid` / `pair_id`.
    `typed`: the values have JSON types (not a csv file's strings), so PairRecord's fields present in
    the row are checked against their types. `where` names the row in messages ("file:line", or
    the parts of a structured message: (Param("sentences"), "[3]"))."""
    from collections.abc import Mapping

    from fairpairs.errors import DatasetError
    from fairpairs.typecheck import describe, mismatch

    at = where if isinstance(where, tuple) else (where,)
    if not isinstance(row, Mapping):
        raise DatasetError(*at, f": expected an object with the fields of a pair, not {type(row).__name__}")
    for name in (good, bad) + ((group,) if group else ()):
        if name not in row:
            raise DatasetError(*at, f": missing field {name!r}")
    for old, new in OLD_KEYS.items():    # one field under both names: they must agree (else which is it?)
        if old in row and new in row and str(row[old]) != str(row[new]):
            raise DatasetError(*at, f": fields {new!r} ({row[new]!r}) and {old!r} ({row[old]!r}) disagree; they are one "
                               f"field (BLiMP's {old!r} is read as {new!r}): keep one")
    renamed = {OLD_KEYS.get(k, k): k for k in row if not (k in OLD_KEYS and OLD_KEYS[k] in row)}
    uid = row[group] if group else row[renamed["uid"]] if "uid" in renamed else default_uid
    pair_id = row[renamed["pair_id"]] if "pair_id" in renamed else index
    if isinstance(pair_id, bool) or not isinstance(pair_id, (str, int)) or pair_id == "":
        raise DatasetError(*at, f": field {renamed.get('pair_id', 'pair_id')!r} must be a string or an integer "
                           f"(the pair's id), got {pair_id!r}")
    out = {"uid": str(uid), "pair_id": str(pair_id),
           "sentence_good": _text(row[good], at, good), "sentence_bad": _text(row[bad], at, bad)}
    used = {good, bad, group, renamed.get("uid"), renamed.get("pair_id")}
    hints = _hints()
    for new, key in renamed.items():
        if key in used or new in out:
            continue
        value = row[key]
        if typed and new in hints and value is not None and mismatch(value, hints[new]) is not None:
            raise DatasetError(*at, f": field {key!r} must {describe(hints[new], _KEYS.get(new))}")
        out[new] = value
    return out


def pair_fields(first: Mapping[str, Any]) -> tuple[str, ...]:
    """The fields every row of a set of `PairRecord`s (a run folder's file) has: the fields every
    pair of `fairpairs generate` has, then the optional ones the set's first row `first` has."""
    optional = {f.name for f in fields(PairRecord) if f.metadata["optional"]}
    return tuple(n for n in PAIR_FIELDS if n not in optional) + tuple(n for n in PAIR_FIELDS if n in optional
                                                                      and n in first)


def check_fields(row: Mapping[str, Any], keys: tuple[str, ...], where: str, file: str | None = None) -> None:
    """A checked row has every field of `keys` (`pair_fields`), else a DatasetError naming `where`
    (its file and line) and the first missing field."""
    from fairpairs.errors import DatasetError

    for key in keys:
        if key not in row:
            raise DatasetError(f"{where}: missing field {key!r}", file=file)


def _text(value, at: tuple, field: str) -> str:
    from fairpairs.errors import DatasetError

    if not isinstance(value, str) or not value.strip():
        what = "missing" if value is None else f"empty or not a string ({value!r})"
        raise DatasetError(*at, f": field {field!r} is {what}")
    return check_text(value, at, f"field {field!r}")


def check_text(value: str, at: tuple, what: str) -> str:
    """`value` if it is text every tokenizer can encode: a lone surrogate ("\\ud800", which JSON
    and Python strings can hold but UTF-8 cannot) is a DatasetError naming `at` (the row's file
    and line, or the parameter and index) and `what` (the field)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        from fairpairs.errors import DatasetError

        raise DatasetError(*at, f": {what + ' ' if what else ''}holds a lone surrogate ({value[exc.start]!r} at character {exc.start}), "
                           "not text") from None
    return value


_KEYS = {f.name: f.metadata["key"] for f in fields(PairRecord)}


@functools.cache
def _hints() -> dict[str, Any]:
    """PairRecord's field types (resolved on first use, not at import)."""
    return typing.get_type_hints(PairRecord)


def drop_absent(row: dict[str, Any]) -> dict[str, Any]:
    """`row` (changed in place) without its `ABSENT_FIELDS` that are None."""
    for name in [n for n in ABSENT_FIELDS if n in row and row[n] is None]:
        del row[name]
    return row


def row_json(row: dict[str, Any]) -> str:
    """A pair row (`PairRecord.to_dict()`) as its jsonl line, without the newline."""
    return _encoder().encode(row)


@functools.cache
def _encoder() -> json.JSONEncoder:
    """The one encoder of pair rows (json.dumps with these options builds one per call)."""
    return json.JSONEncoder(ensure_ascii=False, separators=(", ", ": "))


@functools.cache
def _field_values():
    """A function giving a record's field values, in PAIR_FIELDS order (one C call, not one getattr per field)."""
    import operator

    return operator.attrgetter(*PAIR_FIELDS)


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
    # (a field that may be absent, `X | None`, is a column of type X)
    hints = {n: typing.get_args(t)[0] if type(None) in typing.get_args(t) else t
             for n, t in typing.get_type_hints(PairRecord).items()}
    out = [PublishedField(f.name, f.name, hints[f.name], f.metadata["meaning"], f.metadata["optional"],
                          f.metadata["key"])
           for f in fields(PairRecord)]
    order = {f.name: f.metadata["rank"] for f in fields(PairRecord)}
    return sorted(out, key=lambda p: order[p.source])


def card_type(tp) -> str:
    """The type column of the dataset card's field table."""
    if typing.get_origin(tp) is dict:
        return "struct of strings" if typing.get_args(tp)[1] is str else "struct"
    return {str: "string", int: "int", bool: "bool"}[tp]


