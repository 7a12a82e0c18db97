"""`fairpairs audit` (token-length bias of a dataset) and `fairpairs evaluate` (score models and
report original vs debiased accuracy)."""

from __future__ import annotations

from pathlib import Path

import click

from fairpairs.errors import Param, FairpairsError
from fairpairs.registry import READERS, STRATEGIES


def _names(value: str, option: str) -> list[str]:
    names = [v.strip() for v in value.split(",") if v.strip()]
    if not names:
        raise FairpairsError(Param(option), ": give at least one name (comma-separated)")
    return list(dict.fromkeys(names))


def _column_options(f):
    f = click.option("--group-col", default=None, help="Column that names the group (paradigm); default uid (or BLiMP's UID), else the file name.")(f)
    f = click.option("--bad-col", default="sentence_bad", show_default=True, help="Column of the unacceptable sentence.")(f)
    f = click.option("--good-col", default="sentence_good", show_default=True, help="Column of the acceptable sentence.")(f)
    return f


@click.command()
@click.argument("dataset", type=click.Path(path_type=Path))
@click.option("--models", "-m", default="gpt2,bert-base-cased", show_default=True,
              help="Comma-separated tokenizers (bundled name, local folder or file, preset:modern or Hub name; "
                   "docs/tokenizers.md).")
