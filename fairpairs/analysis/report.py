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

from fairpairs.analysis.effects import DIRECTIONS, MIN_PAIRS, enough
from fairpairs.analysis.length_audit import ALL, SPLITS, write_csv
from fairpairs.analysis.evaluation import Report, sentence_table
from fairpairs.io.files import atomic_write
from fairpairs.analysis.markdown import markdown_table, p_value, pct, pct_interval, pp_interval

SECTIONS = (   # (title, file stem), in report.md's order
    ("1. Summary", "summary"),
    ("2. Length vs selection: what the change from original to debiased is made of", "effects"),
    ("3. Accuracy per paradigm: original vs debiased", "accuracy"),
    ("4. Accuracy on the A=U / A>U / A<U splits", "splits"),
    ("5. Accuracy vs token-length difference", "length_diff_accuracy"),
    ("6. Sentence score vs token length", "loglik_length"),
)
TIES = "Ties (equal scores) count as not correct and stay in the denominator."


def _acc(r, prefix: str = "accuracy") -> str:
    return pct_interval(getattr(r, prefix), getattr(r, f"{prefix}_low"), getattr(r, f"{prefix}_high"))


def _diff(r, part: str) -> str:
    """A difference in points with its interval; "(no interval)" where none could be estimated."""
    value, low, high = getattr(r, part), getattr(r, f"{part}_low"), getattr(r, f"{part}_high")
    text = pp_interval(value, low, high)
    return text + " (no interval)" if pd.notna(value) and (pd.isna(low) or pd.isna(high)) else text


def _ratio(x) -> str:
    return "n/a" if x is None or pd.isna(x) else f"{x:.3f}"


# ---------------------------------------------------------------------------- sections


def _few(n) -> str:
    return f"too few pairs (n = {0 if pd.isna(n) else int(n)})"


def _gap(r) -> str:
    """The gap with its interval, or "too few pairs" where a direction has fewer than MIN_PAIRS."""
    if not (enough(r.n_longer) and enough(r.n_shorter)):
        return _few(min(r.n_longer, r.n_shorter))
    return _diff(r, "gap")


def _dir_acc(r, name: str) -> str:
    n = getattr(r, f"n_{name}")
    return f"{_acc(r, f'acc_{name}')} (n = {int(n):,})" if enough(n) else _few(n)


def _effect(r, name: str) -> str:
    """A direction's effect of length control: value [interval] (n, McNemar p), or "too few pairs"."""
    n = getattr(r, f"n_matched_{name}")
    if not enough(n):
        return _few(n)
    text = f"{_diff(r, f'effect_{name}')} (n = {int(n):,}, p {p_value(getattr(r, f'effect_{name}_p'))})"
    if name == "equal" and getattr(r, "n_equal_changed", 0):
        text += f"; {int(r.n_equal_changed):,} got a different bad sentence"
    return text


def _net(r) -> str:
    return (f"{_diff(r, 'length')} (n = {int(r.n_matched):,}, p {p_value(r.length_p)})" if enough(r.n_matched)
            else _few(r.n_matched))


def _decomposition(r) -> str:
    """change = Σ share x effect (= length) + selection + remainder, in points, for one row."""
    terms = " + ".join(f"{getattr(r, f'share_{n}'):.2f} × ({100 * getattr(r, f'effect_{n}'):+.1f})"
                       if getattr(r, f"n_matched_{n}") else f"0 × (n/a)" for n in DIRECTIONS)
    def signed(x):
        return f"{'−' if round(100 * x, 1) < 0 else '+'} {abs(100 * x):.1f}"

    return (f"{100 * r.change:+.1f} = [{terms} = {100 * r.length:+.1f}] {signed(r.selection)} (selection) "
            f"{signed(r.remainder)} (remainder)")


