"""The study notebook a user follows (examples/study.ipynb) runs end to end in a Jupyter kernel,
as `jupyter nbconvert --execute` runs it, offline, and shows its progress: the line saying what
each long step does and the bar itself appear in the cells' output, with no tqdm warning.

Default run: a tiny random GPT-2 folder and 8 pairs per paradigm (the notebook reads them from
environment variables); -m slow: the shipped settings (SmolLM2-135M-Instruct, 100 pairs).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
NOTEBOOK = REPO / "examples" / "study.ipynb"


def execute(tmp_path: Path, env: dict[str, str], timeout: int = 600) -> list[dict]:
    """Run a copy of the notebook with nbconvert in a fresh kernel; its executed cells. (The
    kernel runs in the notebook's folder, so the copy in tmp_path keeps its outputs out of the
    checkout.)"""
    import shutil

    notebook = shutil.copy(NOTEBOOK, tmp_path / NOTEBOOK.name)
    out = tmp_path / "executed.ipynb"
    full = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", **env}
    proc = subprocess.run([sys.executable, "-m", "nbconvert", "--to", "notebook", "--execute", str(notebook),
                           "--output", str(out), f"--ExecutePreprocessor.timeout={timeout}",
                           "--ExecutePreprocessor.kernel_name=python3"],
                          capture_output=True, text=True, env=full, cwd=tmp_path, timeout=timeout + 120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert (tmp_path / "study-run" / "manifest.json").is_file()       # the study wrote its run folder there
    return [c for c in json.loads(out.read_text(encoding="utf-8"))["cells"] if c["cell_type"] == "code"]


def text_of(cell: dict, stream: str | None = None) -> str:
    """Everything a cell printed (on `stream` only, if given) and the plain text of its displays."""
    parts = []
    for o in cell.get("outputs", []):
        if o["output_type"] == "stream" and stream in (None, o["name"]):
            parts.append("".join(o["text"]))
        elif stream is None and "data" in o:
            parts.append("".join(o["data"].get("text/plain", "")))
    return "".join(parts)


def check_study(cells: list[dict], pairs: int, model_line: str) -> None:
    everything = "".join(text_of(c) for c in cells)
    assert "IProgress not found" not in everything and "TqdmWarning" not in everything
    assert "Traceback" not in everything
    gen = next(c for c in cells if "generate_run" in "".join(c["source"]))
    err = text_of(gen, "stderr")
    assert f"generating 3 paradigms x {pairs:,} pairs, original and debiased" in err
    assert f"{6 * pairs}/{6 * pairs}" in err and "100%" in err            # the bar reached its end
    assert "kept_as_drawn" in text_of(gen)                                  # run.table()
    score = next(c for c in cells if "score_pairs" in "".join(c["source"]))
    err = text_of(score, "stderr")
    assert model_line in err                                                # the model's identity at load
    assert "scoring " in err and " sentences with " in err and "100%" in err
    evaluate = next(c for c in cells if "fp.evaluate" in "".join(c["source"]))
    assert "scoring " in text_of(evaluate, "stderr") and "100%" in text_of(evaluate, "stderr")


def test_the_study_notebook_runs_and_shows_progress(tmp_path, tiny_models):
    cells = execute(tmp_path, {"FAIRPAIRS_STUDY_MODEL": tiny_models["gpt2"], "FAIRPAIRS_STUDY_PAIRS": "8"})
    check_study(cells, 8, f"model {tiny_models['gpt2']}: {tiny_models['gpt2']} (float32); causal LM")


@pytest.mark.slow
def test_the_study_notebook_as_shipped(tmp_path):
    """The notebook with its own settings: SmolLM2-135M-Instruct, 100 pairs per paradigm."""
    cells = execute(tmp_path, {}, timeout=1800)
    check_study(cells, 100, "model smollm2-135m: SmolLM2-135M-Instruct (Q4_1 GGUF, de-quantised to float32)")
