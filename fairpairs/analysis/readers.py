"""Readers of minimal-pair datasets in other formats than BLiMP's, for `fairpairs audit`.

Readers registered by format name (`fairpairs.registry.READERS`); `read(path, format)` returns named sets of pairs with
the columns of `fairpairs.records.PAIR_COLUMNS` (uid = the group a pair is reported in, pair_id =
the pair's row id in the source, which `fairpairs audit --select` writes instead of the sentences):

- ``blimp``: BLiMP's fields (`sentence_good`, `sentence_bad`, `UID`, `pairID`) in jsonl/json/csv/
  tsv/parquet files, folders, run folders and saved HF datasets (`fairpairs.pairsets.read_pair_sets`);
- ``clams``: CLAMS evalsets (Mueller et al. 2020): ``True<TAB>sentence`` then ``False<TAB>sentence``
  on adjacent lines; a file or a folder of ``*.txt`` (one group per file, its construction);
  row id ``<file>:<line of the True sentence>``;
- ``multiblimp``: MultiBLiMP's ``data.tsv`` (Jumelet et al. 2025): columns ``sen`` (grammatical),
  ``wrong_sen``, ``lang``, ``phenomenon``, ``grammatical_feature``, ``ungrammatical_feature``;
  grouped by ``lang/phenomenon/grammatical→ungrammatical``; row id ``<file>:<line>``;
- ``zhoblimp``: ZhoBLiMP-style jsonl (Liu et al. 2024): ``sentence_good``, ``sentence_bad`` and a
  group field (``UID``, ``paradigm`` or ``phenomenon``; else the file's name); a file or a folder
  of ``*.jsonl``; row id ``<file>:<line>``.

`detect(path)` guesses the format from a file's first line (or a folder's files).
"""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from fairpairs.errors import Param, DatasetError, DatasetNotFoundError
from fairpairs.records import PAIR_COLUMNS

if TYPE_CHECKING:
    from fairpairs.pairsets import PairSet, PairSets

MULTIBLIMP_COLUMNS = ("sen", "wrong_sen", "lang", "phenomenon", "grammatical_feature", "ungrammatical_feature")
ZHO_GROUP_FIELDS = ("UID", "paradigm", "phenomenon")



def _text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise DatasetError(f"{path}: not UTF-8 text (byte {exc.start})") from None


def _files(path: Path, suffix: str, what: str) -> list[Path]:
    if path.is_file():
        return [path]
    files = sorted(f for f in path.iterdir() if f.is_file() and f.suffix.lower() == suffix)
    if not files:
        raise DatasetError(f"{path}: no {what} files (*{suffix}) in this folder")
    return files


def _pair_set(rows: list[tuple], where: Path):
    """The rows (file, line, uid, pair_id, good, bad) as one set (a `PairSet`), each checked as
    every pair row is (`fairpairs.records.check_row`), naming its file and line."""
    from fairpairs.pairsets import from_rows

    items = (((f, line), dict(zip(PAIR_COLUMNS, rest))) for f, line, *rest in rows)
    return from_rows(where.name, items, where)


# ---------------------------------------------------------------------------- CLAMS
def read_clams(path: Path, columns=None) -> dict[str, "PairSet"]:
    """CLAMS evalset file(s): adjacent True / False lines are a pair (good, bad)."""
    rows = []
    for f in _files(path, ".txt", "CLAMS evalset"):
        lines = _text(f).splitlines()
        pending = None            # (line number, good sentence) waiting for its False line
        for n, line in enumerate(lines, 1):
            if not line.strip():
                continue
            label, tab, sentence = line.partition("\t")
            if not tab or label not in ("True", "False") or not sentence.strip():
                raise DatasetError(f"{f}:{n}: not a CLAMS line (True or False, a tab, a sentence): {line[:60]!r}")
            if label == "True":
                if pending is not None:
                    raise DatasetError(f"{f}:{n}: a True line follows the True line {pending[0]} (pairs are a True "
                                       f"line and the False line after it)")
                pending = (n, sentence)
            else:
                if pending is None:
                    raise DatasetError(f"{f}:{n}: a False line with no True line before it")
                rows.append((f, pending[0], f.stem, f"{f.name}:{pending[0]}", pending[1], sentence))
                pending = None
        if pending is not None:
            raise DatasetError(f"{f}:{pending[0]}: the last True line has no False line")
    return {path.stem if path.is_file() else path.name: _pair_set(rows, path)}


