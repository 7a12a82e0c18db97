"""`fairpairs ARGS` run in the test process, as the console script runs it.

`in_process` calls `fairpairs.cli.main` (the entry point of pyproject's `fairpairs` script, with its
one-line errors and exit codes) and returns a CompletedProcess like
`subprocess.run([sys.executable, "-m", "fairpairs.cli", ...], capture_output=True, text=True)`'s. It
spares each call a Python start and the torch/transformers/pandas imports (about 3 s of CPU). Tests of
what only a process of its own shows (signals, a fresh hash seed or environment, distributed ranks,
the notebook's kernel) keep running `fairpairs` as a subprocess.
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import subprocess
import sys
import warnings


def in_process(*args, cwd=None) -> subprocess.CompletedProcess:
    from fairpairs.cli import main

    argv = [str(a) for a in args]
    out, err = (io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="surrogateescape", write_through=True)
                for _ in range(2))
    handler, show, here = signal.getsignal(signal.SIGTERM), warnings.showwarning, os.getcwd()
    try:
        if cwd is not None:
            os.chdir(cwd)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main(argv)
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
    finally:
        os.chdir(here)
        signal.signal(signal.SIGTERM, handler)   # main installs its SIGTERM handler and wraps
        warnings.showwarning = show               # showwarning, as in a process of its own
    text = [f.buffer.getvalue().decode("utf-8", "surrogateescape") for f in (out, err)]
    return subprocess.CompletedProcess(["fairpairs", *argv], code, *text)
