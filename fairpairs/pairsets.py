"""Reading pairs, once: `read_pair_sets(source)` turns any dataset into typed sets of pairs.

    sets = read_pair_sets("runs/blimp")            # a run folder: sets "original" and "debiased"
    sets["debiased"].frame                     # uid, pair_id, sentence_good, sentence_bad, then every other field
    sets["debiased"].pairs                     # just those four columns
    sets.manifest                              # the run's typed manifest (None for other data)

Sources: jsonl/json/csv/tsv/parquet files, folders of them, run folders of `fairpairs generate`,
saved HF datasets (``save_to_disk``), and in memory a DataFrame, `PairRecord`s or dicts. Every row
is checked once, by `fairpairs.records.check_row` (with its file and line, or the caller's
parameter and item, in messages); audit, scoring, evaluation, balance and publishing take the
result and never check a row again. A pair has one schema everywhere (`records.PAIR_FIELDS`: `uid`,
`pair_id`, ...); BLiMP's `UID` / `pairID`, also fairpairs' own jsonl keys before 0.2.0, are read as
`uid` / `pair_id`.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from fairpairs.errors import DatasetError, DatasetNotFoundError, Param, UsageError
from fairpairs.io.jsonl import iter_objects, load_json
from fairpairs.io.reading import plain_row
from fairpairs.records import BLIMP_FIELDS, PAIR_COLUMNS, PAIR_FIELDS, PairRecord, check_row

if TYPE_CHECKING:
    import pandas as pd

    from fairpairs.manifest import RunManifest

SUFFIXES = (".jsonl", ".json", ".csv", ".tsv", ".parquet")
RUN_SETS = ("original", "debiased")
METADATA_FILES = {"manifest.json", "fairpairs_manifest.json"}   # a run folder's / a publish folder's


@dataclass(frozen=True)
class Columns:
    """Which input columns hold the good sentence, the bad sentence and the group (paradigm)."""

    good: str = "sentence_good"
    bad: str = "sentence_bad"
    group: str | None = None  # None: "uid" (or BLiMP's "UID") where present, else the file's stem


@dataclass(frozen=True, eq=False)
class PairSet:
    """One set of pairs, every row checked: the typed currency between stages. `rows` are the
    checked pairs (`check_row`'s dicts: uid, pair_id, sentence_good, sentence_bad, then every other
    field of the input, in the input's order); `frame` is the same set as columns (a DataFrame with
    `PAIR_COLUMNS` first, built on first use); `records()` the same as `PairRecord`s; `origin` says
    where each row came from ((file, line) for jsonl, (file, item) for json and in-memory data,
    (file, row) for tables), for messages."""

    name: str
    rows: tuple[dict, ...]
    origin: tuple[tuple[str, int], ...] = ()

    def __len__(self) -> int:
        return len(self.rows)

    @functools.cached_property
    def frame(self) -> "pd.DataFrame":
        """The set as one table: the columns `PAIR_COLUMNS` (all strings), then every other field."""
        import pandas as pd

        if not self.rows:
            return pd.DataFrame(columns=list(PAIR_COLUMNS), dtype=str)
        frame = pd.DataFrame.from_records(list(self.rows))
        return frame[list(PAIR_COLUMNS) + [c for c in frame.columns if c not in PAIR_COLUMNS]]

    @property
    def pairs(self) -> "pd.DataFrame":
        """The four columns every analysis needs."""
        return self.frame[list(PAIR_COLUMNS)]

    def records(self) -> list[PairRecord]:
        """The pairs as `PairRecord`s (a set whose rows have every field of one: a run folder's)."""
        missing = [f for f in PAIR_FIELDS if f not in BLIMP_FIELDS and any(f not in row for row in self.rows)]
        if missing:
            raise DatasetError(f"{self.name}: not pairs of fairpairs generate (no field {', '.join(missing)})")
        # BLiMP's fields: None where a row leaves one out (a method the pair lacks; a run of before 0.2.0)
        return [PairRecord.of_values(*(row.get(f) for f in PAIR_FIELDS)) for row in self.rows]


class PairSets(Mapping):
    """Named `PairSet`s read from one source (a run folder: original and debiased; a saved
    DatasetDict: its splits; else one set), with the run's typed `manifest` where there is one."""

    def __init__(self, sets: dict[str, PairSet], manifest: "RunManifest | None" = None):
        self._sets = dict(sets)
        self.manifest = manifest

    def __getitem__(self, name: str) -> PairSet:
        return self._sets[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._sets)

    def __len__(self) -> int:
        return len(self._sets)

    def frames(self) -> dict[str, "pd.DataFrame"]:
        """Each set's four columns (`PairSet.pairs`): what `fp.load_sets` returns."""
        return {name: s.pairs for name, s in self._sets.items()}


# ---------------------------------------------------------------------------- the one reader


def read_pair_sets(source, columns: Columns = Columns(), *, name: str = "pairs", empty: bool = False) -> PairSets:
    """`source` (a path, or in memory a DataFrame, PairRecords or dicts) as checked sets of pairs.
    In-memory data is one set called `name`, and messages name it as the caller's parameter.
    `empty`: a file or in-memory set of no pairs is a set of none (a run folder's paradigm that
    kept no pair), not an error."""
    if isinstance(source, (str, os.PathLike)):
        return _read_path(Path(source), columns, empty)
    return PairSets({name: _in_memory(source, name, columns, empty)})


def _read_path(p: Path, columns: Columns, empty: bool = False) -> PairSets:
    if not p.exists():
        raise DatasetNotFoundError(f"{p}: no such file or folder", file=str(p))
    if p.is_dir():
        if _is_hf_disk(p):
            return PairSets(_load_hf_disk(p, columns))
        subsets = [s for s in RUN_SETS if (p / s).is_dir()]
        if subsets:
            manifest = _check_run_folder(p, subsets)
            return PairSets({s: _folder_set(p / s, s, columns) for s in subsets}, manifest)
        return PairSets({p.name: _folder_set(p, p.name, columns)})
    return PairSets({p.stem: _set(p.stem, *_read_file(p, columns), where=p, empty=empty)})


def dataset_paths(path: str | os.PathLike) -> list[Path]:
    """The files and folders `read_pair_sets(path)` reads: the file; a run folder's set folders and
    manifest; any other folder as a whole. A command that writes must not write into these (the
    next read would take its output for data)."""
    p = Path(path)
    if p.is_dir() and not _is_hf_disk(p):
        subsets = [p / s for s in RUN_SETS if (p / s).is_dir()]
        if subsets:
            return subsets + [p / "manifest.json"]
    return [p]


def _is_hf_disk(p: Path) -> bool:
    return (p / "dataset_dict.json").is_file() or (p / "state.json").is_file()


def _check_run_folder(p: Path, subsets: list[str]):
    """A run folder of `fairpairs generate` is complete: a valid manifest and both sets."""
    from fairpairs.manifest import read_manifest

    missing = [s for s in RUN_SETS if s not in subsets]
    if missing:
        raise DatasetError(f"{p}: a run folder without {' and '.join(m + '/' for m in missing)} "
                           f"(an incomplete `fairpairs generate` output?)", file=str(p))
    return read_manifest(p)


def data_files(folder: Path) -> list[Path]:
    """The dataset files of a folder (any depth; hidden folders and run/publish metadata skipped)."""
    return sorted(f for f in folder.rglob("*") if f.is_file() and f.suffix.lower() in SUFFIXES
                  and f.name not in METADATA_FILES
                  and not any(part.startswith(".") for part in f.relative_to(folder).parts))


def _folder_set(folder: Path, name: str, columns: Columns) -> PairSet:
    files = data_files(folder)
    if not files:
        raise DatasetError(f"{folder}: no dataset files ({', '.join(SUFFIXES)}) in this folder", file=str(folder))
    rows: list[dict] = []
    origin: list[tuple[str, int]] = []
    seen: dict[tuple[str, str], tuple] = {}     # one key check for the whole folder: a pair is read once
    for f in files:
        got, where = _read_file(f, columns, seen)
        rows += got
        origin += where
    return _set(name, rows, origin, where=folder)


def _set(name: str, rows: list[dict], origin: list[tuple[str, int]], *, where: Path | str,
         empty: bool = False) -> PairSet:
    if not rows and not empty:
        raise DatasetError(f"{where}: the dataset holds no pairs", file=str(where) if isinstance(where, Path) else None)
    return PairSet(name, tuple(rows), tuple(origin))


def read_run_file(path: Path) -> PairSet:
    """One `<uid>.jsonl` of a run folder (`read_pair_sets` of the file; no rows: a paradigm that kept
    no pair). Its rows are `PairRecord`s: every row has the fields every pair of `fairpairs
    generate` has and the optional ones the file's first row has, and its uid is the paradigm the
    file is named after (a row of another paradigm would be counted in the wrong one)."""
    from fairpairs.records import check_fields, pair_fields

    path = Path(path)
    pairs = read_pair_sets(path, empty=True)[path.stem]
    for row, (_, line) in zip(pairs.rows, pairs.origin):
        if row["uid"] != path.stem:
            raise DatasetError(f"{path}:{line}: field 'uid' is {row['uid']!r} but the file is named {path.name}",
                               file=str(path))
    keys = pair_fields(pairs.rows[0]) if pairs.rows else ()
    for row, (_, line) in zip(pairs.rows, pairs.origin):
        check_fields(row, keys, f"{path}:{line}", file=str(path))
    return pairs


def _read_file(path: Path, columns: Columns, seen: dict | None = None) -> tuple[list[dict], list[tuple[str, int]]]:
    """The checked rows of one file; `seen`: the keys of the pairs read before (other files of
    the same folder) and where each was, updated."""
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        return _check_rows(list(iter_objects(path)), path, columns, unit="line", seen=seen)   # JSON first, then the rows
    if suffix == ".json":
        data = load_json(path)
        if isinstance(data, dict) and isinstance(data.get("data"), list):
            data = data["data"]
        if not isinstance(data, list):
            raise DatasetError(f"{path}: expected a JSON list of pair objects", file=str(path))
        return _check_rows(((i + 1, r) for i, r in enumerate(data)), path, columns, unit="item", seen=seen)
    if suffix in (".csv", ".tsv"):
        import pandas as pd

        try:
            frame = pd.read_csv(path, sep="\t" if suffix == ".tsv" else ",", dtype=str, keep_default_na=False)
        except (pd.errors.ParserError, UnicodeDecodeError, pd.errors.EmptyDataError) as exc:
            raise DatasetError(f"{path}: cannot parse ({str(exc).splitlines()[0]})", file=str(path)) from None
        return _frame_rows(frame, path, columns, typed=False, seen=seen)
    if suffix == ".parquet":
        import pandas as pd

        try:
            frame = pd.read_parquet(path)
        except (OSError, ValueError) as exc:
            raise DatasetError(f"{path}: cannot read parquet ({str(exc).splitlines()[0]})", file=str(path)) from None
        return _frame_rows(frame, path, columns, seen=seen)
    raise DatasetError(f"{path}: unsupported file type {suffix!r} (use one of {', '.join(SUFFIXES)})", file=str(path))


def _check_rows(items, path: Path | str, columns: Columns, unit: str, *, typed: bool = True,
                seen: dict | None = None, place=None) -> tuple[list[dict], list[tuple[str, int]]]:
    """Every (position, row) of one file or one in-memory set (`path`; a position may also be a
    (file, line) pair, for readers of several files) checked by `check_row`; a pair (uid,
    pair_id) repeated within the set is an error naming both places: the one key check of every
    reader. `seen`: the keys of the pairs read before and where (the other files of one folder),
    updated. `place(position)`: the parts of a message naming a row, where the caller words it
    (default "file:line", "file: item n")."""
    rows, origin = [], []
    seen = {} if seen is None else seen
    stem = path.stem if isinstance(path, Path) else str(path)
    for n, (pos, rec) in enumerate(items):
        file, pos = pos if isinstance(pos, tuple) and place is None else (path, pos)
        at = place(pos) if place else (f"{file}:{pos}" if unit == "line" else f"{file}: {unit} {pos}",)
        try:
            row = check_row(rec, at, good=columns.good, bad=columns.bad, group=columns.group, default_uid=stem,
                            index=n, typed=typed)
        except DatasetError as exc:
            exc.file = exc.file or (str(file) if isinstance(file, Path) else None)   # the file, as a field
            raise
        key = (row["uid"], row["pair_id"])
        if key in seen:
            field = "pairID" if "pairID" in rec and "pair_id" not in rec else "pair_id"   # as the file names it
            given = f"field {field!r} {row['pair_id']!r}" if field in rec else \
                f"pair {row['pair_id']!r} (no pair id given: its place in the file)"
            raise DatasetError(*at, f": {given} repeats an earlier pair of {row['uid']} (", *seen[key],
                               "); a pair is counted once", file=str(file) if isinstance(file, Path) else None)
        seen[key] = at
        rows.append(row)
        origin.append((str(file), pos))
    return rows, origin


def _frame_rows(frame: "pd.DataFrame", path: Path | str, columns: Columns, *, typed: bool = True,
                seen: dict | None = None) -> tuple[list[dict], list[tuple[str, int]]]:
    """A table's rows checked as a file's rows are: its columns must hold the sentences (and the
    group), named in one line with the columns it has."""
    for field in (columns.good, columns.bad) + ((columns.group,) if columns.group else ()):
        if field not in frame.columns:
            shown = ", ".join(map(str, frame.columns[:12]))
            raise DatasetError(f"{path}: missing column {field!r} (columns: {shown})",
                               file=str(path) if isinstance(path, Path) else None)
    records = frame.to_dict(orient="records")
    return _check_rows(((i + 1, plain_row(r)) for i, r in enumerate(records)), path, columns, unit="row", typed=typed,
                       seen=seen)


def _load_hf_disk(folder: Path, columns: Columns) -> dict[str, PairSet]:
    import datasets

    try:
        ds = datasets.load_from_disk(str(folder))
    except (OSError, ValueError, FileNotFoundError) as exc:
        raise DatasetError(f"{folder}: cannot load the saved HF dataset ({str(exc).splitlines()[0]})",
                           file=str(folder)) from None
    parts = dict(ds) if isinstance(ds, datasets.DatasetDict) else {folder.name: ds}
    return {name: _set(name, *_frame_rows(part.to_pandas(), folder / name, columns), where=folder / name)
            for name, part in parts.items()}


def from_rows(name: str, items, path: Path | str, *, unit: str = "line", place=None) -> PairSet:
    """A set from a reader of another format (fairpairs.analysis.readers, the sentence tables of
    `fairpairs.scoring.tables`): `items` are ((file, line), row) with the row's fields under this
    schema's names, checked as every row is, with the one key check; `place(position)`: the parts of
    a message naming a row, where the caller words it (then `items` are (position, row))."""
    return _set(name, *_check_rows(items, path, Columns(), unit, place=place), where=path)


def _in_memory(data, name: str, columns: Columns, empty: bool = False) -> PairSet:
    """One set from a DataFrame, PairRecords or dicts, checked row by row as a file's rows are
    (messages name `name`, the caller's parameter, and the item)."""
    import pandas as pd

    if isinstance(data, pd.DataFrame):
        return _set(name, *_frame_rows(data, name, columns), where=name, empty=empty)
    rows = list(data)
    if rows and all(isinstance(r, PairRecord) for r in rows):
        rows = [r.to_dict() for r in rows]
    if not all(isinstance(r, Mapping) for r in rows):
        raise UsageError(Param(name), ": expected PairRecords, dicts, a DataFrame or a dataset path")
    return _set(name, *_check_rows(((i + 1, r) for i, r in enumerate(rows)), name, columns, unit="item"), where=name,
                empty=empty)
