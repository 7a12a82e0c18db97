"""SIGTERM handled like Ctrl-C (partial outputs removed), and signals deferred while a folder is
swapped into place."""

from __future__ import annotations

import signal
from contextlib import contextmanager


# ------------------------------------------------------------------------------------ signals
class Terminated(KeyboardInterrupt):
    """SIGTERM, raised like Ctrl-C so that every cleanup path runs."""


received_sigterm = False


def _raise_terminated(signum, frame):
    global received_sigterm
    received_sigterm = True
    raise Terminated()


def handle_sigterm() -> None:
    """Make SIGTERM (kill, timeout, SLURM, docker stop) raise `Terminated` in the main thread."""
    try:
        signal.signal(signal.SIGTERM, _raise_terminated)
    except ValueError:  # not the main thread
        pass


@contextmanager
def signals_deferred():
    """Hold SIGINT and SIGTERM while a few renames run, so a swap is never half done."""
    try:
        old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    except (AttributeError, ValueError, OSError):
        yield
        return
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)
