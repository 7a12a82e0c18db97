"""Checking vocabulary table files row by row (fields per line, restrictions, binary features, a
language table's columns and values) and applying fixes.yaml; every error names the file, line
and expression."""

from __future__ import annotations

from typing import TYPE_CHECKING

import csv
import io
from pathlib import Path
import numpy as np
import pandas as pd
import yaml
from fairpairs.errors import FixTargetError, VocabularyError
from fairpairs.io.paths import data_dir
from fairpairs.io.reading import read_text, reading
from fairpairs.generation.restrictions import BUNDLED_TABLE, RESTRICTION_COLUMNS, parse_dnf

if TYPE_CHECKING:
    from fairpairs.generation.vocab import Vocabulary


def _where(path: Path, line: int, expression: str) -> str:
    return f"{path}: line {line} (expression {expression!r})"


def check_rows(path: Path, raw: bytes) -> None:
    """Every data row has as many fields as the header (a cut-off file ends in a short row)."""
    reader = csv.reader(io.StringIO(raw.decode("utf-8")))
    header = next(reader, None)
    if not header:
        raise VocabularyError(f"{path}: empty vocabulary table (no header line)")
    if len(header) == 1 and any(sep in header[0] for sep in ("\t", ";")):
        sep = "tabs" if "\t" in header[0] else "semicolons"
        raise VocabularyError(f"{path}: not comma-separated (the header line is split by {sep}); save the "
                              f"table as CSV with commas")
    for row in reader:
        if row and len(row) != len(header):
            raise VocabularyError(f"{path}: line {reader.line_num}: {len(row)} field(s), the header has "
                                  f"{len(header)} (a truncated or damaged file?)")


def check_restrictions(path: Path, df: pd.DataFrame) -> None:
    for col in RESTRICTION_COLUMNS:
        for value in df[col].unique():
            try:
                parse_dnf(value)
            except VocabularyError as exc:
                i = int(np.flatnonzero(df[col].to_numpy() == value)[0])
                raise VocabularyError(f"{_where(path, i + 2, df['expression'].iat[i])}: {col}: {exc}") from None


BINARY = frozenset({"", "0", "1"})


def check_against(path: Path, df: pd.DataFrame, reference: "Vocabulary") -> None:
    """A table of one's own has the reference's columns, and its 0/1 columns hold only 0, 1 or ''."""
    missing = [c for c in reference.df.columns if c not in df.columns]
    if missing:
        raise VocabularyError(f"{path}: missing column(s) {', '.join(missing)} (a vocabulary table needs the "
                              f"columns of the bundled {BUNDLED_TABLE}; docs/vocabulary.md)")
    for col in reference.df.columns:
        if reference._values[col] <= BINARY:
            bad = ~df[col].isin(BINARY).to_numpy()
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                raise VocabularyError(f"{_where(path, i + 2, df['expression'].iat[i])}: {col}: "
                                      f"{df[col].iat[i]!r} is not 0, 1 or empty")


# a language table (vocab/fr.csv, vocab/de.csv; docs/vocabulary.md): these columns, these values
LANGUAGE_COLUMNS = ("expression", "lemma", "category", "person", "number", "gender", "case")
LANGUAGE_VALUES = {"person": {"", "1", "2", "3"}, "number": {"", "sg", "pl", "du", "pc"},
                   "gender": {"", "m", "f", "n", "c"}}


def check_language_table(path: Path, df: pd.DataFrame) -> None:
    """A language table has the columns `LANGUAGE_COLUMNS`, known agreement values, an expression
    on every row and no row twice."""
    missing = [c for c in LANGUAGE_COLUMNS if c not in df.columns]
    if missing:
        raise VocabularyError(f"{path}: missing column(s) {', '.join(missing)} (a language table needs "
                              f"{', '.join(LANGUAGE_COLUMNS)}; docs/vocabulary.md)")
    for col, allowed in LANGUAGE_VALUES.items():
        bad = ~df[col].isin(allowed).to_numpy()
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise VocabularyError(f"{_where(path, i + 2, df['expression'].iat[i])}: {col}: {df[col].iat[i]!r} "
                                  f"is not one of {', '.join(repr(v) for v in sorted(allowed) if v)} or empty")
    empty = (df["expression"].str.strip() == "").to_numpy()
    if empty.any():
        i = int(np.flatnonzero(empty)[0])
        raise VocabularyError(f"{path}: line {i + 2}: expression: empty")
    dup = df.duplicated(keep="first").to_numpy()
    if dup.any():
        i = int(np.flatnonzero(dup)[0])
        raise VocabularyError(f"{_where(path, i + 2, df['expression'].iat[i])}: the same row as an earlier one")