# ---------------------------------------------------------------------------- MultiBLiMP
def read_multiblimp(path: Path, columns=None) -> dict[str, "PairSet"]:
    """MultiBLiMP's data.tsv (or a folder holding it)."""
    f = path / "data.tsv" if path.is_dir() else path
    if not f.is_file():
        raise DatasetError(f"{path}: no data.tsv in this folder (MultiBLiMP's file)")
    try:
        frame = pd.read_csv(io.StringIO(_text(f)), sep="\t", dtype=str, keep_default_na=False,
                            quoting=csv.QUOTE_NONE)
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise DatasetError(f"{f}: cannot parse ({str(exc).splitlines()[0]})") from None
    missing = [c for c in MULTIBLIMP_COLUMNS if c not in frame.columns]
    if missing:
        raise DatasetError(f"{f}: missing column(s) {', '.join(missing)} (MultiBLiMP's data.tsv has "
                           f"{', '.join(MULTIBLIMP_COLUMNS)})")
    for col in ("sen", "wrong_sen"):
        empty = frame[col].str.strip() == ""
        if empty.any():
            raise DatasetError(f"{f}:{int(empty.to_numpy().argmax()) + 2}: field {col!r} is empty")
    uid = (frame["lang"] + "/" + frame["phenomenon"] + "/" + frame["grammatical_feature"] + "→"
           + frame["ungrammatical_feature"])
    rows = [(f, i + 2, u, f"{f.name}:{i + 2}", good, bad)
            for i, (u, good, bad) in enumerate(zip(uid, frame["sen"], frame["wrong_sen"]))]
    return {f.parent.name if f.name == "data.tsv" else f.stem: _pair_set(rows, f)}


# ---------------------------------------------------------------------------- ZhoBLiMP
def read_zhoblimp(path: Path, columns=None) -> dict[str, "PairSet"]:
    """ZhoBLiMP-style jsonl file(s): sentence_good, sentence_bad and a group field."""
    from fairpairs.io.jsonl import iter_objects

    rows = []
    for f in _files(path, ".jsonl", "jsonl"):
        for line, rec in iter_objects(f):
            group = next((str(rec[k]) for k in ZHO_GROUP_FIELDS if k in rec and str(rec[k]).strip()), f.stem)
            rows.append((f, line, group, f"{f.name}:{line}", rec.get("sentence_good"), rec.get("sentence_bad")))
    return {path.stem if path.is_file() else path.name: _pair_set(rows, path)}


# ---------------------------------------------------------------------------- registry
def read_blimp(path: Path, columns=None) -> "PairSets":
    """BLiMP's fields (and fairpairs' own files and run folders): `read_pair_sets`' sets, with a run
    folder's manifest."""
    from fairpairs.pairsets import Columns, read_pair_sets

    return read_pair_sets(path, columns or Columns())


def _first_line(f: Path) -> str:
    try:
        with open(f, encoding="utf-8") as fh:
            return fh.readline().rstrip("\n")
    except (UnicodeDecodeError, OSError):
        return ""


def detect(path: str | os.PathLike) -> str:
    """The format of a dataset, from its first line: CLAMS (``True<TAB>``), MultiBLiMP (a tsv header
    with ``sen`` and ``wrong_sen``), else BLiMP's (ZhoBLiMP's jsonl has BLiMP's sentence fields, and
    reads the same; give ``zhoblimp`` to group by its paradigm field)."""
    p = Path(path)
    if p.is_dir():
        if (p / "data.tsv").is_file():
            return detect(p / "data.tsv")
        txt = sorted(p.glob("*.txt"))
        return "clams" if txt and detect(txt[0]) == "clams" else "blimp"
    first = _first_line(p)
    if first.startswith(("True\t", "False\t")):
        return "clams"
    if p.suffix.lower() == ".tsv" and {"sen", "wrong_sen"} <= set(first.split("\t")):
        return "multiblimp"
    return "blimp"


def read(path: str | os.PathLike, format: str = "auto", columns=None) -> "PairSets":
    """Named sets of pairs (`PairSets`, as `fairpairs.pairsets.read_pair_sets` gives) from a dataset in
    `format` (a name of `fairpairs.registry.READERS`, or "auto"). A reader is called as
    ``reader(path, columns)`` and returns {set name: PairSet or DataFrame}; a DataFrame's rows are
    checked here as every pair row is (`fairpairs.records.check_row`). Only BLiMP's format reads
    other column names than its own. A run folder's sets carry its manifest."""
    from fairpairs.registry import READERS

    READERS.check(format, also=("auto",))
    p = Path(path)
    if not p.exists():
        raise DatasetNotFoundError(f"{p}: no such file or folder")
    if format == "auto":
        format = detect(p)
    if format != "blimp" and columns is not None and columns != _default_columns():
        raise DatasetError(Param("format"), f": {format} has fixed columns; ", Param("columns", quoted=True),
                           " applies to BLiMP-format files only")
    from fairpairs.pairsets import PairSets

    parts = READERS.get(format)(p, columns)
    return PairSets({name: _checked(part, name, format) for name, part in parts.items()}, getattr(parts, "manifest", None))


def _checked(part, name: str, format: str):
    """A reader's set as a checked `PairSet`: the built-in readers return one (their rows checked
    with file and line); a DataFrame from a registered reader is checked here, row by row, once."""
    from fairpairs.pairsets import PairSet, read_pair_sets

    if isinstance(part, PairSet):
        return part
    if not isinstance(part, pd.DataFrame):
        raise DatasetError(Param("format"), f": the {format} reader gave {type(part).__name__} for set {name!r}, "
                           "not a DataFrame")
    where = f"{format} reader, set {name}"
    return read_pair_sets(part, name=where)[where]


def _default_columns():
    from fairpairs.pairsets import Columns

    return Columns()
