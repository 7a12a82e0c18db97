"""Figures of the evaluation report (matplotlib's object API on the Agg canvas; pyplot is never used).

Each function takes tables of `fairpairs.analysis.evaluation.Report` and returns a matplotlib Figure;
`render(fig, fmt, dpi)` turns it into the bytes of a PNG, PDF or SVG file, which the caller writes
atomically. Files carry no timestamp or software metadata (SVG ids are fixed by a salt), so the
same tables give byte-identical files.
"""

from __future__ import annotations

import io

import numpy as np
import pandas as pd

from fairpairs.analysis.length_audit import ALL


FORMATS = ("png", "pdf", "svg")
NONE = "none"      # figures="none": no figure files (and no matplotlib import)
DPI = 200


def check_formats(figures, dpi) -> tuple[tuple[str, ...], int]:
    """The figure formats ("png,pdf" or a list of png, pdf, svg; "none" or an empty list: no figures,
    a report of tables and text) and the PNG dpi (default 200), checked: a UsageError /
    UsageTypeError names `figures` or `dpi`."""
    from fairpairs.errors import Param, UsageError, UsageTypeError

    if isinstance(figures, str):
        figures = [f.strip() for f in figures.split(",") if f.strip()] or [""]   # ("" names no format: an error)
    elif isinstance(figures, (bytes, int, float)) or figures is None or not hasattr(figures, "__iter__"):
        raise UsageTypeError(Param("figures"), f": expected formats such as 'png,pdf', not {type(figures).__name__}")
    formats = [str(f).strip().lower().lstrip(".") for f in figures]
    if formats == [NONE]:
        formats = []
    elif NONE in formats:
        raise UsageError(Param("figures"), f": {NONE} (no figures) stands alone, not with formats: {','.join(formats)}")
    bad = [f for f in formats if f not in FORMATS]
    if bad:
        raise UsageError(Param("figures"), f": expected one or more of {', '.join(FORMATS)}, or {NONE}, "
                                           f"not {','.join(bad) or 'nothing'}")
    if dpi is None:
        dpi = DPI
    elif isinstance(dpi, bool) or not isinstance(dpi, (int, np.integer)):
        raise UsageTypeError(Param("dpi"), f": expected a whole number, not {type(dpi).__name__}")
    elif not 50 <= dpi <= 1200:
        raise UsageError(Param("dpi"), f": expected 50 to 1200, not {dpi}")
    return tuple(dict.fromkeys(formats)), int(dpi)


def render(fig, fmt: str = "png", dpi: int = DPI) -> bytes:
    """The bytes of `fig` as a PNG (at `dpi`), PDF or SVG file, without dates or software names."""
    import matplotlib

    buf = io.BytesIO()
    if fmt == "png":
        fig.savefig(buf, format="png", dpi=dpi, metadata={"Software": None})
    elif fmt == "pdf":
        fig.savefig(buf, format="pdf", metadata={"Creator": None, "Producer": None, "CreationDate": None})
    elif fmt == "svg":
        with matplotlib.rc_context({"svg.hashsalt": "fairpairs", "svg.fonttype": "none"}):
            fig.savefig(buf, format="svg", metadata={"Creator": None, "Date": None, "Format": None, "Type": None})
    else:
        raise ValueError(f"fmt: expected one of {', '.join(FORMATS)}, not {fmt!r}")
    return buf.getvalue()


# Okabe-Ito colours (readable by colour-blind readers and in greyscale prints)
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442")
SET_COLOURS = {"original": "#0072B2", "debiased": "#E69F00"}
SPLIT_COLOURS = {"A=U": "#8C8C8C", "A>U": "#D55E00", "A<U": "#0072B2"}
FEW = 12     # at most this many points per panel are labelled by name
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
CHANCE = 0.5


def plot_figure(ncols: int, nrows: int = 1, width: float = 4.2, height: float = 3.4):
    from matplotlib.figure import Figure  # Figure + savefig use the Agg canvas; pyplot is never touched

    fig = Figure(figsize=(width * ncols, height * nrows), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False)
    return fig, axes


def plot_colours(names) -> dict:
    return {n: PALETTE[i % len(PALETTE)] for i, n in enumerate(dict.fromkeys(names))}


def plot_legend(fig, axes_list, ncol: int | None = None) -> None:
    """One legend for the figure, above the panels (it covers no data): every distinct label once."""
    seen = {}
    for ax in axes_list:
        for h, label in zip(*ax.get_legend_handles_labels()):
            seen.setdefault(label, h)
    if seen:
        fig.legend(list(seen.values()), list(seen), loc="outside upper center", ncol=ncol or min(len(seen), 4),
                   frameon=False, fontsize="small")


