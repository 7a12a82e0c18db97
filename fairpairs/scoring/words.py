"""Word-level log-probabilities with the beginning-of-word correction, and per-token entropies,
from one causal forward pass.

**The correction** (Oh & Schuler 2024; Pimentel & Meister 2024). A tokenizer that marks the
*beginning* of a word on its first token (byte-level BPE: ``Ġcat``; SentencePiece: ``▁cat``) decides
that a word has *ended* only when the *next* token starts with white space. The probability of a
word w after a context c is therefore not the product of its tokens' probabilities but

    P(w | c) = P(tokens of w | c) * B(c + w) / B(c)

where B(x) = P(the next token begins a word, or ends the text | x): the sum of the next-token
probabilities over the set `begin_ids` (every token whose text starts with white space, plus the
end-of-text tokens). The factor B(c + w) says that w is complete; dividing by B(c) removes the
"a new word begins" event that w's own first token (``Ġcat``) already carries. When the first
token of w carries no such mark (the first word of a sentence written without a leading space
under byte-level BPE: ``The``), there is nothing to divide by. For SentencePiece models the first
word does carry the mark (its dummy prefix ``▁The``), so B(BOS) is divided out.

Summed over a sentence the factors telescope:

    word LP = LP + log B(whole sentence) - [first token marked] * log B(BOS)

and the words are the white-space separated chunks ("mat." is one word: the final "." has no
mark). `word_logprobs` gives the per-word values.

**Entropy**: H_t = -sum_v P(v | x_<t) log P(v | x_<t), the model's expected surprisal at the
position that predicts content token t; -H_t is the model's own expectation of log P(x_t | x_<t),
so sum_t (log P(x_t | x_<t) + H_t) is a sentence score whose expected value is 0 at any length
(`centered_lp`, docs/robustness.md).

Only causal LMs have these quantities (a masked LM's PLL already conditions on the whole word);
asking a masked scorer for them is a ModelError.
"""

from __future__ import annotations

import re
import weakref
from dataclasses import dataclass

import numpy as np

from fairpairs.errors import Param, ModelError

# scorer -> its begin_mask (with its EOS and start token), computed once per scorer
_BEGIN_MASKS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _byte_chars() -> dict[int, str]:
    """GPT-2's byte -> printable character map (bytes_to_unicode): byte-level BPE writes byte b as
    this character, so a space is 'Ġ' and a newline 'Ċ'."""
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + \
        list(range(ord("®"), ord("ÿ") + 1))
    out, n = {}, 0
    for b in range(256):
        if b in keep:
            out[b] = chr(b)
        else:
            out[b] = chr(256 + n)
            n += 1
    return out


def word_marker(tokenizer) -> str:
    """'byte_level' (Ġ-marked, GPT-2 style) or 'sentencepiece' (▁-marked), read from the vocabulary:
    the scheme whose mark starts more tokens (at least 5% of the vocabulary). Any other tokenizer
    (BERT's ## continuation marks) is a ModelError: it does not mark word beginnings."""
    vocab = tokenizer.get_vocab()
    space = _byte_chars()[32]
    g = sum(1 for t in vocab if t.startswith(space))
    s = sum(1 for t in vocab if t.startswith("▁"))
    if max(g, s) < 0.05 * max(len(vocab), 1):
        raise ModelError("word-level scores: the tokenizer marks no word beginnings (neither byte-level "
                         "BPE's 'Ġ' nor SentencePiece's '▁' starts 5% of its tokens)")
    return "byte_level" if g >= s else "sentencepiece"


def _token_text(token: str, marker: str, byte_of: dict[str, int]) -> str:
    """The text a vocabulary entry stands for (its bytes decoded as UTF-8, invalid bytes replaced)."""
    if marker == "byte_level":
        if any(ch not in byte_of for ch in token):
            return token                           # an added token written as text
        return bytes(byte_of[ch] for ch in token).decode("utf-8", errors="replace")
    m = re.fullmatch(r"<0x([0-9A-Fa-f]{2})>", token)
    if m:
        return bytes([int(m.group(1), 16)]).decode("utf-8", errors="replace")
    return token.replace("▁", " ")


