"""Tokenizer resolution and token-length measurement.

Token length, as used everywhere in fairpairs, is the number of tokens the tokenizer produces for
the sentence string *as written* (no added leading space, no lower-casing beyond the tokenizer's
own normaliser), with special tokens ([CLS], [SEP], <s>, BOS ...) excluded. This is exactly the
token sequence the scorers in `fairpairs.scoring` see between their special tokens.

Names of the five bundled tokenizers (and their Hub aliases) resolve to verified copies shipped
inside the package, so nothing touches the network. Any other name is tried as a local directory,
then through the Hub cache / network via transformers; failure is a one-line `TokenizerError`.
"""

from __future__ import annotations

import hashlib
import json
import re
from functools import lru_cache
from pathlib import Path

from .errors import TokenizerError

ASSETS = Path(__file__).parent / "assets" / "tokenizers"

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


def bundled_path(name: str) -> Path | None:
    """The folder of a bundled tokenizer for `name`, or None."""
    key = BUNDLED.get(name.lower())
    return ASSETS / key if key else None


def resolve(name: str) -> Path | str:
    """Where to load `name` from: a bundled folder, a local directory, or the Hub name itself."""
    bundled = bundled_path(name)
    if bundled is not None:
        return bundled
    p = Path(name).expanduser()
    if p.is_dir():
        return p
    if p.suffix == ".json" and p.is_file():
        return p
    return name


@lru_cache(maxsize=32)
def load_hf_tokenizer(name: str):
    """A transformers fast tokenizer for `name` (bundled copy, local folder, or Hub)."""
    from transformers import AutoTokenizer

    if name.lower() in SMOLLM2_NAMES or name.lower().endswith(".gguf"):
        return _gguf_tokenizer(name)
    where = resolve(name)
    try:
        if isinstance(where, Path) and where.is_file():
            from transformers import PreTrainedTokenizerFast

            return PreTrainedTokenizerFast(tokenizer_file=str(where))
        tok = AutoTokenizer.from_pretrained(str(where))
    except Exception as exc:  # transformers raises OSError, ValueError, HTTP errors ...
        raise TokenizerError(
            f"--models: cannot load tokenizer {name!r}: not a bundled tokenizer "
            f"({', '.join(sorted(set(BUNDLED.values())))}), not a local directory, and not "
            f"loadable from the Hub ({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''})"
        ) from None
    if not getattr(tok, "is_fast", False):
        raise TokenizerError(f"--models: tokenizer {name!r} has no fast (Rust) implementation")
    return tok


SMOLLM2_NAMES = {"smollm2-135m", "smollm2-135m-instruct", "smollm2"}


def _gguf_tokenizer(name: str):
    """The tokenizer inside a GGUF model file (SmolLM2-135M by name, or a .gguf path)."""
    from .errors import FairpairsError
    from .scoring.models import load_tokenizer, resolve_model_name

    try:
        return load_tokenizer(name, resolve_model_name(name))
    except FairpairsError as exc:
        raise TokenizerError(f"--models: {exc}".replace("--model ", "")) from None


def _tokenizer_file_backend(name: str):
    """A `tokenizers.Tokenizer` straight from a bundled or local tokenizer.json (no transformers
    import: the same pipeline transformers wraps, and lengths are checked equal in the tests);
    None when `name` is not such a file or folder."""
    if name.lower() in SMOLLM2_NAMES or name.lower().endswith(".gguf"):
        return None
    where = resolve(name)
    if isinstance(where, Path):
        f = where if where.is_file() else where / "tokenizer.json"
        if f.is_file() and f.suffix == ".json":
            from tokenizers import Tokenizer

            try:
                return Tokenizer.from_file(str(f))
            except Exception as exc:  # the Rust library raises its own exception type
                raise TokenizerError(f"--models: cannot load tokenizer {name!r} from {f} ({exc})") from None
    return None


