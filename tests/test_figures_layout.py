"""The layout of every report figure, checked with matplotlib's own renderer: at 20, 200 and 1000
pairs per paradigm, with one and with three models, no two visible text labels overlap, no text
leaves the canvas, and no panel is drawn empty or filled with "too few pairs" (a panel with
nothing to show is left out; a figure with nothing to show is not made).

The reports are built from synthetic scores (seeded numpy, `pair_scores` and `analyse`, no model):
up to 67 paradigm names as long as BLiMP's, two scores, an original set of which 5-40% of the
pairs in a paradigm are A>U or A<U and a debiased set with every unequal context
re-drawn equal, a few contexts replaced. What a figure shows depends on these tables alone.

On the figures of b4812b2 (before issue 48; drawn from these same reports by the old
`plots.direction_dumbbells`, `plots.gap_dots` and `figures.*`) the check failed in every run:
`directions` wrote "too few pairs (n = 1, fewer than 10)" into its panels at 20 pairs and 3
paradigms; `gap_per_paradigm` was drawn at 20 pairs with no paradigm in it (the pooled diamond
alone), and at 200 and 1000 pairs its x label and titles ran off the canvas's right edge (30
texts at 200 pairs and three models); `summary` and `splits` printed the three rotated model
names into each other; `accuracy` named its points off the canvas and over its axis labels and
ticks (40 problems at 3 paradigms); `length_diff_accuracy`'s title ran off the canvas with one
model of a long name. (Those runs had 16 paradigms at 1000 pairs and 67 at 20.)
(`test_the_check_fails_on_overprinted_and_clipped_text` shows the check itself can fail.)
"""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pandas as pd
import pytest

import fairpairs as fp
from fairpairs.analysis.evaluation import analyse, pair_scores

SIZES = (20, 200, 1000)
MODELS = ("HuggingFaceTB/SmolLM2-135M", "google/gemma-3-270m", "Qwen/Qwen2.5-0.5B-Instruct")
NORMS = ("lp", "mean_lp")     # two scores: the panels wrap as with three, at two thirds of the time
STEMS = ("directions", "gap_per_paradigm", "summary", "effects", "accuracy", "splits", "length_diff_accuracy",
         "loglik_length")
# 67 paradigm names as long as BLiMP's (the longest is 48 characters)
UIDS = [f"{stem}_{k}" for stem, k in itertools.product(
    ("determiner_noun_agreement_with_adj_irregular", "existential_there_quantifiers", "wh_vs_that_with_gap_long",
     "principle_A_reconstruction", "sentential_negation_npi_scope", "distractor_agreement_relative",
     "animate_subject_trans", "coordinate_structure_constraint", "irregular_past_participle", "left_branch",
     "only_npi_licensor", "tough_vs_raising", "passive", "ellipsis_n_bar", "causative", "drop_argument",
     "inchoative", "superlative_quantifiers", "adjunct_island", "complex_NP_island", "matrix_question",
     "regular_plural_subject"), (1, 2, 3))][:67]


SPREAD = np.array([1, 2, 4, 8, 8, 4, 2, 1]) / 30     # how often a bad sentence is 4, 3, 2, 1 tokens shorter or longer


