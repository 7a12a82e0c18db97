"""Tokenising sentences for scoring, and the forward-pass rows of causal and masked scoring.

Causal: the sentence string as written is tokenised with no special tokens, and one prefix token
(`prefix_token_id`: the BOS id, else EOS) is prepended by us, never by the tokenizer, so there is
exactly one and the first word is scored. Masked: the tokenizer's own template adds [CLS]/[SEP] (<s>/</s>); special tokens are
never masked or scored. Either way the content tokens are exactly those counted by
`fairpairs.tokenization.lengths.LengthMeter`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, NamedTuple

import numpy as np

from fairpairs.errors import Param, DatasetError, UsageError
from fairpairs.scoring.batching import Rows
from fairpairs.scoring.models import ModelError
from fairpairs.scoring import check_pll



@dataclass
class Encoded:
    """Tokenised sentences: model input ids and where their content tokens are."""

    ids: list[np.ndarray]       # model input per sentence (BOS or [CLS]/[SEP] included)
    content: list[np.ndarray]   # positions of the content tokens in ids
    words: list[np.ndarray]     # word number (0, 1, ...) of each content token
    offsets: list[list]         # (start, end) character span of each content token

    def padded(self, pad_id: int) -> tuple[np.ndarray, np.ndarray]:
        lengths = np.array([len(i) for i in self.ids], dtype=np.int64)
        out = np.full((len(self.ids), int(lengths.max(initial=1))), pad_id, dtype=np.int64)
        for k, ids in enumerate(self.ids):
            out[k, :len(ids)] = ids
        return out, lengths

    def subset(self, idx) -> Encoded:
        """The sentences at `idx`, in that order."""
        return Encoded([self.ids[i] for i in idx], [self.content[i] for i in idx],
                       [self.words[i] for i in idx], [self.offsets[i] for i in idx])

    def out_ptr(self) -> np.ndarray:
        """Start of each sentence's content tokens in the flat output array (plus the end)."""
        return np.concatenate([[0], np.cumsum([len(c) for c in self.content])]).astype(np.int64)


def check_sentences(sentences) -> list[str]:
    """`sentences` (an iterable of non-empty strings that are text) as a list; else a fairpairs
    error naming `sentences` (a TypeError where it is not a list of strings at all)."""
    from fairpairs.errors import UsageTypeError
    from fairpairs.records import check_text

    if isinstance(sentences, str):
        raise UsageError(Param("sentences"), ": expected a list of strings, got one string")
    if sentences is None or isinstance(sentences, (bytes, bytearray)) or not hasattr(sentences, "__iter__"):
        raise UsageTypeError(Param("sentences"), f": expected a list of strings, not {type(sentences).__name__}",
                             value=sentences)
    sentences = list(sentences)
    for i, s in enumerate(sentences):
        if not isinstance(s, str):
            raise DatasetError(f"sentence {i}: expected a string, got {type(s).__name__}")
        if not s.strip():
            raise DatasetError(f"sentence {i}: is empty")
        check_text(s, (f"sentence {i}",), "")
    return sentences


def _renumber(word_ids) -> np.ndarray:
    out, last, k = [], object(), -1
    for w in word_ids:
        if w != last:
            k += 1
            last = w
        out.append(k)
    return np.asarray(out, dtype=np.int64)


def prefix_token_id(tokenizer, custom: int | None = None) -> int | None:
    """The token put before a sentence for causal scoring: `custom`, else the tokenizer's BOS id,
    else its EOS id (None if it has neither).

    This is lm-evaluation-harness' rule (`HFLM.prefix_token_id`: its `prefix_token_id=` model
    argument, else `bos_token_id`, else `eos_token_id`), which it applies to an empty context; with
    the `target_delimiter: ""` of the tasks `fairpairs publish` exports, lm-eval then scores exactly
    the tokens fairpairs scores. A model whose tokenizer names another BOS than the one fairpairs
    uses (the SmolLM2 GGUF) needs `prefix_token_id=` given to lm-eval.
    """
    if custom is not None:
        return int(custom)
    if tokenizer.bos_token_id is not None:
        return tokenizer.bos_token_id
    return tokenizer.eos_token_id


def encode(tokenizer, sentences: list[str], kind: str, bos_id: int | None, max_len: int | None) -> Encoded:
    """Tokenise for `kind` ('causal' or 'masked'); see the module docstring."""
    backend = tokenizer.backend_tokenizer
    encs = backend.encode_batch(sentences, add_special_tokens=(kind == "masked"))
    ids, content, words, offsets = [], [], [], []
    for i, e in enumerate(encs):
        e_ids = np.asarray(e.ids, dtype=np.int64)
        if kind == "causal":
            pos = np.arange(len(e_ids), dtype=np.int64) + 1
            e_ids = np.concatenate([[bos_id], e_ids])
            w_ids, offs = e.word_ids, e.offsets
        else:
            special = np.asarray(e.special_tokens_mask, dtype=bool)
            pos = np.nonzero(~special)[0].astype(np.int64)
            all_words, all_offsets = e.word_ids, e.offsets  # properties: build each list once
            w_ids = [all_words[p] for p in pos]
            offs = [all_offsets[p] for p in pos]
        if len(pos) == 0:
            raise DatasetError(f"sentence {i} ({sentences[i]!r}): has no tokens")
        if max_len and len(e_ids) > max_len:
            raise ModelError(f"sentence {i}: {len(e_ids)} tokens, more than the model's {max_len}")
        ids.append(e_ids)
        content.append(pos)
        words.append(_renumber(w_ids))
        offsets.append(list(offs))
    return Encoded(ids, content, words, offsets)


