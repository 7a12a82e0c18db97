"""The figures of an evaluation report as matplotlib Figures (`fp.report_figures`): what
`fairpairs.analysis.report` writes as files, for a notebook user to restyle or save.

`report_figures(report)` takes a `Report` or a report folder (its CSVs are read back) and returns
name -> `matplotlib.figure.Figure`, in report.md's order; a figure with nothing to show (no
original and debiased set, no direction or paradigm with enough pairs) is left out of the mapping.
The report's files are rendered from these same objects (`fairpairs.analysis.plots.render`).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

STEMS = ("directions", "gap_per_paradigm", "summary", "effects", "accuracy", "splits", "length_diff_accuracy",
         "loglik_length")
# the CSV of a report folder behind each table the figures draw: Report field -> file
TABLE_FILES = {"effects": "effects.csv", "summary": "summary.csv", "accuracy": "accuracy.csv", "splits": "splits.csv",
               "curve": "length_diff_accuracy.csv", "fits": "loglik_length.csv", "pairs": "pair_scores.csv"}
TEXT_COLUMNS = {"set": str, "uid": str, "model": str, "normalization": str, "split": str, "role": str,
                "sentence_good": str, "sentence_bad": str, "matched_by": str}


def report_figures(report) -> dict:
    """name -> matplotlib Figure of every figure of `report` (a `fairpairs.analysis.evaluation.Report`,
    or the folder `fp.write_report` / `fairpairs evaluate` wrote), in report.md's order: directions
    (the paper figure), gap_per_paradigm, summary, effects, accuracy, splits, length_diff_accuracy,
    loglik_length; a figure with nothing to show is not in the mapping. The figures are new objects
    on each call (restyle them freely); `fairpairs.analysis.plots.render(fig, "pdf")` gives a file's
    bytes, as write_report writes them."""
    from fairpairs.analysis import figures, paper, plots
    from fairpairs.analysis.evaluation import Report, sentence_table

    if not isinstance(report, Report):
        report = read_report(report)
    draw = {
        "directions": lambda: paper.direction_figure(report.effects),
        "gap_per_paradigm": lambda: plots.gap_dots(report.effects),
        "summary": lambda: figures.summary_bars(report.summary),
        "effects": lambda: figures.effect_bars(report.effects),
        "accuracy": lambda: figures.accuracy_scatter(report.accuracy),
        "splits": lambda: figures.split_bars(report.splits),
        "length_diff_accuracy": lambda: figures.diff_curves(report.curve),
        "loglik_length": lambda: figures.loglik_vs_length(sentence_table(report.pairs), report.fits),
    }
    out = {}
    for stem, make in draw.items():
        fig = make()
        if fig is not None:
            out[stem] = plots.fit_labels(fig)
    return out


def read_report(folder):
    """The tables of a report folder that the figures draw, as a `Report` (the other tables empty or
    None): a folder that is not one (no such folder, a table missing or unreadable) is an error
    naming `report` and the file."""
    from fairpairs.analysis.evaluation import Report
    from fairpairs.errors import DatasetError, DatasetNotFoundError, Param, UsageTypeError

    if isinstance(folder, (bytes, bool)) or not isinstance(folder, (str, Path)) and not hasattr(folder, "__fspath__"):
        raise UsageTypeError(Param("report"), f": expected a Report or a report folder, not {type(folder).__name__}")
    folder = Path(folder).expanduser()
    if not folder.is_dir():
        raise DatasetNotFoundError(Param("report"), f": no report folder {folder}")
    tables = {}
    for name, file in TABLE_FILES.items():
        path = folder / file
        if not path.is_file():
            if name == "effects":      # a report of one set has no effects.csv
                tables[name] = None
                continue
            raise DatasetNotFoundError(Param("report"), f": {path} is missing (not a fairpairs evaluation report?)")
        try:
            tables[name] = pd.read_csv(path, dtype=TEXT_COLUMNS, keep_default_na=False,
                                       na_values={c: [""] for c in _numeric_columns(path)})
        except (ValueError, pd.errors.ParserError, UnicodeDecodeError) as exc:
            raise DatasetError(Param("report"), f": {path} cannot be read as a report table ({exc})") from None
    return Report(change=None, cache_hits={}, **tables)


def _numeric_columns(path: Path) -> list[str]:
    """The columns of the CSV at `path` other than the text columns (an empty cell there is NaN; in
    a text column it is the empty text)."""
    with open(path, encoding="utf-8") as f:
        header = f.readline().rstrip("\n").split(",")
    return [c for c in header if c not in TEXT_COLUMNS]
