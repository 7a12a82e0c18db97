"""Slow: `fairpairs generate` -> `fairpairs evaluate` with the real SmolLM2-135M on the CPU.

Run with `pytest -m slow tests/test_evaluate_slow.py -s` to see the figures (a few minutes).
"""

from __future__ import annotations

import json
import os

import pandas as pd
import pytest


os.environ.setdefault("HF_HUB_OFFLINE", "1")

PARADIGMS = "animate_subject_passive,determiner_noun_agreement_with_adj_irregular_1,transitive"


@pytest.mark.slow
def test_generate_then_evaluate_with_smollm2(tmp_path, fairpairs_cli):
    run = tmp_path / "run"
    code, _, err = fairpairs_cli("generate", "--models", "gpt2", "--paradigms", PARADIGMS, "--pairs", 100,
                                 "--seed", 0, "--out", run, "--quiet")
    assert code == 0, err
    out = tmp_path / "eval"
    code, stdout, err = fairpairs_cli("evaluate", "--models", "smollm2-135m", "--data", run, "--out", out,
                                      "--normalize", "lp,mean_lp,pen_lp")
    assert code == 0, err
    for stem in ("accuracy", "splits", "length_diff_accuracy", "loglik_length", "summary"):
        for ext in ("csv", "md", "png"):
            assert (out / f"{stem}.{ext}").stat().st_size > 0

    acc = pd.read_csv(out / "accuracy.csv")
    n_original = sum(1 for f in (run / "original").glob("*.jsonl") for _ in f.open())
    n_debiased = sum(1 for f in (run / "debiased").glob("*.jsonl") for _ in f.open())
    pooled = acc[(acc.uid == "ALL") & (acc.normalization == "lp")].set_index("set")
    assert pooled.loc["original", "n_pairs"] == n_original == 300
    assert pooled.loc["debiased", "n_pairs"] == n_debiased
    # a real pretrained LM is far above chance on these paradigms
    assert pooled.loc["original", "accuracy"] > 0.6

    splits = pd.read_csv(out / "splits.csv")
    s = splits[(splits.set == "original") & (splits.uid == "ALL") & (splits.normalization == "lp")].set_index("split")
    assert s["n_pairs"].sum() == 300
    fits = pd.read_csv(out / "loglik_length.csv").set_index("normalization")
    assert fits.loc["lp", "slope"] < 0  # longer sentences get lower log-likelihood

    figures = {
        "accuracy_original": pooled.loc["original", "accuracy"],
        "accuracy_debiased": pooled.loc["debiased", "accuracy"],
        "splits_original_lp": {k: (int(s.loc[k, "n_pairs"]), None if pd.isna(s.loc[k, "accuracy"])
                                   else round(float(s.loc[k, "accuracy"]), 4)) for k in s.index},
        "lp_slope_per_token": round(float(fits.loc["lp", "slope"]), 4),
        "mean_lp_slope_per_token": round(float(fits.loc["mean_lp", "slope"]), 4),
    }
    print("\nSmolLM2 figures:", json.dumps(figures, default=float))
    print(stdout)
