"""The paper figures of an evaluation (accuracy scatter, split bars, difference curves, log-
likelihood against length, summary bars), each a matplotlib figure in the shared style of
fairpairs.analysis.plots."""

from __future__ import annotations

import numpy as np
import pandas as pd
from fairpairs.analysis.length_audit import ALL, SPLITS
from fairpairs.analysis.plots import (FEW, MARKERS, PALETTE, SET_COLOURS, SPLIT_COLOURS, plot_bars, plot_chance,
                                     plot_colours, plot_figure, plot_grid, plot_legend, plot_percent_axis, wrap_label)


# ---------------------------------------------------------------------------- figures


def accuracy_scatter(acc: pd.DataFrame):
    """Per normalisation: each paradigm's accuracy on the original set (x) against the debiased set
    (y), one colour per model, Wilson whiskers on both axes, the diagonal (no change) and chance
    lines; paradigms are named where there are few. With one set: accuracy per paradigm as bars."""
    norms = list(dict.fromkeys(acc["normalization"]))
    per = acc[acc["uid"] != ALL]
    sets = list(dict.fromkeys(acc["set"]))
    colours = plot_colours(acc["model"])
    if len(sets) < 2:
        return _accuracy_bars(per, norms, colours)
    x_set, y_set = ("original", "debiased") if {"original", "debiased"} <= set(sets) else sets[:2]
    fig, axes = plot_grid(len(norms), width=4.4, height=4.2)
    for ax, norm in zip(axes, norms):
        a = per[per["normalization"] == norm]
        lim = (0.0, 1.0)
        few = a["uid"].nunique() * len(colours) <= FEW
        varies = a["n_pairs"].nunique() > 1
        placed = []
        for k, model in enumerate(colours):
            m = a[a["model"] == model]
            xs, ys = m[m["set"] == x_set].set_index("uid"), m[m["set"] == y_set].set_index("uid")
            both = xs.index.intersection(ys.index)
            if not len(both):
                continue
            xs, ys = xs.loc[both], ys.loc[both]
            if "accuracy_low" in xs:
                ax.errorbar(xs["accuracy"], ys["accuracy"],
                            xerr=[xs["accuracy"] - xs["accuracy_low"], xs["accuracy_high"] - xs["accuracy"]],
                            yerr=[ys["accuracy"] - ys["accuracy_low"], ys["accuracy_high"] - ys["accuracy"]],
                            fmt="none", ecolor=colours[model], alpha=0.35, elinewidth=0.6)
            hollow = k % 2 == 1          # alternate filled and hollow markers: coinciding points stay visible
            ax.scatter(xs["accuracy"], ys["accuracy"], s=22, marker=MARKERS[k % len(MARKERS)], label=model, zorder=3,
                       facecolor="none" if hollow else colours[model], edgecolor=colours[model],
                       linewidth=0.9 if hollow else 0.4)
            if few:
                for uid in both:
                    n = f" ({int(xs.loc[uid, 'n_pairs'])}/{int(ys.loc[uid, 'n_pairs'])})" if varies else ""
                    placed.append((ys.loc[uid, "accuracy"], xs.loc[uid, "accuracy"], f"{uid}{n}", colours[model]))
        for i, (y, x, text, colour) in enumerate(sorted(placed)):   # alternate sides, bottom to top
            ax.annotate(text, (x, y), xytext=(4 if i % 2 == 0 else -4, 2), textcoords="offset points",
                        ha="left" if i % 2 == 0 else "right", fontsize=5.5, color=colour)
        ax.plot(lim, lim, color="grey", lw=0.8, ls="--", label="no change", zorder=1)
        plot_chance(ax, "x")
        plot_chance(ax, "y")
        plot_percent_axis(ax, "x")
        plot_percent_axis(ax, "y")
        ax.set_aspect("equal")
        ax.set_xlabel(f"accuracy, {x_set} set")
        ax.set_ylabel(f"accuracy, {y_set} set")
        ns = a["n_pairs"]
        ax.set_title(f"per paradigm, {norm} (n = {ns.min():,}" + (f"–{ns.max():,}" if ns.max() != ns.min() else "")
                     + " pairs each; 95% CI)", fontsize="small")
    plot_legend(fig, axes)
    return fig