def plot_chance(ax, axis: str = "y") -> None:
    line = ax.axhline if axis == "y" else ax.axvline
    line(CHANCE, color="black", lw=0.8, ls=":", label="chance (50%)", zorder=0)


def plot_bars(ax, x, table: pd.DataFrame, width: float, colour: str, label: str) -> None:
    """Bars of table.accuracy at `x` with Wilson whiskers, and the value (%) and n of each bar
    (above its whisker; written upwards inside narrow tall bars); an empty row gets only "n=0"."""
    acc = table["accuracy"].to_numpy(dtype=float)
    lo = table["accuracy_low"].to_numpy(dtype=float) if "accuracy_low" in table else acc
    hi = table["accuracy_high"].to_numpy(dtype=float) if "accuracy_high" in table else acc
    n = table["n_pairs"].fillna(0).astype(int).to_numpy()
    ok = ~np.isnan(acc)
    ax.bar(x[ok], acc[ok], width, color=colour, label=label, edgecolor="white", linewidth=0.4)
    ax.errorbar(x[ok], acc[ok], yerr=np.vstack([acc[ok] - lo[ok], hi[ok] - acc[ok]]), fmt="none", ecolor="black",
                elinewidth=0.7, capsize=1.5)
    narrow = width < 0.45
    for xi, a, h, k in zip(x, acc, hi, n):
        if a != a:
            ax.annotate(f"n={k:,}", (xi, 0), xytext=(0, 1.5), textcoords="offset points", ha="center", va="bottom",
                        fontsize=5.5)
        elif not narrow:
            ax.annotate(f"{100 * a:.1f}\nn={k:,}", (xi, h), xytext=(0, 1.5), textcoords="offset points", ha="center",
                        va="bottom", fontsize=6, linespacing=1.0)
        else:   # vertical, inside a tall bar (clear of the whisker), else above the whisker
            inside = a >= 0.3
            ax.annotate(f"{100 * a:.1f} (n={k:,})", (xi, 0 if inside else h), xytext=(0, 2), textcoords="offset points",
                        ha="center", va="bottom", fontsize=5.5, rotation=90, color="white" if inside else "black")


# ---------------------------------------------------------------------------- labels that fit


def wrap_label(text: str, width: int = 16) -> str:
    """`text` broken into lines of about `width` characters after a '/', '-', '_' or space (a model
    name such as HuggingFaceTB/SmolLM2-135M under its neighbours' tick labels, not across them)."""
    import re

    lines, line = [], ""
    for part in re.findall(r"[^/\-_ ]+[/\-_ ]?|[/\-_ ]", str(text)):
        if line and len(line) + len(part) > width:
            lines.append(line.rstrip())
            line = ""
        line += part
    return "\n".join(lines + [line.rstrip()]) if line else "\n".join(lines)


