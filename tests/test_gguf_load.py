"""Loading a GGUF model builds gguf's tensor-name map once (issue 36: whole-process scoring time).

transformers' GGUF loader asks `gguf.get_tensor_name_map` for the same map once per submodule of
the model (397 times for SmolLM2); `fairpairs.scoring.models.gguf_name_map_once` keeps one map per
(architecture, layers) for the length of one load and puts gguf's function back after it. The
expected names are gguf's own naming convention (docs of the GGUF format: ``blk.N.attn_q``,
``token_embd``, ``output``), not read from our code.
"""

from __future__ import annotations

import gguf
import pytest

from fairpairs.scoring.models import gguf_name_map_once
from fairpairs.tokenization.sources import ModelSource

GGUF_SOURCE = ModelSource(path="/models", gguf_file="model.Q4_1.gguf")


def test_one_map_per_architecture_and_layers_during_a_gguf_load_and_gguf_restored_after():
    original = gguf.get_tensor_name_map
    with gguf_name_map_once(GGUF_SOURCE):
        first = gguf.get_tensor_name_map(gguf.MODEL_ARCH.LLAMA, 30)
        assert gguf.get_tensor_name_map(gguf.MODEL_ARCH.LLAMA, 30) is first
        assert gguf.get_tensor_name_map(gguf.MODEL_ARCH.LLAMA, 2) is not first
    assert gguf.get_tensor_name_map is original
    # the kept map is the map gguf builds: HF names -> GGUF names
    assert first.get_name("model.layers.3.self_attn.q_proj") == "blk.3.attn_q"
    assert first.get_name("model.embed_tokens") == "token_embd"
    assert first.get_name("lm_head") == "output"


def test_gguf_restored_when_the_load_fails_and_untouched_for_other_models():
    original = gguf.get_tensor_name_map
    with pytest.raises(ValueError), gguf_name_map_once(GGUF_SOURCE):
        raise ValueError("the load failed")
    assert gguf.get_tensor_name_map is original
    with gguf_name_map_once(ModelSource(path="/models/bert")):   # a folder: nothing to do with gguf
        assert gguf.get_tensor_name_map is original
