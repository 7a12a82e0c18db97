"""Loading a GGUF model reads what transformers asks for several times once (issue 36: whole-process
scoring time).

transformers parses a GGUF's metadata for the config and again for the tokenizer's config, and asks
`gguf.get_tensor_name_map` for the same map once per submodule of the model (397 times for
SmolLM2); `fairpairs.scoring.gguf_reading.gguf_read_once` keeps the first result for the length of one
load and puts the libraries' functions back after it. The GGUF files here are written with gguf's
own writer (a 2-block llama with a 3-token vocabulary); the expected tensor names are gguf's naming
convention (``blk.N.attn_q``, ``token_embd``, ``output``), not read from our code.
"""

from __future__ import annotations

import gguf
import pytest
from transformers import modeling_gguf_pytorch_utils as reading

from fairpairs.scoring.gguf_reading import gguf_read_once
from fairpairs.tokenization.sources import ModelSource
from references import write_gguf


def test_the_metadata_is_parsed_once_per_load_and_handed_out_as_a_copy(tmp_path):
    path = tmp_path / "tiny.gguf"
    write_gguf(path, blocks=2)
    original = reading.load_gguf_checkpoint
    with gguf_read_once(ModelSource(path=str(tmp_path), gguf_file="tiny.gguf")):
        first = reading.load_gguf_checkpoint(str(path), return_tensors=False)
        assert first["config"]["num_hidden_layers"] == 2 and first["tokenizer"]["tokens"] == ["a", "b", "ab"]
        first["config"]["num_hidden_layers"] = 99          # a caller changing its copy changes no other
        write_gguf(path, blocks=3)                         # the file is not read again during the load
        again = reading.load_gguf_checkpoint(str(path), return_tensors=False)
        assert again["config"]["num_hidden_layers"] == 2
    assert reading.load_gguf_checkpoint is original
    assert reading.load_gguf_checkpoint(str(path), return_tensors=False)["config"]["num_hidden_layers"] == 3


def test_one_name_map_per_architecture_and_layers_during_a_load():
    original = gguf.get_tensor_name_map
    with gguf_read_once(ModelSource(path="/models", gguf_file="model.Q4_1.gguf")):
        first = gguf.get_tensor_name_map(gguf.MODEL_ARCH.LLAMA, 30)
        assert gguf.get_tensor_name_map(gguf.MODEL_ARCH.LLAMA, 30) is first
        assert gguf.get_tensor_name_map(gguf.MODEL_ARCH.LLAMA, 2) is not first
    assert gguf.get_tensor_name_map is original
    # the kept map is the map gguf builds: HF names -> GGUF names
    assert first.get_name("model.layers.3.self_attn.q_proj") == "blk.3.attn_q"
    assert first.get_name("model.embed_tokens") == "token_embd"
    assert first.get_name("lm_head") == "output"


def test_the_libraries_are_restored_when_the_load_fails_and_untouched_for_other_models():
    name_map, checkpoint = gguf.get_tensor_name_map, reading.load_gguf_checkpoint
    with pytest.raises(ValueError), gguf_read_once(ModelSource(path="/models", gguf_file="model.gguf")):
        raise ValueError("the load failed")
    assert (gguf.get_tensor_name_map, reading.load_gguf_checkpoint) == (name_map, checkpoint)
    with gguf_read_once(ModelSource(path="/models/bert")):   # a folder: nothing to do with gguf
        assert (gguf.get_tensor_name_map, reading.load_gguf_checkpoint) == (name_map, checkpoint)
