"""Whether a tokenizer's pipeline lets no token cross a space (`splits_at_spaces`), so that a
sentence's token count is the sum of its space-separated chunks' counts (`LengthMeter`): read from
the tokenizer's normalizer, pre-tokenizer and added tokens, each serialised alone (not the whole
tokenizer with its vocabulary)."""

from __future__ import annotations

import json

_CHAR_NORMALIZERS = {"BertNormalizer", "Lowercase", "NFC", "NFD", "NFKC", "NFKD", "StripAccents"}
_SPLITTING = {"ByteLevel", "BertPreTokenizer", "Whitespace", "WhitespaceSplit", "Metaspace"}
_FURTHER = {"Punctuation", "Digits", "UnicodeScripts", "Split", "CharDelimiterSplit"} | _SPLITTING


def _component(part) -> dict | None:
    """The tokenizer.json section of one part of a backend (its normalizer, pre-tokenizer): the part
    serialised alone, not the whole tokenizer with its vocabulary (~100 MB for Qwen's)."""
    return None if part is None else json.loads(part.__getstate__())


def splits_at_spaces(backend) -> bool:
    """Whether no token of this tokenizer can span a space (see LengthMeter)."""
    norm = _component(backend.normalizer)
    norms = (norm.get("normalizers") or [] if norm and norm.get("type") == "Sequence" else [norm] if norm else [])
    if any(n.get("type") not in _CHAR_NORMALIZERS for n in norms):
        return False
    pre = _component(backend.pre_tokenizer)
    if not pre:
        return False
    pres = pre.get("pretokenizers") or [] if pre.get("type") == "Sequence" else [pre]

    def splits(p: dict) -> bool:
        t = p.get("type")
        if t == "ByteLevel":
            return p.get("use_regex", True)
        if t == "Metaspace":
            return p.get("split", True) or _pieces_start_at_spaces(backend)
        if t == "Split":   # GPT-2-family regexes (tiktoken, Llama-3, Qwen, DeepSeek): a space only starts a piece
            return (p.get("behavior") == "Isolated" and not p.get("invert")
                    and r"\s+(?!\S)" in (p.get("pattern") or {}).get("Regex", ""))
        return t in {"BertPreTokenizer", "Whitespace", "WhitespaceSplit"}

    if not any(splits(p) for p in pres) or any(p.get("type") not in _FURTHER for p in pres):
        return False
    return not any(" " in a.content for a in backend.get_added_tokens_decoder().values())


def _pieces_start_at_spaces(backend) -> bool:
    """Whether a Metaspace tokenizer that does not split at "▁" (transformers' Llama / Mistral
    sentencepiece BPE) still cannot make a token across one: a BPE model whose vocabulary has "▁"
    only at the start of a piece (or pieces of "▁" alone), as sentencepiece's split_by_whitespace
    training gives, never merges across it."""
    if type(backend.model).__name__ != "BPE":
        return False
    return all(t.find("▁", 1) < 0 or not t.strip("▁") for t in backend.get_vocab(with_added_tokens=False))
