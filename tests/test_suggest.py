"""'Did you mean' for mistyped tokenizer, model, paradigm and preset names: the closest names that
resolve offline, in the one-line error (the CLI's too); a name far from every known one gets none."""

from __future__ import annotations


import pytest

import fairpairs as fp
from fairpairs.errors import ModelError, TokenizerError, UsageError
from fairpairs.suggest import did_you_mean


def test_did_you_mean_is_difflib_closeness():
    assert did_you_mean("gtp2", ["gpt2", "bert-base-cased"]) == " (did you mean gpt2?)"
    assert did_you_mean("bert-base", ["gpt2", "bert-base-cased", "bert-base-uncased"]) == \
        " (did you mean bert-base-cased or bert-base-uncased?)"      # longer names it starts, shortest first
    assert did_you_mean("GPT2", ["gpt2"]) == ""               # the same name (case aside) is no suggestion
    assert did_you_mean("xyzzy", ["gpt2", "bert-base-cased"]) == ""


def test_tokenizer_typo(tmp_path):
    with pytest.raises(TokenizerError) as err:
        fp.generate(fp.load_paradigm("determiner_noun_agreement_1"), pairs=2, models=["gtp2"])
    assert "did you mean gpt2?" in str(err.value) and "\n" not in str(err.value)
    with pytest.raises(TokenizerError, match=r"did you mean meta-llama/Meta-Llama-3-8B\?"):
        fp.audit([{"sentence_good": "A cat.", "sentence_bad": "A cats."}], models=["meta-llama/Meta-Llama-3-8"])
    with pytest.raises(TokenizerError, match=r"no such preset \(did you mean preset:modern\?\)"):
        fp.generate(fp.load_paradigm("determiner_noun_agreement_1"), pairs=2, models=["preset:modrn"])


def test_paradigm_typo_in_the_api_and_the_cli(tmp_path, fairpairs_cli):
    with pytest.raises(UsageError, match=r"did you mean determiner_noun_agreement_1\b"):
        fp.load_paradigm("determiner_noun_agreemnt_1")
    with pytest.raises(UsageError, match=r"^paradigms: unknown paradigm anaphor_numbr_agreement "
                                          r"\(did you mean anaphor_number_agreement\?\)"):
        fp.generate_run(tmp_path / "run", paradigms=["anaphor_numbr_agreement"], pairs=2)
    assert not (tmp_path / "run").exists()
    proc = fairpairs_cli("generate", "--paradigms", "anaphor_numbr_agreement", "--out", tmp_path / "r2")
    assert proc.returncode == 2 or proc.returncode == 1
    assert proc.stderr.strip().splitlines() == [
        "fairpairs: error: --paradigms: unknown paradigm anaphor_numbr_agreement (did you mean "
        "anaphor_number_agreement?) (see `fairpairs paradigms`)"]


def test_model_typo():
    """(Needs no SmolLM2: the suggestion comes from the names, the model is never loaded.)"""
    import re

    from fairpairs.tokenization.sources import SMOLLM2_ALIASES

    with pytest.raises(ModelError) as err:
        fp.Scorer.from_pretrained("smollm2-135")
    msg = str(err.value)
    guesses = re.search(r"did you mean (.+?)\?", msg).group(1).split(" or ")
    assert "\n" not in msg and guesses and set(guesses) <= SMOLLM2_ALIASES


@pytest.mark.parametrize("typed, meant", [
    ("llama3", "meta-llama/Meta-Llama-3-8B"), ("Llama-3", "meta-llama/Meta-Llama-3-8B"),
    ("qwen2.5", "Qwen/Qwen2.5-7B"), ("llama4", "meta-llama/Llama-4-Scout-17B-16E"),
])
def test_names_a_user_types_find_the_packaged_tokenizers(typed, meant):
    """Issue 38: such names were answered with the five bundled names only; the suggestion is taken
    from every name `fairpairs tokenizers` knows, the pinned package files included."""
    from fairpairs.tokenization.catalogue import tokenizer_names

    assert meant in did_you_mean(typed, tokenizer_names())
