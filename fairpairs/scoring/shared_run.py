"""Running causal scoring with shared prefixes (the plan is `fairpairs.scoring.prefix`'s).

One *unit* is a set of groups: a prefix pass (each group's prefix once, right-padded, filling a
key/value cache) and a suffix pass (each member's tokens after its prefix, but its last, continuing
from its group's cache row). Out of memory on a GPU: the unit budget halves and the rest is
re-planned, as `batching.run_rows` does.
"""

from __future__ import annotations

import numpy as np

from fairpairs.scoring.batching import halve_after_oom
from fairpairs.scoring.prefix import Groups, group, plan_units, unit_budget, MIN_SHARED


class Unit:
    """The arrays of one unit: prefix rows and their targets; suffix rows and their targets. A
    target reads log P(token) at (row, position); `dest` is its slot in the flat output, `src`
    the target each destination copies (a prefix's tokens are scored once for all its members)."""

    def __init__(self, groups: Groups, unit: np.ndarray, ids: list[np.ndarray], out_ptr: np.ndarray, pad_id: int):
        shared = groups.shared[unit]
        width = int(shared.max())
        self.ids = np.full((len(unit), width), pad_id, dtype=np.int64)
        self.att = np.zeros((len(unit), width), dtype=np.int64)
        t_row, t_pos, t_tok, src, dest, suffixes = [], [], [], [], [], []
        n = 0
        for r, g in enumerate(unit):
            mem = groups.members[groups.ptr[g]:groups.ptr[g + 1]]
            p = int(shared[r])
            self.ids[r, :p] = ids[mem[0]][:p]
            self.att[r, :p] = 1
            t_row.append(np.full(p - 1, r))
            t_pos.append(np.arange(p - 1))
            t_tok.append(ids[mem[0]][1:p])
            inside = n + np.arange(p - 1)
            n += p - 1
            for m in mem:
                src.append(inside)
                dest.append(out_ptr[m] + np.arange(p - 1))
                if len(ids[m]) > p:     # its first token after the prefix: read at the prefix's end
                    t_row.append([r]), t_pos.append([p - 1]), t_tok.append(ids[m][p:p + 1])
                    src.append([n]), dest.append([out_ptr[m] + p - 1])
                    n += 1
                if len(ids[m]) - p >= 2:
                    suffixes.append((r, m, p))
        self.target = tuple(np.concatenate(a).astype(np.int64) for a in (t_row, t_pos, t_tok))
        self.src, self.dest = np.concatenate(src).astype(np.int64), np.concatenate(dest).astype(np.int64)
        self.members = groups.members[np.concatenate([np.arange(groups.ptr[g], groups.ptr[g + 1]) for g in unit])]
        self._suffix(suffixes, ids, out_ptr, pad_id)

    def _suffix(self, suffixes, ids, out_ptr, pad_id) -> None:
        """Suffix rows: member m's tokens p .. len-2 at positions p .., predicting p+1 .. len-1."""
        self.rows = np.array([r for r, _, _ in suffixes], dtype=np.int64)
        if not suffixes:
            return
        lens = np.array([len(ids[m]) - 1 - p for _, m, p in suffixes], dtype=np.int64)
        width, prefix = int(lens.max()), self.att.shape[1]
        self.s_ids = np.full((len(suffixes), width), pad_id, dtype=np.int64)
        self.s_att = np.zeros((len(suffixes), prefix + width), dtype=np.int64)
        self.s_att[:, :prefix] = self.att[self.rows]
        self.s_pos = np.zeros((len(suffixes), width), dtype=np.int64)
        t_row, t_pos, t_tok, dest = [], [], [], []
        for k, ((r, m, p), s) in enumerate(zip(suffixes, lens)):
            self.s_ids[k, :s] = ids[m][p:p + s]
            self.s_att[k, prefix:prefix + s] = 1
            self.s_pos[k] = p + np.minimum(np.arange(width), s - 1)   # (padding: any position in range)
            t_row.append(np.full(s, k)), t_pos.append(np.arange(s)), t_tok.append(ids[m][p + 1:p + 1 + s])
            dest.append(out_ptr[m] + p + np.arange(s))
        self.s_target = tuple(np.concatenate(a).astype(np.int64) for a in (t_row, t_pos, t_tok))
        self.s_dest = np.concatenate(dest).astype(np.int64)

    def run(self, forward, device: str, out: np.ndarray) -> None:
        """Both passes; fills `out` at every member's slots."""
        import torch
        from transformers import DynamicCache

        dev = torch.device(device)

        def t(a):
            return torch.from_numpy(np.ascontiguousarray(a)).to(dev)

        cache = DynamicCache(config=forward.model.config)
        pos = np.tile(np.arange(self.ids.shape[1]), (self.ids.shape[0], 1))
        with torch.inference_mode():
            states, head = forward.cached(t(self.ids), t(self.att), t(pos), cache)
            lp = forward.read(states, head, *(t(a) for a in self.target)).double().cpu().numpy()
            out[self.dest] = lp[self.src]
            if not len(self.rows):
                return
            del states
            cache.batch_select_indices(t(self.rows))
            states, head = forward.cached(t(self.s_ids), t(self.s_att), t(self.s_pos), cache)
            out[self.s_dest] = forward.read(states, head, *(t(a) for a in self.s_target)).double().cpu().numpy()