def _accuracy_bars(per: pd.DataFrame, norms: list, colours: dict):
    """`accuracy_scatter` of one set: accuracy per paradigm as horizontal bars with Wilson whiskers,
    one colour per model, one panel per normalisation side by side; paradigms named along the y axis
    (one line each at any count; the values are in accuracy.md)."""
    uids = sorted(per["uid"].unique())
    step = 0.8 / len(colours)
    fig, axes = plot_figure(len(norms), 1, width=2.4 + 0.05 * max(len(u) for u in uids),
                            height=1.3 + len(uids) * max(0.16, 0.07 * len(colours)))
    for ax, norm in zip(axes[0], norms):
        a = per[per["normalization"] == norm]
        for j, model in enumerate(colours):
            t = a[a["model"] == model].set_index("uid").reindex(uids)
            y = np.arange(len(uids)) + (j - (len(colours) - 1) / 2) * step
            acc = t["accuracy"].to_numpy(dtype=float)
            lo, hi = t["accuracy_low"].to_numpy(dtype=float), t["accuracy_high"].to_numpy(dtype=float)
            ax.barh(y, acc, height=step * 0.9, color=colours[model], label=model)
            ax.errorbar(acc, y, xerr=np.vstack([acc - lo, hi - acc]), fmt="none", ecolor="black", elinewidth=0.5,
                        capsize=1)
        plot_chance(ax, "x")
        ax.set_yticks(np.arange(len(uids)), uids, fontsize=6)
        ax.set_ylim(len(uids) - 0.5, -0.5)
        plot_percent_axis(ax, "x")
        ax.set_xlabel(f"accuracy ({norm}), 95% CI", fontsize="small")
    plot_legend(fig, axes[0], ncol=min(len(colours) + 1, 2))
    return fig


def split_bars(splits: pd.DataFrame):
    """Accuracy on the A=U / A>U / A<U splits (pairs pooled over paradigms) per model, with Wilson
    whiskers, values and n; one panel per set (original and debiased) and normalisation."""
    s = splits[splits["uid"] == ALL]
    norms = list(dict.fromkeys(s["normalization"]))
    sets = list(dict.fromkeys(s["set"]))
    models = list(dict.fromkeys(s["model"]))
    fig, axes = plot_figure(len(sets), len(norms), width=max(3.6, 1.3 * len(models) + 1.2), height=3.2)
    for i, norm in enumerate(norms):
        for j, set_name in enumerate(sets):
            ax = axes[i][j]
            a = s[(s["normalization"] == norm) & (s["set"] == set_name)]
            x = np.arange(len(models))
            for k, split in enumerate(SPLITS):
                t = a[a["split"] == split].set_index("model").reindex(models)
                plot_bars(ax, x + (k - 1) * 0.27, t, 0.27, SPLIT_COLOURS[split], split)
            plot_chance(ax)
            ax.set_xticks(x, [wrap_label(m) for m in models], fontsize="x-small")
            ax.set_xlim(-0.6, len(models) - 0.4)
            plot_percent_axis(ax, "y", top=1.2)
            ax.set_ylabel(f"accuracy ({norm}), 95% CI")
            ax.set_title(f"{set_name} set, A=U / A>U / A<U", fontsize="medium")
    plot_legend(fig, axes.ravel(), ncol=4 if len(sets) > 1 else 2)     # (one panel: the legend in two rows)
    return fig


