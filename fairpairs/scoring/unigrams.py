"""Unigram log-probabilities for SLOR, MORCELA and tcf_lp: a table counted with a model's tokenizer
on a corpus (fairpairs unigrams; checked against the tokenizer it was counted with) or wordfreq's
word frequencies spread over tokens; JSON parameter files read with one-line errors."""

from __future__ import annotations

import hashlib
import json
import math
import os
from functools import lru_cache
from pathlib import Path
import numpy as np
from fairpairs.errors import Param, DatasetError, DatasetNotFoundError, UsageError, UsageTypeError
from fairpairs.io.files import atomic_write


WORDFREQ_FLOOR = 1e-9
TABLE_FORMAT = "fairpairs-unigrams/1"
def tokenizer_fingerprint(tokenizer) -> str:
    """sha256 of the serialised Rust tokenizer: a table is valid only for the same tokenizer."""
    return hashlib.sha256(tokenizer.backend_tokenizer.to_str().encode()).hexdigest()


class UnigramTable:
    """Token counts of one tokenizer, with add-one smoothed log-probabilities."""

    def __init__(self, counts: np.ndarray, model: str = "", fingerprint: str = "", corpus=()):
        self.counts = np.asarray(counts, dtype=np.int64)
        self.model, self.fingerprint, self.corpus = model, fingerprint, list(corpus)
        total, vocab = int(self.counts.sum()), len(self.counts)
        self.log_probs = np.log((self.counts + 1.0) / (total + vocab))

    @property
    def total(self) -> int:
        return int(self.counts.sum())

    @classmethod
    def count(cls, tokenizer, files, model: str = "", chunk: int = 4096) -> UnigramTable:
        """Count the tokenizer's tokens, line by line (string as written, no special tokens)."""
        vocab = max(len(tokenizer), tokenizer.backend_tokenizer.get_vocab_size(with_added_tokens=True))
        counts = np.zeros(vocab, dtype=np.int64)
        corpus = []
        for f in files:
            path = Path(f)
            try:
                data = path.read_bytes()
                lines = data.decode("utf-8-sig").splitlines()
            except OSError as exc:
                raise DatasetError(Param("corpus"), f" {f}", value=f, reason=f"cannot read ({exc.strerror})") from None
            except UnicodeDecodeError as exc:
                raise DatasetError(Param("corpus"), f" {f}", value=f, reason=f"not UTF-8 text (byte {exc.start})") from None
            lines = [ln for ln in lines if ln.strip()]
            for i in range(0, len(lines), chunk):
                for enc in tokenizer.backend_tokenizer.encode_batch(lines[i:i + chunk], add_special_tokens=False):
                    np.add.at(counts, np.asarray(enc.ids, dtype=np.int64), 1)
            corpus.append({"file": path.name, "sha256": hashlib.sha256(data).hexdigest(), "lines": len(lines)})
        return cls(counts, model, tokenizer_fingerprint(tokenizer), corpus)

    def save(self, path) -> None:
        """Write the table as JSON (atomically)."""
        nz = np.nonzero(self.counts)[0]
        doc = {"format": TABLE_FORMAT, "model": self.model, "tokenizer_sha256": self.fingerprint,
               "vocab_size": len(self.counts), "total_tokens": self.total, "smoothing": "add-one",
               "corpus": self.corpus, "counts": {str(int(i)): int(self.counts[i]) for i in nz}}
        atomic_write(path, json.dumps(doc, indent=1, ensure_ascii=False) + "\n")

    @classmethod
    def load(cls, path) -> UnigramTable:
        doc = read_json(path, (Param("unigrams"), f" {path}"))
        if not isinstance(doc, dict) or doc.get("format") != TABLE_FORMAT:
            raise DatasetError(Param("unigrams"), f" {path}", value=path, reason=f"field 'format' is not {TABLE_FORMAT!r}")
        try:
            counts = np.zeros(int(doc["vocab_size"]), dtype=np.int64)
            for k, v in doc["counts"].items():
                counts[int(k)] = int(v)
        except (KeyError, ValueError, IndexError, TypeError, AttributeError) as exc:
            raise DatasetError(Param("unigrams"), f" {path}", value=path, reason=f"bad 'vocab_size'/'counts' ({type(exc).__name__}: {exc})") from None
        return cls(counts, doc.get("model", ""), doc.get("tokenizer_sha256", ""), doc.get("corpus", []))

    def check(self, tokenizer, where: tuple = (Param("unigrams"),)) -> None:
        """Refuse a table counted with another tokenizer."""
        if self.fingerprint and self.fingerprint != tokenizer_fingerprint(tokenizer):
            raise DatasetError(*where, f": the table was counted with another tokenizer (model {self.model!r}); "
                                       "rebuild it with `fairpairs unigrams`")

    def token_logprobs(self, sentence: str, ids, offsets) -> np.ndarray:
        ids = np.asarray(ids, dtype=np.int64)
        if len(ids) and ids.max() >= len(self.log_probs):
            raise DatasetError(Param("unigrams"), ": token id beyond the table's vocabulary")
        return self.log_probs[ids]


