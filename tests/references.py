"""The independent references the tests compare with, and where they live.

Default run: the excerpts shipped in tests/fixtures/ (README.md there gives each file's source and
licence) and the tokenizer.json files bundled in fairpairs/assets, read with the `tokenizers` library
directly (not through fairpairs' loader) after checking their sha256 against the reference copies'.
Slow tier (`-m slow`): the full references in ../shared beside the checkout (the `shared` fixture).
"""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures"
BLIMP_SAMPLE = FIXTURES / "blimp"            # the first 20 pairs of each of public BLiMP's 67 files
BLIMP_SAMPLE_PAIRS = 20
WIKITEXT_SAMPLE = FIXTURES / "wikitext-2-valid.txt"
JUDGMENTS_SAMPLE = FIXTURES / "linguistic_inquiry_judgments.csv"
BLIMP_PARADIGMS = FIXTURES / "blimp_paradigms.tsv"
ASSETS = REPO / "fairpairs" / "assets" / "tokenizers"
VOCABULARY_TABLE = REPO / "vocab" / "blimp_vocabulary.csv"

# sha256 of the reference copies (shared/assets/tokenizers/<name>/tokenizer.json, written by
# transformers' save_pretrained from raw vocabulary files whose sha256 equal the Hub's) and of BLiMP's
# unmodified vocabulary table (shared/reference/blimp_vocabulary.csv). The slow tier checks the
# bundled files against those copies byte for byte (tests/test_references.py).
TOKENIZER_SHA256 = {
    "gpt2": "311f7262f89ffe8757683fda3c081a5cac5a885dc311264791a17d2a18499a4f",
    "roberta-base": "7b62d797c95d1563d3467f48daad0eca3e150f2d587e7e687b557c9ef1b25473",
    "bert-base-cased": "343989712a36cd8b253efeaf8baf6a08b9d2583f78e395e83832e8ee9f8d8ee1",
    "bert-base-uncased": "d241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66",
    "electra-base-generator": "d241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66",
}
VOCABULARY_SHA256 = "02235400b2d9c8a8ae56f58318f7b93accea439189d709c766d0649845d8b182"


def sha256(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def reference_tokenizer_file(name: str) -> Path:
    """The tokenizer.json of `name`, checked to be byte for byte the reference copy."""
    path = ASSETS / name / "tokenizer.json"
    assert sha256(path) == TOKENIZER_SHA256[name], f"{path} is not the reference tokenizer"
    return path


@functools.lru_cache(maxsize=None)
def reference_tokenizer(name: str):
    """`name`'s tokenizer read with the `tokenizers` library itself (not fairpairs' loader)."""
    from tokenizers import Tokenizer

    return Tokenizer.from_file(str(reference_tokenizer_file(name)))


def blimp_files(folder: Path = BLIMP_SAMPLE) -> list[Path]:
    return sorted(Path(folder).glob("*.jsonl"))


def blimp_rows(uid: str, n: int | None = None, folder: Path = BLIMP_SAMPLE) -> list[dict]:
    """The first `n` rows (all when None) of a public BLiMP file (the shipped sample by default)."""
    lines = (Path(folder) / f"{uid}.jsonl").read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in lines if line.strip()][:n]
    assert n is None or len(rows) == n, f"{uid}: fewer than {n} pairs in {folder}"
    return rows


def blimp_lines(uid: str, n: int, folder: Path = BLIMP_SAMPLE) -> list[str]:
    lines = (Path(folder) / f"{uid}.jsonl").read_text(encoding="utf-8").splitlines()[:n]
    assert len(lines) == n, f"{uid}: fewer than {n} pairs in {folder}"
    return lines
