"""The network time of a command: every Hub call runs under one deadline (FAIRPAIRS_HUB_TIMEOUT, 60
s by default) and ends in one NetworkError line naming what was asked, never a hang."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from fairpairs.environment import HUB_TIMEOUT
from fairpairs.errors import NetworkError


# ------------------------------------------------------------------------------------ network
_spent = 0.0       # seconds this command has spent in Hub calls so far
_armed = False


def reset_network_time() -> None:
    """Start a new command's network time (the CLI calls this once per command)."""
    global _spent
    _spent = 0.0


def hub_timeout() -> float:
    """Seconds all Hub calls of one command may take together (FAIRPAIRS_HUB_TIMEOUT, default 60;
    a value that is not a number of seconds > 0 is a `VariableError`, exit 2 in the CLI)."""
    return HUB_TIMEOUT.read()


class _Deadline(BaseException):
    """Raised by the alarm; a BaseException so that no library's `except Exception` swallows it."""


def _in_hub_call(frame) -> bool:
    """Whether the Python code the alarm interrupted (`frame`, the innermost one) runs inside a call
    of the Hub's client, huggingface_hub (through which transformers and fairpairs reach the Hub).
    Only there is raising safe: an alarm handled in Python code that a C or C++ extension called
    (torch's import, a tokenizer's converter, a model's construction) sends the exception through the
    extension, and an extension that cannot pass it on aborts the process (seen: "terminate called
    after throwing pybind11::error_already_set" while torch was imported under the deadline). The
    client is called from Python and waits in Python, or in a system call it returns from."""
    while frame is not None:
        if frame.f_globals.get("__name__", "").partition(".")[0] == "huggingface_hub":
            return True
        frame = frame.f_back
    return False


def _on_alarm(signum, frame):
    """End the calls if the alarm interrupted a Hub call; otherwise let them go on until the next
    alarm (every 0.5 s) lands in one: time spent in other code is not network time to cut short."""
    if _in_hub_call(frame):
        raise _Deadline()


def _quiet_deadline(previous):
    """An `sys.unraisablehook` for the armed period: an alarm that went off inside a finaliser (a
    `__del__` of a library's object) is "ignored" by Python, which prints its traceback; the alarm
    repeats every 0.5 s and the next one ends the calls, so that one is dropped silently. Any other
    unraisable exception goes to the hook there was."""
    def hook(unraisable):
        if not isinstance(unraisable.exc_value, _Deadline):
            previous(unraisable)
    return hook


def _endpoint() -> str:
    return os.environ.get("HF_ENDPOINT") or "https://huggingface.co"


@contextmanager
def network_deadline(what: str | tuple = "the Hub", source: str | os.PathLike | None = None):
    """Run Hub calls under the command's remaining network time; past it, NetworkError naming `what`
    (text, or the parts of a message: ``(Param("model"), " gpt2")``). A `source`
    that is a local file or folder needs no network and is not timed. Where there is no SIGALRM
    (Windows, a worker thread) the calls run unbounded by this, with the libraries' own
    per-request timeouts."""
    global _spent, _armed
    can = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    local = source is not None and Path(source).expanduser().exists()
    if _armed or not can or local:
        yield
        return
    start = time.monotonic()
    left = hub_timeout() - _spent
    where = what if isinstance(what, tuple) else (what,)
    if left <= 0:
        raise NetworkError(*where, f": no network time left ({HUB_TIMEOUT.name}={hub_timeout():g} s in total)")
    previous, unraisable = signal.signal(signal.SIGALRM, _on_alarm), sys.unraisablehook
    sys.unraisablehook = _quiet_deadline(unraisable)
    signal.setitimer(signal.ITIMER_REAL, left, 0.5)   # and again every 0.5 s until the calls end
    _armed = True
    try:
        yield
    except _Deadline:
        raise NetworkError(*where, f": the Hugging Face Hub ({_endpoint()}) did not answer within "
                           f"{hub_timeout():g} s ({HUB_TIMEOUT.name})") from None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        sys.unraisablehook = unraisable
        _armed = False
        _spent += time.monotonic() - start