def diff_curves(curve: pd.DataFrame):
    """Accuracy vs len(good) - len(bad) (A>U to the right, the sign of the gap; the table's len_diff
    is len(bad) - len(good)), one panel per model with the same x axis, one line per normalisation
    with its Wilson band, n at every point (seed paper, Figure 3; a point of one pair is hollow and
    not joined); the original set (the debiased one has difference 0 under the tokenizers it was
    controlled for). None for an empty table (nothing to show)."""
    if curve.empty:
        return None
    first = "original" if "original" in set(curve["set"]) else curve["set"].iloc[0]
    c = curve[curve["set"] == first]
    models = list(dict.fromkeys(c["model"]))
    colours = plot_colours(c["normalization"])
    fig, axes = plot_figure(len(models), width=4.4, height=3.4)
    c = c.assign(len_diff=-c["len_diff"])    # plotted as len(good) - len(bad): A>U to the right, like the gap's sign
    xs_all = sorted(c["len_diff"].unique())
    for ax, model in zip(axes[0], models):
        g0 = c[c["model"] == model]
        for k, (norm, g) in enumerate(g0.groupby("normalization", sort=False)):
            g = g.sort_values("len_diff")
            x = g["len_diff"].to_numpy(dtype=float) + (k - (len(colours) - 1) / 2) * 0.08
            acc, many = g["accuracy"].to_numpy(dtype=float), g["n_pairs"].to_numpy() >= 2
            line = np.where(many, acc, np.nan)       # no line through a point of one pair: it stands alone
            ax.plot(x, line, marker="o", ms=3, lw=1.2, color=colours[norm], label=norm)
            ax.scatter(x[~many], acc[~many], s=12, facecolor="none", edgecolor=colours[norm], lw=0.8, zorder=3)
            if "accuracy_low" in g:
                ax.fill_between(x, np.where(many, g["accuracy_low"], np.nan), np.where(many, g["accuracy_high"], np.nan),
                                color=colours[norm], alpha=0.15, lw=0)
        for d, n in g0.drop_duplicates("len_diff")[["len_diff", "n_pairs"]].itertuples(index=False):
            ax.annotate(f"{n:,}", (d, 0), xycoords=("data", "axes fraction"), xytext=(0, 2),
                        textcoords="offset points", ha="center", va="bottom", fontsize=5.5, color="dimgrey")
        ax.axvline(0, color="grey", lw=0.8, ls="--")
        plot_chance(ax)
        plot_percent_axis(ax, "y")
        ax.set_ylim(-0.12, 1.03)                              # (room for the n labels)
        ax.set_xticks(xs_all)                                 # the same x axis in every panel
        ax.set_xlim(min(xs_all) - 0.5, max(xs_all) + 0.5)
        ax.set_xlabel("len(good) − len(bad), tokens (A<U left, A>U right)\n"
                      "n pairs along the bottom; hollow: one pair", fontsize="small")
        ax.set_ylabel("accuracy")
        ax.set_title(f"{wrap_label(model, 32)}\n({first} set; 95% CI)", fontsize="small")
    plot_legend(fig, axes[0])
    return fig


def loglik_vs_length(sentences: pd.DataFrame, fits: pd.DataFrame):
    """Sentence score vs token length, one row per model and one column per normalisation (seed
    paper, Figures 2 and 4): good and bad sentences side by side at each length (dodged, so neither
    hides the other), their means per length, and the least-squares line over all sentences."""
    from matplotlib.ticker import MaxNLocator

    models = list(dict.fromkeys(sentences["model"]))
    norms = list(dict.fromkeys(sentences["normalization"]))
    fig, axes = plot_figure(len(norms), len(models), width=3.8, height=3.0)
    fit = fits.set_index(["model", "normalization"])
    roles = {"good": ("#0072B2", -0.18), "bad": ("#D55E00", 0.18)}
    for i, model in enumerate(models):
        for j, norm in enumerate(norms):
            ax = axes[i][j]
            g = sentences[(sentences["model"] == model) & (sentences["normalization"] == norm)]
            for role, (colour, dx) in roles.items():
                r = g[g["role"] == role]
                ax.scatter(r["n_tokens"] + dx, r["score"], s=3, alpha=0.25, color=colour, lw=0, rasterized=True)
                mean = r.groupby("n_tokens")["score"].agg(["mean", "size"]).reset_index()
                ax.plot(mean["n_tokens"] + dx, mean["mean"], ls="none", marker="_", ms=7, mew=1.6, color=colour,
                        label=f"{role} sentences (mean per length)")
            f = fit.loc[(model, norm)]
            if not np.isnan(f["slope"]):
                xs = np.array([g["n_tokens"].min(), g["n_tokens"].max()], dtype=float)
                ax.plot(xs, f["slope"] * xs + f["intercept"], color="black", lw=1.0, label="least-squares fit")
                ax.text(0.98, 0.97, f"slope {f['slope']:.2f}, r {f['pearson_r']:.2f}, n {int(f['n_sentences']):,}",
                        transform=ax.transAxes, ha="right", va="top", fontsize=6)
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
            ax.set_xlabel("tokens")
            ax.set_ylabel(norm)
            ax.set_title(model, fontsize="small")
    plot_legend(fig, axes.ravel(), ncol=3)
    return fig


