"""Split a LM into its body and its output head, so the head runs only where a score is read.

For masked LMs the head (BERT's transform + decoder, RoBERTa's lm_head, ELECTRA's generator
predictions + lm head, ...) is applied to the hidden states gathered at the masked target
positions instead of every position; for causal LMs it runs on non-padding positions only, in
chunks so a large vocabulary never materialises [batch, length, vocab] logits. A split is used only
after a probe shows it reproduces the full model's logits; otherwise the full forward is used.
"""

from __future__ import annotations

import warnings

import torch
from torch import nn

from fairpairs.errors import FairpairsWarning

# masked-LM head attribute names, applied in order to the body's last hidden state
MASKED_HEADS = (
    ("cls",),                                            # BERT, DeBERTa
    ("lm_head",),                                        # RoBERTa, XLM-R, CamemBERT
    ("generator_predictions", "generator_lm_head"),      # ELECTRA generator
    ("vocab_transform", "activation", "vocab_layer_norm", "vocab_projector"),  # DistilBERT
    ("predictions",),                                    # ALBERT
    ("head", "decoder"),                                 # ModernBERT
)
# logits of at most this many bytes at a time: cache-sized on the CPU (measured fastest), large on a GPU
HEAD_CHUNK_BYTES = {"cpu": 8 * 2**20, "gpu": 256 * 2**20}


def _body(model):
    prefix = getattr(model, "base_model_prefix", "")
    body = getattr(model, prefix, None) if prefix else None
    return body if isinstance(body, nn.Module) and body is not model else None


def _masked_head(model):
    for names in MASKED_HEADS:
        mods = [getattr(model, n, None) for n in names]
        if all(isinstance(m, nn.Module) for m in mods):
            return mods[0] if len(mods) == 1 else nn.Sequential(*mods)
    return None


def _cache_arg(module) -> str:
    """The name under which `module.forward` takes a key/value cache: `cache` (transformers >= 5.2x),
    else `past_key_values`."""
    import inspect

    return "cache" if "cache" in inspect.signature(module.forward).parameters else "past_key_values"


class Forward:
    """Callable (input_ids, attention_mask, tgt_row, tgt_pos, tgt_id) -> log P(tgt_id) per target."""

    def __init__(self, model, kind: str, device: str = "cpu"):
        self.model = model
        self.kind = kind
        self.body = _body(model)
        self.head = _masked_head(model) if kind == "masked" else model.get_output_embeddings()
        vocab = getattr(model.config, "vocab_size", None) or 50000
        budget = HEAD_CHUNK_BYTES["cpu" if str(device) == "cpu" else "gpu"]
        self.chunk = max(16, budget // (4 * vocab))
        self.split = self.body is not None and isinstance(self.head, nn.Module)

    def hidden(self, ids, att):
        """The body's last hidden states."""
        kw = {"use_cache": False} if self.kind == "causal" else {}
        out = self.body(input_ids=ids, attention_mask=att, **kw)
        return out[0] if isinstance(out, tuple) else out.last_hidden_state

    def full_logits(self, ids, att):
        """The whole model's logits (every position, every token)."""
        kw = {"use_cache": False} if self.kind == "causal" else {}
        return self.model(input_ids=ids, attention_mask=att, **kw).logits

    def states(self, ids, att):
        """What the head turns into logits, and that head: the hidden states and the LM head when
        the split is used, else the full logits and None."""
        if self.split:
            return self.hidden(ids, att), self.head
        return self.full_logits(ids, att), None

    @torch.inference_mode()
    def __call__(self, ids, att, trow, tpos, tid):
        states, head = self.states(ids, att)
        return self.read(states, head, trow, tpos, tid)

    def cached(self, ids, att, positions, cache):
        """What `states` returns, for `ids` continuing the key/value `cache` (filled in place):
        `att` covers the cached positions and `ids`, `positions` are the tokens' positions."""
        module = self.body if self.split else self.model
        kw = {_cache_arg(module): cache, "use_cache": True, "position_ids": positions}
        if self.split:
            out = self.body(input_ids=ids, attention_mask=att, **kw)
            return (out[0] if isinstance(out, tuple) else out.last_hidden_state), self.head
        return self.model(input_ids=ids, attention_mask=att, **kw).logits, None

    def read(self, states, head, trow, tpos, tid):
        """log P(tid) at (trow, tpos) of `states` (hidden states that `head` turns into logits, or
        logits when `head` is None): the head runs on those positions alone, in chunks."""
        # with a device map (accelerate) the last hidden states and the head may sit on other GPUs
        # than the inputs: index where the tensor is
        states = states[trow.to(states.device), tpos.to(states.device)]
        out = []
        for i in range(0, states.shape[0], self.chunk):
            logits = states[i:i + self.chunk]
            if head is not None:
                logits = head(logits)
            logits = logits.float()
            tgt = tid[i:i + self.chunk].to(logits.device)
            out.append(logits.gather(1, tgt[:, None]).squeeze(1) - torch.logsumexp(logits, dim=-1))
        return torch.cat([o.to(trow.device) for o in out]) if out else torch.zeros(0, device=trow.device)

    def probe(self, ids, att, trow, tpos, tid, tol: float) -> None:
        """Compare the split path with the full model on a sample batch; fall back if they differ."""
        if not self.split:
            return
        fast = self(ids, att, trow, tpos, tid)
        self.split = False
        full = self(ids, att, trow, tpos, tid)
        diff = float((fast - full).abs().max()) if fast.numel() else 0.0
        if diff <= tol:
            self.split = True
        else:
            warnings.warn(f"{type(self.model).__name__}: the body/head split differs from the full "
                          f"model by {diff:.2g}; using the full (slower) forward pass", FairpairsWarning,
                          stacklevel=2)
