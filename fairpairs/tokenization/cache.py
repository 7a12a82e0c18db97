"""The cache of converted tokenizers: a tokenizer file that is not a tokenizer.json (a GGUF model,
a tiktoken ranks file, a sentencepiece model, a Mistral Tekken json) is converted to a fast
tokenizer once, and the result is kept as a tokenizer.json that later runs read directly (seconds
and hundreds of MB saved per file: SmolLM2's GGUF, Qwen's ranks).

An entry is keyed by what it was converted from: the source file's sha256, how it is read (kind,
split pattern, BOS) and the versions of the converting code (`CONVERTER_VERSION`, transformers,
tokenizers and the format's reader), so a changed file or library converts again. Each entry is
two files written atomically: ``KEY.json`` (the converted tokenizer) and ``KEY.entry.json``
(written last: the sha256 of that json and, in full, what the key was made of - the source
file's sha256 and the rest). An entry is used only when both hold: its json matches the recorded
sha256 (no torn or edited write) and the recorded source is the one asked for (no entry of another
tokenizer, copied or renamed under this key, whose hash would match its own json). Any other entry
is converted and written again, never trusted: the folder and its files are fairpairs' own,
derived from the source the user named, so converting again gives the right tokenizer where
refusing would only make the user empty the cache by hand. The folder is
``$FAIRPAIRS_TOKENIZER_CACHE`` when set (``off``: no cache), else
``$XDG_CACHE_HOME/fairpairs/tokenizers`` or ``~/.cache/fairpairs/tokenizers`` (the convention of
the Hugging Face caches). A folder that cannot be written only means no caching.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from contextlib import contextmanager
from importlib import metadata
from pathlib import Path

from fairpairs.environment import TOKENIZER_CACHE

# Raise when the way fairpairs converts a format changes (fairpairs.tokenization.lengths.convert):
# every entry written before is then converted again.
CONVERTER_VERSION = 1
# the library that reads each converted format, beside transformers and tokenizers
READERS = {"gguf": "gguf", "sentencepiece": "sentencepiece", "tiktoken": "tiktoken", "tekken": "mistral-common"}
CONVERTED = tuple(READERS)


def cache_dir() -> Path | None:
    """The folder of converted tokenizers; None when caching is off."""
    return TOKENIZER_CACHE.read()


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def converted_from(src) -> dict:
    """What the converted form of source `src` (a `TokenizerSource` of a `CONVERTED` kind) is made
    from: the source file's sha256, how it is read and the versions of the converting code."""
    from fairpairs.io.hashing import file_sha256

    file = Path(src.path) / src.gguf_file if src.kind == "gguf" else Path(src.path)
    return {"file": file_sha256(file), "kind": src.kind, "pattern": src.pattern, "bos_token": src.bos_token,
            "converter": CONVERTER_VERSION,
            "libraries": {p: _version(p) for p in ("transformers", "tokenizers", READERS[src.kind])}}


def _key(source: dict) -> str:
    return hashlib.sha256(json.dumps(source, sort_keys=True).encode()).hexdigest()


def cached(src, convert):
    """The `tokenizers.Tokenizer` of `src`: read from the cache when a sound entry of `src` is
    there, else `convert()` (which returns one) and kept in the cache for the next run."""
    folder = cache_dir()
    if folder is None:
        return convert()
    try:
        source = converted_from(src)
    except OSError:     # the source file cannot be read: converting it says why
        return convert()
    key = _key(source)
    tok = _read(folder / f"{key}.json", folder / f"{key}{ENTRY}", source)
    if tok is None:
        tok = convert()
        _write(folder / f"{key}.json", folder / f"{key}{ENTRY}", tok.to_str(), source)
    return tok


ENTRY = ".entry.json"     # (an entry's record; ".sha256", the json's hash alone, was the record before)


def _read(path: Path, record: Path, source: dict):
    """The cached tokenizer, or None when the entry is missing, does not match its recorded hash,
    records another source than `source` or does not load."""
    from tokenizers import Tokenizer

    try:
        kept = json.loads(record.read_text(encoding="utf-8"))
        if kept.get("converted_from") != json.loads(json.dumps(source)):    # (as JSON keeps it)
            return None
        data = path.read_bytes()
        if hashlib.sha256(data).hexdigest() != kept.get("json_sha256"):
            return None
        return Tokenizer.from_str(data.decode("utf-8"))
    except Exception:    # missing, unreadable, not JSON, not UTF-8, not a tokenizer the library reads: convert again
        return None


def _write(path: Path, record: Path, text: str, source: dict) -> None:
    from fairpairs.io.files import atomic_write

    data = text.encode("utf-8")
    kept = {"json_sha256": hashlib.sha256(data).hexdigest(), "converted_from": source}
    try:
        atomic_write(path, data)
        atomic_write(record, json.dumps(kept, indent=1, sort_keys=True) + "\n")   # last: marks the entry whole
        path.with_suffix(".sha256").unlink(missing_ok=True)     # (the record entries had before: the json's hash alone)
    except OSError:    # (OutputError is one) a read-only or full cache folder: no caching, the run goes on
        pass


def convert_apart(convert):
    """`convert()` (a tokenizer's conversion) in a forked child process where the platform forks:
    a conversion imports transformers (and torch) and leaves hundreds of MB behind, which this
    process would keep and share with the workers it forks; it reads the converted tokenizer back
    instead. Where the child does not deliver it, the conversion runs here (its error is this
    process's). The child ends with this process, however this one ends (`end_with_parent`)."""
    from fairpairs.io.processes import end_with_parent

    if not hasattr(os, "fork"):
        return convert()
    with tempfile.TemporaryDirectory(prefix="fairpairs-convert-") as tmp:
        out = Path(tmp) / "tokenizer.json"
        parent = os.getpid()
        with tokenizer_threads_off():
            pid = os.fork()
        if pid == 0:     # the child: convert, write, end (no cleanup of the parent's runs here)
            code = 1
            try:
                end_with_parent(parent)
                out.write_text(convert().to_str(), encoding="utf-8")
                code = 0
            finally:
                os._exit(code)
        if os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0:
            from tokenizers import Tokenizer

            try:
                return Tokenizer.from_file(str(out))
            except Exception:    # (the Rust library's own exception type: convert here)
                pass
    return convert()


@contextmanager
def tokenizer_threads_off():
    """TOKENIZERS_PARALLELISM=false while processes are forked from this one: the Rust tokenizers
    warn in a forked child once this process has used their thread pool, unless it is set (a forked
    worker encodes one batch at a time anyway). This process's own setting is put back after."""
    before = os.environ.get("TOKENIZERS_PARALLELISM")
    os.environ["TOKENIZERS_PARALLELISM"] = "false"
    try:
        yield
    finally:
        if before is None:
            del os.environ["TOKENIZERS_PARALLELISM"]
        else:
            os.environ["TOKENIZERS_PARALLELISM"] = before
