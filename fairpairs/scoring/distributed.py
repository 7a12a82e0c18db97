"""Data-parallel scoring over torch.distributed, and one-process runs that resume.

A process started by ``torchrun`` or ``accelerate launch`` (environment variables RANK,
WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT with WORLD_SIZE > 1) joins the launch's process
group the first time scoring needs it: gloo carries the (small) Python objects exchanged; when a
GPU is visible NCCL is registered for CUDA tensors too, and each rank scores on ``cuda:LOCAL_RANK``.
`sentence_sums` then splits the sentences across the ranks, balanced by token count, so that each
is scored on exactly one rank, and gathers the sums so that every rank returns the whole table;
callers write outputs on rank 0 only (`is_main`).

Failures: a rank that fails while scoring raises a flag in the group's key-value store; the others
stop after their current batch, and every rank raises the same `DistributedError` naming the rank
and its error. Errors while loading a model are agreed on the same way (`Group.run`). A rank that
dies outright is noticed by gloo (closed connection), by the launcher (torchrun stops the others),
or at the latest after FAIRPAIRS_DIST_TIMEOUT seconds (default 1800) without progress: never a hang.

Resume: with a ``resume_dir`` (see `fairpairs.scoring.resume`) each finished batch's sums are
written there atomically as they are produced; a restarted run, with any number of ranks, scores
only the sentences not found there.
"""

from __future__ import annotations

import time

import numpy as np

from fairpairs.environment import DIST_TIMEOUT
from fairpairs.errors import Param, DistributedError
from fairpairs.scoring.launch import Group, POLL_SECONDS, balanced_shards, describe_error, init, timeout_seconds


class _Stopped(Exception):
    """Another rank failed: stop scoring and report."""


def sentence_sums(score_subset, sentences: list[str], n_tokens, costs, resume_dir=None,
                  meta: dict | None = None, desc: str = "scoring", first: str | None = None) -> np.ndarray:
    """Per-sentence sums of log-probabilities of `sentences` (unique), on every rank.

    ``score_subset(indices, on_done)`` scores the sentences at `indices` and calls
    ``on_done(done_indices, sums)`` whenever some of them are finished. Under a launch the
    sentences are shared out by `costs` (`balanced_shards`); with `resume_dir` sums already saved
    there are reused and new ones saved as they come (`meta` identifies model and settings).
    `desc` and `first` (the line before the bar) go to `fairpairs.io.progress.bar`, on rank 0 only.
    """
    from fairpairs.io.progress import bar as progress_bar, suppressed, wanted

    from fairpairs.scoring.resume import Parts

    group = init()
    rank = group.rank if group else 0
    n = len(sentences)
    n_tokens = np.asarray(n_tokens)
    parts = Parts(resume_dir, rank, meta) if resume_dir is not None else None
    got_idx, got_val, todo = _saved_sums(group, parts, sentences, n_tokens)
    mine = todo[balanced_shards(np.asarray(costs)[todo], group.world_size if group else 1)[rank]]

    resumed = n - len(todo)
    show = rank == 0 and len(todo) > 0 and wanted()      # one bar for the whole job, on rank 0
    with suppressed(not show):
        bar = progress_bar(n, desc, "sent", initial=resumed, first=first)
    tag = group.new_tag() if group else ""

    def on_done(idx, values):
        values = np.asarray(values, dtype=np.float64)
        if parts is not None:
            parts.write([sentences[i] for i in idx], values, n_tokens[idx])
        got_idx.append(np.asarray(idx, dtype=np.int64))
        got_val.append(values)
        if group is None:
            bar.update(len(idx))
            return
        done = group.add(f"{tag}/done", len(idx))
        if show:
            bar.update(resumed + done - bar.n)
        if group.flagged(f"{tag}/failed"):
            raise _Stopped

    try:
        if group is None:
            if len(mine):
                score_subset(mine, on_done)
        else:
            got_idx, got_val = _score_in_group(group, tag, lambda: score_subset(mine, on_done) if len(mine) else None,
                                               got_idx, got_val, bar if show else None, resumed)
    finally:
        bar.close()
    return _gathered(sentences, np.concatenate(got_idx), np.concatenate(got_val))