def headline_markdown(headline: pd.DataFrame | None, notes=()) -> str:
    """The headline: per model and score, in words; the gap on the original set by direction; what
    length control did to each direction; the net change as its decomposition. `notes`: the
    report's first lines; its warnings (a run not controlled for a model's tokenizer) come first."""
    warnings = [f"- {line}" for line in notes if line.startswith("**Warning**")]
    head = ("\n".join(warnings) + "\n\n") if warnings else ""
    if headline is None or headline.empty:
        return head + ("No length effect: the data is not an original and a debiased set (a run folder of "
                       "`fairpairs generate`, or sets named original and debiased).\n")
    words = "\n".join(f"- **{r.model}, `{r.normalization}`**: {r.in_words}" for r in headline.itertuples())
    bias = markdown_table(
        ["model", "score", "gap A>U − A<U, pp [95% CI]", "A>U accuracy, % [95% CI]", "A<U accuracy", "A=U accuracy"],
        [[r.model, r.normalization, _gap(r), _dir_acc(r, "longer"), _dir_acc(r, "shorter"), _dir_acc(r, "equal")]
         for r in headline.itertuples()])
    control = markdown_table(
        ["model", "score", "formerly A>U, pp [95% CI]", "formerly A<U", "A=U (control)", "changed contexts",
         "net, all matched", "debiased accuracy, % [95% CI]", "distinct-word ratio"],
        [[r.model, r.normalization, _effect(r, "longer"), _effect(r, "shorter"), _effect(r, "equal"),
          _effect(r, "changed"), _net(r), _acc(r, "debiased"), _ratio(r.distinct_ratio)]
         for r in headline.itertuples()])
    parts = markdown_table(["model", "score", "change = Σ share × effect (= length) + selection + remainder, pp"],
                           [[r.model, r.normalization, _decomposition(r)] for r in headline.itertuples()])
    how = headline["matched_by"].iloc[0]
    return (head + words + "\n\n### The bias on the original set, by direction (the scoring model's own tokenizer)\n\n"
            + bias
            + "\n**Gap**: accuracy on the original set's A>U pairs (good sentence longer) minus on its A<U pairs "
              "(good sentence shorter), with Newcombe's 95% interval for a difference of proportions; a model "
              "that prefers fewer tokens has a negative gap. A=U (equal lengths) is the baseline.\n"
            + "\n### What length control did, by direction of the original pair\n\n" + control
            + f"\nOn the **matched contexts** (the same context in both sets, matched by {how}): debiased minus "
              "original accuracy of the contexts whose original pair was A>U, A<U or A=U, with Newcombe's 95% "
              "interval for paired proportions and the exact McNemar p-value. A score free of length bias "
              "moves neither; one that prefers shorter sentences gains on formerly-A>U contexts and loses on "
              "formerly-A<U ones; an over-correcting score does the opposite. The A=U contexts are the control: "
              "where their original pair was kept they cannot move. **Changed contexts**: the matched contexts "
              "whose bad sentence length control replaced. **Distinct-word ratio**: distinct critical words of "
              "the debiased set over the original set's (`fairpairs balance`, mean over paradigms; n/a when the "
              "data is not a run folder).\n"
            + "\n### The net change, decomposed\n\n" + parts
            + "\nThe change of overall accuracy (debiased − original) is the sum over directions of each "
              "direction's share of the matched contexts times its effect (together the net length effect), "
              "plus selection (which contexts were kept) and the remainder (unmatched debiased pairs); the "
              f"identity is exact (section 2). Fewer than {MIN_PAIRS} pairs: \"too few pairs\". {TIES}\n")


def direction_markdown(effects: pd.DataFrame, balance: pd.DataFrame | None = None) -> str:
    """Per score, the headline's figures per paradigm (gap, effect per direction, changed contexts,
    net) with the balance report's flags for that paradigm (`balance`, a run folder's)."""
    flags = {} if balance is None or "flags" not in balance.columns else \
        {r.uid: (r.flags if isinstance(r.flags, str) else "") for r in balance.itertuples()}
    text = ""
    for norm, a in effects.groupby("normalization", sort=False):
        rows = [[r.uid, r.model, _gap(r), _dir_acc(r, "equal"), _effect(r, "longer"), _effect(r, "shorter"),
                 _effect(r, "equal"), _effect(r, "changed"), _net(r), flags.get(r.uid, "") or "-"]
                for r in a.itertuples()]
        text += (f"\n### Bias by direction per paradigm, normalization `{norm}`\n\n"
                 + markdown_table(["paradigm", "model", "gap A>U − A<U, pp", "A=U accuracy, %", "formerly A>U, pp",
                                   "formerly A<U", "A=U (control)", "changed contexts", "net, all matched",
                                   "balance flags"], rows))
    return text + (f"\nAs in the headline (fewer than {MIN_PAIRS} pairs: \"too few pairs\"). Balance flags: "
                   "`fairpairs balance` on the evaluated run folder (balance.csv), for the debiased set of "
                   "that paradigm.\n")


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


def write_report(report: Report, out, *, figures=("png",), dpi: int | None = None) -> list[Path]:
    """Write the CSV, markdown and figure files of `report` into the folder `out`, atomically, as a
    folder of ours (fairpairs.io.files.OutputFolder: a folder fairpairs did not write is refused, files
    a user added to an earlier report are kept); returns the paths. `figures`: the formats of every
    figure (png, pdf, svg; report.md shows the first); `dpi`: the PNGs' resolution (default 200)."""
    from fairpairs.arguments import path
    from fairpairs.errors import Param, UsageTypeError
    from fairpairs.io.files import OutputFolder
    from fairpairs.analysis.plots import check_formats

    if not isinstance(report, Report):
        raise UsageTypeError(Param("report"), f": expected a Report (fairpairs.analysis.evaluation), not {type(report).__name__}")
    formats, dpi = check_formats(figures, dpi)
    with OutputFolder(path(out, "out", exists=False), "out") as tmp:
        written = _write_files(report, tmp, formats, dpi)
    return [Path(out) / p.relative_to(tmp) for p in written]


