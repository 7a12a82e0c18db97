"""Linking functions (LP, MeanLP, PenLP, SLOR, MORCELA) and unigram log-probabilities.

All lengths are content-token counts (|W| = `n_tokens`), all logs natural.

Unigram log-probabilities come from either
- a `UnigramTable`: counts of the model's own tokens on plain text (`fairpairs unigrams`),
  add-one smoothed: log P(t) = log((c(t) + 1) / (N + V)); or
- `WordfreqUnigrams`: wordfreq's English word frequencies. Each whitespace-separated chunk of the
  sentence is looked up as a whole (wordfreq ignores its punctuation, so "mat." is "mat"); its
  log-frequency is spread evenly over the content tokens that fall in the chunk (a token belongs to
  the chunk holding its last character). Chunks of punctuation alone count 0; words wordfreq does
  not know get the floor frequency 1e-9.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable

import numpy as np

from fairpairs.errors import Param, DatasetError, DatasetNotFoundError, UsageError, UsageTypeError
from fairpairs.io.files import atomic_write

from fairpairs.registry import NORMALIZATIONS   # name -> Normalization (LP, MEAN_LP, ... below)
WORDFREQ_FLOOR = 1e-9
TABLE_FORMAT = "fairpairs-unigrams/1"


def mean_lp(lp, n):
    """LP / |W|."""
    return np.asarray(lp, dtype=float) / np.asarray(n, dtype=float)


def pen_lp(lp, n, alpha: float = 0.8):
    """LP / ((5 + |W|) / 6) ** alpha (Lau et al. 2020)."""
    return np.asarray(lp, dtype=float) / ((5.0 + np.asarray(n, dtype=float)) / 6.0) ** alpha


def slor(lp, u, n):
    """(LP - U) / |W|, U the sentence's unigram log-probability."""
    return (np.asarray(lp, dtype=float) - np.asarray(u, dtype=float)) / np.asarray(n, dtype=float)


def morcela(lp, u, n, beta: float, gamma: float):
    """(LP - beta * U + gamma) / |W| (Tjuatja et al. 2024)."""
    return (np.asarray(lp, dtype=float) - beta * np.asarray(u, dtype=float) + gamma) / np.asarray(n, dtype=float)


def slln_lp(lp, n, alpha: float):
    """LP / |W| ** alpha (SLLN-LP, ZhoBLiMP; alpha from `scoring.length`)."""
    return np.asarray(lp, dtype=float) / np.asarray(n, dtype=float) ** alpha


def word_lp(lp, correction):
    """LP plus the beginning-of-word correction: the sum of the words' log-probabilities
    (`scoring.words`; Oh & Schuler 2024, Pimentel & Meister 2024)."""
    return np.asarray(lp, dtype=float) + np.asarray(correction, dtype=float)


def word_mean_lp(lp, correction, words):
    """word_lp per white-space word."""
    return word_lp(lp, correction) / np.asarray(words, dtype=float)


def centered_lp(lp, entropy_sum):
    """sum_t (log P(x_t | x_<t) + H_t): LP minus the model's own expectation of it."""
    return np.asarray(lp, dtype=float) + np.asarray(entropy_sum, dtype=float)


def entropy_lp(lp, entropy_sum):
    """LP / sum_t H_t: the sentence's surprisal in units of the surprisal the model expected."""
    return np.asarray(lp, dtype=float) / np.asarray(entropy_sum, dtype=float)


def tc_lp(lp, n, words, delta_token: float, delta_word: float):
    """LP minus its expected length cost, delta_token * |W| + delta_word * words (`scoring.length`)."""
    return np.asarray(lp, dtype=float) - delta_token * np.asarray(n, dtype=float) \
        - delta_word * np.asarray(words, dtype=float)


def tcf_lp(lp, n, words, u, delta_token: float, delta_word: float, beta_unigram: float):
    """tc_lp minus the frequency term beta_unigram * U."""
    return tc_lp(lp, n, words, delta_token, delta_word) - beta_unigram * np.asarray(u, dtype=float)


class Inputs:
    """What a normalisation computes from, read off a scorer's frame on first use: `lp`
    (sum_logprob), `n` (content tokens), `words` (white-space words), `u` (unigram_logprob),
    `correction` (word_correction), `entropy` (entropy_sum), and the settings `alpha` (PenLP),
    `morcela` ({beta, gamma}) and `length` (`scoring.length` parameters)."""

    def __init__(self, df, alpha: float = 0.8, morcela=None, length=None):
        self.df, self.alpha, self.morcela, self.length = df, alpha, morcela, length

    def column(self, name: str) -> np.ndarray:
        return self.df[name].to_numpy(float)

    lp = property(lambda self: self.column("sum_logprob"))
    n = property(lambda self: self.column("n_tokens"))
    u = property(lambda self: self.column("unigram_logprob"))
    correction = property(lambda self: self.column("word_correction"))
    entropy = property(lambda self: self.column("entropy_sum"))

    @property
    def words(self) -> np.ndarray:
        from fairpairs.scoring.length import n_words

        return n_words(self.df["sentence"]).astype(float)


