"""Reading vocabulary table files (`read_table`: the csv module, no pandas, so that generating
imports no pandas), checking them row by row (fields per line, restrictions, binary features, a
language table's columns and values) and applying fixes.yaml; every error names the file, line
and expression.

A table here is a `Table`: column name -> numpy object array of strings, in the header's order
(all columns of one length), as pandas' `read_csv(dtype=str, keep_default_na=False)` gives it."""

from __future__ import annotations

from typing import TYPE_CHECKING

import csv
import io
import re
from pathlib import Path
import numpy as np
import yaml
from fairpairs.errors import FixTargetError, VocabularyError
from fairpairs.io.paths import data_dir
from fairpairs.io.reading import read_text, reading
from fairpairs.generation.restrictions import BUNDLED_ROWS, BUNDLED_SHA256, BUNDLED_TABLE, RESTRICTION_COLUMNS, parse_dnf

if TYPE_CHECKING:
    from fairpairs.generation.vocab import Vocabulary

Table = dict[str, np.ndarray]


def _where(path: Path, line: int, expression: str) -> str:
    return f"{path}: line {line} (expression {expression!r})"


def read_table(path: Path, raw: bytes) -> Table:
    """The table in the CSV bytes `raw` of file `path`, every cell a string ("" = empty), as pandas'
    `read_csv(dtype=str, keep_default_na=False)` reads it (blank lines skipped, a leading BOM
    dropped, an unnamed column "Unnamed: i", a repeated name "name.1"). Every data row must have as
    many fields as the header (a cut-off file ends in a short row)."""
    text = raw.decode("utf-8")
    reader = csv.reader(io.StringIO(text))
    header = next(reader, None)
    if not header:
        raise VocabularyError(f"{path}: empty vocabulary table (no header line)")
    if len(header) == 1 and any(sep in header[0] for sep in ("\t", ";")):
        sep = "tabs" if "\t" in header[0] else "semicolons"
        raise VocabularyError(f"{path}: not comma-separated (the header line is split by {sep}); save the "
                              f"table as CSV with commas")
    rows = []
    for row in reader:
        if row and len(row) != len(header):
            raise VocabularyError(f"{path}: line {reader.line_num}: {len(row)} field(s), the header has "
                                  f"{len(header)} (a truncated or damaged file?)")
        if row:
            rows.append(row)
    open_quote = _open_quote(text)
    if open_quote is not None:
        raise VocabularyError(f"{path}: cannot read vocabulary table: Error tokenizing data. C error: EOF inside "
                              f"string starting at row {open_quote}")
    names = _column_names(header)
    cells = np.empty((len(rows), len(names)), dtype=object)
    if rows:
        cells[:] = rows
    return {name: cells[:, j].copy() for j, name in enumerate(names)}


def _open_quote(text: str) -> int | None:
    """The line (from 0) where the record starts whose quoted field the end of `text` leaves open,
    as pandas reports it; None if no quoted field is left open."""
    if '"' not in text:
        return None
    start, state = 0, "start"     # (the csv module's states for the excel dialect, not strict)
    for k, ch in enumerate(text):
        if state == "quoted":
            if ch == '"':
                state = "quote in quoted"
        elif ch in "\r\n":
            start, state = k + 1, "start"
        elif ch == ",":
            state = "field start"
        elif state in ("start", "field start") and ch == '"':
            state = "quoted"
        elif state == "quote in quoted" and ch == '"':
            state = "quoted"
        else:
            state = "field"
    return len(re.findall(r"\r\n|\r|\n", text[:start])) if state == "quoted" else None


def _column_names(header: list[str]) -> list[str]:
    """pandas' column names for a header line: the BOM dropped, "Unnamed: i" for an empty name, and
    "name.1", "name.2" ... for a name met again."""
    names = [h if h else f"Unnamed: {j}" for j, h in enumerate([header[0].removeprefix("\ufeff"), *header[1:]])]
    counts: dict[str, int] = {}
    for j, name in enumerate(names):
        n = counts.get(name, 0)
        while n > 0:
            counts[name] = n + 1
            name = f"{name}.{n}"
            n = counts.get(name, 0)
        names[j] = name
        counts[name] = n + 1
    return names


def rows_of(table: Table) -> int:
    return len(next(iter(table.values()))) if table else 0


def duplicated(table: Table) -> np.ndarray:
    """Rows identical in every column to an earlier row (pandas' `duplicated(keep="first")`)."""
    seen: set[tuple] = set()
    out = np.zeros(rows_of(table), dtype=bool)
    for i, row in enumerate(zip(*table.values())):
        if row in seen:
            out[i] = True
        else:
            seen.add(row)
    return out


