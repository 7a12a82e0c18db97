"""Tokenizer resolution and token-length measurement.

Token length, as used everywhere in fairpairs, is the number of tokens the tokenizer produces for
the sentence string *as written* (no added leading space, no lower-casing beyond the tokenizer's
own normaliser), with special tokens ([CLS], [SEP], <s>, BOS ...) excluded. This is exactly the
token sequence the scorers in `fairpairs.scoring` see between their special tokens.

For sentencepiece models "as written" means as the model's own tokenizer encodes the string:
sentencepiece (and transformers' Llama/Mistral tokenizers) put the dummy prefix "▁" before the
first word by design, exactly as the model saw every text in training and as the scorer encodes the
sentence, so it is part of the count (`sp.encode(sentence)`), not an added space.

Which files a name stands for is decided in `fairpairs.tokenization.sources` (bundled copies, GGUF, folders,
tokenizer.json, sentencepiece, tiktoken, Tekken, presets, the local tokenizer map, Hub names);
`load_tokenizer` is the one loader built on it; failure is a one-line `TokenizerError`.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

from fairpairs.errors import Param, NetworkError, TokenizerError, VariableError
from fairpairs.io.network import network_deadline
from fairpairs.tokenization.sources import TokenizerSource, resolve_tokenizer
from fairpairs.environment import TOKENIZER_MAP
from fairpairs.tokenization.cache import CONVERTED, cached, convert_apart
from fairpairs.tokenization.files import sentencepiece_tokenizer, check_file
from fairpairs.tokenization.spaces import splits_at_spaces


def load_tokenizer(name: str):
    """The transformers fast tokenizer for `name` -- the one loader, for length control and scoring
    alike (see `fairpairs.tokenization.sources` for the names accepted). Errors are one-line `TokenizerError`s."""
    return _load(resolve_tokenizer(name))


@lru_cache(maxsize=32)
def _load(src: TokenizerSource):
    return _fresh(src)


def _fresh(src: TokenizerSource):
    """The fast tokenizer of `src`, built now (not kept: `_load` keeps it for scoring; length
    control keeps only the converted backend, `_backend`)."""
    name = src.name
    try:
        with network_deadline((Param("models"), f" {name}"), None if src.kind == "hub" else src.path):
            tok = _construct(src)
    except NetworkError as exc:
        if src.kind != "hub":
            raise
        from fairpairs.tokenization.catalogue import tokenizer_names
        from fairpairs.suggest import did_you_mean

        raise exc.appended(did_you_mean(name, tokenizer_names())) from None
    except (TokenizerError, VariableError):    # (VariableError: FAIRPAIRS_HUB_TIMEOUT, not the tokenizer)
        raise
    except ImportError as exc:
        extra = {"sentencepiece": "sentencepiece", "tiktoken": "tiktoken", "tekken": "mistral"}.get(src.kind)
        hint = f"; install the fairpairs[{extra}] extra" if extra else ""
        raise TokenizerError(Param("models"), f": cannot load tokenizer {name!r} ({src.kind} at {src.path}): "
                             f"{_first_line(exc)}{hint}") from None
    except Exception as exc:  # transformers raises OSError, ValueError, HTTP errors ...
        if src.kind == "hub":
            from fairpairs.tokenization.catalogue import tokenizer_names
            from fairpairs.suggest import did_you_mean

            raise TokenizerError(
                Param("models"), f": cannot load tokenizer {name!r}{did_you_mean(name, tokenizer_names())}: not a name "
                f"fairpairs knows offline (`fairpairs tokenizers` lists them: bundled, packaged, presets), not a local folder or file, and not "
                f"loadable from the Hub ({_first_line(exc)}); offline, point it at local files with "
                f"${TOKENIZER_MAP.name} (docs/tokenizers.md)"
            ) from None
        missing = _no_vocabulary_files(src)
        raise TokenizerError(Param("models"), f": cannot load tokenizer {name!r} ({src.kind} at {src.path}): "
                             f"{missing or _first_line(exc)}") from None
    if not getattr(tok, "is_fast", False):
        raise TokenizerError(Param("models"), f": tokenizer {name!r} has no fast (Rust) implementation")
    if src.bos_token is not None:
        tok.bos_token = src.bos_token
    check_tokenizes(name, tok.backend_tokenizer)
    return tok


PROBE_SENTENCE = "The children were reading a book about the old castle."


def check_tokenizes(name: str, backend, what: str = "tokenizer") -> None:
    """The sanity probe every loaded tokenizer passes: a plain English sentence gives at least one
    token, and not only unknown tokens. A folder with a config but no vocabulary loads as a
    tokenizer that gives no tokens at all, which would make every length 0 and every pair
    "controlled"; that is an error naming `name`."""
    enc = backend.encode(PROBE_SENTENCE, add_special_tokens=False)
    if not enc.ids:
        raise TokenizerError(Param(what), f" {name!r} gives no tokens for an English sentence "
                             f"({PROBE_SENTENCE!r}); it has no usable vocabulary")
    if len(set(enc.tokens)) > 1:     # (a tokenizer has one unknown token: reading the vocabulary is not needed)
        return
    unknown = _unknown_tokens(backend)
    if unknown and all(t in unknown for t in enc.tokens):
        raise TokenizerError(Param(what), f" {name!r} reads an English sentence as unknown tokens only "
                             f"({', '.join(sorted(set(enc.tokens)))}); it has no usable vocabulary")


def _unknown_tokens(backend) -> set[str]:
    model = json.loads(backend.to_str()).get("model") or {}
    unk = model.get("unk_token")
    if unk is None and model.get("unk_id") is not None and model.get("vocab"):
        try:
            unk = model["vocab"][model["unk_id"]][0]
        except (IndexError, KeyError, TypeError):
            unk = None
    return {unk} if isinstance(unk, str) else set()


def load_saved_tokenizer(name: str, folder):
    """The fast tokenizer of `name` as `save_pretrained` wrote it to `folder` (a GGUF model's kept
    de-quantised folder, `fairpairs.scoring.converted`): read with AutoTokenizer and checked as
    `load_tokenizer` checks it, with `name`'s BOS override."""
    return _fresh(replace(resolve_tokenizer(name), kind="folder", path=str(folder), gguf_file=None))


