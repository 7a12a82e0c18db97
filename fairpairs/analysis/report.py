"""The evaluation report: the tables of a `fairpairs.analysis.evaluation.Report` as CSV, markdown and figures in
one folder, and ``report.md``, which shows them in this order:

    (what the pairs are: provenance and warnings, `Report.notes`)
    Headline: the gap A>U - A<U on the original set, what length control did per direction of the
              original pair, the net change decomposed, in words and in tables
    1. Summary   2. Length vs selection   3. Accuracy per paradigm   4. Splits
    5. Accuracy vs token-length difference   6. Sentence score vs token length

Every accuracy is shown with its 95% Wilson interval, every difference with its 95% interval
(fairpairs.analysis.effects: Newcombe's, or a bootstrap); an interval that cannot be estimated is
"(no interval)", and a direction with fewer than MIN_PAIRS pairs "too few pairs", never a figure
that looks certain.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from fairpairs.analysis.length_audit import ALL, SPLITS, write_csv
from fairpairs.analysis.evaluation import Report, sentence_table
from fairpairs.io.files import atomic_write
from fairpairs.analysis.headline import (TIES, acc_cell as _acc, diff_cell as _diff, direction_markdown,
                                         headline_markdown)
from fairpairs.analysis.markdown import markdown_table, p_value, pct, pct_interval, pp_interval
from fairpairs.analysis.paper import direction_caption
from fairpairs.analysis.results import results_json

SECTIONS = (   # (title, file stem), in report.md's order
    ("1. Summary", "summary"),
    ("2. Length vs selection: what the change from original to debiased is made of", "effects"),
    ("3. Accuracy per paradigm: original vs debiased", "accuracy"),
    ("4. Accuracy on the A=U / A>U / A<U splits", "splits"),
    ("5. Accuracy vs token-length difference", "length_diff_accuracy"),
    ("6. Sentence score vs token length", "loglik_length"),
)
# ---------------------------------------------------------------------------- sections


def effects_markdown(effects: pd.DataFrame | None, balance: pd.DataFrame | None = None) -> str:
    """Section 2: change = selection + length + remainder, all pairs per model and score, then per
    paradigm for each score; then the bias by direction per paradigm (`direction_markdown`)."""
    if effects is None or effects.empty:
        return "No decomposition: the data has no original and debiased set.\n"
    header = ["model", "score", "original, %", "debiased, %", "change", "= selection", "+ length", "McNemar p",
              "+ remainder", "matched", "original only", "debiased only"]

    def cells(r):
        return [_acc(r, "original"), _acc(r, "debiased"), _diff(r, "change"), _diff(r, "selection"),
                _diff(r, "length"), p_value(r.length_p), _diff(r, "remainder"), f"{r.n_matched:,}",
                f"{r.n_original_only:,}", f"{r.n_debiased_only:,}"]

    pooled = effects[effects["uid"] == ALL]
    how = effects["matched_by"].iloc[0]
    text = ("### All pairs (percentage points, 95% intervals)\n\n"
            + markdown_table(header, [[r.model, r.normalization, *cells(r)] for r in pooled.itertuples()])
            + "\nchange = debiased − original accuracy; selection = original accuracy on the matched contexts − "
              "on all original pairs; length = debiased − original accuracy on the matched contexts (paired); "
              "remainder = debiased accuracy on all − on the matched pairs (0 when every debiased pair is "
              f"matched). The three parts add up to the change exactly. Matched by {how}. Intervals: Wilson "
              "for accuracies, Newcombe's interval for paired proportions for length, and one bootstrap over units (resampled within "
              f"matched, original-only and debiased-only) for change, selection and remainder. {TIES}\n")
    per = effects[effects["uid"] != ALL]
    for norm, a in per.groupby("normalization", sort=False):
        rows = [[r.uid, r.model, *cells(r)] for r in a.itertuples()]
        text += (f"\n### Per paradigm, normalization `{norm}`\n\n"
                 + markdown_table(["paradigm", "model"] + header[2:], rows))
    if "gap" in effects.columns:
        text += direction_markdown(effects, balance)
    return text


def summary_markdown(summary: pd.DataFrame, change: pd.DataFrame | None, effects: pd.DataFrame | None = None) -> str:
    rows = [[r.set, r.normalization, r.rank, r.model,
             _acc(r) if hasattr(r, "accuracy_low") else pct(r.accuracy), pct(r.macro_accuracy), r.n_pairs, r.n_ties]
            for r in summary.itertuples()]
    text = "### Overall accuracy (%, 95% Wilson interval) and model ranking\n\n" + markdown_table(
        ["set", "normalization", "rank", "model", "accuracy", "macro accuracy", "pairs", "ties"], rows)
    if change is not None and not change.empty:
        ci = {} if effects is None else {(r.model, r.normalization): (r.change_low, r.change_high)
                                         for r in effects[effects["uid"] == ALL].itertuples()}
        nan = (float("nan"), float("nan"))
        rows = [[r.normalization, r.model, pct(r.accuracy_original), pct(r.accuracy_debiased),
                 pp_interval(r.accuracy_change, *ci.get((r.model, r.normalization), nan)), r.rank_original,
                 r.rank_debiased, f"{r.rank_change:+d}"]
                for r in change.itertuples()]
        text += ("\n### Original vs debiased (change in percentage points with its 95% bootstrap interval; its "
                 "decomposition: section 2)\n\n"
                 + markdown_table(["normalization", "model", "original", "debiased", "change", "rank original",
                                   "rank debiased", "rank change"], rows))
    return text


def accuracy_markdown(acc: pd.DataFrame) -> str:
    """Table 4 of the seed paper: accuracy (%, 95% Wilson interval) per paradigm, model and set;
    the best model of each row and set in bold."""
    out = []
    sets, models = list(dict.fromkeys(acc["set"])), list(dict.fromkeys(acc["model"]))
    for norm, a in acc.groupby("normalization", sort=False):
        idx = a.set_index(["uid", "model", "set"])
        header = ["paradigm"] + [f"{m} ({s})" for m in models for s in sets]
        rows = []
        for uid in dict.fromkeys(a["uid"]):
            cells = [uid]
            for m in models:
                for s in sets:
                    if (uid, m, s) in idx.index:
                        r = idx.loc[(uid, m, s)]
                        value = pct(r["accuracy"])
                        cells.append((f"**{value}**" if r["best"] else value)
                                     + (f" [{pct(r['accuracy_low'])}, {pct(r['accuracy_high'])}]"
                                        if "accuracy_low" in r and pd.notna(r["accuracy_low"]) else ""))
                    else:
                        cells.append("-")
            rows.append(cells)
        out.append(f"### Accuracy (%, 95% Wilson interval), normalization `{norm}`; best model per row and set "
                   f"in bold\n\n" + markdown_table(header, rows))
    return "\n".join(out)


def split_markdown(splits: pd.DataFrame) -> str:
    """Table 3 of the seed paper: accuracy (%, 95% Wilson interval) and size of the A=U, A>U, A<U
    splits."""
    out = []
    models = list(dict.fromkeys(splits["model"]))
    for (set_name, norm), a in splits.groupby(["set", "normalization"], sort=False):
        idx = a.set_index(["uid", "model", "split"])
        header = ["paradigm"] + [f"{m} {s}" for m in models for s in SPLITS]
        rows = [[uid] + [_split_cell(idx.loc[(uid, m, s)]) for m in models for s in SPLITS]
                for uid in dict.fromkeys(a["uid"])]
        out.append(f"### Split accuracy (%, 95% Wilson interval) and size (n), set `{set_name}`, normalization "
                   f"`{norm}`\n\n" + markdown_table(header, rows))
    return "\n".join(out)


def _split_cell(r) -> str:
    low, high = r.get("accuracy_low", float("nan")), r.get("accuracy_high", float("nan"))
    return f"{pct_interval(r['accuracy'], low, high)} ({int(r['n_pairs'])})"


def curve_markdown(curve: pd.DataFrame) -> str:
    out = []
    for (set_name, norm), a in curve.groupby(["set", "normalization"], sort=False):
        models = list(dict.fromkeys(a["model"]))
        idx = a.set_index(["len_diff", "model"])
        rows = [[int(d)] + [_split_cell(idx.loc[(d, m)]) if (d, m) in idx.index else "-" for m in models]
                for d in sorted(a["len_diff"].unique())]
        out.append(f"### Accuracy (%, 95% Wilson interval) and size (n) by len(bad) - len(good), set `{set_name}`, "
                   f"normalization `{norm}`\n\n" + markdown_table(["len_diff"] + models, rows))
    return "\n".join(out)


def fit_markdown(fits: pd.DataFrame) -> str:
    rows = [[r.model, r.normalization, r.n_sentences, f"{r.slope:.3f}", f"{r.intercept:.3f}", f"{r.pearson_r:.3f}"]
            for r in fits.itertuples()]
    return ("### Sentence score vs token length (least-squares fit)\n\n"
            + markdown_table(["model", "normalization", "sentences", "slope", "intercept", "pearson r"], rows))


# ---------------------------------------------------------------------------- writing


def _draw_figures(report: Report, out: Path, formats: tuple[str, ...], dpi: int) -> list[Path]:
    """Each figure of the report (`fp.report_figures`: a figure with nothing to show is not drawn)
    in every format of `formats` (none: nothing drawn, matplotlib not imported); the files written."""
    from fairpairs.analysis.figure_set import report_figures
    from fairpairs.analysis.plots import render

    written = []
    for stem, fig in report_figures(report).items() if formats else ():
        for fmt in formats:
            atomic_write(out / f"{stem}.{fmt}", render(fig, fmt, dpi))
            written.append(out / f"{stem}.{fmt}")
    return written


def write_report(report: Report, out, *, figures=("png",), dpi: int | None = None) -> list[Path]:
    """Write the CSV, markdown and figure files of `report` into the folder `out`, atomically, as a
    folder of ours (fairpairs.io.files.OutputFolder: a folder fairpairs did not write is refused, files
    a user added to an earlier report are kept); returns the paths. `figures`: the formats of every
    figure (png, pdf, svg; report.md shows the first; "none" or an empty list: tables and text alone,
    no figure drawn); `dpi`: the PNGs' resolution (default 200)."""
    from fairpairs.arguments import path
    from fairpairs.errors import Param, UsageTypeError
    from fairpairs.io.files import OutputFolder
    from fairpairs.analysis.plots import check_formats

    if not isinstance(report, Report):
        raise UsageTypeError(Param("report"), f": expected a Report (fairpairs.analysis.evaluation), not {type(report).__name__}")
    formats, dpi = check_formats(figures, dpi)
    with OutputFolder(path(out, "out", exists=False), "out", kind="evaluation") as tmp:
        written = _write_files(report, tmp, formats, dpi)
    return [Path(out) / p.relative_to(tmp) for p in written]


