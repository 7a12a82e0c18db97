"""Processes fairpairs forks end with the process that forked them, also when that one is killed
with SIGKILL (issue 45, item 3): the out-of-memory killer's signal, which runs no cleanup. Before
the fix, the workers of a killed `fairpairs generate` stayed alive, re-parented to init, for good.

Processes are found and judged through /proc (Linux, where the kernel's parent-death signal is
the mechanism; the thread that watches the parent elsewhere is run here too, forced). A process
counts as ended once it is gone or a zombie (in a container whose init reaps nothing, the ended
orphans of a killed process stay as zombies). Every process these tests start is ended by its pid
at the end, whatever happened."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc (Linux)")

REPO = Path(__file__).resolve().parents[1]
ENDED_WITHIN = 10.0      # seconds: the kernel's signal is immediate, the watching thread looks every second


def stat(pid: int) -> tuple[str, int] | None:
    """(state, parent pid) of process `pid`, None when it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()     # (after the command name, which may hold spaces)
    return fields[0], int(fields[1])


def alive(pid: int) -> bool:
    s = stat(pid)
    return s is not None and s[0] not in ("Z", "X")


def children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            s = stat(int(entry.name))
            if s is not None and s[1] == pid and s[0] not in ("Z", "X"):
                found.append(int(entry.name))
    return found


def wait_until(check, seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if check():
            return True
        time.sleep(0.1)
    return check()


def end(pids) -> None:
    for pid in pids:
        if alive(pid):
            os.kill(pid, signal.SIGKILL)


def test_the_workers_of_a_killed_generate_end_with_it(tmp_path):
    env = dict(os.environ, FAIRPAIRS_WORKERS="2", PYTHONPATH=str(REPO))
    main = subprocess.Popen([sys.executable, "-m", "fairpairs.cli", "generate", "--paradigms", "all", "--pairs", "1000",
                             "--models", "gpt2", "--out", str(tmp_path / "run"), "--quiet"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    workers: list[int] = []
    try:
        assert wait_until(lambda: len(children(main.pid)) >= 2 or main.poll() is not None, 180), "no workers started"
        workers = children(main.pid)
        assert len(workers) == 2 and main.poll() is None, (workers, main.stderr.read() if main.poll() is not None else "")
        time.sleep(1.0)          # (the workers are at work, past their start)
        main.kill()              # SIGKILL: no cleanup of the main process runs
        main.wait(30)
        assert wait_until(lambda: not any(alive(w) for w in workers), ENDED_WITHIN), \
            [(w, stat(w)) for w in workers if alive(w)]
    finally:
        if main.poll() is None:
            main.kill()
            main.wait(30)
        end(workers)
        main.stderr.close()


# a parent that forks one child which asks to end with it, then both wait; the parent prints the child's pid
FORKER = textwrap.dedent("""
    import os, sys, time
    from fairpairs.io import processes

    if sys.argv[1] == "watch":            # the way of platforms without the kernel's signal, forced
        processes._kernel_signals_death = lambda: False
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:
        if sys.argv[1] == "late":         # the parent dies before the child asks
            while os.getppid() == parent:
                time.sleep(0.01)
        processes.end_with_parent(parent)
        time.sleep(300)
        os._exit(0)
    print(pid, flush=True)
    time.sleep(300)
""")


@pytest.mark.parametrize("way", ["kernel", "watch", "late"])
def test_a_forked_child_ends_with_its_killed_parent(way):
    """kernel: Linux's parent-death signal; watch: the thread that looks for the parent (other
    platforms); late: the parent died before the child asked, which no signal reports."""
    parent = subprocess.Popen([sys.executable, "-c", FORKER, way], stdout=subprocess.PIPE, text=True,
                              env=dict(os.environ, PYTHONPATH=str(REPO)))
    child = None
    try:
        child = int(parent.stdout.readline())
        assert alive(child)
        time.sleep(0.5 if way != "late" else 0)      # (the child has asked, except in "late")
        parent.kill()
        parent.wait(30)
        assert wait_until(lambda: not alive(child), ENDED_WITHIN), stat(child)
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait(30)
        if child is not None:
            end([child])
        parent.stdout.close()
