"""`fairpairs audit` (token-length bias of a dataset) and `fairpairs evaluate` (score models and
report original vs debiased accuracy)."""

from __future__ import annotations

from pathlib import Path

import click

from fairpairs.api import DEFAULT_MODELS
from fairpairs.api.settings import DEVICE_MAPS, PLL_VARIANTS, READERS, STRATEGIES, EvaluationConfig, FairpairsError, Param
from fairpairs.commands.choices import RegistryChoice
from fairpairs.commands.options import option, shown


def names_option(value: str, option: str) -> list[str]:
    """The names of a comma-separated option, each once (at least one)."""
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
@click.option("--models", "-m", default=shown(DEFAULT_MODELS), show_default=True,
              help="Comma-separated tokenizers (bundled name, local folder or file, preset:modern or Hub name; "
                   "docs/tokenizers.md).")
@click.option("--out", "-o", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder for length_bias.csv, length_diff.csv and equal_all.csv (default: print only).")
@click.option("--format", "fmt", default="auto", show_default=True,
              type=RegistryChoice(READERS, also=("auto",)),
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
    from fairpairs.api.reports import audit_into
    from fairpairs.api.settings import Columns

    report = audit_into(dataset, names_option(models, "--models"), out=out, select=select_dir,
                        columns=Columns(good_col, bad_col, group_col), format=fmt, language=language)
    click.echo(report.summary_text())
    for line in report.equal_all_lines():
        click.echo(line)
    if out is not None:
        click.echo(f"wrote {out / 'length_bias.csv'}, {out / 'length_diff.csv'} and {out / 'equal_all.csv'}", err=True)
    if select_dir is not None:
        click.echo(f"wrote {select_dir / 'selected_ids.csv'} ({len(report['selected'])} row ids) and "
                   f"{select_dir / 'balance.csv'}", err=True)


def _points(proportion):
    """A proportion as the command line writes it: percentage points (0.1 -> 10)."""
    return None if proportion is None else f"{proportion * 100:g}"


@click.command()
@click.option("--models", "-m", required=True,
              help="Comma-separated models: Hub names, local folders, GGUF files or smollm2-135m (found before "
                   "anything is generated or scored; docs/evaluation.md).")
@click.option("--data", "-d", "data", default=None, type=click.Path(path_type=Path),
              help="A run folder of `fairpairs generate`, or any dataset `fairpairs audit` accepts. Without it, "
                   "the pairs are generated first, length-controlled for every model's tokenizer, into OUT/run.")
@option(EvaluationConfig, "paradigms", "--paradigms", given=False)
@option(EvaluationConfig, "phenomenon", "--phenomenon", given=False)
@option(EvaluationConfig, "pairs", "--pairs", type=click.IntRange(min=1), given=False)
@option(EvaluationConfig, "seed", "--seed", type=click.IntRange(min=0), given=False)
@option(EvaluationConfig, "strategy", "--strategy", type=RegistryChoice(STRATEGIES), given=False)
@option(EvaluationConfig, "target_halfwidth", "--target-halfwidth", type=click.FloatRange(0, 50, min_open=True),
        given=False, show=_points)
@option(EvaluationConfig, "max_sentences", "--max-sentences", type=click.IntRange(min=1), given=False)
@option(EvaluationConfig, "equal_rate", "--equal-rate", type=click.FloatRange(0, 1, min_open=True), given=False)
@option(EvaluationConfig, "placebo", "--placebo", type=click.IntRange(min=0), given=False)
@option(EvaluationConfig, "pll", "--pll", type=RegistryChoice(PLL_VARIANTS))
@option(EvaluationConfig, "normalize", "--normalize", "-n")
@option(EvaluationConfig, "unigrams", "--unigrams")
@option(EvaluationConfig, "length_params", "--length-params", type=click.Path(path_type=Path))
@click.option("--out", "-o", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Report folder (default: ./evaluation-<dataset name>; without --data, ./evaluation-<models>-s<seed>).")
@option(EvaluationConfig, "cache_dir", "--cache-dir", type=click.Path(file_okay=False, path_type=Path))
@click.option("--no-cache", is_flag=True, help="Neither read nor write cached scores.")
@option(EvaluationConfig, "split_tokenizer", "--split-tokenizer")
@option(EvaluationConfig, "device", "--device")
@option(EvaluationConfig, "dtype", "--dtype")
@option(EvaluationConfig, "device_map", "--device-map", type=click.Choice(list(DEVICE_MAPS)))
@option(EvaluationConfig, "batch_tokens", "--batch-tokens", type=click.IntRange(min=1))
@option(EvaluationConfig, "figures", "--figures")
@option(EvaluationConfig, "dpi", "--dpi", type=int)
@_column_options
def evaluate(models, data, out, no_cache, good_col, bad_col, group_col, target_halfwidth, **settings):
    """Score the original and debiased sets with each model and report how token-length bias
    changes accuracy and rankings (CSV, markdown and figures under OUT; report.md links them all).

    Without --data, the pairs are generated first, length-controlled for the tokenizer of every
    model (as `fairpairs generate --models M1,M2` would), into OUT/run, and evaluated as --data
    OUT/run would be; report.md's first lines give the command that regenerates them. The options
    marked "Without --data" are errors with --data (the pairs exist).

    Started by torchrun or accelerate launch, the processes share the sentences out and rank 0
    writes OUT; a killed run resumes from the cache (docs/scaling.md)."""

    from fairpairs.api.reports import evaluate_into
    from fairpairs.api.settings import Columns

    names = names_option(models, "--models")
    config = EvaluationConfig(data_given=data is not None, cache=not no_cache, **settings,   # (fp.evaluate's checks)
                              target_halfwidth=None if target_halfwidth is None else target_halfwidth / 100)
    name = data.resolve().name if data is not None else "+".join(Path(m).name or m for m in names).replace(
        "/", "_").replace(":", "_") + f"-s{config.seed}"
    out = out if out is not None else Path(f"evaluation-{name}")

    def announce(model):    # (told on the first process only)
        click.echo(f"scoring with {model} ...", err=True)

    report = evaluate_into(out, data, names, config, columns=Columns(good_col, bad_col, group_col), on_load=announce)
    if report is not None:   # the headline, then accuracy and ranking for every score (stdout); where it went (stderr)
        click.echo(report.markdown())
        click.echo(f"wrote {out}/report.md ({report.timings()})", err=True)