def synthetic_report(n_pairs: int, n_models: int, n_paradigms: int = 67, seed: int = 0):
    """The Report of `n_models` models on an original and a debiased set of `n_pairs` pairs per
    paradigm (seeded): in the original set a pair's bad sentence is 1 to 4 tokens longer (A<U)
    or shorter (A>U) than its good one at a per-paradigm rate (5-40%); the debiased set keeps each
    context, re-draws the unequal bad sentences at equal length, and replaces one context in ten.
    A model prefers the good sentence by a per-paradigm margin and penalises each token."""
    rng = np.random.default_rng(seed)
    rows, lengths = [], {}
    for uid in UIDS[:n_paradigms]:
        unequal = rng.uniform(0.05, 0.4)
        for d in range(n_pairs):
            n = int(rng.integers(6, 16))
            diff = int(rng.choice([-4, -3, -2, -1, 1, 2, 3, 4], p=SPREAD)) if rng.random() < unequal else 0
            g, b, c = f"{uid} {d} good", f"{uid} {d} bad", f"{uid} {d} redrawn"
            lengths.update({g: n, b: n + diff, c: n})
            rows.append(("original", uid, f"o{uid}{d}", d, g, b))
            if rng.random() < 0.1:     # a replaced context
                h, k = f"{uid} {d} new good", f"{uid} {d} new bad"
                lengths.update({h: n + 1, k: n + 1})
                rows.append(("debiased", uid, f"d{uid}{d}", d, h, k))
            else:
                rows.append(("debiased", uid, f"d{uid}{d}", d, g, c if diff else b))
    pairs = pd.DataFrame(rows, columns=["set", "uid", "pair_id", "draw", "sentence_good", "sentence_bad"])
    sentences = sorted(lengths)
    n_tokens = np.array([lengths[s] for s in sentences])
    margin = {uid: rng.normal(1.0, 1.5) for uid in UIDS}
    frames = []
    for m in MODELS[:n_models]:
        lp = -3.0 * n_tokens + rng.normal(0, 2.0, len(sentences))
        lp += np.array([margin[s.split(" ")[0]] if " good" in s else 0.0 for s in sentences])
        scores = pd.DataFrame({"sentence": sentences, "n_tokens": n_tokens, "sum_logprob": lp,
                               "mean_lp": lp / n_tokens})
        frames.append(pair_scores(pairs, scores, m, NORMS))
    return analyse(pd.concat(frames, ignore_index=True), seed=seed)


# (pairs per paradigm, paradigms): at 20 pairs no paradigm has enough unequal pairs for its own gap;
# 40 paradigms at 200 pairs (a gap figure of 40 rows a panel); fewer as pairs grow (the analysis is
# what takes the time); a run of three paradigms (too few pairs in a direction; the scatter names
# its points)
RUNS = ((20, 24), (200, 40), (1000, 8), (20, 3))
REPORTS = {}


def report_of(n_pairs: int, n_paradigms: int, n_models: int, sets: int = 2):
    """The synthetic report of a run, analysed once with three models; the one-model report is the
    first model's rows of every table (each table is computed per model), the one-set report the
    original set's rows with no effects (the tables `analyse` makes of one set)."""
    if (n_pairs, n_paradigms) not in REPORTS:
        REPORTS[(n_pairs, n_paradigms)] = synthetic_report(n_pairs, 3, n_paradigms)
    report = REPORTS[(n_pairs, n_paradigms)]
    keep = MODELS[:n_models]
    tables = {name: getattr(report, name) for name in ("pairs", "accuracy", "splits", "curve", "summary")}
    tables = {name: t[t["model"].isin(keep) & (t["set"] == "original" if sets == 1 else True)]
              for name, t in tables.items()}
    effects = None if sets == 1 else report.effects[report.effects["model"].isin(keep)]
    return dataclasses.replace(report, **tables, fits=report.fits[report.fits["model"].isin(keep)], effects=effects)


# every run with one and with three models, and two runs of one set (accuracy drawn as bars)
CASES = [(n, p, k, 2) for n, p in RUNS for k in (3, 1)] + [(200, 40, 3, 1), (1000, 8, 1, 1)]


@pytest.fixture(scope="module", params=CASES, ids=lambda r: f"{r[0]}pairs-{r[1]}paradigms-{r[2]}models-{r[3]}sets")
def drawn(request):
    report = report_of(*request.param)
    return report, fp.report_figures(report)


