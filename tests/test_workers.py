"""Paradigms generated side by side (fairpairs.control.workers): the same files for any number of
workers, answers taken in order, a worker's error raised as in one process, and the default."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import fairpairs as fp
from fairpairs.control.workers import default_workers, in_order
from fairpairs.errors import UsageError

WORKERS_ENV = "FAIRPAIRS_WORKERS"     # (docs/environment.md)

UIDS = ["causative", "transitive", "wh_island"]


def _files(run: Path) -> dict[str, bytes]:
    return {str(p.relative_to(run)): p.read_bytes() for p in sorted(run.rglob("*.jsonl"))}


def test_a_run_writes_the_same_files_with_one_or_three_workers(tmp_path, monkeypatch):
    runs = {}
    for n in ("1", "3"):
        monkeypatch.setenv(WORKERS_ENV, n)
        runs[n] = tmp_path / f"run{n}"
        fp.generate_run(runs[n], paradigms=UIDS, models=["gpt2", "bert-base-cased"], pairs=25, seed=5, progress=False)
    one, three = _files(runs["1"]), _files(runs["3"])
    assert sorted(one) == sorted(f"{s}/{u}.jsonl" for s in ("original", "debiased") for u in UIDS)
    assert one == three
    manifests = [(runs[n] / "manifest.json").read_text().replace(str(runs[n]), "RUN") for n in ("1", "3")]
    assert manifests[0] == manifests[1]


def _slow_first(i: int, here: bool) -> tuple[int, int, bool]:
    if i == 0 and not here:      # the first task finishes last in a worker
        import time

        time.sleep(0.5)
    return i, os.getpid(), here


def test_answers_are_taken_in_order_and_made_by_workers():
    got = []
    in_order(_slow_first, 5, lambda i, answer: got.append((i, answer)), workers=2)
    assert [i for i, _ in got] == [0, 1, 2, 3, 4]
    assert [a[0] for _, a in got] == [0, 1, 2, 3, 4]
    assert all(pid != os.getpid() and not here for _, (_, pid, here) in got)


def test_one_worker_runs_the_tasks_here():
    got = []
    in_order(_slow_first, 3, lambda i, answer: got.append(answer), workers=1)
    assert got == [(0, os.getpid(), True), (1, os.getpid(), True), (2, os.getpid(), True)]


class Broken(Exception):
    def __init__(self, what: str, *, detail: str):     # (an exception that does not pickle back)
        super().__init__(f"{what}: {detail}")


def _fails_on_two(i: int, here: bool) -> int:
    if i == 2:
        raise Broken(f"task {i}", detail="here" if here else "in a worker")
    return i


def test_a_task_that_fails_in_a_worker_fails_here_with_its_own_error():
    got = []
    with pytest.raises(Broken, match="task 2: here"):
        in_order(_fails_on_two, 4, lambda i, answer: got.append(answer), workers=2)
    assert got == [0, 1]


def test_the_default_is_one_per_core_bounded_and_the_variable_is_checked(monkeypatch):
    monkeypatch.delenv(WORKERS_ENV, raising=False)
    cores = len(os.sched_getaffinity(0))
    assert default_workers(100) == min(cores, 4)
    assert default_workers(1) == 1
    monkeypatch.setenv(WORKERS_ENV, "3")
    assert default_workers(100) == 3 and default_workers(2) == 2
    for bad in ("0", "two", "-1"):
        monkeypatch.setenv(WORKERS_ENV, bad)
        with pytest.raises(UsageError, match=rf"FAIRPAIRS_WORKERS='{bad}': expected a whole number of worker processes"):
            default_workers(5)


def _dies_on_one(i: int, here: bool) -> int:
    if i == 1 and not here:
        os._exit(9)      # (as the kernel's out-of-memory killer ends a process: no answer, no error)
    return i


def test_a_worker_that_dies_is_an_error_not_a_hang():
    from fairpairs.errors import OutputError

    got = []
    with pytest.raises(OutputError, match="a worker process generating paradigms ended abruptly"):
        in_order(_dies_on_one, 6, lambda i, answer: got.append(answer), workers=2)
    assert 1 not in got


def _parallelism(i: int, here: bool):
    return os.environ.get("TOKENIZERS_PARALLELISM")


@pytest.mark.parametrize("setting", [None, "true"])
def test_workers_fork_with_tokenizer_threads_off_and_this_process_keeps_its_setting(monkeypatch, setting):
    if setting is None:
        monkeypatch.delenv("TOKENIZERS_PARALLELISM", raising=False)
    else:
        monkeypatch.setenv("TOKENIZERS_PARALLELISM", setting)
    got = []
    in_order(_parallelism, 2, lambda i, answer: got.append(answer), workers=2)
    assert got == ["false", "false"]
    assert os.environ.get("TOKENIZERS_PARALLELISM") == setting
