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

import atexit
import os
import time
from dataclasses import dataclass
from datetime import timedelta

import numpy as np

from fairpairs.errors import Param, DistributedError, FairpairsError

TIMEOUT_ENV = "FAIRPAIRS_DIST_TIMEOUT"
DEFAULT_TIMEOUT = 1800.0
POLL_SECONDS = 0.05


@dataclass(frozen=True)
class Launch:
    """This process's place in a multi-process launch."""

    rank: int
    world_size: int
    local_rank: int
    local_world_size: int


def _env_int(env, key: str, default: int | None = None) -> int:
    value = env.get(key, "")
    if value == "" and default is not None:
        return default
    try:
        return int(value)
    except ValueError:
        raise DistributedError(f"environment variable {key}: {value!r} is not an integer") from None


def detect_launch(environ=None) -> Launch | None:
    """The launch this process belongs to (torchrun / accelerate launch / SLURM scripts setting the
    torch.distributed variables), or None for a single process (no RANK and WORLD_SIZE, or 1)."""
    env = os.environ if environ is None else environ
    if not env.get("WORLD_SIZE") or not env.get("RANK"):
        return None
    world, rank = _env_int(env, "WORLD_SIZE"), _env_int(env, "RANK")
    if world < 1 or not 0 <= rank < world:
        raise DistributedError(f"environment variables RANK={rank}, WORLD_SIZE={world}: "
                               f"RANK must be in 0 .. WORLD_SIZE-1")
    if world == 1:
        return None
    local_rank = _env_int(env, "LOCAL_RANK", rank)
    return Launch(rank, world, local_rank, _env_int(env, "LOCAL_WORLD_SIZE", world))


def is_main() -> bool:
    """True on rank 0 of a launch and in a single process: the one that writes outputs."""
    launch = detect_launch()
    return launch is None or launch.rank == 0


def timeout_seconds() -> float:
    value = os.environ.get(TIMEOUT_ENV, "")
    if not value:
        return DEFAULT_TIMEOUT
    try:
        secs = float(value)
    except ValueError:
        secs = -1.0
    if not secs > 0:
        raise DistributedError(f"environment variable {TIMEOUT_ENV}: {value!r} is not a positive "
                               f"number of seconds")
    return secs


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def describe(exc: BaseException) -> str:
    """One line for an error raised on some rank (our errors carry their own message)."""
    return str(exc) if isinstance(exc, FairpairsError) else _first_line(exc)


class Group:
    """The process group of this launch: rank, size, object collectives and a key-value store."""

    def __init__(self, launch: Launch, store, owned: bool):
        self.rank, self.world_size = launch.rank, launch.world_size
        self.local_rank, self.local_world_size = launch.local_rank, launch.local_world_size
        self.store = store
        self.owned = owned
        self._calls = 0

    @property
    def is_main(self) -> bool:
        return self.rank == 0

    def new_tag(self) -> str:
        """A store key prefix for the next collective job (every rank counts its calls alike)."""
        self._calls += 1
        return f"job{self._calls}"

    def _lost(self, exc: BaseException) -> DistributedError:
        return DistributedError(f"rank {self.rank}: lost contact with the other ranks "
                                f"({_first_line(exc)}); one was killed or is stuck; no output was written")

    def all_gather(self, obj) -> list:
        """`obj` of every rank, in rank order."""
        import torch.distributed as dist

        out = [None] * self.world_size
        try:
            dist.all_gather_object(out, obj)
        except RuntimeError as exc:  # a peer closed its connection, or the group timed out
            raise self._lost(exc) from None
        return out

    def broadcast(self, obj):
        """Rank 0's `obj` on every rank."""
        import torch.distributed as dist

        box = [obj if self.is_main else None]
        try:
            dist.broadcast_object_list(box, src=0)
        except RuntimeError as exc:
            raise self._lost(exc) from None
        return box[0]

    def barrier(self) -> None:
        self.all_gather(None)

    def raise_failed(self, errors: list) -> None:
        """Raise one DistributedError on every rank when any rank reported an error."""
        failed = [(r, e) for r, e in enumerate(errors) if e is not None]
        if failed:
            r, err = failed[0]
            more = f" (and {len(failed) - 1} other rank(s))" if len(failed) > 1 else ""
            raise DistributedError(f"rank {r} of {self.world_size} failed{more}: {err}; all ranks "
                                   f"stopped and no output was written", quiet=not self.is_main)

    def run(self, fn):
        """`fn()` on every rank; if it raises on any rank, every rank raises the same error."""
        try:
            value, err = fn(), None
        except Exception as exc:  # noqa: BLE001 - reported to every rank, then raised
            value, err = None, describe(exc)
        self.raise_failed(self.all_gather(err))
        return value

    # store access: a lost store (rank 0 or the launcher died) is a lost group
    def add(self, key: str, n: int) -> int:
        try:
            return int(self.store.add(key, n))
        except RuntimeError as exc:
            raise self._lost(exc) from None

    def flag(self, key: str) -> None:
        try:
            self.store.set(key, "1")
        except RuntimeError as exc:
            raise self._lost(exc) from None

    def flagged(self, key: str) -> bool:
        try:
            return bool(self.store.check([key]))
        except RuntimeError as exc:
            raise self._lost(exc) from None


