"""The calls that write a command's folder of results: checked before any work, claimed as a
folder of ours, and left as they were when the work fails (`fairpairs evaluate` calls
`evaluate_into`; the command only parses options and prints)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from dataclasses import replace

from fairpairs import arguments as check
from fairpairs.analysis.config import EvaluationConfig
from fairpairs.api.evaluation import evaluate_with
from fairpairs.errors import Param, SettingsError
from fairpairs.io.progress import saying


def _inputs(data, unigrams, length_params) -> list[Path]:
    """What an evaluation reads, which no output may be written over or into."""
    from fairpairs.pairsets import dataset_paths

    extra = [Path(u) for u in (unigrams, length_params) if isinstance(u, (str, os.PathLike)) and Path(u).exists()]
    return (dataset_paths(data) if data is not None else []) + extra


def _claim_report_folders(out: Path, cache: Path | None, data, reads: list[Path]) -> list[Path]:
    """Before any work: `out` is new, empty or a report folder of ours, the cache a cache folder of
    ours and not `out` itself, neither in what the evaluation reads. `out` is claimed when the
    generated run or the cache lies inside it. Returns the folders this call will create."""
    from fairpairs.io.files import check_output_folder, claim_folder

    check_output_folder(out, "out", inputs=reads, reads=reads, kind="evaluation")
    if cache is not None:   # (a report folder is not a score cache, nor the reverse)
        if Path(os.path.abspath(cache)) == Path(os.path.abspath(out)):
            raise SettingsError(Param("cache_dir"), f" {cache}: is ", Param("out"), " itself; give the cache a folder of "
                                "its own (default: OUT/cache)")
        check_output_folder(cache, "cache_dir", inputs=reads, reads=reads, kind="cache", action="write into")
    created = [p for p in dict.fromkeys([out, cache]) if p is not None and not p.exists()]
    if data is None or (cache is not None and Path(os.path.abspath(out)) in [
            Path(os.path.abspath(cache)), *Path(os.path.abspath(cache)).parents]):
        claim_folder(out, "out", inputs=reads, reads=reads, kind="evaluation")   # the run or cache inside OUT: ours now
    return created


def _clean_up(created: list[Path], cache: Path | None) -> None:
    """After a failure: the folders this call made (and only those) go, except the batches saved for
    resuming (cache/*.parts), which let the same call continue where this one stopped."""
    keep = cache is not None and any(cache.glob("*.parts"))
    for p in created:
        if not (keep and (p == cache or cache.is_relative_to(p))):
            shutil.rmtree(p, ignore_errors=True)


def evaluate_into(out: str | os.PathLike, data=None, models=None, config: EvaluationConfig | None = None, *,
                  columns=None, on_load=None, load_scorer=None):
    """`fp.evaluate(data, models, ...)` with the settings of `config` (an `EvaluationConfig`, which
    the command builds from its options: checked, as `fp.evaluate` checks its arguments; default:
    every default) written as a report folder `out` (`fp.write_report`, with `config.figures` and
    `config.dpi`): the folder, and the score cache (`config.cache_dir`, default ``out/cache``; none
    when `config.cache` is False), are checked before any work; without `data` the pairs are
    generated into ``out/run``. A failure leaves no folder this call made, but the cache's
    resumable batches. Under a multi-process launch only the first process says what it does:
    `on_load(model)` before a model is loaded, and the lines that start long work (also into a log,
    `fairpairs.io.progress.saying`); transformers' own bars are off (one bar per model, ours).
    Returns the report (None on the ranks but the first, which write nothing)."""
    from fairpairs.scoring.launch import is_main

    main = is_main()
    with saying(main):      # (the design's plan and the estimated time go to a log too)
        return _evaluate_into(out, data, models, config, columns=columns, load_scorer=load_scorer,
                              on_load=on_load if main else None)


def _evaluate_into(out, data, models, config, *, columns, on_load, load_scorer):
    """`evaluate_into` on one process."""
    from transformers.utils import logging as hf_logging

    from fairpairs.analysis.report import write_report

    hf_logging.disable_progress_bar()     # (where evaluation runs: transformers' bars would stand beside ours)
    out = check.path(out, "out", exists=False)
    config = EvaluationConfig(data_given=data is not None) if config is None else config
    store = None if not config.cache else (out / "cache" if config.cache_dir is None else Path(config.cache_dir))
    created = _claim_report_folders(out, store, data, _inputs(data, config.unigrams, config.length_params))
    config = replace(config, cache_dir=store, run_dir=out / "run" if data is None else None)
    try:
        report = evaluate_with(data, models, config, columns=columns, on_load=on_load, load_scorer=load_scorer)
        if report is not None:  # (not rank 0 of a multi-process launch: rank 0 writes OUT)
            write_report(report, out, figures=config.figures, dpi=config.dpi)
    except BaseException:
        _clean_up(created, store)
        raise
    return report


AUDIT_TABLES = {"out": ("audit", {"length_bias.csv": "summary", "length_diff.csv": "distribution",
                                  "equal_all.csv": "equal_all"}),
                "select": ("selection", {"selected_ids.csv": "selected", "balance.csv": "balance"})}


def audit_into(data, models, *, out: str | os.PathLike | None = None, select: str | os.PathLike | None = None,
               columns=None, format: str = "auto", language: str | None = None) -> dict:
    """`fp.audit_report(data, models, ...)`, its tables written as CSV into the folder `out`
    (length_bias.csv, length_diff.csv, equal_all.csv) and its length-balanced subset into the
    folder `select` (selected_ids.csv, balance.csv); each a folder of ours checked before any work,
    never over or inside the dataset, written atomically. Returns the report."""
    from fairpairs.analysis.length_audit import write_csv
    from fairpairs.api.datasets import audit_report
    from fairpairs.io.files import OutputFolder
    from fairpairs.pairsets import dataset_paths

    given = {param: check.path(folder, param, exists=False) for param, folder in (("out", out), ("select", select))
             if folder is not None}
    reads = dataset_paths(data)
    if len(given) == 2 and os.path.abspath(given["out"]) == os.path.abspath(given["select"]):
        raise SettingsError(Param("select"), f" {select}: is ", Param("out"), " too; give the selection a folder of its own")
    writers = {param: OutputFolder(folder, param, inputs=reads, reads=reads, kind=AUDIT_TABLES[param][0])
               for param, folder in given.items()}
    report = audit_report(data, models, columns=columns, format=format, select=select is not None, language=language)
    for param, writer in writers.items():
        with writer as tmp:
            for name, table in AUDIT_TABLES[param][1].items():
                write_csv(report[table], tmp / name)
    return report


def robustness_into(data, models, *, out: str | os.PathLike | None = None, **kwargs) -> tuple:
    """`fp.robustness(data, models, **kwargs)` and its markdown; with `out`, both written into that
    folder (robustness.csv, robustness.md), a folder of ours checked before any work and never in
    what `data` reads. Returns (table, markdown)."""
    from fairpairs.analysis.length_audit import write_csv
    from fairpairs.analysis.score_robustness import markdown
    from fairpairs.api.evaluation import robustness
    from fairpairs.io.files import OutputFolder, atomic_write, check_output_folder
    from fairpairs.pairsets import dataset_paths

    reads = dataset_paths(data)
    if out is not None:      # before any work: never over what the dataset holds, never inside it
        out = check_output_folder(check.path(out, "out", exists=False), "out", inputs=reads, reads=reads,
                                  kind="robustness")
    table = robustness(data, models, **kwargs)
    text = markdown(table)
    if out is not None:
        with OutputFolder(out, "out", inputs=reads, reads=reads, kind="robustness") as tmp:
            write_csv(table, tmp / "robustness.csv")
            atomic_write(tmp / "robustness.md", "# fairpairs length-robustness report\n\n" + text)
    return table, text


def balance_into(run_dir, *, out: str | os.PathLike | None = None, grammars=None, vocab=None):
    """`fp.balance(run_dir, ...)`, also written as CSV to the file `out` (its name ends in .csv;
    never inside the run folder, which is data). Returns the table as a
    `fairpairs.control.balance_report.BalanceReport` (`.table`, and how `fairpairs balance` shows it)."""
    from fairpairs.api.datasets import balance
    from fairpairs.control.balance_report import BalanceReport
    from fairpairs.errors import OutputError
    from fairpairs.io.files import atomic_write, check_output_file

    if out is not None:
        out = check.path(out, "out", exists=False)
        if out.suffix.lower() != ".csv":     # (a CSV table in x.jsonl would be read as broken JSON lines)
            raise SettingsError(Param("out"), f" {out}: balance writes a CSV table; give a file name ending in .csv")
        check_output_file(out, "out", inputs=[run_dir])
        if out.resolve().is_relative_to(Path(run_dir).resolve()):   # (a run folder is the data: add nothing to it)
            raise OutputError(Param("out"), f" {out}", value=out, reason=f"is inside the run folder {run_dir}; write it elsewhere")
    table = balance(run_dir, grammars=grammars, vocab=vocab)
    if out is not None:
        atomic_write(out, table.to_csv(index=False, lineterminator="\n"))
    return BalanceReport(table)