# what a normalisation may need beyond the LP and token count
NEEDS = ("unigrams", "morcela_params", "words", "length_params")


@dataclass(frozen=True)
class Normalization:
    """An acceptability score (registered in `fairpairs.registry.NORMALIZATIONS`): `compute(x)`
    gives one value per sentence from `Inputs` x (None for `lp`, which is sum_logprob itself);
    `needs`: a subset of `NEEDS` - a unigram table ("unigrams": x.u), fitted MORCELA parameters,
    the extra causal pass of word-level statistics ("words": x.correction, x.entropy) or fitted
    length parameters (x.length)."""

    compute: Callable[[Inputs], np.ndarray] | None
    needs: frozenset = frozenset()
    doc: str = ""

    @property
    def late(self) -> bool:
        """Computed after the others (its columns come last, as they always have)."""
        return bool(self.needs & {"words", "length_params"})


def needing(names, what: str) -> set[str]:
    """The normalisations among `names` that need `what` (one of `NEEDS`)."""
    from fairpairs.registry import NORMALIZATIONS

    return {n for n in names if what in NORMALIZATIONS.get(n).needs}


def add_columns(df, names, alpha: float = 0.8, morcela=None, length=None) -> None:
    """Add the column of every normalisation in `names` to the scorer's frame `df` (sum_logprob,
    n_tokens, sentence, and the columns their `needs` bring), in `names` order, those needing
    word statistics or length parameters last."""
    from fairpairs.registry import NORMALIZATIONS

    x = Inputs(df, alpha, morcela, length)
    chosen = [(n, NORMALIZATIONS.get(n)) for n in names]
    for name, norm in sorted(chosen, key=lambda item: item[1].late):
        if norm.compute is not None:
            df[name] = norm.compute(x)


LP = Normalization(None, doc="sum of log-probabilities (no normalisation)")
MEAN_LP = Normalization(lambda x: mean_lp(x.lp, x.n), doc="LP / tokens")
PEN_LP = Normalization(lambda x: pen_lp(x.lp, x.n, x.alpha), doc="LP / ((5 + tokens) / 6) ** alpha")
SLOR = Normalization(lambda x: slor(x.lp, x.u, x.n), frozenset({"unigrams"}), doc="(LP - unigram LP) / tokens")
MORCELA = Normalization(lambda x: morcela(x.lp, x.u, x.n, x.morcela["beta"], x.morcela["gamma"]),
                        frozenset({"unigrams", "morcela_params"}), doc="(LP - beta U + gamma) / tokens")
SLLN_LP = Normalization(lambda x: slln_lp(x.lp, x.n, x.length["slln_alpha"]), frozenset({"length_params"}))
WORD_LP = Normalization(lambda x: word_lp(x.lp, x.correction), frozenset({"words"}))
WORD_MEAN_LP = Normalization(lambda x: word_mean_lp(x.lp, x.correction, x.words), frozenset({"words"}))
CENTERED_LP = Normalization(lambda x: centered_lp(x.lp, x.entropy), frozenset({"words"}))
ENTROPY_LP = Normalization(lambda x: entropy_lp(x.lp, x.entropy), frozenset({"words"}))
TC_LP = Normalization(lambda x: tc_lp(x.lp, x.n, x.words, x.length["delta_token"], x.length["delta_word"]),
                      frozenset({"length_params"}))
TCF_LP = Normalization(lambda x: tcf_lp(x.lp, x.n, x.words, x.u, x.length["delta_token"], x.length["delta_word"],
                                        x.length["beta_unigram"]), frozenset({"length_params", "unigrams"}))


def parse_normalize(value, allowed=NORMALIZATIONS, *, at_least_one: bool = False) -> tuple[str, ...]:
    """'mean_lp,pen_lp' or an iterable -> validated tuple of names (lower case, first occurrence
    order); every name must be in `allowed`, and with `at_least_one` the tuple may not be empty."""
    if value is None:
        items = []
    elif isinstance(value, str):
        items = value.split(",")
    else:
        from fairpairs.arguments import names as name_list

        items = name_list(value, "normalize")
    names = tuple(dict.fromkeys(i.strip().lower() for i in items if i and i.strip()))
    bad = [n for n in names if n not in allowed]
    if bad or (at_least_one and not names):
        raise UsageError(Param("normalize"), f": unknown value(s) {', '.join(bad) or '(none)'} (choose from {', '.join(allowed)})")
    return names


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
    from fairpairs.control.tokenization import load_tokenizer

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
