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
    from fairpairs.api.reports import balance_into

    table = balance_into(run_dir, out=out, grammars=grammar_dir, vocab=vocab_path)
    print_balance(table, run_dir)


def print_balance(table, title) -> None:
    from rich.console import Console
    from rich.table import Table

    from fairpairs.api.commandline import ALL, LOW_DIVERSITY, SMD_LIMIT, TVD_LIMIT, balance_summary as summary

    def smd(v):
        return "-" if v is None or v != v else f"{v:+.2f}" + ("*" if abs(v) > SMD_LIMIT else "")

    def shown(v):   # (moved by design, not a target: never flagged)
        return "-" if v is None or v != v else f"{v:+.2f}"

    def tvd(v, where=""):
        return "-" if v is None or v != v else f"{v:.2f}" + ("*" if v > TVD_LIMIT else "") + (f" {where}" if where else "")

    t = Table(title=f"Balance of the debiased set against the original set: {title}")
    cols = ("paradigm", "n orig", "n deb", "SMD Zipf", "SMD words", "SMD chars", "SMD Zipf bad", "SMD |dZipf|",
            "TVD slots", "TVD variants", "distinct", "retention")
    for col in cols:
        t.add_column(col, justify="left" if col == "paradigm" else "right", no_wrap=True)
    for r in table.itertuples(index=False):
        ratio = r.distinct_ratio
        t.add_row(r.uid, str(r.n_original), str(r.n_debiased), smd(r.smd_zipf_good), smd(r.smd_words_good),
                  smd(r.smd_chars_good), shown(r.smd_zipf_bad), shown(r.smd_dzipf),
                  tvd(r.tvd_slots, r.tvd_slots_feature), tvd(r.tvd_variant),
                  "-" if ratio is None or ratio != ratio else f"{ratio:.0%}" + ("*" if ratio < LOW_DIVERSITY else ""),
                  "-" if r.retention is None or r.retention != r.retention else f"{r.retention:.1%}",
                  style="bold" if r.uid == ALL else None)
    console = Console(stderr=False)
    console.width = max(console.width, 200)
    console.print(t)
    rows = [r for r in table.to_dict("records") if r["uid"] != ALL]
    flagged = [(r["uid"], "; ".join(x for x in (r["flags"], r["causes"]) if x)) for r in rows if r["flags"]]
    console.print(summary(rows) + (" Flagged:" if flagged else ""))
    for uid, flags in flagged:
        console.print(f"  {uid}: {flags}", highlight=False)
