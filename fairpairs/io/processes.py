"""Processes fairpairs forks (paradigm workers, a tokenizer's conversion) end with the process that
forked them, however it ends.

SIGTERM, Ctrl-C and an error reach the forking process's own cleanup, which stops its children;
SIGKILL (the kernel's out-of-memory killer, `kill -9`, a cluster's hard limit) runs none, and a
forked child that nobody stops keeps running, re-parented to init, holding its memory for as long
as its work lasts or forever (a pool worker waits for work that never comes). So each child asks
to go with its parent: on Linux the kernel kills it when the parent dies (``prctl(PR_SET_PDEATHSIG,
SIGKILL)``); elsewhere a thread of the child looks once a second whether its parent is still the
one that forked it. Either way the child checks once, after asking, that its parent has not died
already (the kernel only sends the signal for a death that comes after the request).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time

PR_SET_PDEATHSIG = 1      # linux/prctl.h
WATCH_SECONDS = 1.0       # how often the watching thread looks, where the kernel does not do it


def end_with_parent(parent: int) -> None:
    """Make this process (forked by process `parent`, whose pid the parent gave it) end when that
    process ends, by any signal. Returns at once; ends this process at once when `parent` is gone
    already. (Linux sends the signal when the thread that forked the child ends: fork from a thread
    that outlives the children, as the main thread or one that waits for them does.)"""
    if not _kernel_signals_death():
        threading.Thread(target=_watch, args=(parent,), name="fairpairs-parent-watch", daemon=True).start()
    if os.getppid() != parent:     # (died before the request: no signal will come)
        os._exit(1)


def _kernel_signals_death() -> bool:
    """Ask Linux to SIGKILL this process when its parent dies; False where that cannot be asked."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _watch(parent: int) -> None:
    """End this process as soon as its parent is no longer `parent` (it was re-parented: the parent died)."""
    while os.getppid() == parent:
        time.sleep(WATCH_SECONDS)
    os._exit(1)