load_hf_tokenizer = load_tokenizer   # the name older code and notebooks use


def _construct(src: TokenizerSource):
    """Build the fast tokenizer of one source (each kind through its own library or converter)."""
    from transformers import AutoTokenizer, PreTrainedTokenizerFast

    check_file(src)
    if src.kind == "tokenizer.json":
        return PreTrainedTokenizerFast(tokenizer_file=src.path)
    if src.kind == "gguf":
        return AutoTokenizer.from_pretrained(src.path, gguf_file=src.gguf_file)
    if src.kind == "sentencepiece":
        return sentencepiece_tokenizer(Path(src.path))
    if src.kind == "tiktoken":
        from transformers.convert_slow_tokenizer import TikTokenConverter

        return PreTrainedTokenizerFast(tokenizer_object=TikTokenConverter(src.path, pattern=src.pattern).converted())
    if src.kind == "tekken":
        from transformers.integrations.mistral.tokenizer import MistralConverter

        return PreTrainedTokenizerFast(tokenizer_object=MistralConverter(src.path).converted(),
                                       bos_token="<s>", eos_token="</s>", unk_token="<unk>")
    return AutoTokenizer.from_pretrained(src.path)   # bundled copy, local folder or Hub name


def convert(src: TokenizerSource):
    """The Rust `tokenizers.Tokenizer` of a source that is not a tokenizer.json (GGUF, tiktoken,
    sentencepiece, Tekken), converted now; nothing of the converter or the file's reader is kept."""
    return _fresh(src).backend_tokenizer


def forget_tokenizers() -> None:
    """Drop the tokenizers kept for length counting (they are built again when next asked for):
    before a model loads, what a generation step kept is let go (`fairpairs.scoring.memory`)."""
    _load.cache_clear()
    _backend.cache_clear()


def load_backend(name: str):
    """The Rust `tokenizers.Tokenizer` of `name`: read straight from a bundled or local
    tokenizer.json (no transformers import; the same pipeline transformers wraps, lengths checked
    equal in the tests), else the backend of `load_tokenizer(name)`."""
    return _backend(resolve_tokenizer(name))