def test_every_figure_fits_at_every_size(drawn):
    """No text overlaps another or leaves the canvas, no panel is empty or a placeholder; every
    figure is there but those with nothing to show: the per-paradigm gap without a paradigm of 10
    A>U and 10 A<U pairs (worked out here from the effects table), the paper figure without a
    direction of 10 matched contexts."""
    report, figs = drawn
    e = report.effects
    if e is None:          # one set: nothing by direction, no decomposition
        has_gap = has_direction = False
    else:
        per = e[e["uid"] != "ALL"]
        has_gap = ((per["n_longer"] >= 10) & (per["n_shorter"] >= 10)).any()
        pooled = e[e["uid"] == "ALL"]
        has_direction = any((pooled[f"n_matched_{d}"] >= 10).any() for d in ("longer", "shorter", "equal"))
    expected = [s for s in STEMS if (s != "gap_per_paradigm" or has_gap) and (s != "directions" or has_direction)
                and (s != "effects" or e is not None)]
    assert list(figs) == expected
    problems = {stem: layout_problems(fig) + empty_panels(fig) for stem, fig in figs.items()}
    assert not {k: v for k, v in problems.items() if v}


# ---------------------------------------------------------------------------- the check


def drawn_texts(fig) -> list:
    """Every text the renderer draws on `fig`, with its window extent in pixels: visible, non-blank
    Text artists (titles, axis and tick labels, legend texts, annotations, figure texts); tick labels
    only where their tick lies inside the axis' view, and no axis text of an axes drawn without axes
    (matplotlib draws neither)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.text import Text

    renderer = FigureCanvasAgg(fig).get_renderer()     # (the Agg canvas a figure file is drawn on)
    fig.draw(renderer)           # (the constrained layout is computed at draw time)
    hidden = set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            lo, hi = sorted(axis.get_view_interval())
            pad = 1e-9 * max(1.0, hi - lo)
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                if not ax.axison or not axis.get_visible() or not lo - pad <= tick.get_loc() <= hi + pad:
                    hidden |= {id(tick.label1), id(tick.label2)}
            if not ax.axison or not axis.get_visible():
                hidden |= {id(axis.label), id(axis.offsetText)}
    out = []
    for t in fig.findobj(lambda a: isinstance(a, Text)):
        if id(t) in hidden or not t.get_text().strip() or not t.get_visible():
            continue
        if t.axes is not None and not t.axes.get_visible():
            continue
        out.append((t.get_text(), t.get_window_extent(renderer)))
    return out


def layout_problems(fig, tolerance: float = 0.5) -> list[str]:
    """What is wrong with `fig`'s text: each pair of texts whose boxes overlap by more than
    `tolerance` pixels both ways, and each text reaching outside the canvas."""
    texts = drawn_texts(fig)
    w, h = fig.bbox.width, fig.bbox.height
    problems = [f"outside the canvas: {s!r} {b.bounds}" for s, b in texts
                if b.x0 < -tolerance or b.y0 < -tolerance or b.x1 > w + tolerance or b.y1 > h + tolerance]
    for (s1, b1), (s2, b2) in itertools.combinations(texts, 2):
        dx = min(b1.x1, b2.x1) - max(b1.x0, b2.x0)
        dy = min(b1.y1, b2.y1) - max(b1.y0, b2.y0)
        if dx > tolerance and dy > tolerance:
            problems.append(f"overlap: {s1!r} and {s2!r}")
    return problems


def empty_panels(fig) -> list[str]:
    """The panels of `fig` (axes at one place, a twin included) with no data drawn (no line,
    marker, bar or collection), or with a placeholder text instead ("too few pairs", "no data")."""
    panels = {}
    for ax in fig.axes:
        if ax.get_visible():
            panels.setdefault(tuple(np.round(ax.get_position().bounds, 6)), []).append(ax)
    out = []
    for axes in panels.values():
        drawn = [a for ax in axes for a in ax.lines + ax.collections + ax.patches if a.get_visible()]
        placeholder = [t.get_text() for ax in axes for t in ax.texts
                       if "too few" in t.get_text() or "no data" in t.get_text() or t.get_text().startswith("no ")]
        title = " / ".join(ax.get_title() for ax in axes)
        if not drawn:
            out.append(f"nothing drawn in {title!r}")
        if placeholder:
            out.append(f"placeholder in {title!r}: {placeholder}")
    return out


# ---------------------------------------------------------------------------- the check can fail


def test_the_check_fails_on_overprinted_and_clipped_text():
    """The check itself: two tick labels written into each other, a text running off the canvas's
    right edge and an empty panel are all found; a tidy figure passes."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(4, 3), layout="constrained")
    ax, empty = fig.subplots(1, 2)
    ax.plot([0, 1], [0, 1])
    ax.set_xticks([0, 0.05, 1], ["a long first label", "a long second label", "end"])
    fig.text(0.9, 0.5, "this text runs off the canvas")
    problems = layout_problems(fig)
    assert "overlap: 'a long first label' and 'a long second label'" in problems
    assert any(p.startswith("outside the canvas: 'this text runs off the canvas'") for p in problems)
    assert empty_panels(fig) == ["nothing drawn in ''"]

    tidy = Figure(figsize=(4, 3), layout="constrained")
    ax = tidy.subplots()
    ax.plot([0, 1], [0, 1], label="line")
    ax.set_xlabel("x")
    ax.set_title("a title")
    tidy.legend(loc="outside upper center")
    assert layout_problems(tidy) == [] and empty_panels(tidy) == []


