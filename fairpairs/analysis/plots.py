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


FORMATS = ("png", "pdf", "svg")
DPI = 200


def check_formats(figures, dpi) -> tuple[tuple[str, ...], int]:
    """The figure formats ("png,pdf" or a list of png, pdf, svg; at least one) and the PNG dpi
    (default 200), checked: a UsageError / UsageTypeError names `figures` or `dpi`."""
    from fairpairs.errors import Param, UsageError, UsageTypeError

    if isinstance(figures, str):
        figures = [f.strip() for f in figures.split(",") if f.strip()]
    elif isinstance(figures, (bytes, int, float)) or figures is None or not hasattr(figures, "__iter__"):
        raise UsageTypeError(Param("figures"), f": expected formats such as 'png,pdf', not {type(figures).__name__}")
    formats = [str(f).strip().lower().lstrip(".") for f in figures]
    bad = [f for f in formats if f not in FORMATS]
    if bad or not formats:
        raise UsageError(Param("figures"), f": expected one or more of {', '.join(FORMATS)}, not {','.join(bad) or 'nothing'}")
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


def _figure(ncols: int, nrows: int = 1, width: float = 4.2, height: float = 3.4):
    from matplotlib.figure import Figure  # Figure + savefig use the Agg canvas; pyplot is never touched

    fig = Figure(figsize=(width * ncols, height * nrows), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False)
    return fig, axes


def _empty(ax, text: str = "no data") -> None:
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes)
    ax.set_axis_off()


def _colours(names) -> dict:
    return {n: PALETTE[i % len(PALETTE)] for i, n in enumerate(dict.fromkeys(names))}


def _legend(fig, axes_list, ncol: int | None = None) -> None:
    """One legend for the figure, above the panels (it covers no data): every distinct label once."""
    seen = {}
    for ax in axes_list:
        for h, label in zip(*ax.get_legend_handles_labels()):
            seen.setdefault(label, h)
    if seen:
        fig.legend(list(seen.values()), list(seen), loc="outside upper center", ncol=ncol or min(len(seen), 4),
                   frameon=False, fontsize="small")


def _chance(ax, axis: str = "y") -> None:
    line = ax.axhline if axis == "y" else ax.axvline
    line(CHANCE, color="black", lw=0.8, ls=":", label="chance (50%)", zorder=0)


def _fit(values, pad: float = 0.04, low: float = 0.0, high: float = 1.0) -> tuple[float, float]:
    """Axis limits around the finite `values` (with chance inside), within [low, high]."""
    v = np.asarray([x for x in values if x == x], dtype=float)
    if not len(v):
        return low, high
    lo, hi = min(v.min(), CHANCE), max(v.max(), CHANCE)
    span = max(hi - lo, 0.1)
    return max(low, lo - pad * span), min(high, hi + pad * span)


def _bars(ax, x, table: pd.DataFrame, width: float, colour: str, label: str) -> None:
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