def regroup(ids: list[np.ndarray], parts: list[np.ndarray], min_shared: int, max_members: int):
    """`prefix.group` of the sentences in `parts` (indices into `ids`) alone, at most `max_members`
    a group; the groups' members are indices into `ids`, as before."""
    sentences = np.concatenate(parts).astype(np.int64)
    sub = group([ids[i] for i in sentences], min_shared, max_members=max_members)
    return Groups(members=sentences[sub.members], ptr=sub.ptr, shared=sub.shared)


def run_shared(ids: list[np.ndarray], out_ptr: np.ndarray, forward, budget: int, pad_id: int, desc: str,
               device: str, on_batch=None, first: str | None = None, min_shared: int = MIN_SHARED) -> np.ndarray:
    """The flat float64 log-prob array of causal scoring (as `batching.run_rows` returns it), with
    shared prefixes run once. ``on_batch(sentences, out)`` after each unit, with the sentences it
    completed; a progress bar over units."""
    from fairpairs.io.progress import bar as progress_bar

    lengths = np.array([len(i) for i in ids], dtype=np.int64)
    budget = unit_budget(budget)
    groups = group(ids, min_shared, max_members=max(2, budget // max(1, int(lengths.max(initial=1)))))
    out = np.full(int(out_ptr[-1]), np.nan, dtype=np.float64)
    queue = plan_units(groups, lengths, budget)
    bar = progress_bar(len(queue), desc, "batch", first=first)
    try:
        while queue:
            unit = queue.pop(0)
            try:
                work = Unit(groups, unit, ids, out_ptr, pad_id)
                work.run(forward, device, out)
            except Exception as exc:  # only CUDA OOM is handled; everything else propagates
                size = int(groups.ptr[unit[0] + 1] - groups.ptr[unit[0]]) if len(unit) == 1 else 0
                first_member = int(groups.members[groups.ptr[unit[0]]])
                budget = halve_after_oom(exc, device, budget, f"a single sentence of {int(lengths[first_member])} "
                                         "tokens" if size == 1 else None)
                todo = np.concatenate([unit] + queue)
                if size > 1:      # one group too large: the rest regrouped with at most half its members
                    groups = regroup(ids, [groups.members[groups.ptr[g]:groups.ptr[g + 1]] for g in todo],
                                     min_shared, size // 2)
                    todo = None
                queue = plan_units(groups, lengths, budget, todo)
                bar.total = bar.n + len(queue)
                bar.refresh()
                continue
            bar.update(1)
            if on_batch is not None:
                on_batch(work.members, out)
    finally:
        bar.close()
    return out


def check(scorer) -> bool:
    """Whether shared prefixes give this model's plain scores (`prefix.CHECK`: pairs, a repeat, a
    one-token sentence; within the tolerance of the head probe). False where they differ or the
    model or its cache cannot continue from a cache (then the plain path is used)."""
    import torch

    from fairpairs.io.progress import suppressed
    from fairpairs.scoring.batching import run_rows
    from fairpairs.scoring.encoding import causal_rows
    from fairpairs.scoring.prefix import CHECK

    enc = scorer.encode(CHECK)
    padded, lengths = enc.padded(scorer.pad_id)
    ptr = enc.out_ptr()
    tol = 1e-4 if scorer.dtype == torch.float32 else 0.15
    with suppressed():
        plain = run_rows(causal_rows(enc), padded, lengths, int(ptr[-1]), scorer.forward, scorer.batch_tokens,
                         scorer.pad_id, None, "", scorer.device)
        try:
            shared = run_shared(enc.ids, ptr, scorer.forward, scorer.batch_tokens, scorer.pad_id, "", scorer.device,
                                min_shared=2)
        except Exception:   # (a model or cache that cannot continue from a cache: the plain path it is)
            return False
    return bool(np.all(np.abs(plain - shared) <= tol))


def shares_prefixes(scorer, enc) -> bool:
    """Whether `scorer` scores `enc` (causal) with shared prefixes: it passed `check`, the
    sentences fit its sliding window (`prefix.usable`) and the shared plan feeds fewer tokens
    (`prefix.saves`)."""
    from fairpairs.scoring.prefix import saves, usable

    if not getattr(scorer, "shared_prefixes", False) or not enc.ids:
        return False
    lengths = np.array([len(i) for i in enc.ids], dtype=np.int64)
    if not usable(scorer.model, lengths):
        return False
    budget = unit_budget(scorer.batch_tokens)
    groups = group(enc.ids, MIN_SHARED, max_members=max(2, budget // int(lengths.max())))
    return saves(groups, lengths, scorer.batch_tokens)
