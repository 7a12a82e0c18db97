"""Figures of the evaluation report (matplotlib's object API on the Agg canvas; pyplot is never used).

Each function takes tables of `fairpairs.evaluate.Report` and returns a matplotlib Figure;
`render(fig, fmt, dpi)` turns it into the bytes of a PNG, PDF or SVG file, which the caller writes
atomically. Files carry no timestamp or software metadata (SVG ids are fixed by a salt), so the
same tables give byte-identical files.
"""

from __future__ import annotations

import io

import numpy as np
import pandas as pd

from .audit import ALL, SPLITS

FORMATS = ("png", "pdf", "svg")
DPI = 200


def check_formats(figures, dpi) -> tuple[tuple[str, ...], int]:
    """The figure formats ("png,pdf" or a list of png, pdf, svg; at least one) and the PNG dpi
    (default 200), checked: a UsageError / UsageTypeError names `figures` or `dpi`."""
    from .errors import UsageError, UsageTypeError

    if isinstance(figures, str):
        figures = [f.strip() for f in figures.split(",") if f.strip()]
    elif isinstance(figures, (bytes, int, float)) or figures is None or not hasattr(figures, "__iter__"):
        raise UsageTypeError(f"figures: expected formats such as 'png,pdf', not {type(figures).__name__}")
    formats = [str(f).strip().lower().lstrip(".") for f in figures]
    bad = [f for f in formats if f not in FORMATS]
    if bad or not formats:
        raise UsageError(f"figures: expected one or more of {', '.join(FORMATS)}, not {','.join(bad) or 'nothing'}")
    if dpi is None:
        dpi = DPI
    elif isinstance(dpi, bool) or not isinstance(dpi, (int, np.integer)):
        raise UsageTypeError(f"dpi: expected a whole number, not {type(dpi).__name__}")
    elif not 50 <= dpi <= 1200:
        raise UsageError(f"dpi: expected 50 to 1200, not {dpi}")
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


def _figure(ncols: int, nrows: int = 1, width: float = 4.2, height: float = 3.4):
    from matplotlib.figure import Figure  # Figure + savefig use the Agg canvas; pyplot is never touched

    fig = Figure(figsize=(width * ncols, height * nrows), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False)
    return fig, axes


def _png(fig):
    return fig     # (the figure functions return the Figure; `render` makes the file)


def _empty(ax, text: str = "no data") -> None:
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes)
    ax.set_axis_off()


def _grouped_bars(ax, wide: pd.DataFrame, rotation: int = 20) -> None:
    """Bars of `wide` (index: x groups, columns: series), drawn without pandas.plot (no pyplot)."""
    n = max(len(wide.columns), 1)
    width = 0.8 / n
    x = np.arange(len(wide.index))
    for i, col in enumerate(wide.columns):
        ax.bar(x + (i - (n - 1) / 2) * width, wide[col].fillna(0).to_numpy(), width, label=str(col))
    ax.set_xticks(x, [str(v) for v in wide.index], rotation=rotation, ha="right" if rotation else "center",
                  fontsize="small")


def accuracy_scatter(acc: pd.DataFrame) -> bytes:
    """Per normalisation: each paradigm's accuracy on the original set (x) vs the debiased set
    (y), one colour per model; with one set only, accuracy per paradigm as bars."""
    norms = list(dict.fromkeys(acc["normalization"]))
    fig, axes = _figure(len(norms))
    per = acc[acc["uid"] != ALL]
    sets = list(dict.fromkeys(acc["set"]))
    for ax, norm in zip(axes[0], norms):
        a = per[per["normalization"] == norm]
        if len(sets) >= 2:
            x_set, y_set = ("original", "debiased") if {"original", "debiased"} <= set(sets) else sets[:2]
            wide = a.pivot_table(index=["model", "uid"], columns="set", values="accuracy")
            for model in dict.fromkeys(a["model"]):
                if model in wide.index.get_level_values(0):
                    w = wide.loc[model]
                    ax.scatter(w[x_set], w[y_set], label=model, alpha=0.75, s=22)
            ax.plot([0, 1], [0, 1], color="grey", lw=0.8, ls="--")
            ax.set_xlim(-0.02, 1.02)
            ax.set_ylim(-0.02, 1.02)
            ax.set_xlabel(f"accuracy, {x_set}")
            ax.set_ylabel(f"accuracy, {y_set}")
        else:
            wide = a.pivot_table(index="uid", columns="model", values="accuracy")
            _grouped_bars(ax, wide, rotation=60)
            ax.set_ylabel("accuracy")
            ax.set_ylim(0, 1)
        ax.set_title(f"per paradigm, {norm}")
        ax.legend(fontsize="small")
    return _png(fig)