@lru_cache(maxsize=32)
def _backend(src: TokenizerSource):
    name, f = src.name, src.tokenizer_json
    if f is None and src.kind not in CONVERTED:
        return _load(src).backend_tokenizer
    if f is None:    # converted once, then read from the cache (the converter and its reader are not kept)
        tok = cached(src, lambda: convert_apart(lambda: convert(src)))
    else:
        from tokenizers import Tokenizer

        try:
            tok = Tokenizer.from_file(str(f))
        except Exception as exc:  # the Rust library raises its own exception type
            check_file(src)       # (a file that is not what its kind says: one line saying what it is not)
            raise TokenizerError(Param("models"), f": cannot load tokenizer {name!r} from {f} ({exc})") from None
    check_tokenizes(name, tok)
    return tok


VOCABULARY_FILES = ("tokenizer.json", "vocab.txt", "vocab.json", "tokenizer.model", "spiece.model",
                    "sentencepiece.bpe.model", "*.tiktoken", "tekken.json")


def _no_vocabulary_files(src: TokenizerSource) -> str | None:
    """For a folder that holds none of the files a tokenizer's vocabulary comes in, say so (instead of
    transformers' paragraph about the ways it could not instantiate a backend)."""
    folder = Path(src.path) if src.kind == "folder" and src.path else None
    if folder is None or not folder.is_dir():
        return None
    if any(any(folder.glob(pattern)) for pattern in VOCABULARY_FILES):
        return None
    present = sorted(p.name for p in folder.iterdir())[:6]
    return (f"the folder holds no tokenizer vocabulary ({', '.join(VOCABULARY_FILES)}); it has "
            f"{', '.join(present) if present else 'no files'}")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


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
        self.backend = load_backend(name)
        self._cache: dict[str, int] = {}
        self._first: dict[str, int] = {}
        self._later: dict[str, int] = {}
        self.decomposable = splits_at_spaces(self.backend) and all(
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
        n = self._cache.get(text)
        if n is not None:
            return n
        if not self.decomposable or _OTHER_SPACE.search(text):
            return self.lengths([text])[0]
        # (one sentence, as `lengths` measures it, without a batch's lists and sets: the search asks
        # for one sentence at a time, under every tokenizer)
        first, *rest = text.split(" ")
        n = self._first.get(first)
        if n is None:
            n = self._first[first] = self._encode([first])[0]
        later = self._later
        for c in rest:
            m = later.get(c)
            if m is None:
                m = later[c] = self._encode([" " + c])[0]
            n += m
        self._cache[text] = n
        return n

    def forget_sentences(self) -> None:
        """Drop the counts of whole sentences (a run's paradigms share no sentence, so a worker
        generating one paradigm after another would only pile them up); the counts of words, which
        paradigms share, stay."""
        self._cache.clear()

    def drop_model_cache(self) -> None:
        """Turn off the tokenizer model's own cache of encoded words (BPE's, Unigram's), for this
        process: the meter keeps the counts it needs itself, and in a process forked from the one
        that loaded the tokenizer every entry the cache adds copies memory shared with that process
        (~25 MB per worker process under preset:modern's eight tokenizers). Counts do not change."""
        model = self.backend.model
        if hasattr(model, "_resize_cache"):     # (tokenizers >= 0.20)
            model._resize_cache(0)

    def file_hashes(self) -> dict[str, str]:
        """sha256 of the tokenizer files (for the manifest)."""
        return tokenizer_file_hashes(self.name, self.backend)


_OTHER_SPACE = re.compile(r"[^\S ]")
def tokenizer_file_hashes(name: str, backend=None) -> dict[str, str]:
    """sha256 of the files that define tokenizer `name` (its serialised form for a Hub tokenizer)."""
    from fairpairs.io.hashing import file_sha256     # (a packaged file was hashed when it was checked: not read again)

    out = {f.name: file_sha256(f) for f in resolve_tokenizer(name).files()}
    if not out and backend is not None:
        # Hub tokenizer outside our reach: hash its serialised form instead.
        data = backend.to_str().encode()
        out["tokenizer.json(serialised)"] = hashlib.sha256(data).hexdigest()
    return out
