"""Shared prefixes on the real SmolLM2-135M: the same scores as the plain path on real BLiMP pairs."""

from __future__ import annotations

import json

import numpy as np
import pytest

from fairpairs.scoring import Scorer
from fairpairs.scoring.shared_run import shares_prefixes

pytestmark = pytest.mark.slow


def test_smollm2_shared_prefixes_score_as_the_plain_path(shared):
    """The benchmark's sentence list (benchmarks/score.py --n-sentences 500: the first pairs of the 67
    BLiMP paradigms, round-robin, pairs in order, the first 500 sentences): every sentence within 1e-4 nats
    of the plain path (one forward pass per sentence, no cache). With the earlier settings (groups
    sharing 4 tokens, units of 128 tokens) ellipsis_n_bar_1's "Most men irritates two happy students
    and a snake irritates three." was 1.3e-4 off and this test failed (float32 products of other
    shapes; benchmarks/results/score_speed.md)."""
    scorer = Scorer.from_pretrained("smollm2-135m", device="cpu")
    assert scorer.shared_prefixes          # the load-time check passed for SmolLM2
    files = sorted((shared / "reference" / "blimp").glob("*.jsonl"))
    assert len(files) == 67
    rows = [[json.loads(x) for x in f.read_text().splitlines()[:4]] for f in files]
    sentences = [r[i][k] for i in range(4) for r in rows for k in ("sentence_good", "sentence_bad")][:500]
    assert "Most men irritates two happy students and a snake irritates three." in sentences
    assert shares_prefixes(scorer, scorer.encode(sentences))
    on = scorer.score(sentences, normalize=())["sum_logprob"].to_numpy()
    scorer.shared_prefixes = False
    off = scorer.score(sentences, normalize=())["sum_logprob"].to_numpy()
    np.testing.assert_allclose(on, off, atol=1e-4, rtol=0)
