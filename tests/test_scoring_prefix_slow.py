"""Shared prefixes on the real SmolLM2-135M: the same scores as the plain path on real BLiMP pairs."""

from __future__ import annotations

import json

import numpy as np
import pytest

from fairpairs.scoring import Scorer
from fairpairs.scoring.shared_run import shares_prefixes

pytestmark = pytest.mark.slow


def test_smollm2_shared_prefixes_score_as_the_plain_path(shared):
    """300 real BLiMP sentences (the first 30 pairs of 5 paradigms, pairs in order, as the
    benchmark reads them): every sentence within 1e-4 nats of the plain path (one forward pass
    per sentence, no cache), which matches minicons (benchmarks/results/score_speed.md)."""
    scorer = Scorer.from_pretrained("smollm2-135m", device="cpu")
    assert scorer.shared_prefixes          # the load-time check passed for SmolLM2
    sentences = []
    for name in ("determiner_noun_agreement_1", "regular_plural_subject_verb_agreement_1", "wh_island",
                 "anaphor_gender_agreement", "existential_there_quantifiers_1"):
        rows = [json.loads(x) for x in (shared / "reference" / "blimp" / f"{name}.jsonl").read_text().splitlines()[:30]]
        sentences += [r[k] for r in rows for k in ("sentence_good", "sentence_bad")]
    assert shares_prefixes(scorer, scorer.encode(sentences))
    on = scorer.score(sentences, normalize=())["sum_logprob"].to_numpy()
    scorer.shared_prefixes = False
    off = scorer.score(sentences, normalize=())["sum_logprob"].to_numpy()
    np.testing.assert_allclose(on, off, atol=1e-4, rtol=0)