def _write_files(report: Report, out: Path, formats: tuple[str, ...], dpi: int) -> list[Path]:
    from fairpairs.analysis import figures, plots

    tables = {
        "headline.csv": report.headline, "effects.csv": report.effects, "pair_scores.csv": report.pairs,
        "accuracy.csv": report.accuracy, "splits.csv": report.splits, "length_diff_accuracy.csv": report.curve,
        "loglik_length.csv": report.fits, "summary.csv": report.summary, "ranking_change.csv": report.change,
        "balance.csv": report.balance,
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
    draw = {
        "directions": lambda: figures.direction_dumbbells(report.effects),
        "gap_per_paradigm": lambda: figures.gap_dots(report.effects),
        "summary": lambda: figures.summary_bars(report.summary),
        "effects": lambda: figures.effect_bars(report.effects),
        "accuracy": lambda: figures.accuracy_scatter(report.accuracy),
        "splits": lambda: figures.split_bars(report.splits),
        "length_diff_accuracy": lambda: figures.diff_curves(report.curve),
        "loglik_length": lambda: figures.loglik_vs_length(sentence_table(report.pairs), report.fits),
    }
    for stem, make in draw.items():
        fig = make()
        for fmt in formats:
            atomic_write(out / f"{stem}.{fmt}", plots.render(fig, fmt, dpi))
            written.append(out / f"{stem}.{fmt}")
    body = ["# fairpairs evaluation report\n"]
    if report.notes:
        body.append("\n".join(f"- {line}" for line in report.notes) + "\n")
    body.append(f"## Headline: token-length bias by direction, and what length control did\n\n"
                f"![directions](directions.{formats[0]})\n\n{headline_markdown(report.headline, report.notes)}\n"
                f"![gap_per_paradigm](gap_per_paradigm.{formats[0]})\n")
    for title, stem in SECTIONS:
        body.append(f"## {title}\n\n![{stem}]({stem}.{formats[0]})\n\n{md[stem]}")
    atomic_write(out / "report.md", "\n".join(body))
    written.append(out / "report.md")
    atomic_write(out / "results.json", results_json(report))
    written.append(out / "results.json")
    return written


def data_fingerprint(pairs: pd.DataFrame) -> str:
    """sha256 of the evaluated pairs (set, uid, pair_id, good and bad sentence, in order): the same
    pairs give the same fingerprint whatever models scored them."""
    import hashlib
    import json

    first = pairs[(pairs["model"] == pairs["model"].iloc[0]) & (pairs["normalization"] == pairs["normalization"].iloc[0])]
    rows = first[["set", "uid", "pair_id", "sentence_good", "sentence_bad"]].astype(str).to_numpy().tolist()
    return hashlib.sha256(json.dumps(rows, ensure_ascii=False).encode("utf-8")).hexdigest()


def results_json(report: Report) -> str:
    """results.json: the versions, the settings, the data's fingerprint and sizes, and every figure
    of the report with its interval (headline, effects per paradigm, summary, splits), machine-readable;
    NaN is null. No timestamp: the same scores give the same file."""
    import json
    import math
    import sys
    from importlib import metadata

    def version(name):
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return None

    def records(df):
        if df is None:
            return None
        out = []
        for rec in df.to_dict("records"):
            out.append({k: (None if isinstance(v, float) and math.isnan(v) else
                            v.item() if hasattr(v, "item") else v) for k, v in rec.items()})
        return out

    from fairpairs import __version__

    ps = report.pairs
    doc = {
        "fairpairs": __version__,
        "versions": {"python": sys.version.split()[0], **{n: version(n) for n in ("torch", "transformers", "tokenizers",
                                                                                  "numpy", "pandas", "scipy")}},
        "settings": report.settings,
        "data": {"fingerprint": data_fingerprint(ps) if len(ps) else None,
                 "pairs": {str(k): int(v) for k, v in
                           ps.drop_duplicates(["set", "uid", "pair_id"])["set"].value_counts(sort=False).items()},
                 "paradigms": int(ps["uid"].nunique()), "notes": list(report.notes)},
        "statistics": {"level": 0.95, "accuracy": "Wilson", "gap": "Newcombe (independent proportions)",
                       "effects": "Newcombe (paired proportions), exact McNemar p",
                       "change, selection, remainder": "percentile bootstrap over units (2,000 resamples, seed 0)",
                       "too_few_pairs": f"fewer than {MIN_PAIRS} pairs: the report prints 'too few pairs'"},
        "headline": records(report.headline),
        "effects": records(report.effects),
        "summary": records(report.summary),
        "splits": records(report.splits[report.splits["uid"] == ALL]) if report.splits is not None else None,
    }
    return json.dumps(doc, indent=1, ensure_ascii=False, allow_nan=False) + "\n"