_GROUP: Group | None = None


def init() -> Group | None:
    """Join the launch's process group (once per process); None when not launched with several
    processes. Uses a group the caller already initialised (e.g. through accelerate) as is."""
    global _GROUP
    if _GROUP is not None:
        return _GROUP
    launch = detect_launch()
    if launch is None:
        return None
    import torch
    import torch.distributed as dist

    if not dist.is_available():
        raise DistributedError("this torch build has no torch.distributed; run a single process")
    timeout = timedelta(seconds=timeout_seconds())
    owned = not dist.is_initialized()
    if owned:
        cuda = torch.cuda.is_available()
        if cuda and launch.local_rank < torch.cuda.device_count():
            torch.cuda.set_device(launch.local_rank)
        backend = "cpu:gloo,cuda:nccl" if cuda else "gloo"
        where = f"{os.environ.get('MASTER_ADDR', '?')}:{os.environ.get('MASTER_PORT', '?')}"
        try:
            store, _, _ = next(dist.rendezvous("env://", timeout=timeout))
            dist.init_process_group(backend, store=store, rank=launch.rank,
                                    world_size=launch.world_size, timeout=timeout)
        except (RuntimeError, ValueError, OSError) as exc:
            raise DistributedError(f"rank {launch.rank}: cannot join the process group at "
                                   f"MASTER_ADDR:MASTER_PORT {where} ({_first_line(exc)})") from None
        atexit.register(shutdown)
    else:
        store = dist.distributed_c10d._get_default_store()
    restart = os.environ.get("TORCHELASTIC_RESTART_COUNT", "0")
    _GROUP = Group(launch, dist.PrefixStore(f"fairpairs/{restart}", store), owned)
    return _GROUP


def shutdown() -> None:
    """Leave the process group this module joined (at exit)."""
    global _GROUP
    group, _GROUP = _GROUP, None
    if group is None or not group.owned:
        return
    import torch.distributed as dist

    if dist.is_initialized():
        dist.destroy_process_group()


def agree(group: Group, identity: dict) -> None:
    """Before the ranks share any work: every rank holds the same `identity` (see
    `Scorer.identity`: input, settings, tokenizer, model); otherwise every rank raises the same
    DistributedError naming what differs."""
    problem = disagreement(group.all_gather(identity))
    if problem:
        raise DistributedError(f"ranks disagree on {problem}; all ranks stopped before scoring, no output "
                               f"was written", quiet=not group.is_main)


def _short(digest) -> str:
    return str(digest)[:12] if digest else "none"


def disagreement(views: list[dict]) -> str | None:
    """What the ranks' identities (`Scorer.identity`, in rank order) disagree on, as the end of
    "ranks disagree on ...", comparing every rank with rank 0 (input, then settings, tokenizer,
    model); None when they agree."""
    first = views[0]
    for r, view in enumerate(views[1:], 1):
        a, b = first["input"], view["input"]
        if a != b:
            return (f"the input: rank {r} has {b['sentences']} sentence(s) (sha256 {_short(b['sha256'])}), rank 0 "
                    f"{a['sentences']} ({_short(a['sha256'])}); start every rank with the same input")
        for key, v0 in first["settings"].items():
            v = view["settings"].get(key)
            if v != v0:
                return f"the scorer settings: `{key}` is {v0} on rank 0 but {v} on rank {r}"
        m0, m = first["model"], view["model"]
        if m0["name"] != m["name"]:
            return f"the model: rank 0 scores {m0['name']}, rank {r} {m['name']}"
        if first["tokenizer"] != view["tokenizer"]:
            return (f"the tokenizer of {m0['name']}: rank {r} has another (sha256 "
                    f"{_short(view['tokenizer']['sha256'])}, rank 0: {_short(first['tokenizer']['sha256'])})")
        at = f"at {m['path']}" if m["path"] == m0["path"] else f"({m['path']}; rank 0: {m0['path']})"
        for key, what in (("revision", "Hub revision"), ("config", "config sha256"), ("weights", "weights digest")):
            if m0.get(key) != m.get(key):
                return (f"the model: rank {r} has a different checkpoint {at} ({what} {_short(m.get(key))}, "
                        f"rank 0: {_short(m0.get(key))})")
    return None     # (a model read from different places with the same files agrees)


