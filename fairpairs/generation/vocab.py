"""The vocabulary table: loading (with our fixes), feature selection, selectional restrictions.

Rows are word forms; every cell is a string ("" = unspecified). Selectional restrictions
(`arg_1`, `arg_2`, `arg_3`, `arg_clause`) are in disjunctive normal form: `;` separates
alternatives, `^` joins conditions, a condition is `column=value` (`column=` asks for an empty
cell). An empty restriction accepts every row.

All queries return numpy boolean masks or integer row indices over the table and are cached, so
the generator's inner loop is array indexing. The table is held as numpy arrays, one per column
(generating imports no pandas); `Vocabulary.df` gives it as a pandas DataFrame.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

import numpy as np

from fairpairs.errors import VocabularyError
from fairpairs.io.reading import reading
from fairpairs.io.paths import data_dir
from fairpairs.manifest import VocabularyInfo
from fairpairs.generation.restrictions import BUNDLED_TABLE, RESTRICTION_COLUMNS, parse_dnf
from fairpairs.generation.vocab_extension import EXTENSION_TABLE, extend_table
from fairpairs.generation.vocab_files import Table, check_against, check_language_table, check_restrictions, read_table, rows_of, fix_table, is_language_table, select_rows, Lexicons

if TYPE_CHECKING:
    import pandas as pd


class Vocabulary(Lexicons):
    """The (fixed) vocabulary table with vectorised, cached queries; its two lexicons (the source
    and the extension: `source_rows`, `extension_words`, `extension_share`) come from `Lexicons`.

    `table`: column name -> the column's values (strings), or a pandas DataFrame."""

    def __init__(self, table: "Table | pd.DataFrame | Mapping[str, Any]", *, source: str = "<table>",
                 fixes: list[str] | None = None, sha256: str = "", language: str = "en",
                 extension_sha256: str = ""):
        self.source = source
        self.language = language      # "en": BLiMP's columns; else a language table ("*": of any language)
        self.fixes = list(fixes or [])
        self.sha256 = sha256
        self.extension_sha256 = extension_sha256   # of the checked extension appended to the table ("": none)
        self._col_arrays: dict[str, np.ndarray] = {c: np.asarray(table[c], dtype=object) for c in table}
        self.column_names = tuple(self._col_arrays)     # (in the table's order)
        self.columns = frozenset(self.column_names)
        self._len = rows_of(self._col_arrays)
        self.expressions = self._col_arrays["expression"]
        self._values = {c: frozenset(v) for c, v in self._col_arrays.items()}
        self._df = None
        self._dnf_cache: dict[str, np.ndarray] = {}
        self._accept_cache: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._by_expr: dict[str, list[int]] = {}
        for i, e in enumerate(self.expressions):
            self._by_expr.setdefault(e, []).append(i)
        self._by_root: dict[str, list[int]] = {}
        for i, r in enumerate(self._col_arrays["root"]):
            if r:
                self._by_root.setdefault(r, []).append(i)
        if "lemma" in self.columns:   # a language table: a lexeme is a lemma within one category
            for i, (lem, cat) in enumerate(zip(self._col_arrays["lemma"], self._col_arrays["category"])):
                if lem and not self._col_arrays["root"][i]:
                    self._by_root.setdefault(f"{lem}_{cat}", []).append(i)

    # ------------------------------------------------------------------ loading
    @classmethod
    def load(cls, csv_path: str | Path | None = None, fixes_path: str | Path | None = "default",
             reference: "Vocabulary | None" = None, language: str = "en") -> "Vocabulary":
        """Load a vocabulary CSV (default: the bundled BLiMP table) and apply fixes.yaml (by default
        only to the bundled table, and only if it is the file the fixes were written for).

        Every row must have the header's number of fields and parseable restrictions; with
        `reference`, the table must also have all of its columns, and the columns that hold only
        0/1/empty there must hold only those. Errors name the file, the line and the column."""
        vocab_dir = data_dir("vocab")
        csv_path = Path(csv_path) if csv_path else vocab_dir / BUNDLED_TABLE
        if fixes_path == "default":
            bundled = csv_path.parent.resolve() == vocab_dir.resolve() and csv_path.name == BUNDLED_TABLE
            fixes_path = vocab_dir / "fixes.yaml" if bundled else None
        with reading(csv_path, "vocabulary table", VocabularyError):
            raw = csv_path.read_bytes()
            df = read_table(csv_path, raw)      # (decodes the bytes: a UnicodeDecodeError is read's)
        sha256 = hashlib.sha256(raw).hexdigest()
        if "expression" not in df:
            raise VocabularyError(f"{csv_path}: expression: column missing")
        if language != "en":
            check_language_table(csv_path, df)
            fixes_path = None
        elif reference is not None:
            check_against(csv_path, df, reference)
        for col in ("root", "category", "category_2", *RESTRICTION_COLUMNS):
            if col not in df:
                df[col] = np.full(rows_of(df), "", dtype=object)
        check_restrictions(csv_path, df)
        applied: list[str] = []
        if not rows_of(df):
            raise VocabularyError(f"{csv_path}: vocabulary table has no rows")
        if fixes_path:
            df, applied = fix_table(csv_path, df, sha256, Path(fixes_path), fixes_path == vocab_dir / "fixes.yaml")
        return cls(df, source=str(csv_path), fixes=applied, sha256=sha256, language=language)

    def info(self) -> VocabularyInfo:
        """What a run's manifest records of this vocabulary: its file's name, sha256, the fixes applied,
        and the sha256 of its checked extension where it has one (rows its own sha256 does not cover)."""
        out = VocabularyInfo(file=Path(self.source).name, sha256=self.sha256, fixes=self.fixes)
        return VocabularyInfo(**out, extension_sha256=self.extension_sha256) if self.extension_sha256 else out

    def subset(self, mask: np.ndarray) -> "Vocabulary":
        """The rows where `mask` is True, as a vocabulary of their own (same source and hash). A
        value of the whole table stays a valid query value, matching no row if none is left."""
        sub = Vocabulary(select_rows(self._col_arrays, np.asarray(mask, dtype=bool)), source=self.source,
                         fixes=self.fixes, sha256=self.sha256, language=self.language,
                         extension_sha256=self.extension_sha256)
        sub._values = self._values
        return sub

    # ------------------------------------------------------------------ basic access
    @property
    def df(self) -> "pd.DataFrame":
        """The table as a pandas DataFrame (built on first use; imports pandas)."""
        if self._df is None:
            import pandas as pd

            self._df = pd.DataFrame(self._col_arrays, columns=list(self.column_names))
        return self._df

    def __len__(self) -> int:
        return self._len

    def row(self, i: int) -> dict[str, str]:
        return {c: v[int(i)] for c, v in self._col_arrays.items()}

    def get(self, i: int, column: str) -> str:
        return self._col_arrays[column][int(i)]

    def rows_for(self, expression: str, **features: str) -> np.ndarray:
        """Indices of rows with this expression (and these feature values)."""
        idx = np.array(self._by_expr.get(expression, []), dtype=np.int64)
        for col, val in features.items():
            self.check_column(col)
            idx = idx[self._col_arrays[col][idx] == str(val)] if len(idx) else idx
        return idx

    def check_column(self, column: str, where: str = "") -> None:
        if column not in self.columns:
            raise VocabularyError(f"{where}unknown vocabulary column {column!r}")

    def check_value(self, column: str, value: str, where: str = "") -> None:
        self.check_column(column, where)
        if value not in self._values[column]:
            known = sorted(v for v in self._values[column] if v)[:8]
            raise VocabularyError(
                f"{where}value {value!r} never occurs in vocabulary column {column!r} "
                + (f"(e.g. {', '.join(map(repr, known))})" if known else "(the column is empty in every row)"))

    # ------------------------------------------------------------------ selection
    def select(self, where: Mapping[str, object] | None = None, where_not: Mapping[str, object] | None = None,
               *, context: str = "") -> np.ndarray:
        """Boolean mask of rows matching every `where` item and none of the `where_not` items.

        A value may be a string or a list of strings (any of them). Unknown columns or values raise
        VocabularyError (prefixed by `context`)."""
        mask = np.ones(len(self), dtype=bool)
        for col, val in (where or {}).items():
            mask &= self._feature_mask(col, val, context)
        for col, val in (where_not or {}).items():
            mask &= ~self._feature_mask(col, val, context)
        return mask

    def _feature_mask(self, col: str, val: object, context: str) -> np.ndarray:
        values = [val] if not isinstance(val, (list, tuple, set, frozenset)) else list(val)
        values = ["" if v is None else str(int(v)) if isinstance(v, bool) else str(v) for v in values]
        for v in values:
            self.check_value(col, v, context)
        return np.isin(self._col_arrays[col], values)

    # ------------------------------------------------------------------ restrictions
    def dnf_mask(self, text: str) -> np.ndarray:
        """Rows that satisfy the DNF restriction `text` (all rows if it is empty). Cached."""
        hit = self._dnf_cache.get(text)
        if hit is not None:
            return hit
        dnf = parse_dnf(text)
        if not dnf:
            mask = np.ones(len(self), dtype=bool)
        else:
            mask = np.zeros(len(self), dtype=bool)
            for conj in dnf:
                m = np.ones(len(self), dtype=bool)
                for col, val in conj:
                    if col not in self.columns:
                        m[:] = False  # a condition on a column we lack is never met
                        break
                    m &= self._col_arrays[col] == val
                mask |= m
        mask.setflags(write=False)
        self._dnf_cache[text] = mask
        return mask

    def satisfiers(self, i: int, arg: str) -> np.ndarray:
        """Mask of rows that satisfy row i's restriction `arg` (e.g. objects a verb accepts)."""
        return self.dnf_mask(self.get(i, arg))

    def _accept_matrix(self, arg: str) -> tuple[np.ndarray, np.ndarray]:
        """(codes, table): table[codes[r], s] is True when row s satisfies row r's `arg`."""
        hit = self._accept_cache.get(arg)
        if hit is None:
            uniques, codes = np.unique(self._col_arrays[arg], return_inverse=True)
            table = np.stack([self.dnf_mask(u) for u in uniques]) if len(uniques) else np.ones((1, len(self)), bool)
            hit = (codes.astype(np.int64), table)
            self._accept_cache[arg] = hit
        return hit

    def accepted_by(self, i: int, arg: str, rows: np.ndarray | None = None) -> np.ndarray:
        """Mask of rows whose restriction `arg` row i satisfies (e.g. verbs that take i as subject);
        with `rows`, the mask over those row indices only."""
        codes, table = self._accept_matrix(arg)
        return table[codes if rows is None else codes[rows], int(i)]

    def any_accepts(self, functors: np.ndarray, arg: str, arguments: np.ndarray) -> bool:
        """Does some row of `arguments` satisfy restriction `arg` of some row of `functors`?"""
        if not len(functors) or not len(arguments):
            return False
        codes, table = self._accept_matrix(arg)
        return bool(table[np.unique(codes[functors])][:, arguments].any())

    def column(self, name: str) -> np.ndarray:
        return self._col_arrays[name]     # (the values of one column; read-only use)

    def accepts(self, functor: int, arg: str, argument: int) -> bool:
        """Does row `argument` satisfy row `functor`'s restriction `arg`?"""
        return bool(self.satisfiers(functor, arg)[int(argument)])

    # ------------------------------------------------------------------ lexemes and forms
    def lexeme(self, i: int) -> np.ndarray:
        """Indices of all forms of row i's lexeme: same `root` (verbs, adjectives ...), in a
        language table same `lemma` and `category`, or for BLiMP's nouns the row and its
        plural/singular sibling."""
        root = self._root(i)
        if root:
            return np.array(self._by_root[root], dtype=np.int64)
        out = [int(i)]
        sib = self.other_number(i)
        if sib is not None:
            out.append(sib)
        return np.array(sorted(out), dtype=np.int64)

    def _root(self, i: int) -> str:
        root = self.get(i, "root")
        if not root and "lemma" in self.columns and self.get(i, "lemma"):
            root = f"{self.get(i, 'lemma')}_{self.get(i, 'category')}"
        return root

    def lexeme_key(self, i: int) -> str:
        """A string naming row i's lexeme (for 'distinct word' checks)."""
        root = self._root(i)
        if root:
            return root
        return "|".join(sorted(self.expressions[j] for j in self.lexeme(i)))

    def lexeme_codes(self) -> np.ndarray:
        """An integer per row; equal codes = same lexeme (cached)."""
        if getattr(self, "_lexeme_codes", None) is None:
            keys = np.array([self.lexeme_key(i) for i in range(len(self))], dtype=object)
            self._lexeme_codes = np.unique(keys, return_inverse=True)[1]
        return self._lexeme_codes

    def other_number(self, i: int) -> int | None:
        """Row of the other grammatical number of noun row i, via pluralform/singularform; in a
        language table, the first row of the same lexeme that differs in `number` and agrees in
        every other agreement feature (person, gender, case)."""
        if "pluralform" not in self.columns and "lemma" in self.columns:
            for j in self.lexeme(i):
                if self.get(j, "number") != self.get(i, "number") and self.get(j, "number") and \
                        all(self.get(j, c) == self.get(i, c) for c in ("person", "gender", "case")):
                    return int(j)
            return None
        for col, target_col in (("pluralform", "pl"), ("singularform", "sg")):
            form = self.get(i, col) if col in self.columns else ""
            if form:
                cands = [j for j in self._by_expr.get(form, [])
                         if self.get(j, "category") == self.get(i, "category") and self.get(j, target_col) == "1"]
                if cands:
                    return cands[0]
        return None

    def form_of(self, i: int, features: Mapping[str, object]) -> np.ndarray:
        """Rows of row i's lexeme having these features, e.g. {'en': 1} for the participle."""
        idx = self.lexeme(i)
        for col, val in features.items():
            self.check_column(col)
            idx = idx[self._col_arrays[col][idx] == str(val)]
        return idx


