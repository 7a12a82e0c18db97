"""A file that several processes read, change and write back (a length-parameters file that the
jobs of a cluster's array each add an entry to) is changed under a lock, one process at a time:
without it, two writers that read the same old file each write it back with only their own entry,
and the later rename drops the other's.

The lock is `fcntl.flock` on a sidecar file ``FILE.lock`` beside it (not on the file itself, which
the atomic write replaces by a rename: a lock on the old inode would not hold the new one). The
sidecar is created empty when missing and left in place afterwards (removing it would let a
process that opened it before the removal and one that creates it again both hold "the" lock);
an existing one is opened without being truncated or written. The kernel releases the lock when
its holder ends, however it ends. Where there is no `fcntl` (Windows) nothing is locked.
"""

from __future__ import annotations

import os
import time
from contextlib import contextmanager
from pathlib import Path

from fairpairs.errors import OutputError

LOCK_TIMEOUT = 120.0     # seconds to wait for another writer (each holds it for a read and a write)
POLL_SECONDS = 0.05


def lock_path(path) -> Path:
    """The sidecar lock file of `path`."""
    path = Path(path)
    return path.with_name(path.name + ".lock")


@contextmanager
def locked(path, timeout: float | None = None, what=()):
    """Hold the exclusive lock of `path` inside the block. Waiting longer than `timeout` seconds
    (default `LOCK_TIMEOUT`) for another holder is an OutputError naming the lock file (`what`: the parts of the message
    that name `path`, as an error's); so is a lock file that cannot be opened."""
    try:
        import fcntl
    except ImportError:      # (no flock here: nothing to hold)
        yield
        return
    side = lock_path(path)
    try:
        fd = os.open(side, os.O_RDWR | os.O_CREAT, 0o666)
    except OSError as exc:
        raise OutputError(*what, f": cannot open its lock file {side} ({exc.strerror or exc})") from None
    try:
        timeout = LOCK_TIMEOUT if timeout is None else timeout
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise OutputError(*what, f": another process has held its lock file {side} for {timeout:g} s "
                                      "(a lock ends with its process); try again when that process is done") from None
                time.sleep(POLL_SECONDS)
            except OSError as exc:    # (a file system without locks)
                raise OutputError(*what, f": cannot lock its lock file {side} ({exc.strerror or exc})") from None
        yield
    finally:
        os.close(fd)      # (releases the lock)
