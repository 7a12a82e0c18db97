"""The evaluation report's files and figures: formats, dpi, byte-identical output, sections in order,
and what each figure draws (intervals, n, chance line, both sets), read back from the figures."""

from __future__ import annotations

import struct

import numpy as np
import pytest

import fairpairs as fp
from fairpairs.analysis import figures
from fairpairs.analysis.evaluation import analyse
from fairpairs.analysis.report import write_report
from references import scored


@pytest.fixture(scope="module")
def report():
    return analyse(scored())


@pytest.fixture(scope="module")
def written(report, tmp_path_factory):
    """The report written once in every format, SVG first, at 50 dpi (the smallest PNGs): the
    folder the tests that only read a written report share (drawing the 8 figures is most of
    the time); the paths write_report returned."""
    return write_report(report, tmp_path_factory.mktemp("report") / "a", figures="svg,pdf,png", dpi=50)


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])          # IHDR width, height


def test_formats_dpi_and_byte_identical_files(report, written, tmp_path):
    files = written
    a = files[0].parent
    write_report(report, tmp_path / "b", figures=("svg", "pdf", "png"), dpi=50)     # the same, as a sequence
    names = {p.name for p in files}
    for stem in ("summary", "effects", "accuracy", "splits", "length_diff_accuracy", "loglik_length"):
        assert {f"{stem}.png", f"{stem}.pdf", f"{stem}.svg"} <= names
    # 7 pairs in all: no direction has 10 matched contexts, no paradigm 10 A>U and 10 A<U pairs, so
    # neither figure is drawn (never an empty one), and report.md says why in the paper figure's place
    assert not any(n.startswith(("directions.", "gap_per_paradigm.")) for n in names)
    assert "No figure of the bias by direction: no direction of any model and score has 10 matched" in \
        (a / "report.md").read_text()
    for p in files:
        assert p.read_bytes() == (tmp_path / "b" / p.name).read_bytes(), p.name   # no dates, fixed ids
    assert (a / "effects.pdf").read_bytes()[:5] == b"%PDF-"
    svg = (a / "effects.svg").read_text()
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    assert "selection" in svg and "<text" in svg           # text stays text (editable in a paper's figure)
    # dpi: the same figure at 100 dpi has twice the pixels of 50 dpi (the smallest: quickest)
    write_report(report, tmp_path / "c", figures=["png"], dpi=100)
    w1, h1 = png_size((a / "summary.png").read_bytes())
    w2, h2 = png_size((tmp_path / "c" / "summary.png").read_bytes())
    assert (abs(w2 - 2 * w1) <= 1, abs(h2 - 2 * h1) <= 1) == (True, True)
    assert not (tmp_path / "c" / "summary.pdf").exists()


def test_report_md_starts_with_the_headline_and_keeps_sections_in_order(written):
    md = (written[0].parent / "report.md").read_text()
    heads = [line for line in md.splitlines() if line.startswith("## ")]
    assert heads[0] == "## Headline: token-length bias by direction, and what length control did"
    assert [h.split()[1] for h in heads[1:]] == ["1.", "2.", "3.", "4.", "5.", "6."]
    assert "![effects](effects.svg)" in md                 # the first format is the one shown
    assert "| A | lp | +14.3 = [0.20 × (+100.0)" in md    # the net change, decomposed by direction


def test_results_json_holds_every_headline_figure_with_its_interval(report, written):
    import hashlib
    import json

    doc = json.loads((written[0].parent / "results.json").read_text())      # strict JSON: NaN is null
    h = report.headline.iloc[0]
    row = doc["headline"][0]
    for key in ("gap", "gap_low", "gap_high", "effect_longer", "effect_longer_low", "effect_longer_high",
                "effect_shorter", "effect_equal", "length", "debiased", "debiased_low", "debiased_high"):
        assert row[key] == pytest.approx(h[key]), key
    assert row["in_words"] == h.in_words
    assert len(doc["effects"]) == len(report.effects)                    # per paradigm and pooled
    # the fingerprint is the sha256 of the pairs (set, uid, pair_id, sentences), computed here independently
    pairs = report.pairs[report.pairs.normalization == "lp"][["set", "uid", "pair_id", "sentence_good",
                                                              "sentence_bad"]].astype(str).values.tolist()
    assert doc["data"]["fingerprint"] == hashlib.sha256(json.dumps(pairs, ensure_ascii=False).encode()).hexdigest()
    assert doc["data"]["pairs"] == {"original": 7, "debiased": 7}
    assert doc["fairpairs"] == fp.__version__


