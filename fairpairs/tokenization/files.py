"""Checking a tokenizer file before it is loaded (a tokenizer.json, a Tekken json, a tiktoken ranks
file, a sentencepiece model), so that a damaged or wrong file is one line naming it, never a
library's traceback."""

from __future__ import annotations

import json
import re
from pathlib import Path
from fairpairs.errors import Param, TokenizerError
from fairpairs.tokenization.sources import TokenizerSource


def check_file(src: TokenizerSource) -> None:
    """Before a library reads a tokenizer file: that it is what its kind says, so that a wrong
    file is one line saying what it is not ("not a tokenizer.json"), not a parser's position or
    a KeyError from a converter."""
    path = Path(src.path)
    if src.kind == "tokenizer.json" or (src.kind == "folder" and src.tokenizer_json is not None):
        _check_tokenizer_json(src.tokenizer_json, src.name)
    elif src.kind == "tekken":
        _check_tekken(path, src.name)
    elif src.kind == "tiktoken":
        _check_ranks(path, src.name)


def _read_json(path: Path, name: str, what: str):
    from fairpairs.io.jsonl import json_error

    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise TokenizerError(Param("models"), f" {name}", value=name, reason=f"{path} is not UTF-8 text (byte {exc.start}), not {what}") from None
    except json.JSONDecodeError as exc:
        raise TokenizerError(Param("models"), f" {name}", value=name, reason=f"{path} is not valid JSON ({json_error(exc)}), so not "
                             f"{what}") from None


def _check_tokenizer_json(path: Path, name: str) -> None:
    doc = _read_json(path, name, "a tokenizer.json")
    model = doc.get("model") if isinstance(doc, dict) else None
    if not isinstance(model, dict) or not isinstance(model.get("vocab"), (dict, list)):
        keys = ", ".join(list(doc)[:5]) if isinstance(doc, dict) else f"a JSON {type(doc).__name__}"
        raise TokenizerError(Param("models"), f" {name}", value=name, reason=f"{path} is not a tokenizer.json (no 'model' with a 'vocab'; "
                             f"it has {keys or 'nothing'}): a JSON file of another kind?")


def _check_tekken(path: Path, name: str) -> None:
    doc = _read_json(path, name, "a Tekken tokenizer file")
    config = doc.get("config") if isinstance(doc, dict) else None
    problem = None
    if not isinstance(config, dict) or not isinstance(config.get("pattern"), str):
        problem = "no 'config.pattern' (the split regex)"
    elif not isinstance(doc.get("vocab"), list) or not doc["vocab"] or \
            not all(isinstance(v, dict) and isinstance(v.get("token_bytes"), str) for v in doc["vocab"]):
        problem = "no 'vocab' list of {'token_bytes': ...} entries"
    elif doc.get("special_tokens") is not None and not (
            isinstance(doc["special_tokens"], list)
            and all(isinstance(t, dict) and isinstance(t.get("rank"), int) and "token_str" in t
                    for t in doc["special_tokens"])):
        problem = "'special_tokens' is not a list of {'rank': ..., 'token_str': ...} entries"
    if problem:
        raise TokenizerError(Param("models"), f" {name}", value=name, reason=f"{path} is not a Mistral Tekken tokenizer file ({problem})")


_RANK_LINE = re.compile(r"^[A-Za-z0-9+/]+={0,2} \d+$")


def _check_ranks(path: Path, name: str) -> None:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise TokenizerError(Param("models"), f" {name}", value=name, reason=f"{path} is not UTF-8 text (byte {exc.start}), so not a tiktoken "
                             f"ranks file") from None
    for no, line in enumerate(lines, 1):
        if line.strip() and not _RANK_LINE.match(line.rstrip("\r")):
            shown = line if len(line) <= 40 else line[:40] + "..."
            raise TokenizerError(Param("models"), f" {name}", value=name, reason=f"{path}:{no}: not a tiktoken rank line "
                                 f"('<base64 token> <rank>'): {shown!r}")
    if not any(ln.strip() for ln in lines):
        raise TokenizerError(Param("models"), f" {name}", value=name, reason=f"{path} holds no ranks")


def sentencepiece_tokenizer(path: Path):
    """A sentencepiece BPE model of the Llama-2 / Mistral kind, converted by transformers' Llama
    converter. The model's own normalisation is checked first: the converter reproduces
    sentencepiece exactly only for models that add the dummy prefix, keep extra whitespace and
    apply no character map (other sentencepiece models: convert them to a tokenizer.json)."""
    from sentencepiece import sentencepiece_model_pb2
    from transformers import LlamaTokenizer

    proto = sentencepiece_model_pb2.ModelProto()
    not_ours = ("not a tokenizer file fairpairs can read (expected a tokenizer.json, a Tekken json, a tiktoken "
                "ranks file or a sentencepiece model)")
    try:
        proto.ParseFromString(path.read_bytes())
    except Exception:
        raise TokenizerError(Param("models"), f" {path}", value=path, reason=not_ours) from None
    if not proto.pieces:    # (an empty or unrelated file can parse as a message with no fields)
        raise TokenizerError(Param("models"), f" {path}", value=path,
                             reason=not_ours + "; read as a sentencepiece model it has no pieces")
    ns, ts = proto.normalizer_spec, proto.trainer_spec
    why = [w for w, bad in (("a Unigram model", ts.model_type != 2),
                            ("no dummy prefix", not ns.add_dummy_prefix),
                            ("extra whitespace removed", ns.remove_extra_whitespaces),
                            (f"character map {ns.name!r}", bool(ns.precompiled_charsmap))) if bad]
    if why:
        raise TokenizerError(Param("models"), f" {path}", value=path, reason=f"sentencepiece model with {', '.join(why)}; "
                             f"only BPE models with Llama-2 / Mistral normalisation are read directly "
                             f"(save it as a tokenizer.json with transformers instead)")
    vocab_file = path
    if not path.name.endswith(".model"):  # transformers recognises sentencepiece files by this suffix
        import tempfile

        link = Path(tempfile.mkdtemp(prefix="fairpairs-spm-")) / "tokenizer.model"
        link.symlink_to(path.resolve())
        vocab_file = link
    try:
        return LlamaTokenizer(**LlamaTokenizer.convert_to_native_format(vocab_file=str(vocab_file)))
    finally:
        if vocab_file != path:
            vocab_file.unlink()
            vocab_file.parent.rmdir()
