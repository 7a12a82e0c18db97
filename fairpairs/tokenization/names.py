"""The local tokenizer map ($FAIRPAIRS_TOKENIZER_MAP: a JSON file of name -> file, read again when
it changes) and sniffing what kind of tokenizer file a path is (tokenizer.json, Tekken, tiktoken
ranks, sentencepiece, GGUF)."""

from __future__ import annotations

import re
from pathlib import Path
from fairpairs.environment import TOKENIZER_MAP
from fairpairs.errors import TokenizerError


def load_map() -> tuple[dict, str] | tuple[None, None]:
    """The local tokenizer map ({name: {"file": ..., "pattern": ...}}, names lower-cased) and the
    file it was read from; (None, None) when $FAIRPAIRS_TOKENIZER_MAP is not set. Read again only
    when the file changes; a broken map is a TokenizerError naming it."""
    path = TOKENIZER_MAP.read()
    if path is None:
        return None, None
    return _read_map(str(path.resolve()) if path.exists() else str(path), _mtime(path)), str(path)


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return -1.0


_MAPS: dict[tuple[str, float], dict] = {}


def _read_map(path: str, mtime: float) -> dict:
    key = (path, mtime)
    if key in _MAPS:
        return _MAPS[key]
    if mtime < 0:
        raise TokenizerError(f"${TOKENIZER_MAP.name}={path}: no such file")
    import yaml

    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise TokenizerError(f"${TOKENIZER_MAP.name}={path}: cannot read it as YAML or JSON "
                             f"({str(exc).splitlines()[0] if str(exc) else type(exc).__name__})") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise TokenizerError(f"${TOKENIZER_MAP.name}={path}: expected a mapping of tokenizer names to sources")
    out = {}
    for k, v in data.items():
        if isinstance(v, str):
            file, at, pname = v.rpartition("@")
            entry = {"file": file, "pattern": pname} if at and not Path(v).expanduser().exists() else {"file": v}
        elif isinstance(v, dict) and isinstance(v.get("file"), str) and set(v) <= {"file", "pattern"}:
            entry = dict(v)
        else:
            raise TokenizerError(f"${TOKENIZER_MAP.name}={path}: entry {k!r}: expected a path or {{file: PATH, pattern: REGEX}}")
        f = Path(entry["file"]).expanduser()
        if not f.is_absolute() and not f.exists():
            f = Path(path).parent / f       # relative to the map file
        entry["file"] = str(f) if f.exists() else entry["file"]
        out[str(k).lower()] = entry
    _MAPS[key] = out
    return out


_TIKTOKEN_LINE = re.compile(rb"^[A-Za-z0-9+/]+={0,2} \d+\r?$")


def sniff(path: Path) -> str:
    """The kind of tokenizer file `path` is: "tokenizer.json", "tekken", "tiktoken" or "sentencepiece"
    (by content, not name: Llama-3's tokenizer.model is a tiktoken ranks file, Llama-2's a
    sentencepiece model); "empty" for an empty file and "text" for other text (a sentencepiece
    model is binary)."""
    with open(path, "rb") as fh:
        head = fh.read(4096)
    text = head.lstrip()
    if not text:
        return "empty"
    if text.startswith((b"{", b"[")):
        return "tekken" if re.match(rb'\{\s*"config"\s*:', text) else "tokenizer.json"
    first = head.split(b"\n", 1)[0]
    if _TIKTOKEN_LINE.match(first):
        return "tiktoken"
    if b"\0" not in head and _is_text(head):
        return "text"
    return "sentencepiece"


def _is_text(head: bytes) -> bool:
    """Whether the first bytes of a file are UTF-8 text (a multi-byte character cut at the end
    aside) with no control characters but line ends and tabs."""
    text = head.decode("utf-8", "ignore")
    if len(text.encode("utf-8")) < len(head) - 3:
        return False
    return all(ch.isprintable() or ch in "\r\n\t" for ch in text)