@lru_cache(maxsize=200_000)
def _chunk_logprob(chunk: str, lang: str) -> float:
    from wordfreq import word_frequency

    if not any(ch.isalnum() for ch in chunk):
        return 0.0
    return math.log(max(word_frequency(chunk, lang), WORDFREQ_FLOOR))


class WordfreqUnigrams:
    """Word-level unigram log-probabilities from wordfreq, spread evenly over tokens."""

    model = "wordfreq"

    def __init__(self, lang: str = "en"):
        self.lang = lang

    def check(self, tokenizer, where: tuple = ()) -> None:
        return None

    def token_logprobs(self, sentence: str, ids, offsets) -> np.ndarray:
        n = len(ids)
        out = np.zeros(n, dtype=np.float64)
        if n == 0:
            return out
        chunk_of = np.full(len(sentence) + 1, -1, dtype=np.int64)
        chunks, start = [], None
        for i, ch in enumerate(sentence + " "):
            if ch.isspace():
                if start is not None:
                    chunk_of[start:i] = len(chunks)
                    chunks.append(sentence[start:i])
                    start = None
            elif start is None:
                start = i
        owner = np.full(n, -1, dtype=np.int64)
        for j, (a, b) in enumerate(offsets):
            for pos in range(max(b - 1, a), len(sentence)):  # last char; skip trailing spaces
                if chunk_of[pos] >= 0:
                    owner[j] = chunk_of[pos]
                    break
        for c, text in enumerate(chunks):
            members = np.nonzero(owner == c)[0]
            if len(members):
                out[members] = _chunk_logprob(text, self.lang) / len(members)
        return out


def count_unigrams(model: str, corpus) -> UnigramTable:
    """The unigram table of `model`'s tokenizer (a model or tokenizer name, folder or file) counted
    on `corpus`, one plain-text UTF-8 file or a list of them (`fairpairs unigrams`); save it with
    `.save(path)`. A corpus with no tokens is an error, not a table of zeros."""
    from fairpairs.arguments import path, text
    from fairpairs.errors import TokenizerError
    from fairpairs.tokenization.lengths import load_tokenizer

    text(model, "model")
    if isinstance(corpus, (str, os.PathLike)):
        files = [corpus]
    elif isinstance(corpus, bytes) or not hasattr(corpus, "__iter__"):
        raise UsageTypeError(Param("corpus"), f": expected a file path or a list of them, not {type(corpus).__name__}")
    else:
        files = list(corpus)
    if not files:
        raise UsageError(Param("corpus"), ": give at least one plain-text file")
    for f in files:
        path(f, "corpus", what="file", error=DatasetError)
        if Path(f).is_dir():
            raise DatasetError(Param("corpus"), f" {f}: is a folder; give plain-text files (repeat ", Param("corpus", quoted=True), ")", value=f)
    try:
        tokenizer = load_tokenizer(model)
    except TokenizerError as exc:   # the tokenizer is named by this call's `model`
        raise exc.with_param("models", "model") from None
    table = UnigramTable.count(tokenizer, files, model=model)
    if table.total == 0:
        raise DatasetError(Param("corpus"), f" {', '.join(map(str, files))}", reason=f"no tokens counted (empty corpus)")
    return table


def load_unigrams(spec, tokenizer=None):
    """None / 'wordfreq' -> WordfreqUnigrams; a path -> UnigramTable (checked against tokenizer).
    A table that counts no tokens is an error: SLOR from it would be the smoothing alone."""
    if spec is None or (isinstance(spec, str) and spec.lower() == "wordfreq"):
        return WordfreqUnigrams()
    if isinstance(spec, (UnigramTable, WordfreqUnigrams)):
        table = spec
    elif isinstance(spec, (str, os.PathLike)):
        from fairpairs.arguments import path

        table = UnigramTable.load(path(spec, "unigrams", what="unigram table"))
    else:
        raise UsageTypeError(Param("unigrams"), f": expected 'wordfreq', a table file or a UnigramTable, "
                             f"not {type(spec).__name__}")
    if isinstance(table, UnigramTable) and table.total == 0:
        where = (Param("unigrams"), f" {spec}") if isinstance(spec, (str, os.PathLike)) else (Param("unigrams"),)
        raise DatasetError(*where, ": the table counts no tokens (total 0), so its probabilities are the "
                           "smoothing alone; count a corpus with `fairpairs unigrams`")
    if tokenizer is not None:
        table.check(tokenizer)
    return table


def read_json(path, where: tuple):
    """Parse a JSON file; errors are one-line DatasetErrors starting with `where`."""
    from fairpairs.io.jsonl import load_json

    try:
        return load_json(path, where, invalid="not JSON")
    except FileNotFoundError:
        raise DatasetNotFoundError(*where, ": no such file") from None
    except OSError as exc:
        raise DatasetError(*where, f": cannot read ({exc.strerror})") from None