def fit_labels(fig):
    """`fig` with the labels written inside its panels (values, n, names: `ax.texts`) kept only where
    they fit: inside their panel and clear of the labels kept before them (in the order drawn); a
    label that would overprint another or leave its panel is removed (the tables have every value).
    The labels take no part in the layout, so removing one moves nothing. Returns `fig`."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    labelled = [ax for ax in fig.axes if any(t.get_text().strip() for t in ax.texts)]
    if not labelled:
        return fig
    for ax in labelled:
        for t in ax.texts:
            t.set_in_layout(False)
    FigureCanvasAgg(fig)
    # (places the panels - constrained layout - and measures every text with the Agg renderer at the
    # figure's dpi, as a drawing would, but paints no pixel: a whole Agg draw was half of this time)
    fig.draw_without_rendering()
    for ax in labelled:
        box = ax.get_window_extent().expanded(1.0, 1.0)
        kept = []
        for t in list(ax.texts):
            if not t.get_text().strip():
                continue
            b = t.get_window_extent()
            inside = box.x0 - 0.5 <= b.x0 and b.x1 <= box.x1 + 0.5 and box.y0 - 0.5 <= b.y0 and b.y1 <= box.y1 + 0.5
            if inside and not any(_overlap(b, k) for k in kept):
                kept.append(b)
            else:
                t.remove()
    return fig


def _overlap(a, b, tolerance: float = 0.5) -> bool:
    return (min(a.x1, b.x1) - max(a.x0, b.x0) > -tolerance) and (min(a.y1, b.y1) - max(a.y0, b.y0) > -tolerance)


def plot_grid(n: int, width: float, height: float, ncols: int = 2):
    """A figure of n panels, at most `ncols` to a row; the unused cells of the last row are removed
    (no empty panel)."""
    cols = min(n, ncols)
    rows = -(-n // cols)
    fig, axes = plot_figure(cols, rows, width=width, height=height)
    flat = list(axes.ravel())
    for ax in flat[n:]:
        ax.remove()
    return fig, flat[:n]


def plot_percent_axis(ax, axis: str = "x", top: float = 1.03) -> None:
    """An accuracy axis from 0 to 100%, the one unit of every accuracy figure (`top` above 1 leaves
    room for labels; a point at 0 or 100% stays whole)."""
    from matplotlib.ticker import PercentFormatter

    (ax.set_xlim if axis == "x" else ax.set_ylim)(-0.03, top)
    target = ax.xaxis if axis == "x" else ax.yaxis
    target.set_major_formatter(PercentFormatter(1.0, decimals=0))
    (ax.set_xticks if axis == "x" else ax.set_yticks)(np.linspace(0, 1, 6))


def gap_dots(effects: pd.DataFrame | None):
    """Per model and normalisation, the gap A>U − A<U accuracy of the original set per paradigm
    (sorted, Newcombe whiskers) and pooled over paradigms (a diamond); only paradigms with at least
    MIN_PAIRS A>U and MIN_PAIRS A<U pairs are drawn, and the title says how many of how many. A panel
    with no such paradigm is left out, and with no panel there is no figure (None: the pooled gap
    alone is the paper figure's). Shared x axis, −100 to +100 points."""
    from fairpairs.analysis.directions import MIN_PAIRS, enough

    if effects is None or effects.empty or "gap" not in effects.columns:
        return None
    shown = {}
    for key, g in effects.groupby(["model", "normalization"], sort=False):
        t = g[(g["uid"] != ALL) & g["n_longer"].map(enough) & g["n_shorter"].map(enough)].sort_values("gap")
        if len(t):
            shown[key] = (g, t)
    if not shown:
        return None
    rows = max(len(t) for _, t in shown.values()) + 1
    longest = max(len(f"{u} (0000/0000)") for _, t in shown.values() for u in t["uid"])
    fig, axes = plot_grid(len(shown), width=2.4 + 0.05 * longest, height=1.5 + 0.15 * rows)
    for ax, ((model, norm), (g, t)) in zip(axes, shown.items()):
        _gap_panel(ax, g, t)
        ax.set_title(f"{wrap_label(model, 28)}, {norm}\n{len(t)} of {int((g['uid'] != ALL).sum())} paradigms "
                     f"(≥{MIN_PAIRS} A>U, ≥{MIN_PAIRS} A<U)", fontsize=7)
    plot_legend(fig, axes)
    return fig


def _gap_panel(ax, g: pd.DataFrame, t: pd.DataFrame) -> None:
    """One model and score of `gap_dots`: the paradigms `t` and the pooled row of `g`."""
    from fairpairs.analysis.directions import enough

    pooled = g[g["uid"] == ALL].iloc[0]
    v, lo, hi = 100 * t["gap"].to_numpy(), 100 * t["gap_low"].to_numpy(), 100 * t["gap_high"].to_numpy()
    ax.errorbar(v, np.arange(len(t)), xerr=np.vstack([v - lo, hi - v]), fmt="o", ms=3, color=PALETTE[0],
                ecolor=PALETTE[0], elinewidth=0.8, capsize=1.5, label="paradigm (95% CI)")
    labels = [f"{u} ({int(a)}/{int(b)})" for u, a, b in zip(t["uid"], t["n_longer"], t["n_shorter"])]
    if enough(pooled["n_longer"]) and enough(pooled["n_shorter"]):
        pv = 100 * pooled["gap"]
        ax.errorbar([pv], [len(t)], xerr=[[pv - 100 * pooled["gap_low"]], [100 * pooled["gap_high"] - pv]],
                    fmt="D", ms=4, color=PALETTE[1], ecolor=PALETTE[1], elinewidth=1.0, capsize=2,
                    label="all paradigms pooled")
        labels.append(f"ALL ({int(pooled['n_longer'])}/{int(pooled['n_shorter'])})")
    ax.set_yticks(range(len(labels)), labels, fontsize=6)
    ax.set_ylim(len(t) + 0.5, -0.5)
    ax.axvline(0, color="grey", lw=0.8, ls="--")
    ax.set_xlim(-104, 104)
    ax.set_xticks(np.linspace(-100, 100, 5))
    ax.tick_params(axis="x", labelsize=7)
    ax.set_xlabel("gap A>U − A<U, points\n(n A>U / A<U pairs)", fontsize=7)
