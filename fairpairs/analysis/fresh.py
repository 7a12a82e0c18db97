"""Evaluating models on pairs controlled for exactly their tokenizers (issue 26).

`generate_for(models, run_dir, ...)`: the original and debiased sets of `fairpairs generate`,
length-controlled for the tokenizer of every model to be evaluated (`fp.generate_run`, the same code
path as the command), and the report's first lines: which tokenizers, the seed, and the
`fairpairs generate` command that writes the same pairs byte for byte.

`control_check(run_dir, models, debiased)`: for data given as a run folder, whether its debiased set
is length-controlled for each model's tokenizer; a `FairpairsWarning` (one line per model) where it
is not.

`evaluation_data(data, models, ...)`: what `fp.evaluate` evaluates: the data given, or the run it
generates; its sets (with the draw of every pair where the data says); its balance report.

A model's tokenizer is found the way scoring finds it: the model's name resolves to the same files
for `fairpairs.tokenizers.lengths.LengthMeter` as for `Scorer.from_pretrained` (a bundled or Hub name, a
model folder's tokenizer files, the tokenizer inside a GGUF file, `smollm2-135m`).
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from fairpairs.manifest import RunManifest

ONE_STEP_PAIRS = 20   # pairs per paradigm and set when evaluate generates: minutes on a CPU for all 67


def regenerate_command(models: list[str], run_dir, paradigms="all", phenomenon: str | None = None,
                       pairs: int = ONE_STEP_PAIRS, seed: int = 0, strategy: str = "search") -> str:
    """The `fairpairs generate` command that writes these pairs (same files, byte for byte)."""
    spec = paradigms if isinstance(paradigms, str) else ",".join(paradigms)
    args = ["fairpairs", "generate", "--models", ",".join(models), "--paradigms", spec]
    if phenomenon is not None:
        args += ["--phenomenon", phenomenon]
    args += ["--pairs", str(pairs), "--seed", str(seed), "--strategy", strategy, "--out", os.fspath(run_dir)]
    return " ".join(shlex.quote(a) for a in args)


def generate_for(generate_run, models: list[str], run_dir, *, paradigms="all", phenomenon: str | None = None,
                 pairs: int = ONE_STEP_PAIRS, seed: int = 0, strategy: str = "search") -> list[str]:
    """Write the run folder `run_dir` for `models` with `generate_run` (`fp.generate_run`, each
    model's name as its tokenizer) and return the report's first lines."""
    command = regenerate_command(models, run_dir, paradigms, phenomenon, pairs, seed, strategy)
    result = generate_run(run_dir, paradigms, models, pairs=pairs, seed=seed, strategy=strategy,
                          phenomenon=phenomenon, command=command)
    n = len(result.stats)
    return [f"Pairs generated for this evaluation, length-controlled for the tokenizers of the models evaluated: "
            f"{', '.join(models)}; run folder `{os.fspath(run_dir)}` ({n} paradigm(s) x {pairs} pairs per set).",
            f"Seed {seed}, strategy {strategy}. The same pairs, byte for byte: `{command}`"]


def _controls(manifest: RunManifest, meter) -> bool:
    """Whether the run's manifest names this tokenizer, or one with the same tokenizer files."""
    if meter.name in (manifest.models or []):
        return True
    ours = {(k, v) for k, v in meter.file_hashes().items() if k.startswith("tokenizer") and k != "tokenizer_config.json"}
    for info in (manifest.tokenizers or {}).values():
        files = info.get("files") or {} if isinstance(info, dict) else {}
        if ours & set(files.items()):
            return True
    return False


def control_check(run_dir, models: list[str], debiased) -> list[str]:
    """Per model, whether the run folder's debiased set (a frame with sentence_good/sentence_bad) is
    length-controlled for its tokenizer: a FairpairsWarning and a report line for each model it is
    not (with how many debiased pairs differ in length under that tokenizer), a report line where
    the manifest does not name the tokenizer but every pair has equal lengths under it anyway."""
    import warnings

    from fairpairs.errors import Param, FairpairsError, FairpairsWarning
    from fairpairs.manifest import read_manifest
    from fairpairs.tokenizers.lengths import LengthMeter

    manifest = read_manifest(run_dir)
    named = manifest.models
    if not named:
        return [f"The manifest of `{os.fspath(run_dir)}` does not say which tokenizers its debiased set is "
                f"length-controlled for."]
    notes = [f"Data: run folder `{os.fspath(run_dir)}`, length-controlled for {', '.join(named)} "
             f"(seed {manifest.seed}, strategy {manifest.strategy})."]
    good, bad = list(debiased["sentence_good"]), list(debiased["sentence_bad"])
    for model in models:
        try:
            meter = LengthMeter(model)
        except FairpairsError:
            meter = None
        if meter is None:     # scoring loads it next and says what is wrong with it; no warning before that
            notes.append(f"Model {model}: its tokenizer could not be loaded to check that the debiased set is "
                         f"length-controlled for it (the run controlled for {', '.join(named)}).")
            continue
        if _controls(manifest, meter):
            continue
        unequal = sum(g != b for g, b in zip(meter.lengths(good), meter.lengths(bad)))
        if unequal == 0:
            notes.append(f"Model {model}: its tokenizer is not one the run controlled for, but all {len(good)} "
                         f"debiased pairs have equal token lengths under it.")
            continue
        counted = f"{unequal} of {len(good)} debiased pairs differ in token length under it"
        text = (f"the debiased set of {os.fspath(run_dir)} is not length-controlled for this model's tokenizer "
                f"({counted}; the run controlled for {', '.join(named)})")
        warnings.warn(FairpairsWarning(Param("models"), f" {model}", value=model, reason=f"{text}"), stacklevel=3)
        notes.append(f"**Warning** (model {model}): {text}.")
    return notes


def default_run_dir() -> Path:
    """A new folder for a generated run when the caller names none (kept: it can be published or
    re-evaluated)."""
    import tempfile

    return Path(tempfile.mkdtemp(prefix="fairpairs-run-")) / "run"


def is_run_folder(data) -> bool:
    from fairpairs.pairsets import RUN_SETS

    return isinstance(data, (str, os.PathLike)) and all((Path(data) / s).is_dir() for s in RUN_SETS)


@dataclass
class Prepared:
    """What `evaluation_data` found out about the data, for the report."""

    data: object
    models: list[str]
    sets: dict
    balance: object = None                                   # fp.balance of a run folder
    lines: list[str] = field(default_factory=list)           # provenance (generated runs), balance failures
    check: bool = False                                      # a run folder given as data: check its control

    def notes(self) -> list[str]:
        """The report's first lines; for a run folder given as data, the control check (with its
        warnings) first, once the models have scored."""
        head = control_check(self.data, self.models, self.sets["debiased"]) if self.check else []
        return head + self.lines


def evaluation_data(data, models: list[str], load_sets, generate_run, *, run_dir=None, paradigms="all",
                    phenomenon: str | None = None, pairs: int | None = None, seed: int = 0, strategy: str = "search"):
    """(data, sets, Prepared): without `data`, a run generated for `models` into `run_dir` (default:
    a new temporary folder) by `generate_run` (`fp.generate_run`); the sets `load_sets(data)` reads
    (`fp.load_sets`), with each pair's draw where known; the balance report of a run folder (its
    distinct-word ratio is in the headline)."""
    from fairpairs import arguments as check
    from fairpairs.analysis.effects import attach_draws
    from fairpairs.errors import Param, FairpairsError, UsageError

    lines = []
    if data is None and int(os.environ.get("WORLD_SIZE") or 1) > 1:
        raise UsageError(Param("data"), ": under a multi-process launch, generate the pairs first (`fairpairs generate`) and "
                         "give the run folder")
    if data is None:                     # one step: pairs controlled for these models' tokenizers
        run_dir = default_run_dir() if run_dir is None else check.path(run_dir, "run_dir", exists=False)
        lines = generate_for(generate_run, models, run_dir, paradigms=paradigms, phenomenon=phenomenon,
                             pairs=ONE_STEP_PAIRS if pairs is None else pairs, seed=seed, strategy=strategy)
        data = run_dir
    elif pairs is not None or run_dir is not None:
        raise UsageError(f"{'pairs' if pairs is not None else 'run_dir'}: only without data (the pairs are then "
                         f"generated)")
    sets = attach_draws(load_sets(data), data)   # matched contexts by draw where the data says which
    prepared = Prepared(data, models, sets, check=not lines and is_run_folder(data))
    if is_run_folder(data):
        from fairpairs.control.balance_report import balance

        try:
            prepared.balance = balance(data)
        except FairpairsError as exc:
            lines.append(f"distinct-word ratio n/a: the balance report of {data} failed ({exc})")
    prepared.lines = lines
    return data, sets, prepared
