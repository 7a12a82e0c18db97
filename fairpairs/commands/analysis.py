"""`fairpairs audit` (token-length bias of a dataset) and `fairpairs evaluate` (score models and
report original vs debiased accuracy)."""

from __future__ import annotations

from pathlib import Path

import click

from ..errors import FairpairsError


def _names(value: str, option: str) -> list[str]:
    names = [v.strip() for v in value.split(",") if v.strip()]
    if not names:
        raise FairpairsError(f"{option}: give at least one name (comma-separated)")
    return list(dict.fromkeys(names))


def _column_options(f):
    f = click.option("--group-col", default=None, help="Column that names the group (paradigm); default UID, else the file name.")(f)
    f = click.option("--bad-col", default="sentence_bad", show_default=True, help="Column of the unacceptable sentence.")(f)
    f = click.option("--good-col", default="sentence_good", show_default=True, help="Column of the acceptable sentence.")(f)
    return f


@click.command()
@click.argument("dataset", type=click.Path(path_type=Path))
@click.option("--models", "-m", default="gpt2,bert-base-cased", show_default=True,
              help="Comma-separated tokenizers (bundled name, local folder or Hub name).")
@click.option("--out", "-o", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder for length_bias.csv and length_diff.csv (default: print only).")
@_column_options
def audit(dataset, models, out, good_col, bad_col, group_col):
    """Count pairs whose good and bad sentences differ in token length (no LM needed).

    DATASET is a BLiMP-format file or folder (jsonl/json/csv/tsv/parquet), a run folder of
    `fairpairs generate`, or a saved HF dataset. Per group and tokenizer it reports A=U, A>U (good
    sentence longer) and A<U, and the distribution of len(bad) - len(good).
    """
    from ..audit import Columns, length_bias, load_sets, summary_text, write_csv

    tokenizers = _names(models, "--models")
    sets = load_sets(dataset, Columns(good_col, bad_col, group_col))
    summary, dist = length_bias(sets, tokenizers)
    if out is not None:
        write_csv(summary, out / "length_bias.csv")
        write_csv(dist, out / "length_diff.csv")
    click.echo(summary_text(summary))
    if out is not None:
        click.echo(f"wrote {out / 'length_bias.csv'} and {out / 'length_diff.csv'}", err=True)