def apply_fixes(df: pd.DataFrame, path: Path) -> tuple[pd.DataFrame, list[str]]:
    """Apply the corrections of a fixes.yaml file; returns the new table and the fix ids."""
    text = read_text(path, "fixes file", VocabularyError)
    try:
        fixes = yaml.safe_load(text) or []
    except yaml.YAMLError as exc:
        raise VocabularyError(f"{path}: cannot read fixes: {exc}") from None
    applied = []
    for n, fix in enumerate(fixes):
        fid = fix.get("id", f"#{n}")
        where = f"{path}: {fid}: "
        if "add" in fix:
            rows = []
            for r in fix["add"]:
                unknown = set(r) - set(df.columns)
                if unknown:
                    raise VocabularyError(f"{where}add: unknown column(s) {sorted(unknown)}")
                rows.append({c: str(r.get(c, "")) for c in df.columns})
            df = pd.concat([df, pd.DataFrame(rows, columns=df.columns)], ignore_index=True)
            applied.append(fid)
            continue
        match = fix.get("match") or {}
        mask = np.ones(len(df), dtype=bool)
        for col, val in match.items():
            if col not in df.columns:
                raise VocabularyError(f"{where}match: unknown column {col!r}")
            values = [str(v) for v in val] if isinstance(val, list) else [str(val)]
            mask &= df[col].isin(values).to_numpy()
        if not mask.any():
            raise FixTargetError(f"{where}match: no row matches {match}")
        for col, val in match.items():  # a list matches any of its values, and each must match
            for v in val if isinstance(val, list) else []:
                if not (mask & (df[col] == str(v)).to_numpy()).any():
                    raise FixTargetError(f"{where}match: no row matches {col}={v!r} with the other conditions")
        if fix.get("drop"):
            df = df[~mask].reset_index(drop=True)
        elif fix.get("dedupe"):
            # a row identical in every column to an earlier one goes (its twin matches too)
            dup = mask & df.duplicated(keep="first").to_numpy()
            for col, val in match.items():
                for v in val if isinstance(val, list) else [val]:
                    if not (dup & (df[col] == str(v)).to_numpy()).any():
                        raise FixTargetError(f"{where}dedupe: no two identical rows with {col}={v!r}")
            if not dup.any():
                raise FixTargetError(f"{where}dedupe: no two matched rows are identical")
            df = df[~dup].reset_index(drop=True)
        elif "set" in fix:
            for col, val in fix["set"].items():
                if col not in df.columns:
                    raise VocabularyError(f"{where}set: unknown column {col!r}")
                df.loc[mask, col] = str(val)
        elif "set_by" in fix:
            key = fix["set_by"]
            for k, val in fix["values"].items():
                df.loc[mask & (df[key] == k).to_numpy(), "category"] = str(val)
        else:
            raise VocabularyError(f"{where}one of add, drop, dedupe, set, set_by is required")
        applied.append(fid)
    return df, applied


def _header(path: Path) -> list[str]:
    with reading(path, "vocabulary table", VocabularyError):
        with open(path, encoding="utf-8", newline="") as fh:
            return next(csv.reader([fh.readline()]), [])


def is_language_table(path: str | Path) -> bool:
    """Whether a CSV file is a language table rather than a table in BLiMP's format: its header
    has a column only language tables have and holds a larger share of a language table's columns
    (`LANGUAGE_COLUMNS`) than of the BLiMP table's, so a table with a misnamed column is still
    taken for its kind (and its error lists the columns of that kind)."""
    header = set(_header(Path(path)))
    blimp = _header(data_dir("vocab") / BUNDLED_TABLE)
    own = [c for c in LANGUAGE_COLUMNS if c not in blimp]     # lemma, number, gender, case
    return any(c in header for c in own) and \
        sum(c in header for c in LANGUAGE_COLUMNS) / len(LANGUAGE_COLUMNS) > sum(c in header for c in blimp) / len(blimp)