# ---------------------------------------------------------------------------- fp.report_figures


def test_report_figures_are_the_figures_the_report_writes(tmp_path):
    """fp.report_figures: name -> Figure in report.md's order; the files write_report writes are
    these objects rendered (same bytes); from the report's folder, the same figures with the same
    texts; report.md links every figure made and prints the paper figure's caption beside it."""
    from matplotlib.figure import Figure

    from fairpairs.analysis.plots import render

    report = report_of(20, 3, 1)          # (no paradigm has 10 A>U and 10 A<U pairs: no gap per paradigm)
    figs = fp.report_figures(report)
    assert list(figs) == [s for s in STEMS if s != "gap_per_paradigm"]
    assert all(isinstance(f, Figure) for f in figs.values())
    written = fp.write_report(report, tmp_path / "r", figures="png,svg", dpi=50)
    drawn = sorted(p.name for p in written if p.suffix in (".png", ".svg"))
    assert drawn == sorted(f"{s}.{x}" for s in figs for x in ("png", "svg"))
    for stem, fig in figs.items():
        assert render(fig, "png", 50) == (tmp_path / "r" / f"{stem}.png").read_bytes(), stem
        assert render(fig, "svg") == (tmp_path / "r" / f"{stem}.svg").read_bytes(), stem
    again = fp.report_figures(tmp_path / "r")           # the folder's CSVs read back
    assert list(again) == list(figs)
    for stem in again:      # the same texts: values, n, names (the CSVs' numbers, not the same floats' bytes)
        assert sorted(t for t, _ in drawn_texts(again[stem])) == sorted(t for t, _ in drawn_texts(figs[stem])), stem
    md = (tmp_path / "r" / "report.md").read_text()
    assert all(f"![{s}]({s}.png)" in md for s in figs)
    assert "![directions](directions.png)\n\n*Figure: token-length bias by direction" in md


def test_report_figures_of_a_folder_that_is_not_a_report(tmp_path):
    with pytest.raises(FileNotFoundError, match="^report: no report folder"):
        fp.report_figures(tmp_path / "nowhere")
    (tmp_path / "summary.csv").write_text("a,b\n1,2\n")
    with pytest.raises(FileNotFoundError, match=r"^report: .*accuracy\.csv is missing"):
        fp.report_figures(tmp_path)
    with pytest.raises(TypeError, match="^report: expected a Report or a report folder, not int"):
        fp.report_figures(3)
