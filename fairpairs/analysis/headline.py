"""The evaluation report's headline in markdown (report.md's opening block, the closing summary of
`fairpairs evaluate`) and the per-paradigm table of the same figures: the gap A>U - A<U, the
effect of length control per direction of the original pair, the net change decomposed, in words
and in tables (`fairpairs.analysis.directions`), with the intervals clustered by paradigm beside
the pair-level ones (`fairpairs.analysis.clustered`). Fewer than MIN_PAIRS pairs: "too few pairs";
an interval that cannot be estimated: "(no interval)"."""

from __future__ import annotations

import pandas as pd

from fairpairs.stats import RESAMPLES
from fairpairs.analysis.clustered import MIN_PARADIGMS
from fairpairs.analysis.length_audit import ALL
from fairpairs.analysis.directions import DIRECTIONS, MIN_PAIRS, chosen_interval, enough
from fairpairs.analysis.markdown import markdown_table, p_value, pct_interval, pp_interval

NAN = float("nan")
TIES = "Ties (equal scores) count as not correct and stay in the denominator."


def acc_cell(r, prefix: str = "accuracy") -> str:
    return pct_interval(getattr(r, prefix), getattr(r, f"{prefix}_low"), getattr(r, f"{prefix}_high"))


def diff_cell(r, part: str) -> str:
    """A difference in points with its interval; "(no interval)" where none could be estimated."""
    value, low, high = getattr(r, part), getattr(r, f"{part}_low"), getattr(r, f"{part}_high")
    text = pp_interval(value, low, high)
    return text + " (no interval)" if pd.notna(value) and (pd.isna(low) or pd.isna(high)) else text


def ratio_cell(x) -> str:
    return "n/a" if x is None or pd.isna(x) else f"{x:.3f}"


def _few(n) -> str:
    return f"too few pairs (n = {0 if pd.isna(n) else int(n)})"


def _gap(r) -> str:
    """The gap with its interval, or "too few pairs" where a direction has fewer than MIN_PAIRS."""
    if not (enough(r.n_longer) and enough(r.n_shorter)):
        return _few(min(r.n_longer, r.n_shorter))
    return diff_cell(r, "gap")


def _dir_acc(r, name: str) -> str:
    n = getattr(r, f"n_{name}")
    return f"{acc_cell(r, f'acc_{name}')} (n = {int(n):,})" if enough(n) else _few(n)


def _effect(r, name: str) -> str:
    """A direction's effect of length control: value [interval] (n, McNemar p), or "too few pairs"."""
    n = getattr(r, f"n_matched_{name}")
    if not enough(n):
        return _few(n)
    text = f"{diff_cell(r, f'effect_{name}')} (n = {int(n):,}, p {p_value(getattr(r, f'effect_{name}_p'))})"
    if name == "equal" and getattr(r, "n_equal_changed", 0):
        text += f"; {int(r.n_equal_changed):,} got a different bad sentence"
    return text


def _net(r) -> str:
    return (f"{diff_cell(r, 'length')} (n = {int(r.n_matched):,}, p {p_value(r.length_p)})" if enough(r.n_matched)
            else _few(r.n_matched))


def _clustered(r, figure: str) -> str:
    """`figure`'s value with its interval clustered by paradigm; why there is none otherwise."""
    n = min(r.n_longer, r.n_shorter) if figure == "gap" else getattr(r, f"n_matched_{figure.split('_')[1]}")
    if not enough(n):
        return _few(n)
    low, high, which = chosen_interval(r, figure)
    if which == "pair-level":
        return f"{pp_interval(getattr(r, figure), NAN, NAN)} (no clustered interval)"
    return pp_interval(getattr(r, figure), low, high)


def _clustered_table(headline: pd.DataFrame) -> str:
    """The gap and the two direction effects with their intervals clustered by paradigm, and a note
    for every row that has none."""
    if "interval_method" not in headline.columns:
        return ""
    rows = [[r.model, r.normalization, f"{_n(r.n_paradigms_gap)} / {_n(r.n_paradigms_longer)} / "
             f"{_n(r.n_paradigms_shorter)}", _clustered(r, "gap"), _clustered(r, "effect_longer"),
             _clustered(r, "effect_shorter"), r.interval_method if isinstance(r.interval_method, str) else "pair-level"]
            for r in headline.itertuples()]
    notes = "".join(f"\n- {r.model}, `{r.normalization}`: {r.interval_note}." for r in headline.itertuples()
                    if isinstance(r.interval_note, str) and r.interval_note)
    return ("\n### The same figures with intervals clustered by paradigm\n\n"
            + markdown_table(["model", "score", "paradigms (gap / formerly A>U / formerly A<U)",
                              "gap A>U − A<U, pp [95% CI clustered]", "formerly A>U", "formerly A<U",
                              "the words use"], rows)
            + "\nPairs of one paradigm share a template and often their words, so they are not independent; "
              "the pair-level intervals above treat them as if they were. These intervals resample whole "
              "paradigms (a percentile cluster bootstrap over the paradigms with A>U or A<U pairs, "
              f"{RESAMPLES:,} resamples, seed as the report's) and answer: how much would the figure move with other "
              f"paradigms like these? With fewer than {MIN_PARADIGMS} paradigms a cluster bootstrap is too "
              "narrow, so there is none and the words above use the pair-level interval; the words say which "
              "they use." + notes + "\n")


