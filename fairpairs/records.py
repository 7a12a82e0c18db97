"""Typed records of fairpairs' outputs.

`PairRecord` is one minimal pair as `fairpairs generate` writes it (one jsonl line of
``original/<uid>.jsonl`` or ``debiased/<uid>.jsonl``) and as `fairpairs.generate` returns it; its
fields, in order, are the jsonl keys (`PAIR_FIELDS`). The first seven are BLiMP's own fields.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, fields
from typing import Any


@dataclass(frozen=True)
class PairRecord:
    """One minimal pair: the two sentences, BLiMP's metadata, the critical words and the token
    lengths of both sentences under every tokenizer the pair was measured with."""

    sentence_good: str
    sentence_bad: str
    field: str                                  # BLiMP's field: morphology, syntax, semantics, ...
    linguistics_term: str
    UID: str                                    # the paradigm
    pairID: str                                 # position in its set, "0", "1", ...
    lexically_identical: bool                   # same multiset of words (a reordering)
    critical_good: dict[str, str]               # critical slot -> word in the good sentence
    critical_bad: dict[str, str]                # critical slot -> word in the bad sentence
    token_lengths: dict[str, dict[str, int]]    # tokenizer -> {"good": n, "bad": n}
    redraws: int                                # length-control attempts the pair took

    def to_dict(self) -> dict[str, Any]:
        """The jsonl row: every field in order, as plain (copied) values."""
        return {f.name: copy.deepcopy(getattr(self, f.name)) for f in fields(self)}

    def to_json(self) -> str:
        """The line `fairpairs generate` writes for this pair (without the newline)."""
        return json.dumps(self.to_dict(), ensure_ascii=False, separators=(", ", ": "))

    @classmethod
    def from_dict(cls, row: dict[str, Any]) -> "PairRecord":
        """A record from a jsonl row of `fairpairs generate` (unknown keys are an error)."""
        names = [f.name for f in fields(cls)]
        extra = sorted(set(row) - set(names))
        missing = [n for n in names if n not in row]
        if extra or missing:
            from .errors import DatasetError

            raise DatasetError(f"pair record: missing field(s) {missing} / unknown field(s) {extra}")
        return cls(**{n: row[n] for n in names})


PAIR_FIELDS = tuple(f.name for f in fields(PairRecord))
