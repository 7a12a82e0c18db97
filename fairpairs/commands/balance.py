"""`fairpairs balance`: is a debiased set drawn like its original set in everything but length?"""

from __future__ import annotations

from pathlib import Path

import click


@click.command()
@click.argument("run_dir", metavar="RUN", type=click.Path(path_type=Path))
@click.option("--out", "-o", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write the table as CSV to this file (its name ends in .csv).")
@click.option("--grammars", "grammar_dir", default=None, type=click.Path(file_okay=False, path_type=Path),
              help="Folder of the run's paradigm files, for the slot features [default: the bundled grammars/, "
                   "with its folder of the run's language].")
@click.option("--vocab", "vocab_path", default=None, type=click.Path(dir_okay=False, path_type=Path),
              help="The run's vocabulary table, for the slot features [default: the bundled table of the run's language].")
def balance(run_dir, out, grammar_dir, vocab_path):
    """Compare a run's debiased set with its original set (docs/length_control.md).

    Per paradigm and overall: standardised mean differences (SMD, debiased - original) of the good
    sentence's critical-word Zipf frequency, word count and character count, of the bad sentence's
    critical-word frequency and of the within-pair |dZipf|; the largest total-variation distance
    (TVD) of a slot feature and of the template variants; the distinct-word ratio and context
    retention. |SMD| or TVD above 0.1 and a distinct-word ratio below 0.7 are flagged (*).
    """
    from rich.console import Console

    from fairpairs.api.reports import balance_into

    report = balance_into(run_dir, out=out, grammars=grammar_dir, vocab=vocab_path)
    report.show(Console(stderr=False), run_dir)