def begin_mask(tokenizer, end_ids=()) -> np.ndarray:
    """Boolean mask over the model's token ids: True for every token whose text starts with white
    space (str.isspace: it begins a new word) and for `end_ids` (end of text: the word ends there
    too). The text of a byte-level token is its bytes decoded; of a SentencePiece piece, the piece
    with ▁ read as a space (byte-fallback pieces <0xNN> as their byte)."""
    marker = word_marker(tokenizer)
    byte_of = {c: b for b, c in _byte_chars().items()}
    vocab = tokenizer.get_vocab()
    size = max(max(vocab.values(), default=-1) + 1, len(tokenizer))
    mask = np.zeros(size, dtype=bool)
    for tok, i in vocab.items():
        if _token_text(tok, marker, byte_of)[:1].isspace():
            mask[i] = True
    for i in end_ids:
        if i is not None and 0 <= int(i) < size:
            mask[int(i)] = True
    return mask


@dataclass
class TokenStats:
    """Per sentence: content-token log-probabilities `lp` (n), the log-probability that a new word
    begins (or the text ends) after the BOS and after every content token `begin` (n + 1), the
    entropy of the distribution that predicts each content token `entropy` (n), and whether each
    content token carries a word-beginning mark `marked` (n)."""

    lp: np.ndarray
    begin: np.ndarray
    entropy: np.ndarray
    marked: np.ndarray

    @property
    def word_correction(self) -> float:
        """log B(sentence) - [first token marked] * log B(BOS): word LP minus LP."""
        return float(self.begin[-1] - (self.begin[0] if self.marked[0] else 0.0))

    @property
    def n_words(self) -> int:
        """White-space words: the first token and every marked token after it begin one."""
        return int(1 + self.marked[1:].sum())


def check_causal(scorer) -> None:
    if getattr(scorer, "kind", None) != "causal":
        raise ModelError(Param("model"), f" {getattr(scorer, 'name', '')}", reason=f"word-level and entropy scores need a causal LM "
                         f"(a masked LM's pseudo-log-likelihood has no next-token distribution)")


def scorer_begin_mask(scorer) -> np.ndarray:
    """`begin_mask` of the scorer's tokenizer, with its EOS and the start token it puts before
    every sentence (both end a text), computed once per scorer."""
    mask = _BEGIN_MASKS.get(scorer)
    if mask is None:
        mask = begin_mask(scorer.tokenizer, (scorer.tokenizer.eos_token_id, scorer.bos_id))
        _BEGIN_MASKS[scorer] = mask
    return mask


