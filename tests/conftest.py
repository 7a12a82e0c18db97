"""Shared test settings: never touch the network; where the reference data lives; the fixtures every
test file may use, among them `fairpairs_cli`, the one way the tests run the `fairpairs` command
(tests/README.md: which file a test belongs in, the tiers).

The default run reads only the repository (tests/fixtures/, the bundled tokenizers; tests/references.py).
Tests that need the full references in ../shared beside the checkout ask for the `shared` fixture and
must be marked slow (checked at collection); they fail loudly, never skip, when ../shared is absent.
"""

import contextlib
import io
import os
import signal
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
# converted tokenizers are cached in a folder of the test session, not the user's (fairpairs.tokenization.cache)
_TOKENIZER_CACHE = tempfile.TemporaryDirectory(prefix="fairpairs-test-tokenizers-")
os.environ.setdefault("FAIRPAIRS_TOKENIZER_CACHE", _TOKENIZER_CACHE.name)

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


def pytest_collection_modifyitems(config, items):
    """Only slow tests may read ../shared: the default run must pass in a plain clone."""
    bad = [item.nodeid for item in items
           if "shared" in getattr(item, "fixturenames", ()) and item.get_closest_marker("slow") is None]
    if bad:
        raise pytest.UsageError("tests that read ../shared must be marked slow: " + ", ".join(bad))


@pytest.fixture(scope="session")
def shared() -> Path:
    """The full reference data (public BLiMP, WikiText-2, CrowS-Pairs, ...): ../shared beside the checkout."""
    assert SHARED.is_dir(), (f"reference data folder {SHARED} is missing: the slow tier needs the full "
                             f"references beside the checkout (README, 'Set up')")
    return SHARED


@pytest.fixture(scope="module")
def one_torch_thread():
    """Tiny models run fastest on one thread (and do not stall when the machine is busy)."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="session")
def tiny_models(tmp_path_factory) -> dict[str, str]:
    """Folders of a tiny random gpt2 (causal) and bert-base-cased (masked) model, built once."""
    from fairpairs.scoring import build_tiny_model

    root = tmp_path_factory.mktemp("tiny")
    return {"gpt2": str(build_tiny_model("gpt2", root / "tiny-gpt2", seed=0)),
            "bert": str(build_tiny_model("bert-base-cased", root / "tiny-bert", seed=0))}


@pytest.fixture(scope="session")
def checkpoints(tmp_path_factory) -> dict[int, Path]:
    """Two tiny GPT-2 checkpoints with the same config and different weights (seeds 0 and 1): ranks
    that must notice they hold different models (test_rank_agreement, test_distributed)."""
    from fairpairs.scoring import build_tiny_model

    root = tmp_path_factory.mktemp("ckpt")
    return {seed: build_tiny_model("gpt2", root / f"seed{seed}", seed=seed) for seed in (0, 1)}


@pytest.fixture(autouse=True)
def _process_state_restored():
    """`fairpairs.cli.main` run in this process installs its SIGTERM handler and wraps
    `warnings.showwarning`, as it does in its own process; put both back after each test (so one
    test's CLI run cannot change another's, and the test run itself stays stoppable with kill)."""
    handler, show = signal.getsignal(signal.SIGTERM), warnings.showwarning
    yield
    signal.signal(signal.SIGTERM, handler)
    warnings.showwarning = show


class CliResult(subprocess.CompletedProcess):
    """What `fairpairs ARGS` did: `.returncode`, `.stdout`, `.stderr` (text), like `subprocess.run`'s
    answer; it also reads as the tuple (exit code, stdout, stderr): `code, out, err = fairpairs_cli(...)`."""

    def __iter__(self):
        return iter((self.returncode, self.stdout, self.stderr))

    def __getitem__(self, i):
        return tuple(self)[i]


class FairpairsCli:
    """`fairpairs ARGS`, the one way the tests run the command (the `fairpairs_cli` fixture).

    Calling it runs `fairpairs.cli.main` (the entry point of pyproject's `fairpairs` script, with its
    one-line errors and exit codes) in this process; it spares each call a Python start and the
    torch/transformers/pandas imports (about 3 s of CPU). Its stderr never holds a traceback (the
    project's rule for every bad input), so every call checks that. `process` and `start` run it in a
    process of its own, for what only such a process shows (signals, a fresh environment or hash seed,
    a file size limit, another interpreter, commands side by side).
    """

    def __call__(self, *args, cwd=None) -> CliResult:
        """`fairpairs ARGS` in this process (in folder `cwd` when given): its exit code and output."""
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
        assert "Traceback" not in text[1], text[1]
        return CliResult(["fairpairs", *argv], code, *text)

    @staticmethod
    def command(args, python: str = sys.executable) -> list:
        """The command line of `fairpairs ARGS` under `python` (arguments may be bytes, kept as they are)."""
        return [python, "-m", "fairpairs.cli", *(a if isinstance(a, bytes) else str(a) for a in args)]

    def process(self, *args, python: str = sys.executable, timeout: float = 600,
                **run) -> subprocess.CompletedProcess:
        """`fairpairs ARGS` in a process of its own, as `subprocess.run` runs it (output captured as
        text unless `run` says otherwise; `env`, `cwd`, `preexec_fn`... passed on)."""
        if "stdout" not in run and "stderr" not in run:
            run["capture_output"] = True
        run.setdefault("text", True)
        return subprocess.run(self.command(args, python), timeout=timeout, **run)

    def start(self, *args, **popen) -> subprocess.Popen:
        """`fairpairs ARGS` started in a process of its own and left running (stdout and stderr piped)."""
        return subprocess.Popen(self.command(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, **popen)


@pytest.fixture(scope="session")
def fairpairs_cli() -> FairpairsCli:
    """`fairpairs ARGS`: `fairpairs_cli(*args)` in this process, `fairpairs_cli.process(*args)` in its own."""
    return FairpairsCli()


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    """A small real run folder, one per test module that asks for it (its tests may edit it): 4
    pairs of determiner_noun_agreement_1, the bundled tokenizers, seed 0."""
    import fairpairs as fp

    out = tmp_path_factory.mktemp("run") / "run"
    fp.generate_run(out, paradigms=["determiner_noun_agreement_1"], pairs=4, seed=0)
    return out
