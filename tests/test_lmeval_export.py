"""The lm-eval tasks `fairpairs publish` exports score what fairpairs scores and controls.

lm-eval (0.4.13, lm_eval/api/model.py + models/huggingface.py) turns a multiple-choice doc with an
empty context into the requests ("", target_delimiter + choice) and scores the tokens
`[prefix_token_id] + tokenizer.encode(target_delimiter + choice, add_special_tokens=False)`, where
prefix_token_id is its `prefix_token_id=` model argument, else the tokenizer's BOS, else its EOS.
The full check against the real lm-eval is benchmarks/lmeval_check.py (its own venv).
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

from fairpairs.api.common import run_manifest
from fairpairs.publishing.hub import build_folder
from fairpairs.scoring.encoding import encode, prefix_token_id
from fairpairs.tokenization.sources import ASSETS

REPO_ID = "someone/Fair-BLiMP"
PREFIX = "fair_blimp"
GOOD, BAD = "Raymond is selling this sketch.", "Raymond is selling this sketches."


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    run = tmp_path_factory.mktemp("lmeval") / "run"
    row = {"sentence_good": GOOD, "sentence_bad": BAD, "field": "morphology",
           "linguistics_term": "determiner_noun_agreement", "UID": "determiner_noun_agreement_1", "pairID": 0}
    for set_name in ("debiased", "original"):
        (run / set_name).mkdir(parents=True)
        (run / set_name / "determiner_noun_agreement_1.jsonl").write_text(json.dumps(row) + "\n")
    # (publish checks the manifest against the files: one pair in each set, no tokenizers listed)
    (run / "manifest.json").write_text(json.dumps({"paradigms": {"determiner_noun_agreement_1": {
        "original": 1, "debiased": 1}}}))
    return build_folder(run, REPO_ID, run.parent / "hub", which="both", read_manifest=run_manifest).folder


def task_config(folder: Path, task: str) -> dict:
    """A task YAML with its `include:` merged under it, as lm-eval resolves it."""
    cfg = yaml.safe_load((folder / f"{task}.yaml").read_text())
    base = yaml.safe_load((folder / cfg.pop("include")).read_text())
    return {**base, **cfg}


def test_exported_tasks_have_an_empty_target_delimiter_and_context(built):
    folder = built / "lm_eval" / PREFIX
    for task in (f"{PREFIX}_determiner_noun_agreement_1", f"{PREFIX}_original_determiner_noun_agreement_1"):
        cfg = task_config(folder, task)
        assert cfg["target_delimiter"] == ""
        assert cfg["doc_to_text"] == ""
        assert cfg["doc_to_choice"] == "{{[sentence_good, sentence_bad]}}" and cfg["doc_to_target"] == 0


def test_lm_eval_scores_the_tokens_fairpairs_scores(built):
    """GPT-2 BPE: 'Raymond' at the start of text is Ray + mond; after a space (lm-eval's default
    delimiter) it is one token, so " " + sentence would not be the sequence that was controlled."""
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(ASSETS / "gpt2"))
    delim = task_config(built / "lm_eval" / PREFIX, f"{PREFIX}_determiner_noun_agreement_1")["target_delimiter"]
    want = {GOOD: ["<|endoftext|>", "Ray", "mond", "Ġis", "Ġselling", "Ġthis", "Ġsketch", "."],
            BAD: ["<|endoftext|>", "Ray", "mond", "Ġis", "Ġselling", "Ġthis", "Ġsketches", "."]}
    ours = encode(tok, [GOOD, BAD], "causal", prefix_token_id(tok), None)
    for sentence, ids in zip((GOOD, BAD), ours.ids):
        lm_eval_ids = [tok.bos_token_id] + tok.encode(delim + sentence, add_special_tokens=False)
        assert tok.convert_ids_to_tokens(lm_eval_ids) == want[sentence]
        assert ids.tolist() == lm_eval_ids
    spaced = tok.convert_ids_to_tokens(tok.encode(" " + GOOD, add_special_tokens=False))
    assert spaced[0] == "ĠRaymond"  # what the default delimiter would have scored


@pytest.mark.parametrize("bos, eos, custom, want", [
    (50256, 50256, None, 50256),   # GPT-2: BOS
    (1, 2, None, 1),               # BOS before EOS
    (0, 2, None, 0),               # id 0 is a BOS, not "no BOS"
    (None, 2, None, 2),            # no BOS: EOS
    (None, None, None, None),      # neither (masked LMs): nothing
    (1, 2, 0, 0),                  # lm-eval's prefix_token_id= wins
])
def test_prefix_token_follows_lm_evals_rule(bos, eos, custom, want):
    assert prefix_token_id(SimpleNamespace(bos_token_id=bos, eos_token_id=eos), custom) == want


def test_prefix_token_of_the_bundled_tokenizers():
    from transformers import AutoTokenizer

    got = {name: prefix_token_id(AutoTokenizer.from_pretrained(str(ASSETS / name)))
           for name in ("gpt2", "roberta-base", "bert-base-cased")}
    assert got == {"gpt2": 50256, "roberta-base": 0, "bert-base-cased": None}


def test_card_gives_the_lm_eval_command_and_the_smollm2_prefix(built):
    body = (built / "README.md").read_text(encoding="utf-8")
    assert f"--include_path {PREFIX}/lm_eval/{PREFIX} --tasks {PREFIX}\n" in body
    assert 'target_delimiter: ""' in body
    assert "gguf_file=SmolLM2-135M-Instruct.Q4_1.gguf,prefix_token_id=0 " in body


@pytest.mark.slow
def test_smollm2_gguf_names_another_bos_than_fairpairs_uses():
    """Why the card says prefix_token_id=0: lm-eval's rule on the GGUF's own tokenizer gives
    <|im_start|> (1); fairpairs scores after <|endoftext|> (0), SmolLM2's pre-training separator."""
    from transformers import AutoTokenizer

    from fairpairs.scoring.models import load_model_tokenizer, resolve_model_name

    src = resolve_model_name("smollm2-135m")
    raw = AutoTokenizer.from_pretrained(src.path, gguf_file=src.gguf_file)
    assert (raw.bos_token, prefix_token_id(raw)) == ("<|im_start|>", 1)
    ours = load_model_tokenizer("smollm2-135m", src)
    assert ours.convert_ids_to_tokens([prefix_token_id(ours)]) == ["<|endoftext|>"]
    assert prefix_token_id(ours) == prefix_token_id(raw, custom=0) == 0