def comparison_markdown(comparison: pd.DataFrame) -> str:
    """Per two models and score: the paired accuracy difference on each set, its change under
    length control on the matched contexts, and whether the ranking holds
    (`fairpairs.analysis.comparison`)."""
    from fairpairs.analysis.markdown import markdown_table, pp_interval

    sets = [c.removeprefix("diff_") for c in comparison.columns
            if c.startswith("diff_") and not c.endswith(("_low", "_high", "_p"))]
    head = ["second − first", "score"] + [f"{s}, pp [95% CI] (n)" for s in sets]
    has_control = "control" in comparison.columns
    head += ["change under control, pp [95% CI]", "ranking"] if has_control else []
    rows = []
    for r in comparison.to_dict("records"):
        row = [f"{r['second']} − {r['first']}", r["normalization"]]
        row += [f"{pp_interval(r[f'diff_{s}'], r[f'diff_{s}_low'], r[f'diff_{s}_high'])} ({int(r[f'n_{s}']):,})"
                for s in sets]
        if has_control:
            row += [f"{pp_interval(r['control'], r['control_low'], r['control_high'])} ({int(r['n_matched']):,} matched)",
                    r["ranking"]]
        rows.append(row)
    return (markdown_table(head, rows) + "\nEach difference is on the pairs both models scored (the same pairs, the "
            "same weights), with Newcombe's interval for paired proportions. **Change under control**: on the "
            "matched contexts, the difference on the debiased set minus on the original set (percentile bootstrap "
            "over the contexts whose pair control changed; a context kept as drawn adds exactly 0). **Ranking**: "
            "whether the two models are in the same order on both sets.\n")


