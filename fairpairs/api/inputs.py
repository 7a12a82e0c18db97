"""What `fp.evaluate` evaluates: the data given, or a run the API generates for the models
(`fp.generate_run`, the same code path as `fairpairs generate`), read into sets; the analysis
(`analysis.fresh.prepare`) then says what the report needs about it. The API composes the two
stages itself: analysis never calls back into the API."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from fairpairs.api.common import read_sets
from fairpairs.api.generation import generate_run
from fairpairs.errors import Param, UsageError
from fairpairs.io.progress import announce


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


def evaluation_data(data, models: list[str], columns, config):
    """(data, sets, Prepared, Plan or None): without `data`, a run generated for `models` into
    `config.run_dir` (default: a new temporary folder) with `config`'s generation settings (an
    `analysis.config.EvaluationConfig`: checked, and resolved to their defaults), of `config.pairs`
    per paradigm when given, else of the size the design plans for `config.target_halfwidth` within
    `config.max_sentences` (`fairpairs.api.design`); the sets of the data, with each pair's draw where
    known; what the report needs about them."""
    from fairpairs.analysis.draws import attach_draws
    from fairpairs.analysis.fresh import prepare

    lines, plan = [], None
    if data is None and int(os.environ.get("WORLD_SIZE") or 1) > 1:
        raise UsageError(Param("data"), ": under a multi-process launch, generate the pairs first (`fairpairs generate`) and "
                         "give the run folder")
    if data is None:                     # one step: pairs controlled for these models' tokenizers
        from fairpairs.generation.selection import select_paradigms

        select_paradigms(config.paradigms, config.phenomenon)   # (a wrong name: before the design is announced)
        made = config.run_dir is None
        run_dir = default_run_dir() if made else Path(config.run_dir)
        try:
            plan = design_plan(models, config)
            lines = generate_for(models, run_dir, paradigms=config.paradigms, phenomenon=config.phenomenon,
                                 pairs=plan.pairs, seed=config.seed, strategy=config.strategy)
        except BaseException:
            if made:                     # (the temporary folder made for it holds nothing)
                shutil.rmtree(run_dir.parent, ignore_errors=True)
            raise
        data = run_dir
    pair_sets = read_sets(data, columns, "pairs", "data")    # (a run folder's manifest: its language resolved)
    sets = attach_draws(pair_sets, data)   # matched contexts by draw where the data says which
    return data, sets, prepare(data, models, sets, lines, pair_sets.manifest), plan


def design_plan(models: list[str], config):
    """The design of a one-step evaluation: `config.pairs` as given (no planning), or planned from a
    pilot run for `config.target_halfwidth` within `config.max_sentences`. The plan's lines are
    announced before anything is scored."""
    from fairpairs.analysis.design import Plan, equal_sample, per_direction
    from fairpairs.api.design import pilot_plan

    halfwidth = config.target_halfwidth
    if config.pairs is not None:
        plan = Plan(target_halfwidth=halfwidth, per_direction=per_direction(halfwidth), pairs=config.pairs,
                    paradigms=0, pilot_pairs=0, equal_target=equal_sample(halfwidth), explicit_pairs=True)
    else:
        def pilot(folder, n):
            generate_run(folder, config.paradigms, models, pairs=n, seed=config.seed, strategy=config.strategy,
                         phenomenon=config.phenomenon)

        plan = pilot_plan(models, pilot, halfwidth=halfwidth, max_sentences=config.max_sentences)
    for line in plan.lines():
        announce(line)
    return plan