def select_rows(table: Table, mask: np.ndarray) -> Table:
    return {c: v[mask] for c, v in table.items()}


def check_restrictions(path: Path, table: Table) -> None:
    for col in RESTRICTION_COLUMNS:
        for value in dict.fromkeys(table[col]):
            try:
                parse_dnf(value)
            except VocabularyError as exc:
                i = int(np.flatnonzero(table[col] == value)[0])
                raise VocabularyError(f"{_where(path, i + 2, table['expression'][i])}: {col}: {exc}") from None


BINARY = frozenset({"", "0", "1"})


def _outside(values: np.ndarray, allowed) -> np.ndarray:
    return np.fromiter((v not in allowed for v in values), dtype=bool, count=len(values))


def check_against(path: Path, table: Table, reference: "Vocabulary") -> None:
    """A table of one's own has the reference's columns, and its 0/1 columns hold only 0, 1 or ''."""
    missing = [c for c in reference.column_names if c not in table and c not in ("source", "model")]
    if missing:
        raise VocabularyError(f"{path}: missing column(s) {', '.join(missing)} (a vocabulary table needs the "
                              f"columns of the bundled {BUNDLED_TABLE}; docs/vocabulary.md)")
    for col in reference.column_names:
        if reference._values[col] <= BINARY:
            bad = _outside(table[col], BINARY)
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                raise VocabularyError(f"{_where(path, i + 2, table['expression'][i])}: {col}: "
                                      f"{table[col][i]!r} is not 0, 1 or empty")


# the `source` values that mark a benchmark's own words, its *source lexicon* (docs/vocabulary.md):
# BLiMP's table has no `source` column (every row is BLiMP's), CLAMS' words say `clams`. Any other
# value marks a word of the *extension* (`fairpairs`: added by hand; a library's name and version:
# made by tools/extend_vocab.py), which only length control draws.
SOURCE_LEXICONS = ("", "clams")


def source_mask(table: Table) -> np.ndarray:
    """True on the rows of the source lexicon (`SOURCE_LEXICONS`), False on the extension's."""
    if "source" not in table:
        return np.ones(rows_of(table), dtype=bool)
    return np.isin(table["source"], SOURCE_LEXICONS)


class Lexicons:
    """A table's two lexicons (docs/vocabulary.md, "Two lexicons"), for `Vocabulary`: the source
    lexicon (the benchmark's own words, which original sets draw) and the extension (the words
    added for length control, which only it draws)."""

    _col_arrays: Table

    def source_rows(self) -> np.ndarray:
        """True on the source lexicon's rows, False on the extension's (`SOURCE_LEXICONS`)."""
        return source_mask(self._col_arrays)

    def extension_words(self) -> frozenset[str]:
        """The expressions only extension rows have: a pair showing one of them uses the extension
        (what the balance report's `extension_share` counts)."""
        src = self.source_rows()
        expr = self._col_arrays["expression"]
        return frozenset(expr[~src].tolist()) - frozenset(expr[src].tolist())

    def extension_share(self, rows=None) -> float:
        """The share of `rows` (row indices or a mask; default every row) that are extension rows
        (0.0 for none)."""
        ext = ~self.source_rows()
        if rows is not None:
            rows = np.asarray(rows)
            ext = ext[rows if rows.dtype == bool else rows.astype(np.int64)]
        return float(ext.mean()) if len(ext) else 0.0


# a language table (vocab/fr.csv, vocab/de.csv; docs/vocabulary.md): these columns, these values
LANGUAGE_COLUMNS = ("expression", "lemma", "category", "person", "number", "gender", "case")
LANGUAGE_VALUES = {"person": {"", "1", "2", "3"}, "number": {"", "sg", "pl", "du", "pc"},
                   "gender": {"", "m", "f", "n", "c"}}


def check_language_table(path: Path, table: Table) -> None:
    """A language table has the columns `LANGUAGE_COLUMNS`, known agreement values, an expression
    on every row and no row twice."""
    missing = [c for c in LANGUAGE_COLUMNS if c not in table]
    if missing:
        raise VocabularyError(f"{path}: missing column(s) {', '.join(missing)} (a language table needs "
                              f"{', '.join(LANGUAGE_COLUMNS)}; docs/vocabulary.md)")
    expressions = table["expression"]
    for col, allowed in LANGUAGE_VALUES.items():
        bad = _outside(table[col], allowed)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise VocabularyError(f"{_where(path, i + 2, expressions[i])}: {col}: {table[col][i]!r} "
                                  f"is not one of {', '.join(repr(v) for v in sorted(allowed) if v)} or empty")
    empty = np.fromiter((e.strip() == "" for e in expressions), dtype=bool, count=len(expressions))
    if empty.any():
        i = int(np.flatnonzero(empty)[0])
        raise VocabularyError(f"{path}: line {i + 2}: expression: empty")
    dup = duplicated(table)
    if dup.any():
        i = int(np.flatnonzero(dup)[0])
        raise VocabularyError(f"{_where(path, i + 2, expressions[i])}: the same row as an earlier one")


