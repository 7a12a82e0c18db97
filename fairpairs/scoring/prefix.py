"""Causal scoring with shared token prefixes run once (issue 49).

The two sentences of a minimal pair share a token prefix (BOS and the words before the one that
differs), and sentences of one paradigm share openings. `group` sorts the sentences by their token
ids and cuts the sorted list into groups whose members share at least `MIN_SHARED` tokens (a
member is added while the tokens saved do not shrink); a group's *prefix* is its longest common
prefix, but never a member's whole length (at most the longest member's length - 1). A lone
sentence is a group of one whose prefix is all its tokens but the last.

`run_shared` runs each prefix once (right-padded, keeping its key/value cache), scores from it
every token inside the prefix and each member's first token after it (the prefix's last
position predicts it), then runs every member's remaining tokens in one batch continuing from the
cache (the cache rows selected per member with `Cache.batch_select_indices`; attention mask =
the prefix's, then the suffix's; positions continue the prefix's). A sentence's last token is
never fed (nothing reads its prediction). Log P of each token is the same quantity as the plain
path's (`batching.run_rows`), computed from the same keys and values: equal within float
rounding (tests/test_scoring_prefix.py: 1e-4 nats per sentence).

`Scorer` uses it only after `check` has compared it with the plain path on a few sentences of
the loaded model (else, or when a call's sentences are longer than half a sliding window, or when
it would not feed fewer tokens than the plain plan, the plain path runs).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fairpairs.scoring.batching import plan_batches

# tokens (BOS included) that the members of a group share at least. A continuation runs as float32
# products of other shapes than a whole forward, so its scores differ from the plain path's by float
# noise that depends on the units' shapes: SmolLM2, 500 BLiMP sentences (the benchmark's list), units of
# 128 tokens, groups from 4 tokens: one sentence 1.3e-4 nats off (over issue 49's 1e-4); every other
# setting of 4/6/8 tokens and 128/256/512-token units tried: at most 5.6e-5 on that list and on a
# one-step evaluation's 335 sentences, whose plain path differs from itself across batchings by up to
# 5.1e-5 (benchmarks/results/score_speed.md). 6 with 512-token units was the fastest of them.
MIN_SHARED = 6
GAIN = 0.95         # used when it feeds at most this share of the plain plan's tokens (padding included)
CHECK = ["The cat sat on the mat.", "The cat sat on the mats.", "The cat sat on the mat.",
         "The quick brown fox jumps over the lazy dog.", "The quick brown fox jumped.", "A souvenir.", "A"]


@dataclass
class Groups:
    """Sentences grouped by a shared prefix: group g is members[ptr[g]:ptr[g+1]], its first
    `shared[g]` tokens (BOS included) run once."""

    members: np.ndarray
    ptr: np.ndarray
    shared: np.ndarray

    @property
    def n(self) -> int:
        return len(self.shared)


def common(a: np.ndarray, b: np.ndarray) -> int:
    """Length of the longest common prefix of two id arrays."""
    n = min(len(a), len(b))
    diff = np.flatnonzero(a[:n] != b[:n])
    return int(diff[0]) if len(diff) else n


def group(ids: list[np.ndarray], min_shared: int = MIN_SHARED, max_members: int | None = None) -> Groups:
    """Groups of sentences (model input ids, BOS first) sharing a prefix; see the module docstring.
    `max_members` caps a group (so its members' rows fit one batch)."""
    order = sorted(range(len(ids)), key=lambda i: ids[i].tolist())
    members: list[int] = []
    ptr, shared = [0], []
    cur = 0

    def close():
        longest = max(len(ids[m]) for m in members[ptr[-1]:])
        shared.append(min(cur, longest - 1))
        ptr.append(len(members))

    for k, i in enumerate(order):
        if k:
            size = len(members) - ptr[-1]
            new = min(cur, common(ids[order[k - 1]], ids[i]))
            if new >= min_shared and size * new >= (size - 1) * cur and (max_members is None or size < max_members):
                members.append(i)
                cur = new
                continue
            close()
        members.append(i)
        cur = len(ids[i])
    if members:
        close()
    return Groups(np.asarray(members, dtype=np.int64), np.asarray(ptr, dtype=np.int64),
                  np.asarray(shared, dtype=np.int64))


def plan_units(groups: Groups, lengths: np.ndarray, budget: int, which=None) -> list[np.ndarray]:
    """Group indices (of `which`, default all) in units of one prefix pass and one suffix pass
    each, both within `budget` tokens (rows x width, the suffix pass counting the cached prefix
    too), unless one group alone is larger. Longest prefixes first; ties keep index order."""
    which = np.arange(groups.n) if which is None else np.asarray(which, dtype=np.int64)
    rows = np.zeros(len(which), dtype=np.int64)
    width = np.zeros(len(which), dtype=np.int64)
    for k, g in enumerate(which):
        s = lengths[groups.members[groups.ptr[g]:groups.ptr[g + 1]]] - 1 - groups.shared[g]
        s = s[s > 0]
        rows[k], width[k] = len(s), (s.max() if len(s) else 0)
    shared = groups.shared[which]
    order = np.lexsort((which, -width, -shared))
    units, cur = [], []
    big_p = n_rows = big_s = 0
    for k in order:
        g, p, r, s = int(which[k]), int(shared[k]), int(rows[k]), int(width[k])
        P, S, R = max(big_p, p), max(big_s, s), n_rows + r
        if cur and ((len(cur) + 1) * P > budget or (R and R * (P + S) > budget)):
            units.append(np.asarray(cur, dtype=np.int64))
            cur, big_p, n_rows, big_s = [], 0, 0, 0
            P, S, R = p, s, r
        cur.append(g)
        big_p, n_rows, big_s = P, R, S
    if cur:
        units.append(np.asarray(cur, dtype=np.int64))
    return units


def fed_tokens(groups: Groups, lengths: np.ndarray, units) -> int:
    """Tokens (padding included) the units feed through the model's layers."""
    total = 0
    for u in units:
        p = groups.shared[u]
        mem = [groups.members[groups.ptr[g]:groups.ptr[g + 1]] for g in u]
        s = np.concatenate([lengths[m] - 1 - p_ for m, p_ in zip(mem, p)])
        s = s[s > 0]
        total += len(u) * int(p.max()) + (len(s) * int(s.max()) if len(s) else 0)
    return total


def plain_tokens(lengths: np.ndarray, budget: int) -> int:
    """Tokens (padding included) the plain path (`batching.run_rows`) feeds."""
    return int(sum(len(b) * int(lengths[b].max()) for b in plan_batches(lengths, budget)))


def unit_budget(budget: int) -> int:
    """Tokens per unit: small units pad less (a unit's prefix and suffix widths are its longest),
    but on the CPU SmolLM2's layers take 12% less time per token at 512 tokens a batch than at 128
    (7.6 vs 8.6 ms, one thread; no less beyond), so units are at least 512 tokens - never more than
    `budget` itself (a user's cap on memory)."""
    return min(budget, max(512, budget // 16))


def usable(model, lengths: np.ndarray) -> bool:
    """Whether shared prefixes give the plain path's scores for sentences of these lengths: the
    cached rows hold padding between a prefix and its suffix, so a sliding-window layer (Gemma 3)
    would see a longer distance there; safe while prefix + suffix fit the window."""
    cfg = model.config.get_text_config() if hasattr(model.config, "get_text_config") else model.config
    window = getattr(cfg, "sliding_window", None)
    return not (isinstance(window, int) and window > 0 and 2 * int(lengths.max(initial=0)) > window)


def saves(groups: Groups, lengths: np.ndarray, budget: int) -> bool:
    """Whether the shared plan feeds at most GAIN of the plain plan's tokens (padding included)."""
    units = plan_units(groups, lengths, unit_budget(budget))
    return fed_tokens(groups, lengths, units) <= GAIN * plain_tokens(lengths, budget)