def summary_bars(summary: pd.DataFrame):
    """Overall (pooled) accuracy per model and set with Wilson whiskers, values and n, one panel
    per normalisation."""
    norms = list(dict.fromkeys(summary["normalization"]))
    sets = list(dict.fromkeys(summary["set"]))
    models = list(dict.fromkeys(summary["model"]))
    fig, axes = plot_figure(len(norms), width=max(3.4, 1.1 * len(models) * max(len(sets), 2) / 2 + 1.4), height=3.2)
    colours = {s: SET_COLOURS.get(s, PALETTE[(i + 2) % len(PALETTE)]) for i, s in enumerate(sets)}
    step = 0.8 / len(sets)
    for ax, norm in zip(axes[0], norms):
        a = summary[summary["normalization"] == norm]
        for k, set_name in enumerate(sets):
            t = a[a["set"] == set_name].set_index("model").reindex(models)
            plot_bars(ax, np.arange(len(models)) + (k - (len(sets) - 1) / 2) * step, t, step, colours[set_name],
                  f"{set_name} set")
        plot_chance(ax)
        ax.set_xticks(np.arange(len(models)), [wrap_label(m) for m in models], fontsize="x-small")
        ax.set_xlim(-0.6, len(models) - 0.4)
        plot_percent_axis(ax, "y", top=1.2)
        ax.set_ylabel(f"accuracy ({norm}), 95% CI")
        ax.set_title(f"overall accuracy, {norm}", fontsize="medium")
    plot_legend(fig, axes[0])
    return fig


PART_LABELS = {"change": "change\n(debiased − original)", "selection": "selection\n(contexts kept)",
               "length": "length\n(matched, paired)", "remainder": "remainder\n(unmatched pairs)"}


def effect_bars(effects: pd.DataFrame | None):
    """The decomposition of the change (fairpairs.analysis.effects), all pairs pooled: per normalisation a
    panel with, per model, the change and its three parts in percentage points with their 95%
    intervals and values; a zero line. None without an original and a debiased set."""
    if effects is None or effects.empty:
        return None
    e = effects[effects["uid"] == ALL]
    norms = list(dict.fromkeys(e["normalization"]))
    models = list(dict.fromkeys(e["model"]))
    colours = plot_colours(models)
    parts = list(PART_LABELS)
    fig, axes = plot_figure(len(norms), width=4.4, height=0.9 + 0.42 * len(parts) * len(models))
    step = 0.8 / len(models)
    ends = [0.0]
    for ax, norm in zip(axes[0], norms):
        a = e[e["normalization"] == norm].set_index("model")
        for j, model in enumerate(models):
            r = a.loc[model]
            y = np.arange(len(parts)) + (j - (len(models) - 1) / 2) * step
            v = np.array([100 * r[p] for p in parts])
            lo = np.array([100 * r[f"{p}_low"] for p in parts])
            hi = np.array([100 * r[f"{p}_high"] for p in parts])
            lo, hi = np.where(np.isnan(lo), v, lo), np.where(np.isnan(hi), v, hi)
            ax.barh(y, v, height=step * 0.85, color=colours[model], label=model)
            ax.errorbar(v, y, xerr=np.vstack([v - lo, hi - v]), fmt="none", ecolor="black", elinewidth=0.8, capsize=2)
            for yy, vv, l, h in zip(y, v, lo, hi):
                right = vv >= 0
                ax.annotate(f"{vv:+.1f} [{l:+.1f}, {h:+.1f}]", (h if right else l, yy), xytext=(3 if right else -3, 0),
                            textcoords="offset points", va="center", ha="left" if right else "right", fontsize=6)
            ends += list(lo) + list(hi)
        ax.axvline(0, color="grey", lw=0.8)
        ax.set_yticks(np.arange(len(parts)), [PART_LABELS[p] for p in parts], fontsize="x-small")
        ax.invert_yaxis()
        ax.set_xlabel("percentage points (95% interval)")
        ax.set_title(f"original → debiased, {norm}", fontsize="medium")
    span = max(np.nanmax(ends) - np.nanmin(ends), 1.0)
    for ax in axes[0]:                        # one x axis for every panel (room for the labels)
        ax.set_xlim(np.nanmin(ends) - 0.7 * span, np.nanmax(ends) + 0.7 * span)
    plot_legend(fig, axes[0])
    return fig

