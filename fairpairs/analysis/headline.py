"""The evaluation report's headline in markdown (report.md's opening block, the closing summary of
`fairpairs evaluate`) and the per-paradigm table of the same figures: the gap A>U - A<U, the
effect of length control per direction of the original pair, the net change decomposed, in words
and in tables (`fairpairs.analysis.directions`). Fewer than MIN_PAIRS pairs: "too few pairs"; an
interval that cannot be estimated: "(no interval)"."""

from __future__ import annotations

import pandas as pd

from fairpairs.analysis.directions import DIRECTIONS, MIN_PAIRS, enough
from fairpairs.analysis.markdown import markdown_table, p_value, pct_interval, pp_interval

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
          _effect(r, "changed"), _net(r), acc_cell(r, "debiased"), ratio_cell(r.distinct_ratio)]
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
