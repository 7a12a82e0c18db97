"""A multi-process launch (torchrun, accelerate launch): detecting it, the process group with its
timeouts, the ranks agreeing on what they score (model, settings, input) before they share the
work, and the balanced shards of that work."""

from __future__ import annotations

import atexit
import os
from dataclasses import dataclass
from datetime import timedelta
import numpy as np
from fairpairs.environment import DIST_TIMEOUT
from fairpairs.errors import DistributedError, FairpairsError


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
    """Seconds a rank may wait for the others (FAIRPAIRS_DIST_TIMEOUT, default 1800; a value that
    is not a number of seconds > 0 is a `VariableError`, exit 2 in the CLI)."""
    return DIST_TIMEOUT.read()


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def describe_error(exc: BaseException) -> str:
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
            value, err = None, describe_error(exc)
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
