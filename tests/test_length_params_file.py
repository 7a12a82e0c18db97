"""A length-parameters file keeps every entry written to it (issue 45, item 4): writers that finish
together (the jobs of a cluster's array) each keep their entry, and an entry of another model is
replaced only when asked (`fit-length --replace`, `replace=True`).

Before the fix: `add_entry` read, added and renamed without a lock, so eight writers finishing
together kept some of their eight entries only (3, 3 and 5 in the issue's runs); and `fit-length
--name N`, N another model's entry, replaced it with a note on stderr and exit 0."""

from __future__ import annotations

import fcntl
import json
import multiprocessing
import os
from pathlib import Path

import pytest

from fairpairs.errors import OutputError
from fairpairs.io.locks import lock_path
from fairpairs.scoring.length import KEYS, add_entry

FIXTURES = Path(__file__).parent / "fixtures"
CORPUS = FIXTURES / "wikitext-2-valid.txt"
WRITERS = 8
ROUNDS = 3


def entry(i: int) -> dict:
    """An entry as `fit_length_params` makes one, for a model of fingerprint `m{i}` (the numbers are
    not read here)."""
    return {**{k: float(i) for k in KEYS}, "model": f"model-{i}", "model_sha256": f"{i:064x}",
            "fitted_on": {"sentences": 100 + i}}


def _writer(path: str, i: int, barrier) -> None:
    barrier.wait()           # (all eight finish their fit at once, as an array's jobs can)
    add_entry(path, f"model-{i}", entry(i))


def test_eight_writers_finishing_together_keep_all_eight_entries(tmp_path):
    """Forked processes released together by a barrier, three times over (on the code before the
    fix each round lost entries, in every run tried)."""
    ctx = multiprocessing.get_context("fork")
    for r in range(ROUNDS):
        path = tmp_path / f"params-{r}.json"
        add_entry(path, "kept-before", entry(99))        # (a file that already holds an entry)
        barrier = ctx.Barrier(WRITERS)
        procs = [ctx.Process(target=_writer, args=(str(path), i, barrier)) for i in range(WRITERS)]
        for p in procs:
            p.start()
        for p in procs:
            p.join(120)
        assert [p.exitcode for p in procs] == [0] * WRITERS
        models = json.loads(path.read_text())["models"]
        assert sorted(models) == sorted(["kept-before", *(f"model-{i}" for i in range(WRITERS))]), f"round {r}"
        assert all(models[f"model-{i}"] == entry(i) for i in range(WRITERS))
        assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []   # (no temporary file left)


def test_a_writer_that_waits_too_long_for_the_lock_fails_in_one_line_and_writes_nothing(tmp_path, monkeypatch):
    import fairpairs.io.locks as locks

    path = tmp_path / "params.json"
    add_entry(path, "a", entry(1))
    before = path.read_bytes()
    monkeypatch.setattr(locks, "LOCK_TIMEOUT", 0.3)
    with open(lock_path(path), "a") as held:      # another writer's lock, as flock sees it (another open file)
        fcntl.flock(held, fcntl.LOCK_EX)
        with pytest.raises(OutputError) as got:
            add_entry(path, "b", entry(2))
    message = str(got.value)
    assert message.startswith(f"out {path}: another process has held its lock file {lock_path(path)} for 0.3 s")
    assert "\n" not in message and path.read_bytes() == before
    add_entry(path, "b", entry(2))       # released: the next writer goes on
    assert sorted(json.loads(path.read_text())["models"]) == ["a", "b"]


def test_an_entry_of_another_model_is_replaced_only_when_asked(tmp_path):
    path = tmp_path / "params.json"
    add_entry(path, "N", entry(1))
    before = path.read_bytes()
    with pytest.raises(OutputError, match=rf"its entry 'N' holds another model's parameters \(model_sha256 "
                                          rf"{entry(1)['model_sha256'][:12]}\), not this model's \("
                                          rf"{entry(2)['model_sha256'][:12]}\); not replaced without replace"):
        add_entry(path, "N", entry(2))
    assert path.read_bytes() == before
    assert add_entry(path, "N", {**entry(1), "r2": 0.5}) is True        # the same model: a refit, replaced
    assert json.loads(path.read_text())["models"]["N"]["r2"] == 0.5
    assert add_entry(path, "N", entry(2), replace=True) is True          # asked: replaced
    assert json.loads(path.read_text())["models"]["N"] == entry(2)
    unknown = {k: v for k, v in entry(3).items() if k != "model_sha256"}  # (an entry that names no model)
    add_entry(path, "U", unknown)
    with pytest.raises(OutputError, match="holds the parameters of a model it does not identify"):
        add_entry(path, "U", entry(4))


def test_fit_length_refuses_another_models_entry_in_one_line_unless_replace(checkpoints, tmp_path, fairpairs_cli):
    a, b = (str(checkpoints[seed]) for seed in (0, 1))      # (tiny gpt2 models: same tokenizer, other weights)
    params = tmp_path / "len.json"
    fit = ["fit-length", "--corpus", CORPUS, "--sentences", 30, "--name", "N", "--out", params, "--no-progress"]
    assert fairpairs_cli(*fit, "--models", a).returncode == 0
    before = params.read_bytes()
    proc = fairpairs_cli(*fit, "--models", b)
    assert proc.returncode == 1 and proc.stdout == "" and proc.stderr.count("\n") == 1, proc.stderr
    line = proc.stderr
    assert line.startswith(f"fairpairs: error: --out {params}: its entry 'N' holds another model's parameters "), line
    assert "--replace" in line and "--name" in line and "Traceback" not in line
    assert params.read_bytes() == before and not os.path.exists(f"{params}.tmp")
    assert "fitted on" not in line      # (refused before the fit)
    proc = fairpairs_cli(*fit, "--models", b, "--replace")
    assert proc.returncode == 0, proc.stderr
    assert "replaced the entry 'N'" in proc.stderr
    kept = json.loads(params.read_text())["models"]
    from fairpairs.scoring.fingerprint import model_fingerprint

    assert list(kept) == ["N"] and kept["N"]["model_sha256"] == model_fingerprint(b) != model_fingerprint(a)
