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


class LengthMeter:
    """Counts content tokens of strings under one tokenizer, batched and cached.

    Uses the Rust `tokenizers.Tokenizer` behind the transformers tokenizer, with
    `add_special_tokens=False`.
    """

    def __init__(self, name: str):
        self.name = name
        self.hf = load_hf_tokenizer(name)
        self.backend = self.hf.backend_tokenizer
        self._cache: dict[str, int] = {}

    def lengths(self, texts) -> list[int]:
        """Token counts of `texts` (a sequence of str), in order."""
        cache = self._cache
        missing = [t for t in dict.fromkeys(texts) if t not in cache]
        if missing:
            encs = self.backend.encode_batch(missing, add_special_tokens=False)
            for t, e in zip(missing, encs):
                cache[t] = len(e.ids)
        return [cache[t] for t in texts]

    def length(self, text: str) -> int:
        return self.lengths([text])[0]

    def file_hashes(self) -> dict[str, str]:
        """sha256 of the tokenizer files (for the manifest)."""
        return tokenizer_file_hashes(self.name, self.hf)


def tokenizer_file_hashes(name: str, hf_tokenizer=None) -> dict[str, str]:
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
    if not out and hf_tokenizer is not None:
        # Hub tokenizer outside our reach: hash its serialised form instead.
        data = hf_tokenizer.backend_tokenizer.to_str().encode()
        out["tokenizer.json(serialised)"] = hashlib.sha256(data).hexdigest()
    return out