def split_bars(splits: pd.DataFrame) -> bytes:
    """Accuracy on the A=U / A>U / A<U splits (pairs pooled over paradigms), per model, for the
    first set (the original one in a run folder) and each normalisation."""
    norms = list(dict.fromkeys(splits["normalization"]))
    first = "original" if "original" in set(splits["set"]) else splits["set"].iloc[0]
    s = splits[(splits["uid"] == ALL) & (splits["set"] == first)]
    fig, axes = _figure(len(norms))
    colours = {"A=U": "tab:grey", "A>U": "tab:red", "A<U": "tab:blue"}
    for ax, norm in zip(axes[0], norms):
        a = s[s["normalization"] == norm]
        models = list(dict.fromkeys(a["model"]))
        x = np.arange(len(models))
        for i, split in enumerate(SPLITS):
            b = a[a["split"] == split].set_index("model").reindex(models)
            heights = b["accuracy"].fillna(0).to_numpy()
            bars = ax.bar(x + (i - 1) * 0.27, heights, 0.27, label=split, color=colours[split])
            for bar, n in zip(bars, b["n_pairs"].fillna(0).astype(int)):
                ax.annotate(f"{n}", (bar.get_x() + bar.get_width() / 2, bar.get_height()), ha="center",
                            va="bottom", fontsize=6)
        ax.set_xticks(x, models, rotation=20, ha="right")
        ax.set_ylim(0, 1.08)
        ax.set_ylabel("accuracy")
        ax.set_title(f"splits of {first}, {norm} (n above bars)")
        ax.legend(fontsize="small")
    return _png(fig)


def diff_curves(curve: pd.DataFrame) -> bytes:
    """Accuracy vs len(bad) - len(good), one panel per model, one line per normalisation (seed
    paper, Figure 3); the first set only."""
    if curve.empty:
        fig, axes = _figure(1)
        _empty(axes[0][0])
        return _png(fig)
    first = "original" if "original" in set(curve["set"]) else curve["set"].iloc[0]
    c = curve[curve["set"] == first]
    models = list(dict.fromkeys(c["model"]))
    fig, axes = _figure(len(models))
    for ax, model in zip(axes[0], models):
        for norm, g in c[c["model"] == model].groupby("normalization", sort=False):
            ax.plot(g["len_diff"], g["accuracy"], marker="o", ms=3, label=norm)
        ax.axvline(0, color="grey", lw=0.8, ls="--")
        ax.set_ylim(-0.02, 1.02)
        ax.set_xlabel("len(bad) - len(good), tokens")
        ax.set_ylabel("accuracy")
        ax.set_title(f"{model} ({first})")
        ax.legend(fontsize="small")
    return _png(fig)


def loglik_vs_length(sentences: pd.DataFrame, fits: pd.DataFrame) -> bytes:
    """Sentence score vs token length with the fitted line, one row per model and one column per
    normalisation (seed paper, Figures 2 and 4)."""
    models = list(dict.fromkeys(sentences["model"]))
    norms = list(dict.fromkeys(sentences["normalization"]))
    fig, axes = _figure(len(norms), len(models), width=3.6, height=3.0)
    fit = fits.set_index(["model", "normalization"])
    for i, model in enumerate(models):
        for j, norm in enumerate(norms):
            ax = axes[i][j]
            g = sentences[(sentences["model"] == model) & (sentences["normalization"] == norm)]
            for role, colour in (("good", "tab:blue"), ("bad", "tab:red")):
                r = g[g["role"] == role]
                ax.scatter(r["n_tokens"], r["score"], s=5, alpha=0.35, color=colour, label=role)
            f = fit.loc[(model, norm)]
            if not np.isnan(f["slope"]):
                xs = np.array([g["n_tokens"].min(), g["n_tokens"].max()], dtype=float)
                ax.plot(xs, f["slope"] * xs + f["intercept"], color="black", lw=1.2,
                        label=f"slope {f['slope']:.2f}, r {f['pearson_r']:.2f}")
            ax.set_xlabel("tokens")
            ax.set_ylabel(norm)
            ax.set_title(model, fontsize="medium")
            ax.legend(fontsize="x-small")
    return _png(fig)