def _flat(enc: Encoded):
    """Flat content-token arrays: sentence, position, token id, and word/sentence [start, end)."""
    ptr = enc.out_ptr()
    total = int(ptr[-1])
    sent = np.repeat(np.arange(len(enc.ids)), np.diff(ptr))
    pos = np.concatenate(enc.content) if total else np.zeros(0, np.int64)
    tok = np.concatenate([i[c] for i, c in zip(enc.ids, enc.content)]) if total else pos
    word = np.concatenate(enc.words) if total else pos
    new = np.ones(total, dtype=bool)
    new[1:] = (sent[1:] != sent[:-1]) | (word[1:] != word[:-1])
    starts = np.nonzero(new)[0]
    ends = np.append(starts[1:], total)
    wnum = np.cumsum(new) - 1
    return sent, pos, tok, starts, ends, wnum, ptr


def _rows(sent, ms, me, ts, te, pos, tok, shift=0) -> Rows:
    """Rows whose masks are flat content tokens [ms, me) and targets [ts, te)."""
    mptr = np.concatenate([[0], np.cumsum(me - ms)]).astype(np.int64)
    tptr = np.concatenate([[0], np.cumsum(te - ts)]).astype(np.int64)
    rows = np.arange(len(sent))
    midx = ranges_from(ms, me, mptr, rows)
    tidx = ranges_from(ts, te, tptr, rows)
    return Rows(sent.astype(np.int64), mptr, pos[midx], tptr, pos[tidx] - shift, tok[tidx], tidx)


def ranges_from(start, end, ptr, rows) -> np.ndarray:
    lens = end - start
    return (np.repeat(start - ptr[:-1], lens) + np.arange(int(ptr[-1]))).astype(np.int64)


class Flat(NamedTuple):
    """The content tokens of a batch, flat: sentence, position and id of each; word starts and
    ends; each token's word number; per-sentence pointers; `j` = 0..n-1."""
    sent: np.ndarray
    pos: np.ndarray
    tok: np.ndarray
    starts: np.ndarray
    ends: np.ndarray
    wnum: np.ndarray
    ptr: np.ndarray
    j: np.ndarray


@dataclass(frozen=True)
class PLLVariant:
    """A pseudo-log-likelihood variant (registered in `fairpairs.registry.PLL_VARIANTS`): `rows`
    turns the flat content tokens into forward-pass rows (`row(flat, mask_start, mask_end,
    target_start, target_end)` builds them from flat token ranges); `per_word`: one row per word
    instead of one per token (what a row costs, for batching)."""

    rows: Callable[[Flat], Rows]
    per_word: bool = False
    doc: str = ""


def row(f: Flat, ms, me, ts, te) -> Rows:
    """Rows masking flat content tokens [ms, me) and predicting [ts, te), one row per element (the
    sentence of a row is its first target's)."""
    return _rows(f.sent[ts], ms, me, ts, te, f.pos, f.tok)


ORIGINAL = PLLVariant(lambda f: row(f, f.j, f.j + 1, f.j, f.j + 1), doc="mask t alone (Salazar et al. 2020)")
WORD_L2R = PLLVariant(lambda f: row(f, f.j, f.ends[f.wnum], f.j, f.j + 1),
                      doc="mask t and the later tokens of its word (Kauf & Ivanova 2023; the default)")
SENTENCE_L2R = PLLVariant(lambda f: row(f, f.j, f.ptr[f.sent + 1], f.j, f.j + 1),
                          doc="mask t and every later content token")
WHOLE_WORD = PLLVariant(lambda f: row(f, f.starts, f.ends, f.starts, f.ends), per_word=True,
                        doc="mask all tokens of a word; one row scores all of them")


def masked_rows(enc: Encoded, variant: str) -> Rows:
    """Forward-pass rows of PLL `variant` (a name of `fairpairs.registry.PLL_VARIANTS`); for
    content token t the mask set M(t) is original: {t}; word_l2r: t and the later tokens of its
    word; whole_word: all tokens of t's word (one row per word scores all of them); sentence_l2r:
    t and every later content token."""
    from fairpairs.registry import PLL_VARIANTS

    check_pll(variant)
    sent, pos, tok, starts, ends, wnum, ptr = _flat(enc)
    return PLL_VARIANTS.get(variant).rows(Flat(sent, pos, tok, starts, ends, wnum, ptr, np.arange(len(pos))))


def causal_rows(enc: Encoded) -> Rows:
    """One row per sentence: every content token is predicted from the position before it."""
    sent, pos, tok, _, _, _, ptr = _flat(enc)
    s = np.arange(len(enc.ids))
    return _rows(s, ptr[:-1], ptr[:-1], ptr[:-1], ptr[1:], pos, tok, shift=1)
