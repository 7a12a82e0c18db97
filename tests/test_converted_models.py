"""A GGUF model is de-quantised once and kept (fairpairs.scoring.converted, issue 49): later loads read
the kept safetensors and give the same model, the same tokenizer and the same scores.

The reference is transformers' own load of the GGUF file (`AutoModelForCausalLM.from_pretrained(...,
gguf_file=...)`, de-quantising Q8_0 tensors), not our code; the model is a tiny llama written with
gguf's writer (tests/references.py). That a later load does not read the GGUF file is shown by gguf's
reader failing if it is called.
"""

from __future__ import annotations

import json

import gguf
import numpy as np
import pytest
import torch

from fairpairs.scoring.scorer import Scorer
from references import write_tiny_llama

SENTENCES = ["The cat sat.", "the the cat", "Who did the cats see?", "A"]


@pytest.fixture
def tiny_gguf(tmp_path, monkeypatch, one_torch_thread):
    path = tmp_path / "models" / "tiny.Q8_0.gguf"
    path.parent.mkdir()
    write_tiny_llama(path)
    monkeypatch.setenv("FAIRPAIRS_MODEL_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("FAIRPAIRS_KEEP_CONVERTED", raising=False)
    return path


def _kept(tmp_path):
    root = tmp_path / "cache" / "converted"
    return sorted(root.iterdir()) if root.is_dir() else []


def _no_gguf_reading(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the GGUF file was read again")
    monkeypatch.setattr(gguf, "GGUFReader", refuse)


def test_the_kept_model_is_transformers_gguf_load_and_scores_the_same(tiny_gguf, tmp_path, monkeypatch):
    from transformers import AutoModelForCausalLM

    first = Scorer.from_pretrained(str(tiny_gguf), device="cpu")
    scores = first.score(SENTENCES)["sum_logprob"].to_numpy()
    (folder,) = _kept(tmp_path)
    record = json.loads((folder / "fairpairs-converted.json").read_text())
    assert record["gguf_file"] == tiny_gguf.name and record["format"] == 1
    reference = AutoModelForCausalLM.from_pretrained(str(tiny_gguf.parent), gguf_file=tiny_gguf.name,
                                                     dtype=torch.float32)
    _no_gguf_reading(monkeypatch)
    again = Scorer.from_pretrained(str(tiny_gguf), device="cpu")
    ref, kept = reference.state_dict(), again.model.state_dict()
    assert sorted(ref) == sorted(kept)
    assert all(torch.equal(ref[k], kept[k]) for k in ref)                   # the same tensors, bit for bit
    assert np.array_equal(again.score(SENTENCES)["sum_logprob"].to_numpy(), scores)
    assert again.identity(SENTENCES) == first.identity(SENTENCES)           # model, config, tokenizer alike
    assert again.tokenizer("The cat sat.")["input_ids"] == first.tokenizer("The cat sat.")["input_ids"]
    assert (again.bos_id, again.pad_id) == (first.bos_id, first.pad_id)


def test_off_keeps_nothing_and_reads_the_gguf_each_time(tiny_gguf, tmp_path, monkeypatch):
    monkeypatch.setenv("FAIRPAIRS_KEEP_CONVERTED", "off")
    Scorer.from_pretrained(str(tiny_gguf), device="cpu")
    assert _kept(tmp_path) == []


def test_a_folder_of_another_transformers_or_file_is_not_used_nor_replaced(tiny_gguf, tmp_path, monkeypatch):
    Scorer.from_pretrained(str(tiny_gguf), device="cpu")
    (folder,) = _kept(tmp_path)
    record = folder / "fairpairs-converted.json"
    changed = dict(json.loads(record.read_text()), transformers="0.0.1")
    record.write_text(json.dumps(changed))
    before = {f.name: f.stat().st_mtime_ns for f in folder.iterdir()}
    calls = []
    original = gguf.GGUFReader
    monkeypatch.setattr(gguf, "GGUFReader", lambda *a, **k: calls.append(a) or original(*a, **k))
    Scorer.from_pretrained(str(tiny_gguf), device="cpu")
    assert calls                                                              # read from the GGUF file again
    assert {f.name: f.stat().st_mtime_ns for f in folder.iterdir()} == before  # and the folder left as it was


def test_an_interrupted_write_leaves_no_folder_behind(tiny_gguf, tmp_path, monkeypatch):
    import safetensors.torch

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(safetensors.torch, "save_model", interrupted)
    with pytest.raises(KeyboardInterrupt):
        Scorer.from_pretrained(str(tiny_gguf), device="cpu")
    assert _kept(tmp_path) == []                                             # no folder, no temporary one


def test_a_cache_that_cannot_be_written_only_means_nothing_is_kept(tiny_gguf, tmp_path, monkeypatch):
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("FAIRPAIRS_MODEL_CACHE", str(blocked))
    scores = Scorer.from_pretrained(str(tiny_gguf), device="cpu").score(SENTENCES)
    assert len(scores) == len(SENTENCES) and blocked.read_text() == "not a folder"


def test_a_short_disk_keeps_nothing(tiny_gguf, tmp_path, monkeypatch):
    import shutil

    monkeypatch.setattr(shutil, "disk_usage", lambda p: shutil._ntuple_diskusage(10, 10, 0))
    Scorer.from_pretrained(str(tiny_gguf), device="cpu")
    assert _kept(tmp_path) == []


@pytest.mark.parametrize("raw", ["maybe", "2"])
def test_a_value_the_switch_does_not_take_is_one_error_naming_it(tiny_gguf, monkeypatch, raw):
    from fairpairs.errors import VariableError

    monkeypatch.setenv("FAIRPAIRS_KEEP_CONVERTED", raw)
    with pytest.raises(VariableError, match="FAIRPAIRS_KEEP_CONVERTED"):
        Scorer.from_pretrained(str(tiny_gguf), device="cpu")


@pytest.mark.slow
def test_real_smollm2_kept_is_its_gguf_load(tmp_path, monkeypatch, one_torch_thread):
    """SmolLM2-135M (Q4_1): the kept folder's model has the GGUF load's tensors and scores, bit for bit."""
    monkeypatch.setenv("FAIRPAIRS_MODEL_CACHE", str(tmp_path / "cache"))
    sentences = ["The cat sat on the mat.", "The cats sat on the mat.", "Who did the doctor see?"]
    monkeypatch.setenv("FAIRPAIRS_KEEP_CONVERTED", "off")
    plain = Scorer.from_pretrained("smollm2-135m", device="cpu")
    assert _kept(tmp_path) == []
    monkeypatch.setenv("FAIRPAIRS_KEEP_CONVERTED", "on")
    Scorer.from_pretrained("smollm2-135m", device="cpu")         # reads the GGUF, keeps it
    assert len(_kept(tmp_path)) == 1
    _no_gguf_reading(monkeypatch)
    kept = Scorer.from_pretrained("smollm2-135m", device="cpu")
    a, b = plain.model.state_dict(), kept.model.state_dict()
    assert sorted(a) == sorted(b) and all(torch.equal(a[k], b[k]) for k in a)
    assert np.array_equal(plain.score(sentences)["sum_logprob"].to_numpy(), kept.score(sentences)["sum_logprob"].to_numpy())
    assert kept.identity(sentences) == plain.identity(sentences)
