"""Shared test settings: never touch the network; where the reference data lives."""

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


@pytest.fixture(scope="session")
def shared() -> Path:
    assert SHARED.is_dir(), f"reference data folder {SHARED} is missing"
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
