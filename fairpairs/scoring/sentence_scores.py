"""A scorer's table of sentence scores (`Scorer.score`): each distinct sentence scored once (shared
out across the ranks of a launch, resumable), its token and word counts, and the normalisations
asked for with what they need (MORCELA parameters, a unigram table, length parameters).

`SentenceScores` is the part of `fairpairs.scoring.scorer.Scorer` that builds the table from the
scorer's sums (`Scorer._sums`) and encodings (`Scorer.encode`); `Scorer` extends it.
"""

from __future__ import annotations

import numpy as np

from fairpairs.errors import Param
from fairpairs.scoring import check_pll
from fairpairs.scoring import normalize as nz
from fairpairs.scoring.encoding import check_sentences
from fairpairs.scoring.models import ModelError
from fairpairs.scoring.normalize import needing, parse_normalize
from fairpairs.scoring.unigrams import WordfreqUnigrams, load_unigrams


class SentenceScores:
    """`score`: one DataFrame row per sentence (see its docstring); the scorer provides `encode`,
    `_sums`, `identity`, `tokenizer` and `pll`."""

    def score(self, sentences, normalize=("mean_lp", "pen_lp", "slor"), unigrams=None,
              alpha: float = 0.8, morcela_params=None, pll: str | None = None, resume_dir=None,
              length_params=None):
        """One DataFrame row per sentence, input order: sentence, sum_logprob (natural log),
        n_tokens (content tokens), n_words (white-space separated words, the count the length-robust
        scores use; not the tokenizer's pre-tokenized words), then one column per requested normalisation
        (`lp` is sum_logprob itself and adds none; `slor`/`morcela` add `unigram_logprob` too).

        `unigrams`: None or "wordfreq" (word frequencies spread over tokens), a table path or a
        `UnigramTable`. `morcela_params`: dict with beta and gamma, or the JSON file written by
        `fairpairs morcela fit`; required for `morcela`.

        Each distinct sentence is scored once. Under a multi-process launch every rank must call
        this with the same sentences: they are shared out across the ranks (balanced by token
        count) and every rank returns the whole table (see `fairpairs.scoring.distributed`).
        `resume_dir`: a folder where sums are saved as batches finish; a later call with the same
        folder (same model and settings, any number of ranks) scores only what is missing there.

        The length-robust scores (docs/robustness.md): `slln_lp`, `tc_lp`, `tcf_lp` need
        `length_params` (None: the bundled ones for this model; a dict or a file); `word_lp`,
        `word_mean_lp`, `centered_lp` need a causal LM and add `word_correction` and
        `entropy_sum` (one pass computes them with the sums; no resume, one process).
        """
        import pandas as pd

        from fairpairs.arguments import number

        names = parse_normalize(normalize)
        number(alpha, "alpha")
        sentences = check_sentences(sentences)
        if pll is not None:
            check_pll(pll)
        params, table, lparams = self._normalizers(names, unigrams, morcela_params, length_params)
        words = bool(needing(names, "words"))
        from fairpairs.scoring import launch

        group = launch.init()
        if words:
            from fairpairs.scoring.words import check_causal

            check_causal(self)
            if group is not None:
                raise ModelError(Param("normalize"), " word_lp, word_mean_lp, centered_lp: not available under a "
                                 "multi-process launch (score them in one process)")
        if group is not None:   # the ranks must score the same thing before they share the work
            launch.agree(group, self.identity(list(dict.fromkeys(sentences)), names, pll or self.pll, alpha,
                                                   table, params))
        cols = self._columns(sentences, pll or self.pll, resume_dir, table, words)
        df = pd.DataFrame(cols)
        df["n_tokens"] = df["n_tokens"].astype("int64")
        df["n_words"] = df["n_words"].astype("int64")
        nz.add_columns(df, names, alpha=alpha, morcela=params, length=lparams)
        return df

    def _normalizers(self, names, unigrams, morcela_params, length_params):
        """What the normalisations `names` need, loaded and checked: MORCELA parameters, the
        unigram table and the length parameters (each None when not needed)."""
        params = None
        if needing(names, "morcela_params"):
            from fairpairs.scoring.morcela import load_params

            if morcela_params is None:
                raise ModelError(Param("normalize"), " morcela needs fitted parameters (", Param("morcela_params", quoted=True),
                                 ", written by `fairpairs morcela fit`)")
            params = load_params(morcela_params)
        table = load_unigrams(unigrams, self.tokenizer) if needing(names, "unigrams") else None
        lparams = None
        if needing(names, "length_params"):
            from fairpairs.scoring.length import load_length_params

            lparams = load_length_params(length_params, self)
            fitted = (lparams.get("fitted_on") or {}).get("unigrams", "wordfreq")
            if "tcf_lp" in names and fitted == "wordfreq" and not isinstance(table, WordfreqUnigrams):
                raise ModelError(Param("normalize"), " tcf_lp: its parameters were fitted with wordfreq unigrams; "
                                 "score it with ", Param("unigrams", quoted=True), " wordfreq (the default), not a token table")
        return params, table, lparams

    def _columns(self, sentences: list[str], pll: str, resume_dir, table, words: bool) -> dict:
        """The score table's columns before normalisation (`score`), each distinct sentence scored once."""
        cols = {"sentence": sentences, "sum_logprob": [], "n_tokens": [], "n_words": []}
        if not sentences:
            if table is not None:
                cols["unigram_logprob"] = []
            if words:
                cols["word_correction"], cols["entropy_sum"] = [], []
            return cols
        unique = list(dict.fromkeys(sentences))
        where = {s: i for i, s in enumerate(unique)}
        back = np.array([where[s] for s in sentences], dtype=np.int64)
        enc = self.encode(unique)
        if words:
            from fairpairs.scoring.words import token_stats

            stats = token_stats(self, unique)
            sums = np.array([float(np.sum(t.lp)) for t in stats])
            cols["word_correction"] = np.array([t.word_correction for t in stats])[back].tolist()
            cols["entropy_sum"] = np.array([float(np.sum(t.entropy)) for t in stats])[back].tolist()
        else:
            sums = self._sums(enc, unique, pll, resume_dir)
        cols["sum_logprob"] = sums[back].tolist()
        cols["n_tokens"] = np.diff(enc.out_ptr())[back].tolist()
        from fairpairs.scoring.length import n_words    # (white-space words: the count tc_lp / tcf_lp use)

        cols["n_words"] = n_words(unique)[back].tolist()
        if table is not None:
            uni = np.array([float(np.sum(table.token_logprobs(s, i[c], o)))
                            for s, i, c, o in zip(unique, enc.ids, enc.content, enc.offsets)])
            cols["unigram_logprob"] = uni[back].tolist()
        return cols