@click.option("--out", "-o", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder for length_bias.csv, length_diff.csv and equal_all.csv (default: print only).")
@click.option("--format", "fmt", default="auto", show_default=True,
              type=click.Choice(["auto", *READERS]),
              help="The dataset's format: BLiMP's fields, CLAMS evalsets (True/False lines), MultiBLiMP's "
                   "data.tsv, ZhoBLiMP-style jsonl (docs/multilingual.md).")
@click.option("--select", "select_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder for the length-balanced subset: selected_ids.csv (row ids of the pairs with equal "
                   "token counts under every tokenizer; no sentences) and balance.csv (what the selection changed).")
@click.option("--language", default=None,
              help="wordfreq language code for the balance report's word frequencies (with --select) "
                   "[default: a run folder's language, else en].")
@_column_options
def audit(dataset, models, out, fmt, select_dir, language, good_col, bad_col, group_col):
    """Count pairs whose good and bad sentences differ in token length (no LM needed).

    DATASET is a BLiMP-format file or folder (jsonl/json/csv/tsv/parquet), a run folder of
    `fairpairs generate`, a saved HF dataset, CLAMS evalsets, MultiBLiMP's data.tsv or ZhoBLiMP
    jsonl. Per group and tokenizer it reports A=U, A>U (good sentence longer) and A<U, the
    distribution of len(bad) - len(good), and the pairs equal under every tokenizer at once.
    """
    import os

    from fairpairs.api import audit_report
    from fairpairs.analysis.length_audit import summary_text, write_csv
    from fairpairs.pairsets import Columns
    from fairpairs.pairsets import dataset_paths
    from fairpairs.io.files import OutputFolder

    reads = dataset_paths(dataset)
    # each a folder of ours (docs/outputs.md), checked before any work: never over or inside the dataset
    folders = {option: (folder, kind, tables) for option, folder, kind, tables in (
        ("--out", out, "audit", {"length_bias.csv": "summary", "length_diff.csv": "distribution",
                                 "equal_all.csv": "equal_all"}),
        ("--select", select_dir, "selection", {"selected_ids.csv": "selected", "balance.csv": "balance"}))
        if folder is not None}
    if len(folders) == 2 and os.path.abspath(out) == os.path.abspath(select_dir):
        raise click.UsageError(f"--select {select_dir}: is --out too; give the selection a folder of its own")
    writers = {option: OutputFolder(folder, option, inputs=reads, reads=reads, kind=kind)
               for option, (folder, kind, _) in folders.items()}
    report = audit_report(dataset, _names(models, "--models"), columns=Columns(good_col, bad_col, group_col),
                          format=fmt, select=select_dir is not None, language=language)
    for option, writer in writers.items():
        with writer as tmp:
            for name, table in folders[option][2].items():
                write_csv(report[table], tmp / name)
    click.echo(summary_text(report["summary"]))
    pooled = report["equal_all"][report["equal_all"]["uid"] == "ALL"]
    for row in pooled.itertuples():
        click.echo(f"{row.set}: {row.n_equal_all} of {row.n_pairs} pairs ({row.share_equal_all:.1%}) have equal "
                   f"token counts under all {row.tokenizers} tokenizer(s)")
    if out is not None:
        click.echo(f"wrote {out / 'length_bias.csv'}, {out / 'length_diff.csv'} and {out / 'equal_all.csv'}", err=True)
    if select_dir is not None:
        click.echo(f"wrote {select_dir / 'selected_ids.csv'} ({len(report['selected'])} row ids) and "
                   f"{select_dir / 'balance.csv'}", err=True)


@click.command()
@click.option("--models", "-m", required=True, help="Comma-separated models: Hub names, local folders or aliases such as smollm2-135m.")
@click.option("--data", "-d", "data", default=None, type=click.Path(path_type=Path),
              help="A run folder of `fairpairs generate`, or any dataset `fairpairs audit` accepts. Without it, "
                   "the pairs are generated first, length-controlled for every model's tokenizer, into OUT/run.")
@click.option("--paradigms", default=None, help="Without --data: comma-separated paradigm UIDs, or 'all' [default: all].")
@click.option("--phenomenon", default=None, help="Without --data: only paradigms of this phenomenon.")
@click.option("--pairs", type=click.IntRange(min=1), default=None,
              help="Without --data: pairs per paradigm in each set [default: 20: at most 5,360 sentences per model "
                   "for all 67 paradigms, minutes on a CPU for a 135M-parameter model].")
@click.option("--seed", type=click.IntRange(min=0), default=None, help="Without --data: random seed [default: 0].")
@click.option("--strategy", type=click.Choice(list(STRATEGIES)), default=None,
              help="Without --data: length control strategy [default: search] (see `fairpairs generate`).")
@click.option("--pll", default="word_l2r", show_default=True, help="Pseudo-log-likelihood variant for masked LMs.")
@click.option("--normalize", "-n", default="lp,mean_lp,pen_lp", show_default=True,
              help="Comma-separated scores to report: lp, mean_lp, pen_lp, slor, tcf_lp (length-robust: bundled "
                   "for smollm2-135m, --length-params for others; docs/robustness.md). The first is the headline one.")
@click.option("--unigrams", default=None,
              help="Unigram table for slor: 'wordfreq' (default) or a file written by `fairpairs unigrams`.")
@click.option("--length-params", type=click.Path(path_type=Path), default=None,
              help="Length parameters for tcf_lp written by `fairpairs fit-length` (default: the bundled ones, for "
                   "smollm2-135m); each model uses only the entry fitted for it.")
@click.option("--out", "-o", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Report folder (default: ./evaluation-<dataset name>; without --data, ./evaluation-<models>-s<seed>).")
@click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Score cache (default: OUT/cache).")
@click.option("--no-cache", is_flag=True, help="Neither read nor write cached scores.")
@click.option("--split-tokenizer", default=None,
              help="Tokenizer deciding A=U/A>U/A<U for every model (default: each model's own tokenizer).")
@click.option("--device", default="auto", show_default=True, help="cpu, cuda, mps or auto.")
@click.option("--dtype", default=None, help="Model dtype, e.g. float32 or bfloat16 (default: the scorer's).")
@click.option("--device-map", type=click.Choice(["auto", "balanced", "balanced_low_0", "sequential"]), default=None,
              help="Spread each model over the visible GPUs (accelerate), for models larger than one GPU.")
@click.option("--batch-tokens", type=click.IntRange(min=1), default=None, help="Tokens per scoring batch (default: the scorer's).")
@click.option("--figures", default="png", show_default=True,
              help="Comma-separated figure formats: png, pdf, svg (vector, for papers). report.md shows the first.")
@click.option("--dpi", type=int, default=200, show_default=True, help="Resolution of the PNG figures (50-1200).")
@_column_options
def evaluate(models, data, paradigms, phenomenon, pairs, seed, strategy, pll, normalize, unigrams, length_params, out,
             cache_dir, no_cache, split_tokenizer, device, dtype, device_map, batch_tokens, figures, dpi, good_col, bad_col,
             group_col):
    """Score the original and debiased sets with each model and report how token-length bias
    changes accuracy and rankings (CSV, markdown and figures under OUT; report.md links them all).

    Without --data, the pairs are generated first, length-controlled for the tokenizer of every
    model (as `fairpairs generate --models M1,M2` would), into OUT/run, and evaluated as --data
    OUT/run would be; report.md's first lines give the command that regenerates them.

    Started by torchrun or accelerate launch, the processes share the sentences out and rank 0
    writes OUT; a killed run resumes from the cache (docs/scaling.md)."""
    import shutil

    import os

    from fairpairs.api import evaluate as run
    from fairpairs.pairsets import Columns
    from fairpairs.pairsets import dataset_paths
    from fairpairs.analysis.evaluation import parse_normalize
    from fairpairs.analysis.headline import headline_markdown
    from fairpairs.analysis.report import summary_markdown, write_report
    from fairpairs.io.files import check_output_folder, claim_folder
    from fairpairs.scoring.launch import is_main

    from fairpairs.analysis.plots import check_formats

    names = _names(models, "--models")
    norms = parse_normalize(normalize)
    formats, dpi = check_formats(figures, dpi)
    generation = {"paradigms": paradigms, "phenomenon": phenomenon, "pairs": pairs, "seed": seed, "strategy": strategy}
    if data is not None:
        given = [f"--{k}" for k, v in generation.items() if v is not None]
        if given:
            raise click.UsageError(f"{', '.join(given)}: only without --data (they set how the pairs are generated)")
        name = data.resolve().name
    else:
        seed = 0 if seed is None else seed
        name = "+".join(Path(m).name or m for m in names).replace("/", "_").replace(":", "_") + f"-s{seed}"
        generation = {"paradigms": _names(paradigms, "--paradigms") if paradigms and paradigms != "all" else "all",
                      "phenomenon": phenomenon, "pairs": pairs, "seed": seed, "strategy": strategy or "search"}
    out = out if out is not None else Path(f"evaluation-{name}")
    cache = None if no_cache else (cache_dir if cache_dir is not None else out / "cache")
    main = is_main()

    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # one bar per model, ours (on rank 0 only)

    def announce(model):
        if main:
            click.echo(f"scoring with {model} ...", err=True)

    # before any work: OUT is new, empty or a report folder of ours, and not in what --data reads
    reads = (dataset_paths(data) if data is not None else []) + [Path(u) for u in [unigrams, length_params]
                                                                  if u and Path(u).exists()]
    check_output_folder(out, "--out", inputs=reads, reads=reads, kind="evaluation")
    if cache is not None:   # (a report folder is not a score cache, nor the reverse)
        if Path(os.path.abspath(cache)) == Path(os.path.abspath(out)):
            raise click.UsageError(f"--cache-dir {cache}: is --out itself; give the cache a folder of its own "
                                   f"(default: OUT/cache)")
        check_output_folder(cache, "--cache-dir", inputs=reads, reads=reads, kind="cache", action="write into")
    run_dir = out / "run" if data is None else None
    created = [p for p in dict.fromkeys([out, cache]) if p is not None and not p.exists()]
    if run_dir is not None or (cache is not None and Path(os.path.abspath(out)) in [
            Path(os.path.abspath(cache)), *Path(os.path.abspath(cache)).parents]):
        claim_folder(out, "--out", inputs=reads, reads=reads, kind="evaluation")    # the cache or run inside OUT: OUT is ours from now on
    extra = {"run_dir": run_dir, **generation} if data is None else {}
    try:
        report = run(data, names, normalize=norms, pll=pll, unigrams=unigrams, cache_dir=cache,
                     split_tokenizer=split_tokenizer, device=device, dtype=dtype, device_map=device_map,
                     batch_tokens=batch_tokens, columns=Columns(good_col, bad_col, group_col),
                     on_load=announce, length_params=length_params, **extra)
        if report is None:  # not rank 0 of a multi-process launch: rank 0 writes OUT
            return
        write_report(report, out, figures=formats, dpi=dpi)
    except BaseException:
        # leave nothing behind: folders this command made (and only those) go, except the batches
        # saved for resuming (cache/*.parts), which let the same command continue where this stopped
        keep = cache is not None and any(cache.glob("*.parts"))
        for p in created:
            if not (keep and (p == cache or cache.is_relative_to(p))):
                shutil.rmtree(p, ignore_errors=True)
        raise
    head = norms[0]
    change = report.change[report.change["normalization"] == head] if report.change is not None else None
    click.echo(summary_markdown(report.summary[report.summary["normalization"] == head], change, report.effects))
    click.echo("### Token-length bias by direction, and what length control did (report.md's headline)\n")
    click.echo(headline_markdown(None if report.headline is None else
                                 report.headline[report.headline["normalization"] == head], report.notes))
    hits = ", ".join(f"{m}: cached" if h else
                     f"{m}: scored in {report.seconds[m]:.1f} s after {report.load_seconds[m]:.1f} s loading"
                     for m, h in report.cache_hits.items())
    click.echo(f"wrote {out}/report.md ({hits})", err=True)
