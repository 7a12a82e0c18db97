"""Shared test settings: never touch the network; where the reference data lives.

The default run reads only the repository (tests/fixtures/, the bundled tokenizers; tests/references.py).
Tests that need the full references in ../shared beside the checkout ask for the `shared` fixture and
must be marked slow (checked at collection); they fail loudly, never skip, when ../shared is absent.
"""

import os
import signal
import warnings
import tempfile
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


@pytest.fixture
def fairpairs_cli():
    """`fairpairs ARGS` run in this process: tests/cli_run.py's `in_process`."""
    from cli_run import in_process

    return in_process