def _add_rows(table: Table, rows: list[dict], where: str) -> Table:
    for r in rows:
        unknown = set(r) - set(table)
        if unknown:
            raise VocabularyError(f"{where}add: unknown column(s) {sorted(unknown)}")
    out = {}
    for c, v in table.items():
        added = np.empty(len(rows), dtype=object)
        added[:] = [str(r.get(c, "")) for r in rows]
        out[c] = np.concatenate([v, added])
    return out


def fix_table(csv_path: Path, table: Table, sha256: str, fixes_path: Path, bundled: bool) -> tuple[Table, list[str]]:
    """`apply_fixes` for the table read from `csv_path` (of bytes `sha256`): the bundled fixes.yaml
    (`bundled`) only onto the BLiMP table it was written for; errors name the table and say why."""
    if bundled and sha256 != BUNDLED_SHA256:
        raise VocabularyError(
            f"{csv_path}: not the BLiMP table that fixes.yaml corrects ({rows_of(table)} rows, expected "
            f"{BUNDLED_ROWS}; sha256 differs): a truncated or modified copy. Restore it, or load a "
            f"table of your own from another folder (fixes.yaml applies to the bundled table only)")
    try:
        return apply_fixes(table, fixes_path)
    except FixTargetError as exc:
        raise VocabularyError(f"{csv_path}: the vocabulary table lacks rows that {fixes_path.name} "
                              f"corrects ({rows_of(table)} rows; truncated, or not BLiMP's table?): {exc}") from None


def apply_fixes(table: Table, path: Path) -> tuple[Table, list[str]]:
    """Apply the corrections of a fixes.yaml file; returns the new table and the fix ids."""
    text = read_text(path, "fixes file", VocabularyError)
    try:
        fixes = yaml.safe_load(text) or []
    except yaml.YAMLError as exc:
        raise VocabularyError(f"{path}: cannot read fixes: {exc}") from None
    table = {c: v.copy() for c, v in table.items()}
    applied = []
    for n, fix in enumerate(fixes):
        fid = fix.get("id", f"#{n}")
        where = f"{path}: {fid}: "
        if "add" in fix:
            table = _add_rows(table, fix["add"], where)
            applied.append(fid)
            continue
        match = fix.get("match") or {}
        mask = np.ones(rows_of(table), dtype=bool)
        for col, val in match.items():
            if col not in table:
                raise VocabularyError(f"{where}match: unknown column {col!r}")
            values = [str(v) for v in val] if isinstance(val, list) else [str(val)]
            mask &= np.isin(table[col], values)
        if not mask.any():
            raise FixTargetError(f"{where}match: no row matches {match}")
        for col, val in match.items():  # a list matches any of its values, and each must match
            for v in val if isinstance(val, list) else []:
                if not (mask & (table[col] == str(v))).any():
                    raise FixTargetError(f"{where}match: no row matches {col}={v!r} with the other conditions")
        if fix.get("drop"):
            table = select_rows(table, ~mask)
        elif fix.get("dedupe"):
            # a row identical in every column to an earlier one goes (its twin matches too)
            dup = mask & duplicated(table)
            for col, val in match.items():
                for v in val if isinstance(val, list) else [val]:
                    if not (dup & (table[col] == str(v))).any():
                        raise FixTargetError(f"{where}dedupe: no two identical rows with {col}={v!r}")
            if not dup.any():
                raise FixTargetError(f"{where}dedupe: no two matched rows are identical")
            table = select_rows(table, ~dup)
        elif "set" in fix:
            for col, val in fix["set"].items():
                if col not in table:
                    raise VocabularyError(f"{where}set: unknown column {col!r}")
                table[col][mask] = str(val)
        elif "set_by" in fix:
            key = fix["set_by"]
            for k, val in fix["values"].items():
                table["category"][mask & (table[key] == k)] = str(val)
        else:
            raise VocabularyError(f"{where}one of add, drop, dedupe, set, set_by is required")
        applied.append(fid)
    return table, applied


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
