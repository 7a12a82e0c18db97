"""Evaluating models on pairs controlled for exactly their tokenizers (issue 26): what the analysis
says about the data of an evaluation. (Generating those pairs is the API's: `fp.evaluate` calls
`fp.generate_run` itself and hands the run folder here.)

`regenerate_command(...)` and `generated_notes(...)`: for a run generated for the evaluation, the
report's first lines: which tokenizers, the seed, and the `fairpairs generate` command that writes
the same pairs byte for byte.

`control_check(run_dir, models, debiased)`: for data given as a run folder, whether its debiased set
is length-controlled for each model's tokenizer; a `FairpairsWarning` (one line per model) where it
is not.

`prepare(data, models, sets, lines)`: what the report needs about the data: its balance report (a
run folder) and its first lines.

A model's tokenizer is found the way scoring finds it: the model's name resolves to the same files
for `fairpairs.tokenization.lengths.LengthMeter` as for `Scorer.from_pretrained` (a bundled or Hub name, a
model folder's tokenizer files, the tokenizer inside a GGUF file, `smollm2-135m`).
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from fairpairs.manifest import RunManifest


def regenerate_command(models: list[str], run_dir, paradigms, phenomenon: str | None, pairs: int, seed: int,
                       strategy: str) -> str:
    """The `fairpairs generate` command that writes these pairs (same files, byte for byte)."""
    spec = paradigms if isinstance(paradigms, str) else ",".join(paradigms)
    args = ["fairpairs", "generate", "--models", ",".join(models), "--paradigms", spec]
    if phenomenon is not None:
        args += ["--phenomenon", phenomenon]
    args += ["--pairs", str(pairs), "--seed", str(seed), "--strategy", strategy, "--out", os.fspath(run_dir)]
    return " ".join(shlex.quote(a) for a in args)


def generated_notes(models: list[str], run_dir, paradigms: int, pairs: int, seed: int, strategy: str,
                    command: str) -> list[str]:
    """The report's first lines for a run generated for the evaluation (`paradigms`: how many)."""
    return [f"Pairs generated for this evaluation, length-controlled for the tokenizers of the models evaluated: "
            f"{', '.join(models)}; run folder `{os.fspath(run_dir)}` ({paradigms} paradigm(s) x {pairs} pairs per set).",
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


def control_check(run_dir, models: list[str], debiased, manifest: RunManifest | None = None) -> list[str]:
    """Per model, whether the run folder's debiased set (a frame with sentence_good/sentence_bad) is
    length-controlled for its tokenizer: a FairpairsWarning and a report line for each model it is
    not (with how many debiased pairs differ in length under that tokenizer), a report line where
    the manifest does not name the tokenizer but every pair has equal lengths under it anyway.
    `manifest`: the run's, as the API's reader read it (default: read here)."""
    import warnings

    from fairpairs.errors import Param, FairpairsError, FairpairsWarning
    from fairpairs.manifest import read_manifest
    from fairpairs.tokenization.lengths import LengthMeter

    manifest = read_manifest(run_dir) if manifest is None else manifest
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


def is_run_folder(data) -> bool:
    from fairpairs.pairsets import RUN_SETS

    return isinstance(data, (str, os.PathLike)) and all((Path(data) / s).is_dir() for s in RUN_SETS)


@dataclass
class Prepared:
    """What `prepare` found out about the data, for the report."""

    data: object
    models: list[str]
    sets: dict
    balance: object = None                                   # fp.balance of a run folder
    lines: list[str] = field(default_factory=list)           # provenance (generated runs), balance failures
    check: bool = False                                      # a run folder given as data: check its control
    manifest: RunManifest | None = None                      # a run folder's, as the API read it

    def notes(self) -> list[str]:
        """The report's first lines; for a run folder given as data, the control check (with its
        warnings) first, once the models have scored."""
        head = control_check(self.data, self.models, self.sets["debiased"], self.manifest) if self.check else []
        return head + self.lines


def prepare(data, models: list[str], sets: dict, lines: list[str], manifest: RunManifest | None = None) -> Prepared:
    """What the report needs about `data` (read into `sets`; `manifest`: a run folder's, as the
    API's reader gave it, its language resolved): for a run folder, its balance report (its
    distinct-word ratio is in the headline) and, unless it was generated for this evaluation
    (`lines` are then its provenance), the check of its length control."""
    from fairpairs.errors import FairpairsError

    lines = list(lines)
    prepared = Prepared(data, models, sets, check=not lines and is_run_folder(data), manifest=manifest)
    if is_run_folder(data):
        from fairpairs.control.balance_report import measure_balance as balance

        try:
            prepared.balance = balance(data, manifest=manifest)
        except FairpairsError as exc:
            lines.append(f"distinct-word ratio n/a: the balance report of {data} failed ({exc})")
    prepared.lines = lines
    return prepared
