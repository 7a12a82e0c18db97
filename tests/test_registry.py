"""Registries (issue 24): a strategy, a normalisation, a PLL variant and a dataset reader added the
public way work end to end, and an unknown name lists the known ones.

Each toy is checked against what it must do by construction (a hand-computable score, a reader
whose rows we wrote), not against fairpairs' own output."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import fairpairs as fp
from fairpairs.registry import NORMALIZATIONS, PLL_VARIANTS, READERS, STRATEGIES, Registry


@pytest.fixture
def restore():
    """Registries are process-wide: remove what a test adds."""
    saved = {r: set(r.names()) for r in (STRATEGIES, NORMALIZATIONS, PLL_VARIANTS, READERS)}
    yield
    for r, names in saved.items():
        for name in set(r.names()) - names:
            r.unregister(name)


def test_a_registry_resolves_lazily_and_lists_the_known_names_when_asked_for_another():
    r = Registry("colour", "colour", {"red": "fairpairs.errors:Param"})
    assert list(r) == ["red"] and "red" in r and len(r) == 1
    from fairpairs.errors import Param

    assert r.get("red") is Param                       # "module:attr" imported on first use
    with pytest.raises(ValueError) as info:
        r.get("rde")
    assert str(info.value) == "colour: unknown colour 'rde' (did you mean red?) (known: red)"
    assert info.value.param == "colour" and info.value.value == "rde"


def test_the_built_in_names_are_the_documented_ones():
    assert list(STRATEGIES) == ["search", "resample"]
    assert list(PLL_VARIANTS) == ["original", "word_l2r", "whole_word", "sentence_l2r"]
    assert list(READERS) == ["blimp", "clams", "multiblimp", "zhoblimp"]
    assert {"lp", "mean_lp", "pen_lp", "slor", "morcela", "tcf_lp"} <= set(NORMALIZATIONS)
    assert STRATEGIES.get("resample").default_retries == 10        # Algorithm 1's N


def test_a_registered_strategy_runs_through_fp_generate(restore):
    from fairpairs.control.loop import Strategy

    calls = []

    def keep_equal(sampler, searcher, live, meters, retries, budget):
        """No redraws: keep the drawn pairs whose lengths already match, drop the rest."""
        calls.append(len(live))
        out = set()
        for p in live:
            if all(m.lengths([p.sentence_good]) == m.lengths([p.sentence_bad]) for m in meters):
                out.add(p.k)
        return out

    STRATEGIES.register("keep_equal", Strategy(keep_equal, default_retries=0))
    pairs = fp.generate("determiner_noun_agreement_1", pairs=15, models=["gpt2"], seed=2, strategy="keep_equal")
    assert calls and len(pairs) == 15
    for r in pairs:     # every kept pair is equal under gpt2, and none was redrawn
        assert r.token_lengths["gpt2"]["good"] == r.token_lengths["gpt2"]["bad"]
        assert r.redraws == 0
    with pytest.raises(ValueError, match=r"^strategy: unknown strategy 'nope' \(known: search, resample, keep_equal\)$"):
        fp.generate("causative", pairs=2, models=["gpt2"], strategy="nope")


def test_a_registered_normalisation_is_a_column_of_the_score_tables(restore, tmp_path):
    from fairpairs.scoring.normalize import Normalization
    from fairpairs.scoring.tiny import build_tiny_model

    NORMALIZATIONS.register("lp_per_char", Normalization(
        lambda x: x.lp / x.df["sentence"].str.len().to_numpy(float), doc="LP per character"))
    scorer = fp.Scorer.from_pretrained(build_tiny_model("gpt2", tmp_path / "gpt2"))
    df = scorer.score(["The cat sat.", "Dogs bark loudly."], normalize=["lp_per_char"])
    assert np.allclose(df["lp_per_char"], df["sum_logprob"] / np.array([12.0, 17.0]))


def test_a_registered_pll_variant_scores_a_masked_model(restore, tmp_path):
    from fairpairs.scoring.encoding import ORIGINAL, PLLVariant
    from fairpairs.scoring.tiny import build_tiny_model

    PLL_VARIANTS.register("same_as_original", PLLVariant(ORIGINAL.rows, doc="a copy of original"))
    scorer = fp.Scorer.from_pretrained(build_tiny_model("bert-base-cased", tmp_path / "bert"))
    sents = ["The cat sat.", "Dogs bark loudly."]
    a = scorer.score(sents, normalize=(), pll="same_as_original")["sum_logprob"].to_numpy()
    b = scorer.score(sents, normalize=(), pll="original")["sum_logprob"].to_numpy()
    assert np.allclose(a, b)


def test_a_registered_reader_is_a_format_of_fp_audit(tmp_path, restore):
    path = tmp_path / "pairs.psv"
    path.write_text("The cat sat.|The cat sit.\nThe dogs bark.|The dogs barks.\n", encoding="utf-8")

    def read_psv(p, columns=None):
        rows = [line.split("|") for line in p.read_text(encoding="utf-8").splitlines()]
        return {"pairs": pd.DataFrame({"uid": "psv", "pair_id": [str(i) for i in range(len(rows))],
                                       "sentence_good": [r[0] for r in rows], "sentence_bad": [r[1] for r in rows]})}

    READERS.register("psv", read_psv)
    summary = fp.audit(path, models=["gpt2"], format="psv")
    row = summary[(summary["uid"] == "ALL")].iloc[0]
    assert int(row["n_pairs"]) == 2
    with pytest.raises(ValueError, match="unknown dataset format 'tsvv'"):
        fp.audit(path, models=["gpt2"], format="tsvv")


def test_a_registered_normalisation_can_be_reported_by_evaluate_but_morcela_still_cannot(restore):
    from fairpairs.analysis.reported import parse_reported
    from fairpairs.scoring.normalize import Normalization

    NORMALIZATIONS.register("lp_per_char", Normalization(lambda x: x.lp / x.df["sentence"].str.len().to_numpy(float)))
    assert parse_reported("lp,lp_per_char") == ("lp", "lp_per_char")
    with pytest.raises(ValueError, match=r"^normalize: normalisation 'morcela' is not one of those taken here "
                                         r"\(known: lp, mean_lp, pen_lp, slor, tcf_lp, lp_per_char\)$"):
        parse_reported("morcela")


def test_a_registered_readers_rows_are_checked_like_every_other_readers(tmp_path, restore):
    path = tmp_path / "pairs.psv"
    path.write_text("The cat sat.|The cat sit.\n", encoding="utf-8")
    READERS.register("psv", lambda p, columns=None: {"pairs": pd.DataFrame(
        {"uid": ["psv", "psv"], "pair_id": ["0", "1"], "sentence_good": ["The cat sat.", " "],
         "sentence_bad": ["The cat sit.", "The cats sat."]})})
    with pytest.raises(ValueError, match=r"^psv reader, set pairs: row 2: field 'sentence_good' is empty"):
        fp.audit(path, models=["gpt2"], format="psv")
    READERS.register("psv2", lambda p, columns=None: {"pairs": [("a", "b")]})
    with pytest.raises(ValueError, match=r"the psv2 reader gave list for set 'pairs', not a DataFrame"):
        fp.audit(path, models=["gpt2"], format="psv2")
