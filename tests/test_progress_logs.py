"""A command's log holds what it did, not its progress bars (issue 45, item 12): with stderr
redirected to a file, `fairpairs generate` writes the line saying what it does and no bar frames;
on a terminal (a pseudo-terminal here) the same command draws its bar; the variable still turns
both off. Read from the bytes that reach the file or terminal, as a user sees them.

Before the fix, `generate` forced its bars wherever stderr went: the log got tqdm's frames, each
starting with a carriage return ('\\r'), dozens per paradigm."""

from __future__ import annotations

import os
import subprocess
import threading
from pathlib import Path


REPO = Path(__file__).resolve().parents[1]
GEN = ["generate", "--paradigms", "causative,transitive", "--pairs", "20", "--models", "gpt2"]
SAID = "generating 2 paradigms x 20 pairs, original and debiased (length-controlled for gpt2, search)"


def run(fairpairs_cli, args, stderr, **env) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if k != "FAIRPAIRS_DISABLE_PROGRESS_BARS"}
    environ.update(PYTHONPATH=str(REPO), FAIRPAIRS_WORKERS="1", **env)
    return fairpairs_cli.process(*args, stdout=subprocess.PIPE, stderr=stderr, text=False, env=environ, timeout=300)


def in_terminal(fairpairs_cli, args, **env) -> tuple[int, bytes]:
    """Run with stderr on a pseudo-terminal; its exit code and what reached the terminal."""
    import fcntl
    import pty
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))   # (30 x 100: a bar fits)
    got = bytearray()

    def read():
        while True:
            try:
                data = os.read(master, 1 << 16)
            except OSError:          # (EIO: the terminal closed)
                return
            if not data:
                return
            got.extend(data)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        proc = run(fairpairs_cli, args, slave, **env)
    finally:
        os.close(slave)
        reader.join(30)
        os.close(master)
    return proc.returncode, bytes(got)


def test_a_log_gets_the_line_saying_what_is_done_and_no_bar(tmp_path, fairpairs_cli):
    log = tmp_path / "log.txt"
    with open(log, "wb") as f:
        proc = run(fairpairs_cli, [*GEN, "--out", tmp_path / "run"], f)
    assert proc.returncode == 0, log.read_text()
    text = log.read_bytes().decode("utf-8")
    assert "\r" not in text and "%|" not in text, text[:500]
    lines = text.splitlines()      # (the preflight's prediction first, issue 47; then the run)
    assert lines[0].startswith("preflight (gpt2): ") and SAID in lines, text


def test_a_terminal_gets_the_bar_and_the_variable_turns_both_off(tmp_path, fairpairs_cli):
    code, shown = in_terminal(fairpairs_cli, [*GEN, "--out", tmp_path / "a"])
    assert code == 0, shown[-2000:]
    assert SAID.encode() in shown and b"%|" in shown      # (tqdm's bar; a terminal turns every "\n" into "\r\n")
    code, shown = in_terminal(fairpairs_cli, [*GEN, "--out", tmp_path / "b"], FAIRPAIRS_DISABLE_PROGRESS_BARS="1")
    assert code == 0 and b"generating" not in shown and b"%|" not in shown, shown[-2000:]


def test_quiet_keeps_the_log_free_of_both(tmp_path, fairpairs_cli):
    log = tmp_path / "log.txt"
    with open(log, "wb") as f:
        assert run(fairpairs_cli, [*GEN, "--out", tmp_path / "run", "--quiet"], f).returncode == 0
    assert "generating" not in log.read_text() and "\r" not in log.read_text()
