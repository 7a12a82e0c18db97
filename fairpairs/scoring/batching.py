"""Rows, length-bucketed batches under a token budget, and the batch loop (OOM-halving, progress).

A *row* is one forward pass input: one sentence's token ids, some positions replaced by the mask
token, and the positions whose hidden states feed the LM head (each with the token id to score
and the slot of the flat output array it fills). Causal scoring has one row per sentence; masked
scoring one row per distinct mask set. Rows are stored flat (CSR-style) so that a batch of
thousands of rows is assembled with a few numpy operations.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fairpairs.errors import Param
from fairpairs.scoring.models import ModelError

CPU_BUDGET = 2048  # tokens per batch on the CPU (measured fastest on 2 cores, tiny and base-size models)
GPU_BUDGET_CAP = 1 << 18


@dataclass
class Rows:
    """Flat description of every forward-pass row of one scoring call."""

    sent: np.ndarray        # (R,) sentence index of each row
    mask_ptr: np.ndarray    # (R+1,) row r masks positions mask_pos[mask_ptr[r]:mask_ptr[r+1]]
    mask_pos: np.ndarray
    tgt_ptr: np.ndarray     # (R+1,) row r reads tgt_* [tgt_ptr[r]:tgt_ptr[r+1]]
    tgt_pos: np.ndarray     # position whose hidden state predicts the target
    tgt_id: np.ndarray      # token id scored there
    tgt_out: np.ndarray     # index into the flat output array

    @property
    def n(self) -> int:
        return len(self.sent)


def ranges(ptr: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Flat indices of the CSR slices of `rows`, and the batch-row number of each."""
    starts, lens = ptr[rows], ptr[rows + 1] - ptr[rows]
    total = int(lens.sum())
    which = np.repeat(np.arange(len(rows)), lens)
    first = np.concatenate([[0], np.cumsum(lens)[:-1]]) if len(rows) else np.zeros(0, np.int64)
    idx = np.repeat(starts - first, lens) + np.arange(total)
    return idx.astype(np.int64), which


def plan_batches(lengths: np.ndarray, budget: int) -> list[np.ndarray]:
    """Group row indices into batches of similar length whose padded size stays within `budget`.

    Longest rows come first (an out-of-memory error shows at once); ties keep index order, so the
    plan depends only on the lengths. A row longer than the budget gets a batch of its own.
    """
    order = np.lexsort((np.arange(len(lengths)), -np.asarray(lengths)))
    batches, start = [], 0
    n = len(order)
    while start < n:
        width = int(lengths[order[start]])
        size = max(1, budget // max(width, 1))
        batches.append(order[start:start + size])
        start += size
    return batches


def auto_budget(model, device: str, dtype_bytes: int) -> int:
    """A token budget per batch: fixed on the CPU; on a GPU, from free memory and model width."""
    if not str(device).startswith("cuda"):
        return CPU_BUDGET
    import torch

    free, _ = torch.cuda.mem_get_info(torch.device(device))
    cfg = model.config
    hidden = getattr(cfg, "hidden_size", None) or getattr(cfg, "n_embd", 768)
    inter = getattr(cfg, "intermediate_size", None) or getattr(cfg, "n_inner", None) or 4 * hidden
    heads = getattr(cfg, "num_attention_heads", None) or getattr(cfg, "n_head", 12)
    # live activations of one layer per token, plus a (heads x 128) slice of attention scores
    per_token = dtype_bytes * (8 * hidden + 2 * inter) + 4 * heads * 128
    budget = int(free * 0.5 / per_token)
    return int(max(512, min(budget, GPU_BUDGET_CAP)))


def is_oom(exc: BaseException) -> bool:
    import torch

    if isinstance(exc, getattr(torch, "OutOfMemoryError", ())):
        return True
    return isinstance(exc, RuntimeError) and "out of memory" in str(exc).lower()


def halve_after_oom(exc: BaseException, device, budget: int, alone: str | None) -> int:
    """After `exc` in a batch: re-raised unless it is out of memory (CUDA's cache is emptied);
    a ModelError when the batch was one item (`alone` says what it was), else the halved budget."""
    if not is_oom(exc):
        raise exc
    if str(device).startswith("cuda"):
        import torch

        torch.cuda.empty_cache()
    if alone is not None:
        raise ModelError(f"out of memory on {alone}; use a smaller model or ", Param("dtype", quoted=True),
                         " bfloat16") from None
    return max(1, budget // 2)


def run_rows(rows: Rows, padded_ids: np.ndarray, lengths: np.ndarray, n_out: int, forward,
             budget: int, pad_id: int, mask_id: int | None, desc: str,
             device: str, on_batch=None, first: str | None = None) -> np.ndarray:
    """Run every row through `forward` in batches; returns the flat float64 log-prob array.

    `forward(input_ids, attention_mask, tgt_row, tgt_pos, tgt_id)` takes torch tensors on the
    device and returns a 1-D tensor of log-probabilities. On a CUDA out-of-memory error the
    failing batch is split in two, the budget halves, and the rest is re-planned.
    ``on_batch(rows, out)``, if given, is called after each batch with its row indices and the
    output array filled so far. `desc` and `first` (the line printed before the bar) go to
    `fairpairs.io.progress.bar` (shown or not by its switch).
    """
    from fairpairs.io.progress import bar as progress_bar

    out = np.full(n_out, np.nan, dtype=np.float64)
    row_len = lengths[rows.sent]
    queue = plan_batches(row_len, budget)
    bar = progress_bar(len(queue), desc, "batch", first=first)
    try:
        while queue:
            batch = queue.pop(0)
            try:
                lp = _run_batch(rows, batch, padded_ids, row_len, forward, pad_id, mask_id, device)
            except Exception as exc:  # only CUDA OOM is handled; everything else propagates
                budget = halve_after_oom(exc, device, budget, f"a single row of {int(row_len[batch[0]])} tokens"
                                         if len(batch) == 1 else None)
                rest = np.concatenate([batch] + queue)
                queue = plan_batches(row_len[rest], budget)
                queue = [rest[b] for b in queue]
                bar.total = bar.n + len(queue)
                bar.refresh()
                continue
            out[rows.tgt_out[lp[0]]] = lp[1]
            bar.update(1)
            if on_batch is not None:
                on_batch(batch, out)
    finally:
        bar.close()
    return out


def batch_tensors(rows: Rows, batch, padded_ids, row_len, pad_id, mask_id, device):
    """Device tensors (input_ids, attention_mask, tgt_row, tgt_pos, tgt_id) of a batch of rows,
    and the flat target indices they fill."""
    import torch

    width = int(row_len[batch].max())
    inp = padded_ids[rows.sent[batch], :width].copy()
    att = (np.arange(width)[None, :] < row_len[batch][:, None]).astype(np.int64)
    inp[att == 0] = pad_id
    if mask_id is not None and len(rows.mask_pos):
        midx, mrow = ranges(rows.mask_ptr, batch)
        inp[mrow, rows.mask_pos[midx]] = mask_id
    tidx, trow = ranges(rows.tgt_ptr, batch)
    dev = torch.device(device)
    arrays = (inp, att, trow, rows.tgt_pos[tidx], rows.tgt_id[tidx])
    return tuple(torch.from_numpy(np.ascontiguousarray(a)).to(dev) for a in arrays), tidx


def _run_batch(rows, batch, padded_ids, row_len, forward, pad_id, mask_id, device):
    tensors, tidx = batch_tensors(rows, batch, padded_ids, row_len, pad_id, mask_id, device)
    return tidx, forward(*tensors).double().cpu().numpy()