def summary_bars(summary: pd.DataFrame) -> bytes:
    """Overall (pooled) accuracy per model and set, one panel per normalisation."""
    norms = list(dict.fromkeys(summary["normalization"]))
    fig, axes = _figure(len(norms))
    for ax, norm in zip(axes[0], norms):
        wide = summary[summary["normalization"] == norm].pivot_table(index="model", columns="set", values="accuracy")
        wide = wide[[s for s in dict.fromkeys(summary["set"]) if s in wide.columns]]
        _grouped_bars(ax, wide)
        ax.set_ylim(0, 1)
        ax.set_ylabel("accuracy")
        ax.set_title(f"overall accuracy, {norm}")
        ax.legend(fontsize="small")
    return _png(fig)


PART_LABELS = {"change": "change (debiased − original)", "selection": "selection of contexts",
               "length": "length (matched, paired)", "remainder": "unmatched debiased pairs"}


def effect_bars(effects: pd.DataFrame | None):
    """The decomposition of the change (fairpairs.effects), all pairs pooled: per normalisation a
    panel with, per model, the change and its three parts in percentage points with their 95%
    intervals (whiskers) and values; a zero line."""
    if effects is None or effects.empty:
        fig, axes = _figure(1)
        _empty(axes[0][0], "no original and debiased set")
        return fig
    e = effects[effects["uid"] == ALL]
    norms = list(dict.fromkeys(e["normalization"]))
    models = list(dict.fromkeys(e["model"]))
    parts = list(PART_LABELS)
    fig, axes = _figure(len(norms), width=4.6, height=1.0 + 0.55 * len(parts) * len(models))
    colours = dict(zip(models, [f"C{i}" for i in range(len(models))]))
    for ax, norm in zip(axes[0], norms):
        a = e[e["normalization"] == norm].set_index("model")
        step = 0.8 / len(models)
        lo_all, hi_all = [0.0], [0.0]
        for j, model in enumerate(models):
            r = a.loc[model]
            y = np.arange(len(parts)) + (j - (len(models) - 1) / 2) * step
            v = np.array([100 * r[p] for p in parts])
            lo = np.array([100 * r[f"{p}_low"] for p in parts])
            hi = np.array([100 * r[f"{p}_high"] for p in parts])
            err = np.vstack([np.nan_to_num(v - lo), np.nan_to_num(hi - v)])
            ax.barh(y, v, height=step * 0.9, color=colours[model], alpha=0.85, label=model,
                    xerr=err, error_kw={"ecolor": "black", "elinewidth": 0.8, "capsize": 2})
            for yy, vv, hh in zip(y, v, np.where(np.isnan(hi), v, hi)):
                ax.annotate(f"{vv:+.1f}", (max(vv, hh, 0), yy), xytext=(3, 0), textcoords="offset points",
                            va="center", fontsize="x-small")
            lo_all += list(np.nan_to_num(lo)) + list(v)
            hi_all += list(np.nan_to_num(hi)) + list(v)
        ax.axvline(0, color="grey", lw=0.8)
        ax.set_yticks(np.arange(len(parts)), [PART_LABELS[p] for p in parts], fontsize="small")
        ax.invert_yaxis()
        span = max(max(hi_all) - min(lo_all), 1.0)
        ax.set_xlim(min(lo_all) - 0.08 * span, max(hi_all) + 0.25 * span)
        ax.set_xlabel("percentage points (95% interval)")
        ax.set_title(f"original → debiased, {norm}", fontsize="medium")
        ax.legend(fontsize="small", loc="lower right", frameon=False)
    return fig
