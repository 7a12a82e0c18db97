"""The compact paper figure of an evaluation (report.md's headline figure, ``directions``): the
token-length bias by direction and what length control did, one row per model and score, and the
caption that goes beside it.

Three panels side by side share the rows: the matched contexts whose original pair was A>U (good
sentence longer), A<U (good sentence shorter) and A=U (equal: the control). In each row, the
accuracy on the original set (circle) and on the debiased set (square), with 95% Wilson whiskers
and an arrow between them; beside each panel, the effect of control in points and n. A direction
with fewer than MIN_PAIRS contexts shows its n and no point; a panel where no row has enough is left
out, and with no panel there is no figure (None). The size grows with the rows only, so the figure
reads the same at 20 or 1,000 pairs per paradigm.
"""

from __future__ import annotations

import pandas as pd

from fairpairs.analysis.length_audit import ALL
from fairpairs.analysis.plots import SET_COLOURS, plot_chance, plot_figure, plot_legend, plot_percent_axis

DIRECTIONS = {"longer": "formerly A>U\n(good sentence longer)", "shorter": "formerly A<U\n(good sentence shorter)",
              "equal": "A=U (control)"}
ROW_HEIGHT = 0.36        # inches per model and score


def paper_rows(effects: pd.DataFrame | None) -> pd.DataFrame | None:
    """The pooled (`ALL`) rows of `effects` that the paper figure draws, one per model and score, in
    the table's order; None without an original and a debiased set."""
    if effects is None or effects.empty or "matched_longer_original" not in effects.columns:
        return None
    rows = effects[effects["uid"] == ALL]
    return rows if len(rows) else None


def shown_directions(rows: pd.DataFrame) -> list[str]:
    """The directions with at least one row of MIN_PAIRS contexts: the panels drawn."""
    from fairpairs.analysis.directions import enough

    return [d for d in DIRECTIONS if rows[f"n_matched_{d}"].map(enough).any()]


def direction_figure(effects: pd.DataFrame | None):
    """The paper figure (module docstring) as a matplotlib Figure, or None when no direction of any
    model and score has MIN_PAIRS matched contexts (nothing to show)."""
    rows = paper_rows(effects)
    directions = [] if rows is None else shown_directions(rows)
    if not directions:
        return None
    multi = rows["model"].nunique() > 1
    labels = [f"{r.model}\n{r.normalization}" if multi else str(r.normalization) for r in rows.itertuples()]
    longest = max(len(line) for label in labels for line in label.split("\n"))   # (the first panel's labels)
    fig, axes = plot_figure(len(directions), 1, width=2.1 + (0.06 * longest + 0.3) / len(directions),
                            height=1.25 + ROW_HEIGHT * len(rows) * (1.5 if multi else 1.0))
    for k, (ax, d) in enumerate(zip(axes[0], directions)):
        _direction_panel(ax, rows, d)
        ax.set_yticks(range(len(rows)), labels if k == 0 else [], fontsize=7)
    plot_legend(fig, axes[0], ncol=3 if len(directions) > 1 else 1)
    return fig


def _direction_panel(ax, rows: pd.DataFrame, d: str) -> None:
    """One direction: per row the original and the debiased accuracy with whiskers and an arrow,
    and on the right the effect in points and n (n alone below MIN_PAIRS)."""
    from fairpairs.analysis.directions import enough

    right = []
    for y, r in enumerate(rows.itertuples()):
        r = r._asdict()
        n = int(r[f"n_matched_{d}"])
        if not enough(n):
            right.append(f"n = {n:,}")
            continue
        xs = []
        for which, marker, dy in (("original", "o", -0.14), ("debiased", "s", 0.14)):
            v, lo, hi = (r[f"matched_{d}_{which}{s}"] for s in ("", "_low", "_high"))
            ax.errorbar([v], [y + dy], xerr=[[v - lo], [hi - v]], fmt=marker, ms=4, color=SET_COLOURS[which],
                        ecolor=SET_COLOURS[which], elinewidth=0.9, capsize=1.5, label=f"{which} set (95% CI)", zorder=3)
            xs.append(v)
        if xs[0] != xs[1]:
            ax.annotate("", xy=(xs[1], y + 0.14), xytext=(xs[0], y - 0.14),
                        arrowprops={"arrowstyle": "->", "color": "dimgrey", "lw": 0.8}, zorder=2)
        right.append(f"{100 * r[f'effect_{d}']:+.1f} pp\nn = {n:,}")
    plot_chance(ax, "x")
    plot_percent_axis(ax, "x")
    ax.set_xticks([0, 0.5, 1])
    ax.tick_params(labelsize=7)
    ax.set_ylim(len(rows) - 0.5, -0.5)
    twin = ax.twinx()                   # the effect and n of each row, right of the panel (in the layout)
    twin.set_ylim(ax.get_ylim())
    twin.set_yticks(range(len(rows)), right, fontsize=6, linespacing=1.0)
    twin.tick_params(length=0, pad=2)
    ax.set_xlabel("accuracy", fontsize=7)
    ax.set_title(DIRECTIONS[d], fontsize=7.5)


def direction_caption(effects: pd.DataFrame | None) -> str:
    """The caption printed beside the paper figure in report.md (what is drawn, what is left out);
    the reason there is no figure when `direction_figure` returns None."""
    from fairpairs.analysis.directions import MIN_PAIRS

    rows = paper_rows(effects)
    if rows is None:
        return "No figure of the bias by direction: the data has no original and debiased set.\n"
    directions = shown_directions(rows)
    if not directions:
        return (f"No figure of the bias by direction: no direction of any model and score has {MIN_PAIRS} "
                "matched contexts (the table below gives every n).\n")
    left = [DIRECTIONS[d].split("\n")[0] for d in DIRECTIONS if d not in directions]
    text = ("*Figure: token-length bias by direction and what length control did.* Accuracy on the matched "
            "contexts (those in both sets), on the original set (circles) and on the debiased set (squares), "
            "with 95% Wilson intervals and an arrow from one to the other, one row per "
            + ("model and score" if rows["model"].nunique() > 1 else "score")
            + ". Panels: contexts whose original pair was formerly A>U (the good sentence longer in tokens), "
              "formerly A<U (shorter) and A=U (equal length, left as drawn: the control). The bias is the "
              "distance between the A>U and A<U circles; what control did, each panel's arrow, in points at "
              f"its right with n contexts. A row with fewer than {MIN_PAIRS} contexts in a direction shows its "
              "n and no point")
    return text + (f"; no row has {MIN_PAIRS} in {', '.join(left)} (panel left out).\n" if left else ".\n")
