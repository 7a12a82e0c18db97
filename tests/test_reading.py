"""Input files that cannot be read end in one line naming the file and what it should be, the same
wording for a paradigm file, a vocabulary table, its fixes file and a corpus (fairpairs.io.reading.reading)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fairpairs.errors import GrammarError, LexiconError, VocabularyError
from fairpairs.generation.grammar import read_paradigm_file
from fairpairs.generation.lexicon import load_lexicon
from fairpairs.generation.vocab import Vocabulary

REPO = Path(__file__).resolve().parents[1]


def _paradigm(path):
    return read_paradigm_file(path)


def _table(path):
    return Vocabulary.load(path, fixes_path=None)


def _fixes(path):
    return Vocabulary.load(REPO / "vocab" / "blimp_vocabulary.csv", fixes_path=path)


def _corpus(path):
    return load_lexicon(path, 1)


CASES = [(_paradigm, GrammarError, "file"), (_table, VocabularyError, "vocabulary table"),
         (_fixes, VocabularyError, "fixes file"), (_corpus, LexiconError, "corpus")]


@pytest.mark.parametrize("load,error,what", CASES)
def test_missing_folder_unreadable_and_not_utf8(tmp_path, load, error, what):
    missing = tmp_path / "missing.txt"
    with pytest.raises(error, match=f"^{re.escape(str(missing))}: {what} not found$"):
        load(missing)
    with pytest.raises(error, match=f"^{re.escape(str(tmp_path))}: is a folder, not a {what}$"):
        load(tmp_path)
    (tmp_path / "plain").write_text("x")
    below_a_file = tmp_path / "plain" / "x.txt"     # NotADirectoryError: an OSError of its own kind
    with pytest.raises(error, match=f"^{re.escape(str(below_a_file))}: cannot read {what}: Not a directory$"):
        load(below_a_file)
    latin1 = tmp_path / "latin1.txt"
    latin1.write_bytes("ok: line\n".encode() + b"caf\xe9 au lait\n")   # byte 9 + 3 = 12 is not UTF-8
    with pytest.raises(error, match=f"^{re.escape(str(latin1))}: {what} is not UTF-8 text \\(byte 12\\)$"):
        load(latin1)
