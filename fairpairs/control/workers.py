"""Paradigms generated side by side: a run's paradigms are independent (each pair has its own seeded
stream, each paradigm its own files), so worker processes can generate them while the calling
process takes their results in the run's order; the output is the same for any number of workers.

Workers are forked from the calling process, so they share its loaded tokenizers, vocabulary and
compiled paradigms instead of loading them again (where the platform cannot fork, the paradigms are
generated one after the other). How many: `$FAIRPAIRS_WORKERS`, else one per available core, at
most `MAX_WORKERS` (each holds one paradigm's sets at a time) and at most one per paradigm.

A worker ends with the calling process however that one ends: SIGTERM, Ctrl-C and errors reach its
cleanup (which stops the workers), and SIGKILL - the out-of-memory killer's choice, often the
calling process, the largest - ends the workers too (`fairpairs.io.processes.end_with_parent`)
instead of leaving them running, re-parented to init, each holding its copy of the tokenizers.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import signal
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Callable

from fairpairs.environment import WORKERS
from fairpairs.io.heap import release_free_memory
from fairpairs.errors import OutputError
from fairpairs.io.processes import end_with_parent
from fairpairs.tokenization.cache import tokenizer_threads_off

MAX_WORKERS = 4      # the default's bound: memory grows with every worker


def default_workers(tasks: int) -> int:
    """The number of worker processes for `tasks` paradigms: `$FAIRPAIRS_WORKERS` (1: none, the
    paradigms one after the other in this process), else one per core this process may use, at
    most MAX_WORKERS; never more than `tasks`. A value that is not a whole number >= 1 is a
    `VariableError` (exit 2 in the CLI)."""
    n = WORKERS.read()
    if n is None:
        n = min(len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1,
                MAX_WORKERS)
    return max(1, min(n, tasks))


FAILED = "failed"    # a worker's answer when its task raised: the caller runs that task itself
TASK: list = []      # (the task of a forked worker: set by `start` in the worker, before any call)


def start(task: Callable[[int, bool], Any], in_worker: Callable[[], None] | None = None,
          parent: int | None = None) -> None:
    # A worker leaves cleanup to the calling process (`parent`): it ends quietly on SIGTERM (which the
    # calling process may have made raise), ignores Ctrl-C (which the calling process gets too, and
    # answers by dropping the paradigms not started), and ends when the calling process is killed.
    if parent is not None:
        end_with_parent(parent)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    TASK[:] = [task]
    if in_worker is not None:
        in_worker()


def call(i: int):
    try:
        return TASK[0](i, False)
    except Exception:   # raised again, with its own type and message, where the caller runs it
        return FAILED


def in_order(task: Callable[[int, bool], Any], n: int, take: Callable[[int, Any], None],
             workers: int | None = None, prepare: Callable[[], None] | None = None,
             in_worker: Callable[[], None] | None = None) -> None:
    """`take(i, task(i, here))` for i in 0..n-1, in that order; `here` tells the task whether it runs
    in this process (where it may show progress). With more than one worker, `task` runs in forked
    worker processes (its answer must pickle); a task that raises there is run again here, so its
    error is the one a run in this process gives. `prepare()` runs before the workers start (to load
    here, once, what every worker would otherwise load for itself), `in_worker()` in each worker as
    it starts (it must not raise)."""
    workers = default_workers(n) if workers is None else max(1, min(int(workers), n))
    if workers == 1 or "fork" not in multiprocessing.get_all_start_methods():
        release_free_memory()
        for i in range(n):
            take(i, task(i, True))
        return
    if prepare is not None:
        prepare()
    gc.freeze()     # (objects made so far stay out of the collector's walks: fewer pages the workers copy)
    release_free_memory()
    pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"), initializer=start,
                               initargs=(task, in_worker, os.getpid()))
    try:
        try:
            with tokenizer_threads_off():
                answers = pool.map(call, range(n))     # (the workers are forked here, all at once)
        finally:
            gc.unfreeze()
        for i, answer in enumerate(answers):
            take(i, task(i, True) if isinstance(answer, str) and answer == FAILED else answer)
    except BrokenProcessPool:
        raise OutputError(f"a worker process generating paradigms ended abruptly (out of memory?); "
                          f"nothing was written (${WORKERS.name}=1 generates them in this process alone)") from None
    finally:     # (after an error: the paradigms not started are dropped; the workers end)
        pool.shutdown(wait=True, cancel_futures=True)
