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

from dataclasses import dataclass
from typing import Callable

import numpy as np

from fairpairs.errors import Param, UsageError

from fairpairs.registry import NORMALIZATIONS   # name -> Normalization (LP, MEAN_LP, ... below)


def mean_lp(lp, n):
    """LP / |W|."""
    return np.asarray(lp, dtype=float) / np.asarray(n, dtype=float)


def pen_lp(lp, n, alpha: float = 0.8):
    """LP / ((5 + |W|) / 6) ** alpha (Lau et al. 2020)."""
    return np.asarray(lp, dtype=float) / ((5.0 + np.asarray(n, dtype=float)) / 6.0) ** alpha


def slor(lp, u, n):
    """(LP - U) / |W|, U the sentence's unigram log-probability."""
    return (np.asarray(lp, dtype=float) - np.asarray(u, dtype=float)) / np.asarray(n, dtype=float)


def morcela_score(lp, u, n, beta: float, gamma: float):
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
MORCELA = Normalization(lambda x: morcela_score(x.lp, x.u, x.n, x.morcela["beta"], x.morcela["gamma"]),
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
    for name in names:
        NORMALIZATIONS.check(name, among=None if allowed is NORMALIZATIONS else allowed)
    if at_least_one and not names:
        raise UsageError(Param("normalize"), f": unknown value(s) (none) (choose from {', '.join(allowed)})")
    return names


