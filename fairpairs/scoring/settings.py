"""The settings of scoring and evaluation, their defaults and help texts in one place (issue 37).

`ScoringSettings` is frozen and only holds values: the `fairpairs score`, `evaluate` and
`robustness` options and the API's signatures (`fp.evaluate`, `fp.robustness`, `fp.score_pairs`,
`Scorer.from_pretrained`) take their defaults from `SCORING` (tests/test_config.py fails when one
drifts); evaluate's and robustness's own settings (the pairs evaluate generates without data, its
report's figures) live in `analysis.config`, which takes the scoring ones from here.
`scoring.cache.Settings` is the part of them that changes scores (the cache key).
"""

from __future__ import annotations

from dataclasses import dataclass, field


def _setting(default, help: str):
    return field(default=default, metadata={"help": help})


@dataclass(frozen=True)
class ScoringSettings:
    """How sentences are scored and what evaluation reports (every default of scoring)."""

    pll: str = _setting("word_l2r", "Pseudo-log-likelihood variant for masked LMs.")
    normalize: tuple[str, ...] = _setting(
        ("lp", "mean_lp", "pen_lp"), "Comma-separated scores to report: lp, mean_lp, pen_lp, slor, tcf_lp "
        "(length-robust: bundled for smollm2-135m, --length-params for others; docs/robustness.md). The first is "
        "the headline one.")
    score_normalize: tuple[str, ...] = _setting(
        ("mean_lp", "pen_lp", "slor"), "Comma-separated: lp, mean_lp, pen_lp, slor, morcela, and the length-robust "
        "slln_lp, tc_lp, tcf_lp, word_lp, word_mean_lp, centered_lp, entropy_lp (docs/robustness.md; '' for none).")
    device: str = _setting("auto", "cpu, cuda, cuda:N, mps or auto.")
    dtype: str | None = None
    device_map: str | None = None
    batch_tokens: int | None = None
    unigrams: str | None = None      # for slor: None ("wordfreq") or a unigram table file
    alpha: float = _setting(0.8, "PenLP exponent.")
    fit_sentences: int = _setting(       # fairpairs fit-length / fp.fit_length_params: the corpus sample
        1000, "Sentences to fit on (a seeded sample of the corpus's usable 4-14 word sentences).")


SCORING = ScoringSettings()     # the defaults
DEVICE_MAPS = ("auto", "balanced", "balanced_low_0", "sequential")    # how one model may be spread over GPUs