def _write_files(report: Report, out: Path, formats: tuple[str, ...], dpi: int) -> list[Path]:
    tables = {
        "headline.csv": report.headline, "effects.csv": report.effects, "pair_scores.csv": report.pairs,
        "accuracy.csv": report.accuracy, "splits.csv": report.splits, "length_diff_accuracy.csv": report.curve,
        "loglik_length.csv": report.fits, "summary.csv": report.summary, "ranking_change.csv": report.change,
        "balance.csv": report.balance, "comparison.csv": report.comparison, "placebo.csv": report.placebo,
    }
    written = []
    for name, df in tables.items():
        if df is not None:
            write_csv(df, out / name)
            written.append(out / name)
    md = {
        "summary": summary_markdown(report.summary, report.change, report.effects),
        "effects": effects_markdown(report.effects, report.balance),
        "accuracy": accuracy_markdown(report.accuracy), "splits": split_markdown(report.splits),
        "length_diff_accuracy": curve_markdown(report.curve), "loglik_length": fit_markdown(report.fits),
    }
    for stem, text in md.items():
        atomic_write(out / f"{stem}.md", text)
        written.append(out / f"{stem}.md")
    written += _draw_figures(report, out, formats, dpi)

    drawn = {p.stem for p in written if p.suffix in (".png", ".pdf", ".svg")}

    def figure(stem: str, before: str = "", after: str = "\n\n") -> str:  # report.md's link to a figure (first format)
        return f"{before}![{stem}]({stem}.{formats[0]}){after}" if stem in drawn else ""

    body = ["# fairpairs evaluation report\n"]
    if report.notes:
        body.append("\n".join(f"- {line}" for line in report.notes) + "\n")
    body.append(f"## Headline: token-length bias by direction, and what length control did\n\n"
                f"{figure('directions') + direction_caption(report.effects) + chr(10) if formats else ''}"
                f"{headline_markdown(report.headline, report.notes)}"
                + figure("gap_per_paradigm", "\n", "\n"))
    if report.comparison is not None:
        body.append("## Models compared pair for pair\n\n" + comparison_markdown(report.comparison))
    for title, stem in SECTIONS:
        body.append(f"## {title}\n\n{figure(stem)}{md[stem]}")
    atomic_write(out / "report.md", "\n".join(body))
    written.append(out / "report.md")
    atomic_write(out / "results.json", results_json(report))
    written.append(out / "results.json")
    return written