def test_figures_none_writes_the_tables_and_the_text_alone(report, written, tmp_path, monkeypatch):
    """figures="none" (the CLI's `--figures none`) or an empty list: every file of the report but the
    figures, byte for byte, and report.md without its figure links; matplotlib makes no figure."""
    import re
    from matplotlib.figure import Figure

    def no_figure(*args, **kwargs):
        raise AssertionError("a figure was made")

    monkeypatch.setattr(Figure, "__init__", no_figure)
    none = write_report(report, tmp_path / "none", figures="none", dpi=50)
    empty = fp.write_report(report, tmp_path / "empty", figures=[])
    assert sorted(p.name for p in fp.write_report(report, tmp_path / "listed", figures=["None"])) == \
        sorted(p.name for p in none)
    monkeypatch.undo()
    a = written[0].parent
    kept = sorted(p.name for p in written if p.suffix not in (".png", ".pdf", ".svg"))
    assert sorted(p.name for p in none) == kept == sorted(p.name for p in empty)
    assert sorted(p.name for p in (tmp_path / "none").iterdir() if p.name != ".fairpairs") == kept
    for name in kept:
        if name != "report.md":
            assert (tmp_path / "none" / name).read_bytes() == (a / name).read_bytes(), name
    md = (tmp_path / "none" / "report.md").read_text()
    assert md == (tmp_path / "empty" / "report.md").read_text() and "![" not in md and "\n\n\n" not in md
    # the same text as the report with figures, its links and the paper figure's caption (or why it is
    # missing) taken out
    caption = r"\n(\*Figure: |No figure of the bias by direction)[^\n]*\n"
    with_figures = re.sub(caption, "\n", (a / "report.md").read_text())
    assert md == re.sub(r"\n{3,}", "\n\n", re.sub(r"!\[\w+\]\(\w+\.svg\)", "", with_figures))


def test_bad_formats_and_dpi_name_the_parameter_and_write_nothing(report, tmp_path):
    with pytest.raises(ValueError, match="^figures: .*eps"):
        fp.write_report(report, tmp_path / "x", figures="png,eps")
    for nothing in ("", " , "):
        with pytest.raises(ValueError, match="^figures: .*or none, not nothing"):
            fp.write_report(report, tmp_path / "x", figures=nothing)
    for both in ("none,png", ["png", "None"]):                 # "none" is no figures: alone, never with formats
        with pytest.raises(ValueError, match="^figures: none .*stands alone"):
            fp.write_report(report, tmp_path / "x", figures=both)
    with pytest.raises(TypeError, match="^dpi: "):
        fp.write_report(report, tmp_path / "x", dpi="high")
    with pytest.raises(ValueError, match="^dpi: .*1200"):
        fp.write_report(report, tmp_path / "x", dpi=5000)
    assert not (tmp_path / "x").exists()


def _segments(ax):
    """x and y extents of every errorbar segment drawn in `ax`."""
    from matplotlib.collections import LineCollection

    out = []
    for c in ax.collections:
        if isinstance(c, LineCollection):
            out += [np.asarray(s) for s in c.get_segments()]
    return out


def _texts(ax):
    return [t.get_text() for t in ax.texts]


def test_effect_figure_draws_each_part_with_its_interval(report):
    fig = figures.effect_bars(report.effects)
    ax = fig.axes[0]
    pooled = report.effects[report.effects.uid == "ALL"].iloc[0]
    spans = sorted((round(s[:, 0].min(), 6), round(s[:, 0].max(), 6)) for s in _segments(ax) if np.ptp(s[:, 0]) > 0)
    for part in ("change", "selection", "length", "remainder"):
        lo, hi = 100 * pooled[f"{part}_low"], 100 * pooled[f"{part}_high"]
        if hi > lo:
            assert (round(lo, 6), round(hi, 6)) in spans, part
        assert any(t.startswith(f"{100 * pooled[part]:+.1f} [") for t in _texts(ax)), part
    assert fig.legends, "the legend sits outside the panels"
    assert not ax.get_legend()


def test_bar_figures_show_values_intervals_n_and_chance(report):
    fig = figures.summary_bars(report.summary)
    ax = fig.axes[0]
    s = report.summary[report.summary.normalization == "lp"]
    for r in s.itertuples():
        assert any(f"{100 * r.accuracy:.1f}" in t and f"n={r.n_pairs}" in t for t in _texts(ax)), r.set
        whiskers = [(round(seg[:, 1].min(), 6), round(seg[:, 1].max(), 6)) for seg in _segments(ax)]
        assert (round(r.accuracy_low, 6), round(r.accuracy_high, 6)) in whiskers
    assert any(np.allclose(line.get_ydata(), 0.5) for line in ax.get_lines())       # chance line
    splits = figures.split_bars(report.splits)
    titles = [a.get_title() for a in splits.axes]
    assert any(t.startswith("original set") for t in titles) and any(t.startswith("debiased set") for t in titles)


def test_scatter_axes_fit_the_data_and_points_are_named_when_few(report):
    fig = figures.accuracy_scatter(report.accuracy)
    ax = fig.axes[0]
    acc = report.accuracy[(report.accuracy.uid != "ALL") & (report.accuracy.normalization == "lp")]
    lo, hi = ax.get_ylim()
    assert lo <= min(acc.accuracy_low.min(), 0.5) and hi >= acc.accuracy_high.max()
    # two paradigms, both named; their sizes differ (p 5 original / 5 debiased pairs, q 2 / 2), so n is shown
    assert set(_texts(ax)) == {"p (5/5)", "q (2/2)"}
    assert any(np.allclose(line.get_ydata(), 0.5) for line in ax.get_lines())


def test_diff_curve_shows_n_at_every_point(report):
    fig = figures.diff_curves(report.curve)
    ax = fig.axes[0]
    c = report.curve[(report.curve.set == "original") & (report.curve.normalization == "lp")]
    assert sorted(_texts(ax)) == sorted(f"{n:,}" for n in c.n_pairs)
