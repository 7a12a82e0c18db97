"""Loading any dataset into pair frames (uid, pair_id, sentence_good, sentence_bad):
jsonl/json/csv/tsv/parquet files, folders, run folders and saved HF datasets, every row checked
once with its file and line."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from fairpairs.errors import DatasetError, DatasetNotFoundError, Param, UsageError
from fairpairs.io.jsonl import iter_objects, load_json
from fairpairs.manifest import read_manifest


SUFFIXES = (".jsonl", ".json", ".csv", ".tsv", ".parquet")
RUN_SETS = ("original", "debiased")
PAIR_COLUMNS = ["uid", "pair_id", "sentence_good", "sentence_bad"]


@dataclass(frozen=True)
class Columns:
    """Which input columns hold the good sentence, the bad sentence and the group (paradigm)."""

    good: str = "sentence_good"
    bad: str = "sentence_bad"
    group: str | None = None  # None: "UID" where present, else the file's stem


# ---------------------------------------------------------------------------- loading


def load_sets(path: str | os.PathLike, columns: Columns = Columns()) -> dict[str, pd.DataFrame]:
    """Read a dataset into named sets of pairs (columns `PAIR_COLUMNS`).

    A run folder gives the sets ``original`` and ``debiased``; a saved ``DatasetDict`` one set per
    split; anything else one set named after the file or folder.
    """
    p = Path(path)
    if not p.exists():
        raise DatasetNotFoundError(f"{p}: no such file or folder")
    if p.is_dir():
        if (p / "dataset_dict.json").is_file() or (p / "state.json").is_file():
            return _load_hf_disk(p, columns)
        subsets = [s for s in RUN_SETS if (p / s).is_dir()]
        if subsets:
            _check_run_folder(p, subsets)
            return {s: _load_folder(p / s, columns) for s in subsets}
        return {p.name: _load_folder(p, columns)}
    return {p.stem: _finish(_read_file(p, columns), p)}


def dataset_paths(path: str | os.PathLike) -> list[Path]:
    """The files and folders `load_sets(path)` reads: the file; a run folder's set folders and
    manifest; any other folder as a whole. A command that writes must not write into these (the
    next read would take its output for data)."""
    p = Path(path)
    if p.is_dir() and not ((p / "dataset_dict.json").is_file() or (p / "state.json").is_file()):
        subsets = [p / s for s in RUN_SETS if (p / s).is_dir()]
        if subsets:
            return subsets + [p / "manifest.json"]
    return [p]


def _check_run_folder(p: Path, subsets: list[str]) -> None:
    """A run folder of `fairpairs generate` is complete: a valid manifest and both sets."""
    missing = [s for s in RUN_SETS if s not in subsets]
    if missing:
        raise DatasetError(f"{p}: a run folder without {' and '.join(m + '/' for m in missing)} "
                           f"(an incomplete `fairpairs generate` output?)")
    read_manifest(p)


def _load_folder(folder: Path, columns: Columns) -> pd.DataFrame:
    files = sorted(f for f in folder.rglob("*") if f.is_file() and f.suffix.lower() in SUFFIXES
                   and f.name not in {"manifest.json", "fairpairs_manifest.json"}   # run / publish-folder metadata
                   and not any(part.startswith(".") for part in f.relative_to(folder).parts))
    if not files:
        raise DatasetError(f"{folder}: no dataset files ({', '.join(SUFFIXES)}) in this folder")
    return _finish(pd.concat([_read_file(f, columns) for f in files], ignore_index=True), folder)


def _finish(df: pd.DataFrame, where: Path) -> pd.DataFrame:
    if df.empty:
        raise DatasetError(f"{where}: the dataset holds no pairs")
    return df[PAIR_COLUMNS].reset_index(drop=True)


def _read_file(path: Path, columns: Columns) -> pd.DataFrame:
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        records = _read_jsonl(path)
        return _from_records(records, path, columns, unit="line")
    if suffix == ".json":
        data = load_json(path)
        if isinstance(data, dict) and isinstance(data.get("data"), list):
            data = data["data"]
        if not isinstance(data, list):
            raise DatasetError(f"{path}: expected a JSON list of pair objects")
        return _from_records([(i + 1, r) for i, r in enumerate(data)], path, columns, unit="item")
    if suffix in (".csv", ".tsv"):
        try:
            frame = pd.read_csv(path, sep="\t" if suffix == ".tsv" else ",", dtype=str,
                                keep_default_na=False)
        except (pd.errors.ParserError, UnicodeDecodeError, pd.errors.EmptyDataError) as exc:
            raise DatasetError(f"{path}: cannot parse ({str(exc).splitlines()[0]})") from None
        return _from_frame(frame, path, columns)
    if suffix == ".parquet":
        try:
            frame = pd.read_parquet(path)
        except (OSError, ValueError) as exc:
            raise DatasetError(f"{path}: cannot read parquet ({str(exc).splitlines()[0]})") from None
        return _from_frame(frame, path, columns)
    raise DatasetError(f"{path}: unsupported file type {suffix!r} (use one of {', '.join(SUFFIXES)})")


def _read_jsonl(path: Path) -> list[tuple[int, dict]]:
    return list(iter_objects(path))


def _check_text(value, where: str, field: str) -> str:
    if not isinstance(value, str) or not value.strip():
        what = "missing" if value is None else f"empty or not a string ({value!r})"
        raise DatasetError(f"{where}: field {field!r} is {what}")
    return value


def _from_records(records: list[tuple[int, dict]], path: Path, columns: Columns, unit: str) -> pd.DataFrame:
    group_col = columns.group or "UID"
    rows = []
    for n, (pos, rec) in enumerate(records):
        where = f"{path}:{pos}" if unit == "line" else f"{path}: item {pos}"
        for field in (columns.good, columns.bad):
            if field not in rec:
                raise DatasetError(f"{where}: missing field {field!r}")
        if columns.group and columns.group not in rec:
            raise DatasetError(f"{where}: missing field {columns.group!r}")
        group = rec.get(group_col, path.stem)
        rows.append((
            str(group),
            str(rec.get("pairID", n)),
            _check_text(rec[columns.good], where, columns.good),
            _check_text(rec[columns.bad], where, columns.bad),
        ))
    return pd.DataFrame(rows, columns=PAIR_COLUMNS)


def _from_frame(frame: pd.DataFrame, path: Path, columns: Columns) -> pd.DataFrame:
    for field in (columns.good, columns.bad) + ((columns.group,) if columns.group else ()):
        if field not in frame.columns:
            shown = ", ".join(map(str, frame.columns[:12]))
            raise DatasetError(f"{path}: missing column {field!r} (columns: {shown})")
    for field in (columns.good, columns.bad):
        bad = frame[field].map(lambda v: not isinstance(v, str) or not v.strip())
        if bad.any():
            row = int(bad.to_numpy().argmax())
            raise DatasetError(f"{path}: row {row + 1}: field {field!r} is empty or not a string")
    group_col = columns.group or ("UID" if "UID" in frame.columns else None)
    out = pd.DataFrame({
        "uid": frame[group_col].astype(str) if group_col else path.stem,
        "pair_id": frame["pairID"].astype(str) if "pairID" in frame.columns else [str(i) for i in range(len(frame))],
        "sentence_good": frame[columns.good].astype(str),
        "sentence_bad": frame[columns.bad].astype(str),
    })
    return out.reset_index(drop=True)


def _load_hf_disk(folder: Path, columns: Columns) -> dict[str, pd.DataFrame]:
    import datasets

    try:
        ds = datasets.load_from_disk(str(folder))
    except (OSError, ValueError, FileNotFoundError) as exc:
        raise DatasetError(f"{folder}: cannot load the saved HF dataset ({str(exc).splitlines()[0]})") from None
    parts = dict(ds) if isinstance(ds, datasets.DatasetDict) else {folder.name: ds}
    return {name: _finish(_from_frame(part.to_pandas(), folder / name, columns), folder / name)
            for name, part in parts.items()}


def pairs_frame(data, name: str, columns: Columns) -> pd.DataFrame:
    """One set of pairs (columns uid, pair_id, sentence_good, sentence_bad) from in-memory data - a
    DataFrame, PairRecords or dicts - checked row by row as a file's rows are (errors name `name`,
    the caller's parameter, and the row)."""
    from fairpairs.records import PairRecord

    if isinstance(data, pd.DataFrame):
        if set(PAIR_COLUMNS) <= set(data.columns) and columns.good == "sentence_good" and columns.group is None:
            return _finish(data, Path(name))
        return _finish(_from_frame(data, Path(name), columns), Path(name))
    rows = list(data)
    if rows and all(isinstance(r, PairRecord) for r in rows):
        rows = [r.to_dict() for r in rows]
    if not all(isinstance(r, Mapping) for r in rows):
        raise UsageError(Param(name), ": expected PairRecords, dicts, a DataFrame or a dataset path")
    return _finish(_from_records([(i + 1, dict(r)) for i, r in enumerate(rows)], Path(name), columns, unit="item"),
                   Path(name))
