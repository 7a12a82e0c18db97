"""The checked extension of BLiMP's English table (issue 47, item 2; docs/vocabulary.md, "The extension,
checked"): vocab/blimp_extension.csv, written by tools/extend_vocab.py --language en (lemminflect's
forms, wordfreq's frequencies, each new word copying the features of a BLiMP word of its class).

BLiMP's table is never edited, so its extension is a file of its own: BLiMP's columns plus `source`
(the library and version that made the row: never a source-lexicon value, so only length control
draws it) and `model` (the BLiMP word whose features it copies). `extend_table` appends it to the fixed
BLiMP table after BLiMP's rows, whose indices (and so the original sets, drawn from them alone) do not
change; BLiMP's rows get an empty `source` and `model`."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from fairpairs.errors import VocabularyError
from fairpairs.io.paths import data_dir
from fairpairs.io.reading import reading
from fairpairs.generation.vocab_files import SOURCE_LEXICONS, Table, check_against, check_restrictions, read_table, rows_of

if TYPE_CHECKING:
    from fairpairs.generation.vocab import Vocabulary

EXTENSION_TABLE = "blimp_extension.csv"
# the columns the extension adds to BLiMP's (a table of one's own need not have them)
EXTENSION_COLUMNS = ("source", "model")


def extend_table(table: Table, path: Path, reference: "Vocabulary") -> tuple[Table, str]:
    """`table` (the fixed BLiMP table, `reference`'s) with the rows of the extension file at `path`
    appended and the columns EXTENSION_COLUMNS added (empty on BLiMP's rows), and the file's sha256
    (which the run records: `Vocabulary.info`). The file must have every column of BLiMP's table
    and these, 0/1 features holding 0, 1 or nothing, restrictions that parse, and a `source` naming
    where each row comes from (not a source-lexicon value). A missing file leaves the table as it is (and the sha256 empty)."""
    if not path.is_file():
        return table, ""
    with reading(path, "vocabulary extension", VocabularyError):
        raw = path.read_bytes()
        ext = read_table(path, raw)
    check_against(path, ext, reference)
    for col in EXTENSION_COLUMNS:
        if col not in ext:
            raise VocabularyError(f"{path}: missing column {col} (the extension's rows name their source and model)")
    check_restrictions(path, ext)
    own = np.isin(ext["source"], SOURCE_LEXICONS)
    if own.any():
        i = int(np.flatnonzero(own)[0])
        raise VocabularyError(f"{path}: line {i + 2} (expression {ext['expression'][i]!r}): source: "
                              f"{ext['source'][i]!r} does not name where the row comes from")
    n, m = rows_of(table), rows_of(ext)
    out = {c: np.concatenate([v, ext[c]]) for c, v in table.items()}
    for col in EXTENSION_COLUMNS:
        out[col] = np.concatenate([np.full(n, "", dtype=object), ext[col]]) if m else np.full(n, "", dtype=object)
    return out, hashlib.sha256(raw).hexdigest()


def bundled_extension_sha256() -> str:
    """The sha256 of the bundled English extension's bytes ("" without one): what a run drawn from it
    records (`extend_table` hashes the same bytes), read without loading the vocabulary."""
    path = data_dir("vocab") / EXTENSION_TABLE
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else ""