def _saved_sums(group: Group | None, parts, sentences: list[str], n_tokens: np.ndarray):
    """The sums this rank owns from the resume folder (indices and values, as lists of arrays to
    append to), and the indices of the sentences nobody has saved yet. A sentence saved where
    several ranks see it (a shared folder) belongs to the lowest of them."""

    def load() -> dict[int, float]:
        if parts is None:
            return {}
        index = {s: i for i, s in enumerate(sentences)}
        found = {}
        for s, (value, ntok) in parts.load().items():
            i = index.get(s)
            if i is not None and ntok == n_tokens[i] and np.isfinite(value):
                found[i] = value
        return found

    saved = group.run(load) if group else load()
    rank, world = (group.rank, group.world_size) if group else (0, 1)
    owner = np.full(len(sentences), -1)
    held = group.all_gather(np.fromiter(saved, dtype=np.int64, count=len(saved))) if group else \
        [np.fromiter(saved, dtype=np.int64, count=len(saved))]
    for r in reversed(range(world)):
        owner[held[r]] = r
    mine_saved = np.nonzero(owner == rank)[0]
    return [mine_saved], [np.array([saved[i] for i in mine_saved], dtype=np.float64)], np.nonzero(owner < 0)[0]


def _score_in_group(group: Group, tag: str, run, got_idx: list, got_val: list, bar, resumed: int):
    """Run this rank's share (`run`), wait for the others, and gather every rank's sums (indices
    and values); a failure on any rank is raised on all of them."""
    err = None
    try:
        run()
    except _Stopped:
        pass
    except Exception as exc:  # noqa: BLE001 - every rank learns of it and raises
        err = describe_error(exc)
        group.flag(f"{tag}/failed")
    group.add(f"{tag}/finished", 1)
    _wait_for_ranks(group, tag, bar, resumed)
    gathered = group.all_gather((err, np.concatenate(got_idx), np.concatenate(got_val)))
    group.raise_failed([g[0] for g in gathered])
    return [g[1] for g in gathered], [g[2] for g in gathered]


def _gathered(sentences: list[str], idx: np.ndarray, val: np.ndarray) -> np.ndarray:
    """The sums in sentence order, checked: every sentence scored exactly once, every sum finite."""
    n = len(sentences)
    counts = np.bincount(idx, minlength=n)
    if len(idx) != n or (counts != 1).any():
        # (the ranks agreed on their input and model first, `agree`; so this is fairpairs' fault)
        raise DistributedError(f"{int((counts == 0).sum())} sentence(s) unscored and {int((counts > 1).sum())} "
                               f"scored twice although every rank had the same input; please report this as a bug")
    bad = ~np.isfinite(val)
    if bad.any():
        from fairpairs.errors import ModelError

        example = sentences[int(idx[np.argmax(bad)])]
        raise ModelError(Param("model"), f": gave {int(bad.sum())} sentence(s) a log-probability that is not a finite number "
                         f"(e.g. {example!r}); a result that cannot be right (with a 16-bit ", Param("dtype", quoted=True),
                         ", try float32)")
    sums = np.full(n, np.nan)
    sums[idx] = val
    return sums


def _wait_for_ranks(group: Group, tag: str, bar, resumed: int) -> None:
    """Wait until every rank has finished its shard, moving rank 0's bar; a group that makes no
    progress for FAIRPAIRS_DIST_TIMEOUT seconds is an error, not a hang."""
    limit = timeout_seconds()
    last, since = None, time.monotonic()
    while True:
        finished = group.add(f"{tag}/finished", 0)
        done = group.add(f"{tag}/done", 0)
        if bar is not None:
            bar.update(resumed + done - bar.n)
        if finished >= group.world_size:
            return
        if (finished, done) != last:
            last, since = (finished, done), time.monotonic()
        elif time.monotonic() - since > limit:
            raise DistributedError(f"rank {group.rank}: no progress from the other ranks for "
                                   f"{limit:.0f} s ({DIST_TIMEOUT.name}); stopping, no output was written",
                                   quiet=not group.is_main)
        time.sleep(POLL_SECONDS)