def balanced_shards(costs, world_size: int) -> list[np.ndarray]:
    """Split items into `world_size` shards of near-equal total cost: sorted by cost (largest
    first, ties by index) and dealt out back and forth (0, 1, .., n-1, n-1, .., 0, 0, 1, ..), so
    shard totals differ by at most the largest cost and every shard gets long and short items
    alike. Returns the item indices of each shard, ascending."""
    costs = np.asarray(costs)
    order = np.lexsort((np.arange(len(costs)), -costs))
    pos = np.arange(len(order)) % (2 * world_size)
    shard = np.where(pos < world_size, pos, 2 * world_size - 1 - pos)
    return [np.sort(order[shard == r]) for r in range(world_size)]


class _Stopped(Exception):
    """Another rank failed: stop scoring and report."""


def sentence_sums(score_subset, sentences: list[str], n_tokens, costs, resume_dir=None,
                  meta: dict | None = None, progress: bool | None = False, desc: str = "scoring",
                  first: str | None = None) -> np.ndarray:
    """Per-sentence sums of log-probabilities of `sentences` (unique), on every rank.

    ``score_subset(indices, on_done)`` scores the sentences at `indices` and calls
    ``on_done(done_indices, sums)`` whenever some of them are finished. Under a launch the
    sentences are shared out by `costs` (`balanced_shards`); with `resume_dir` sums already saved
    there are reused and new ones saved as they come (`meta` identifies model and settings).
    `progress` and `first` (the line before the bar) go to `fairpairs.io.progress.bar`, on rank 0.
    """
    from fairpairs.io.progress import bar as progress_bar, wanted

    from fairpairs.scoring.resume import Parts

    group = init()
    rank, world = (group.rank, group.world_size) if group else (0, 1)
    n = len(sentences)
    n_tokens = np.asarray(n_tokens)
    sums = np.full(n, np.nan)
    parts = Parts(resume_dir, rank, meta) if resume_dir is not None else None

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
    # a sentence saved where several ranks see it (a shared folder) belongs to the lowest of them
    owner = np.full(n, -1)
    held = group.all_gather(np.fromiter(saved, dtype=np.int64, count=len(saved))) if group else \
        [np.fromiter(saved, dtype=np.int64, count=len(saved))]
    for r in reversed(range(world)):
        owner[held[r]] = r
    mine_saved = np.nonzero(owner == rank)[0]
    got_idx = [mine_saved]
    got_val = [np.array([saved[i] for i in mine_saved], dtype=np.float64)]
    todo = np.nonzero(owner < 0)[0]
    mine = todo[balanced_shards(np.asarray(costs)[todo], world)[rank]]

    resumed = n - len(todo)
    show = wanted(progress) and rank == 0 and len(todo) > 0
    bar = progress_bar(n, desc, "sent", progress=show, initial=resumed, first=first)
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
            err = None
            try:
                if len(mine):
                    score_subset(mine, on_done)
            except _Stopped:
                pass
            except Exception as exc:  # noqa: BLE001 - every rank learns of it and raises
                err = describe(exc)
                group.flag(f"{tag}/failed")
            group.add(f"{tag}/finished", 1)
            _wait_for_ranks(group, tag, bar if show else None, resumed)
            gathered = group.all_gather((err, np.concatenate(got_idx), np.concatenate(got_val)))
            group.raise_failed([g[0] for g in gathered])
            got_idx = [g[1] for g in gathered]
            got_val = [g[2] for g in gathered]
    finally:
        bar.close()
    idx, val = np.concatenate(got_idx), np.concatenate(got_val)
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
                                   f"{limit:.0f} s ({TIMEOUT_ENV}); stopping, no output was written",
                                   quiet=not group.is_main)
        time.sleep(POLL_SECONDS)
