"""Pairs as the pandas frames a researcher expects (`fp.load_sets`, `fp.to_frame`).

`fairpairs.analysis.length_audit` reads any dataset into the four columns every analysis needs (uid, pair_id,
sentence_good, sentence_bad). `with_every_column` adds the input's other columns to them, read
from the same rows in the same order (field, linguistics_term, critical_good/bad, token_lengths,
draw, control, ... for a run folder), so a set can be sliced by phenomenon, control or length.
`to_frame` makes one frame of them with `len_<tokenizer>_good` / `len_<tokenizer>_bad` columns in
place of the nested `token_lengths`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from fairpairs.analysis.loading import PAIR_COLUMNS, RUN_SETS, SUFFIXES, Columns
from fairpairs.analysis.loading import _read_jsonl
from fairpairs.records import PairRecord


def with_every_column(data, sets: dict[str, pd.DataFrame], columns: Columns) -> dict[str, pd.DataFrame]:
    """`sets` (as `fairpairs.api.common._load_sets` read them from `data`) with every other column of
    the input after the four standard ones. The columns the four were made from (the sentence
    columns, UID / the group column, pairID) are not repeated."""
    raw = _raw_sets(data, sets)
    used = {columns.good, columns.bad, columns.group or "UID", "pairID", *PAIR_COLUMNS}
    out = {}
    for name, std in sets.items():
        extra = raw.get(name)
        if extra is None or len(extra) != len(std):
            out[name] = std
            continue
        extra = extra.drop(columns=[c for c in extra.columns if c in used]).reset_index(drop=True)
        out[name] = pd.concat([std.reset_index(drop=True), extra], axis=1)
    return out


def _raw_sets(data, sets: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """The input's rows as read, per set name (only what can be read again cheaply)."""
    if isinstance(data, Mapping):
        out = {}
        for key, value in data.items():
            sub = _raw_sets(value, {str(key): sets[str(key)]})
            if len(sub) == 1:
                out[str(key)] = next(iter(sub.values()))
        return out
    if isinstance(data, pd.DataFrame):
        return {next(iter(sets)): data}
    if isinstance(data, (str, os.PathLike)):
        return _raw_path(Path(data))
    rows = [r.to_dict() if isinstance(r, PairRecord) else dict(r) for r in data]
    return {next(iter(sets)): pd.DataFrame(rows)}


def _raw_path(p: Path) -> dict[str, pd.DataFrame]:
    if p.is_dir():
        if (p / "dataset_dict.json").is_file() or (p / "state.json").is_file():
            import datasets

            ds = datasets.load_from_disk(str(p))
            parts = dict(ds) if isinstance(ds, datasets.DatasetDict) else {p.name: ds}
            return {name: part.to_pandas() for name, part in parts.items()}
        subsets = [s for s in RUN_SETS if (p / s).is_dir()]
        if subsets:
            return {s: _raw_folder(p / s) for s in subsets}
        return {p.name: _raw_folder(p)}
    return {p.stem: _raw_file(p)}


def _raw_folder(folder: Path) -> pd.DataFrame:
    files = sorted(f for f in folder.rglob("*") if f.is_file() and f.suffix.lower() in SUFFIXES
                   and f.name not in {"manifest.json", "fairpairs_manifest.json"}
                   and not any(part.startswith(".") for part in f.relative_to(folder).parts))
    return pd.concat([_raw_file(f) for f in files], ignore_index=True)


def _raw_file(path: Path) -> pd.DataFrame:
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        return pd.DataFrame([rec for _, rec in _read_jsonl(path)])
    if suffix == ".json":
        data = json.loads(path.read_text(encoding="utf-8"))
        return pd.DataFrame(data["data"] if isinstance(data, dict) else data)
    if suffix in (".csv", ".tsv"):
        return pd.read_csv(path, sep="\t" if suffix == ".tsv" else ",", dtype=str, keep_default_na=False)
    return pd.read_parquet(path)


def flatten_lengths(frame: pd.DataFrame) -> pd.DataFrame:
    """`frame` with its `token_lengths` column ({tokenizer: {good, bad}} per row) replaced by
    `len_<tokenizer>_good` and `len_<tokenizer>_bad` columns (integers; missing where a row was not
    measured with that tokenizer), in the order the tokenizers first appear."""
    if "token_lengths" not in frame.columns:
        return frame
    cells = [v if isinstance(v, Mapping) else {} for v in frame["token_lengths"]]
    names = list(dict.fromkeys(t for c in cells for t in c))
    at = list(frame.columns).index("token_lengths")
    out = frame.drop(columns=["token_lengths"])
    for i, tok in enumerate(names):
        for j, side in enumerate(("good", "bad")):
            values = [(c.get(tok) or {}).get(side) for c in cells]
            out.insert(at + 2 * i + j, f"len_{tok}_{side}", pd.array(values, dtype="Int64"))
    return out


def to_frame(sets: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """One frame of the sets (a `set` column first when there are several), token lengths flat."""
    if len(sets) == 1:
        frame = next(iter(sets.values()))
    else:
        frame = pd.concat([df.assign(set=name) for name, df in sets.items()], ignore_index=True)
        frame = frame[["set", *[c for c in frame.columns if c != "set"]]]
    return flatten_lengths(frame.reset_index(drop=True))