def token_stats(scorer, sentences: list[str]) -> list[TokenStats]:
    """`TokenStats` of every sentence, from one forward pass per sentence (batched by length under
    the scorer's token budget, longest first; a progress bar over batches)."""
    import torch
    from tqdm.auto import tqdm

    from fairpairs.scoring.batching import plan_batches
    from fairpairs.scoring.encoding import check_sentences

    check_causal(scorer)
    sentences = check_sentences(sentences)
    if not sentences:
        return []
    enc = scorer.encode(sentences)
    mask = scorer_begin_mask(scorer)
    padded, lengths = enc.padded(scorer.pad_id)
    batches = plan_batches(lengths, scorer.batch_tokens)
    fwd = scorer.forward
    dev = torch.device(scorer.device)
    from fairpairs.io.progress import wanted

    show = wanted()
    out: list[TokenStats | None] = [None] * len(sentences)
    marked_of = mask.copy()
    for e in (scorer.tokenizer.eos_token_id, scorer.bos_id):   # (end-of-text ids are no word marks)
        if e is not None and 0 <= e < len(marked_of):
            marked_of[e] = False
    with torch.inference_mode():
        for batch in tqdm(batches, desc="causal+words", unit="batch", leave=False, disable=True if not show else None):
            width = int(lengths[batch].max())
            ids = torch.from_numpy(np.ascontiguousarray(padded[batch, :width])).to(dev)
            att = torch.from_numpy((np.arange(width)[None, :] < lengths[batch][:, None]).astype(np.int64)).to(dev)
            rows = np.repeat(np.arange(len(batch)), lengths[batch])
            cols = np.concatenate([np.arange(n) for n in lengths[batch]])
            states, head = fwd.states(ids, att)
            states = states[torch.from_numpy(rows).to(states.device), torch.from_numpy(cols).to(states.device)]
            nxt = np.full(len(rows), -1, dtype=np.int64)   # the token each position predicts (-1: none)
            nxt_ok = cols + 1 < lengths[batch][rows]
            nxt[nxt_ok] = padded[batch[rows[nxt_ok]], cols[nxt_ok] + 1]
            lp, begin, ent = _position_stats(states, head, fwd.chunk, nxt, mask)
            start = 0
            for k, s in enumerate(batch):
                n = int(lengths[s])
                seg = slice(start, start + n)
                content = enc.ids[s][enc.content[s]]
                out[s] = TokenStats(lp=lp[seg][:-1].copy(), begin=begin[seg].copy(), entropy=ent[seg][:-1].copy(),
                                    marked=marked_of[content])
                start += n
    return out   # type: ignore[return-value]


def _position_stats(states, head, chunk: int, nxt: np.ndarray, mask: np.ndarray):
    """For every position: log P(next token) (NaN where there is none), log P(next token in
    `mask`), and the entropy of the next-token distribution."""
    import torch

    lps, begins, ents = [], [], []
    m = None
    for i in range(0, states.shape[0], chunk):
        logits = states[i:i + chunk]
        if head is not None:
            logits = head(logits)
        logits = logits.float()
        if m is None:
            vocab = logits.shape[-1]
            full = np.zeros(vocab, dtype=bool)
            full[:min(vocab, len(mask))] = mask[:vocab]
            m = torch.from_numpy(full).to(logits.device)
        log_z = torch.logsumexp(logits, dim=-1)
        logp = logits - log_z[:, None]
        probs = logp.exp()
        ents.append(-(probs * logp).sum(-1))
        begins.append(torch.logsumexp(logp[:, m], dim=-1))
        tgt = torch.from_numpy(np.maximum(nxt[i:i + chunk], 0)).to(logits.device)
        got = logp.gather(1, tgt[:, None]).squeeze(1)
        got = torch.where(torch.from_numpy(nxt[i:i + chunk] >= 0).to(logits.device), got,
                          torch.full_like(got, float("nan")))
        lps.append(got)
    cat = [torch.cat(x).double().cpu().numpy() for x in (lps, begins, ents)]
    return cat[0], cat[1], cat[2]


def word_logprobs(scorer, sentence: str) -> list[tuple[str, float]]:
    """(word, corrected log-probability) for every white-space word of one causal-scored sentence
    (the module docstring's formula); they sum to LP + `TokenStats.word_correction`."""
    from fairpairs.io.progress import suppressed

    with suppressed():
        stats = token_stats(scorer, [sentence])[0]
    enc = scorer.encode([sentence])
    offsets = enc.offsets[0]
    starts = [0] + [t for t in range(1, len(stats.lp)) if stats.marked[t]]
    bounds = starts + [len(stats.lp)]
    out = []
    for a, b in zip(bounds[:-1], bounds[1:]):
        value = float(stats.lp[a:b].sum() + stats.begin[b] - (stats.begin[a] if stats.marked[a] else 0.0))
        text = sentence[offsets[a][0]:offsets[b - 1][1]].strip()
        out.append((text, value))
    return out