def _n(x) -> str:
    return "0" if pd.isna(x) else f"{int(x)}"


def _decomposition(r) -> str:
    """change = Σ share x effect (= length) + selection + remainder, in points, for one row."""
    terms = " + ".join(f"{getattr(r, f'share_{n}'):.2f} × ({100 * getattr(r, f'effect_{n}'):+.1f})"
                       if getattr(r, f"n_matched_{n}") else f"0 × (n/a)" for n in DIRECTIONS)
    def signed(x):
        return f"{'−' if round(100 * x, 1) < 0 else '+'} {abs(100 * x):.1f}"

    return (f"{100 * r.change:+.1f} = [{terms} = {100 * r.length:+.1f}] {signed(r.selection)} (selection) "
            f"{signed(r.remainder)} (remainder)")


def placebo_markdown(headline: pd.DataFrame) -> str:
    """The placebo beside the direction effects: what redrawing the bad word alone did
    (`fairpairs.analysis.placebo`), per model and score."""
    rows = []
    for r in headline.itertuples():
        n = r.n_placebo
        cell = (f"{diff_cell(r, 'effect_placebo')} (n = {int(n):,}, p {p_value(r.effect_placebo_p)})" if enough(n)
                else _few(n))
        rows.append([r.model, r.normalization, _effect(r, "longer"), _effect(r, "shorter"), cell])
    return ("\n**The placebo** (A=U contexts whose bad word was redrawn among words that keep every token length "
            "equal): what changing the bad word does without changing the length. A direction effect well "
            "outside the placebo's interval is length's; one like the placebo's is the word change's.\n\n"
            + markdown_table(["model", "score", "formerly A>U, pp", "formerly A<U, pp", "placebo (word change "
                              "alone), pp [95% CI]"], rows))


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
          _effect(r, "changed"), _net(r), acc_cell(r, "debiased"), ratio_cell(r.distinct_ratio)]
         for r in headline.itertuples()])
    if "effect_placebo" in headline.columns:
        control += placebo_markdown(headline)
    parts = markdown_table(["model", "score", "change = Σ share × effect (= length) + selection + remainder, pp"],
                           [[r.model, r.normalization, _decomposition(r)] for r in headline.itertuples()])
    how = headline["matched_by"].iloc[0]
    return (head + words + "\n\n### The bias on the original set, by direction (the scoring model's own tokenizer)\n\n"
            + bias
            + "\n**Gap**: accuracy on the original set's A>U pairs (good sentence longer) minus on its A<U pairs "
              "(good sentence shorter), with Newcombe's 95% interval for a difference of proportions (pair-level); "
              "a model that prefers fewer tokens has a negative gap. A=U (equal lengths) is the baseline.\n"
            + _clustered_table(headline)
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
        rows = [[r.uid, r.model, _gap(r), _pooled(r), _dir_acc(r, "equal"), _effect(r, "longer"),
                 _effect(r, "shorter"), _effect(r, "equal"), _effect(r, "changed"), _net(r),
                 flags.get(r.uid, "") or "-"]
                for r in a.itertuples()]
        text += (f"\n### Bias by direction per paradigm, normalization `{norm}`\n\n"
                 + markdown_table(["paradigm", "model", "gap A>U − A<U, pp", "gap, partially pooled", "A=U accuracy, %",
                                   "formerly A>U, pp", "formerly A<U", "A=U (control)", "changed contexts",
                                   "net, all matched", "balance flags"], rows))
    return text + (f"\nAs in the headline (fewer than {MIN_PAIRS} pairs: \"too few pairs\"). **Gap, partially "
                   "pooled**: the paradigm's gap shrunk toward the mean over paradigms by a random-effects model "
                   "(empirical Bayes), with its 95% interval: a paradigm with few A>U or A<U pairs moves toward the "
                   "mean, a large one keeps its own figure; on the ALL row, the mean over paradigms (the average "
                   f"paradigm's gap); n/a for a paradigm without both A>U and A<U pairs, or with fewer than "
                   f"{MIN_PARADIGMS} such paradigms. Balance flags: `fairpairs balance` on the evaluated run folder "
                   "(balance.csv), for the debiased set of that paradigm.\n")


def _pooled(r) -> str:
    value = getattr(r, "gap_pooled", NAN)
    if pd.isna(value):
        return "n/a"
    return pp_interval(value, r.gap_pooled_low, r.gap_pooled_high) + (" (mean)" if r.uid == ALL else "")
