"""The normalisations `fairpairs evaluate` reports, and the parser of its `--normalize` option."""

from __future__ import annotations

# the built-in normalisations evaluate reports (tcf_lp: docs/robustness.md); MORCELA needs fitted
# parameters and the word-level scores an extra pass, so they are not among them
REPORTED = ("lp", "mean_lp", "pen_lp", "slor", "tcf_lp")


def reported_normalizations() -> tuple[str, ...]:
    """What `evaluate` can report: `REPORTED` and every normalisation registered beyond the
    built-in ones (fairpairs.registry.NORMALIZATIONS) that needs no fitted MORCELA parameters."""
    from fairpairs.registry import BUILT_IN, NORMALIZATIONS

    added = [n for n in NORMALIZATIONS if n not in BUILT_IN[NORMALIZATIONS.kind]
             and "morcela_params" not in NORMALIZATIONS.get(n).needs]
    return (*REPORTED, *added)


def parse_reported(value) -> tuple[str, ...]:
    """The normalisations to report ('lp,mean_lp' or an iterable; at least one)."""
    from fairpairs.scoring.normalize import parse_normalize as parse

    return parse(value, reported_normalizations(), at_least_one=True)
