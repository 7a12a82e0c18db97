"""What `fp.evaluate` evaluates: the data given, or a run the API generates for the models
(`fp.generate_run`, the same code path as `fairpairs generate`), read into sets; the analysis
(`analysis.fresh.prepare`) then says what the report needs about it. The API composes the two
stages itself: analysis never calls back into the API."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from fairpairs import arguments as check
from fairpairs.api.datasets import load_sets
from fairpairs.api.generation import generate_run
from fairpairs.errors import Param, UsageError
from fairpairs.scoring.settings import SCORING


def default_run_dir() -> Path:
    """A new folder for a generated run when the caller names none (kept: it can be published or
    re-evaluated)."""
    import tempfile

    return Path(tempfile.mkdtemp(prefix="fairpairs-run-")) / "run"


def generate_for(models: list[str], run_dir, *, paradigms, phenomenon, pairs: int, seed: int, strategy: str) -> list[str]:
    """Write the run folder `run_dir` for `models` (each model's name as its tokenizer) and return
    the report's first lines."""
    from fairpairs.analysis.fresh import generated_notes, regenerate_command

    command = regenerate_command(models, run_dir, paradigms, phenomenon, pairs, seed, strategy)
    result = generate_run(run_dir, paradigms, models, pairs=pairs, seed=seed, strategy=strategy,
                          phenomenon=phenomenon, command=command)
    return generated_notes(models, run_dir, len(result.stats), pairs, seed, strategy, command)


def evaluation_data(data, models: list[str], columns, *, run_dir=None, paradigms, phenomenon, pairs: int | None,
                    seed: int, strategy: str):
    """(data, sets, Prepared): without `data`, a run generated for `models` into `run_dir`
    (default: a new temporary folder; `pairs`: default `SCORING.one_step_pairs`); the sets of the
    data, with each pair's draw where known; what the report needs about them."""
    from fairpairs.analysis.effects import attach_draws
    from fairpairs.analysis.fresh import prepare

    lines = []
    if data is None and int(os.environ.get("WORLD_SIZE") or 1) > 1:
        raise UsageError(Param("data"), ": under a multi-process launch, generate the pairs first (`fairpairs generate`) and "
                         "give the run folder")
    if data is None:                     # one step: pairs controlled for these models' tokenizers
        made = run_dir is None
        run_dir = default_run_dir() if made else check.path(run_dir, "run_dir", exists=False)
        try:
            lines = generate_for(models, run_dir, paradigms=paradigms, phenomenon=phenomenon,
                                 pairs=SCORING.one_step_pairs if pairs is None else pairs, seed=seed, strategy=strategy)
        except BaseException:
            if made:                     # (the temporary folder made for it holds nothing)
                shutil.rmtree(run_dir.parent, ignore_errors=True)
            raise
        data = run_dir
    elif pairs is not None or run_dir is not None:
        raise UsageError(f"{'pairs' if pairs is not None else 'run_dir'}: only without data (the pairs are then "
                         f"generated)")
    sets = attach_draws(load_sets(data, columns), data)   # matched contexts by draw where the data says which
    return data, sets, prepare(data, models, sets, lines)