def default_vocabulary(language: str = "en") -> Vocabulary:
    """The bundled vocabulary of a language (loaded once per process): for English the fixed BLiMP
    table, for another language its table in vocab/ (`fairpairs.generation.languages`)."""
    return _default_vocabulary(language)


@lru_cache(maxsize=8)
def _default_vocabulary(language: str) -> Vocabulary:
    if language == "en":     # BLiMP's fixed table, then its checked extension (docs/vocabulary.md)
        base = Vocabulary.load()
        table, ext = extend_table(base._col_arrays, data_dir("vocab") / EXTENSION_TABLE, base)
        return Vocabulary(table, source=base.source, fixes=base.fixes, sha256=base.sha256, extension_sha256=ext)
    from fairpairs.generation.languages import get_language

    return Vocabulary.load(data_dir("vocab") / get_language(language).vocabulary, language=language)


def read_vocabulary(path: str | Path | None = None, language: str | None = None) -> Vocabulary:
    """A vocabulary table: the bundled table of `language` (default: the fixed BLiMP table), or the
    CSV file at `path`: a table with the BLiMP table's columns, or a language table (docs/
    vocabulary.md), checked row by row (fixes.yaml applies to the bundled BLiMP table only)."""
    if path is None:
        return default_vocabulary(language or "en")
    path = Path(path)
    bundled = data_dir("vocab") / BUNDLED_TABLE
    if path.name == BUNDLED_TABLE and path.resolve() == bundled.resolve():
        return default_vocabulary()
    if path.is_file() and is_language_table(path):
        return Vocabulary.load(path, language=language or "*")
    return Vocabulary.load(path, reference=default_vocabulary())