class LengthMeter:
    """Counts content tokens of strings under one tokenizer, batched and cached.

    Uses the Rust `tokenizers.Tokenizer` behind the transformers tokenizer, with
    `add_special_tokens=False`. When the tokenizer's pipeline never lets a token cross a space (its
    normaliser works character by character and its pre-tokeniser splits at spaces: GPT-2/RoBERTa
    byte-level BPE, BERT WordPiece, Metaspace Unigram ...), the length of a sentence is the sum of
    the lengths of its space-separated chunks, each measured with its leading space; chunks repeat
    across thousands of generated sentences, so each is encoded once. Other tokenizers, and texts
    with other whitespace, are encoded whole. `decomposable` says which path is taken; it is also
    checked on probe sentences when the meter is built.
    """

    PROBES = ("The cat's toys aren't here.", "Who did Mary  see?", "A lot of children (3 dogs) and Émile's café.",
              "Rose talked to four displeased.", "Out in the open, THE Borgias wore a lot of scarves!")

    def __init__(self, name: str):
        self.name = name
        self.backend = _tokenizer_file_backend(name) or load_hf_tokenizer(name).backend_tokenizer
        self._cache: dict[str, int] = {}
        self._first: dict[str, int] = {}
        self._later: dict[str, int] = {}
        self.decomposable = _splits_at_spaces(self.backend) and all(
            self._by_chunks([t]) == [self._encode([t])[0]] for t in self.PROBES)

    def _encode(self, texts: list[str]) -> list[int]:
        return [len(e.ids) for e in self.backend.encode_batch(texts, add_special_tokens=False)]

    def _by_chunks(self, texts: list[str]) -> list[int]:
        first, later = self._first, self._later   # a sentence's first chunk; later chunks (measured with their space)
        split = [t.split(" ") for t in texts]
        new_first = list({p[0] for p in split if p[0] not in first})
        new_later = list({c for p in split for c in p[1:] if c not in later})
        if new_first:
            first.update(zip(new_first, self._encode(new_first)))
        if new_later:
            later.update(zip(new_later, self._encode([" " + c for c in new_later])))
        get = later.__getitem__
        return [first[p[0]] + sum(map(get, p[1:])) for p in split]

    def lengths(self, texts) -> list[int]:
        """Token counts of `texts` (a sequence of str), in order."""
        cache = self._cache
        missing = [t for t in dict.fromkeys(texts) if t not in cache]
        if missing:
            if self.decomposable:
                whole = [t for t in missing if _OTHER_SPACE.search(t)]
                parts = [t for t in missing if not _OTHER_SPACE.search(t)] if whole else missing
                cache.update(zip(parts, self._by_chunks(parts)))
            else:
                whole = missing
            if whole:
                cache.update(zip(whole, self._encode(whole)))
        return [cache[t] for t in texts]

    def length(self, text: str) -> int:
        return self.lengths([text])[0]

    def file_hashes(self) -> dict[str, str]:
        """sha256 of the tokenizer files (for the manifest)."""
        return tokenizer_file_hashes(self.name, self.backend)


_OTHER_SPACE = re.compile(r"[^\S ]")
_CHAR_NORMALIZERS = {"BertNormalizer", "Lowercase", "NFC", "NFD", "NFKC", "NFKD", "StripAccents"}
_SPLITTING = {"ByteLevel", "BertPreTokenizer", "Whitespace", "WhitespaceSplit", "Metaspace"}
_FURTHER = {"Punctuation", "Digits", "UnicodeScripts", "Split", "CharDelimiterSplit"} | _SPLITTING


def _splits_at_spaces(backend) -> bool:
    """Whether no token of this tokenizer can span a space (see LengthMeter)."""
    spec = json.loads(backend.to_str())
    norm = spec.get("normalizer")
    norms = (norm.get("normalizers") or [] if norm and norm.get("type") == "Sequence" else [norm] if norm else [])
    if any(n.get("type") not in _CHAR_NORMALIZERS for n in norms):
        return False
    pre = spec.get("pre_tokenizer")
    if not pre:
        return False
    pres = pre.get("pretokenizers") or [] if pre.get("type") == "Sequence" else [pre]

    def splits(p: dict) -> bool:
        t = p.get("type")
        if t == "ByteLevel":
            return p.get("use_regex", True)
        if t == "Metaspace":
            return p.get("split", True)
        return t in {"BertPreTokenizer", "Whitespace", "WhitespaceSplit"}

    if not any(splits(p) for p in pres) or any(p.get("type") not in _FURTHER for p in pres):
        return False
    return not any(" " in a.get("content", "") for a in spec.get("added_tokens") or [])


def tokenizer_file_hashes(name: str, backend=None) -> dict[str, str]:
    where = resolve(name)
    files: list[Path] = []
    if isinstance(where, Path):
        files = [where] if where.is_file() else sorted(
            f for f in where.iterdir() if f.name.startswith("tokenizer") or f.suffix in {".txt", ".json", ".model"}
        )
    out = {}
    for f in files:
        if f.is_file() and not f.name.startswith("LICENSE") and f.suffix != ".md":
            out[f.name] = hashlib.sha256(f.read_bytes()).hexdigest()
    if not out and backend is not None:
        # Hub tokenizer outside our reach: hash its serialised form instead.
        data = backend.to_str().encode()
        out["tokenizer.json(serialised)"] = hashlib.sha256(data).hexdigest()
    return out

