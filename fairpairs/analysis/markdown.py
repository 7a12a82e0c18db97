"""GitHub-flavoured markdown tables (the evaluation report, the fidelity benchmark)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def markdown_table(header: Sequence[str], rows: Iterable[Sequence], align: str | None = None) -> str:
    """A markdown table ending in a newline. `align` is one character per column: 'l' (``---``,
    the default) or 'r' (``---:``)."""
    align = align or "l" * len(header)
    if len(align) != len(header):
        raise ValueError(f"align {align!r}: one character per column ({len(header)})")
    rule = "|" + "|".join("---:" if a == "r" else "---" for a in align) + "|"
    lines = ["| " + " | ".join(str(h) for h in header) + " |", rule]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def pct(x: float) -> str:
    """A proportion as a percentage with one decimal ("N/A" for NaN or None)."""
    return "N/A" if x is None or x != x else f"{100 * x:.1f}"


def pct_interval(x: float, low: float, high: float) -> str:
    """A proportion and its interval in percent: ``87.5 [61.7, 96.5]`` ("N/A" for NaN)."""
    if x is None or x != x:
        return "N/A"
    if low != low or high != high:
        return pct(x)
    return f"{pct(x)} [{pct(low)}, {pct(high)}]"


def pp_interval(x: float, low: float, high: float) -> str:
    """A difference of proportions and its interval in percentage points: ``+2.5 [+0.8, +4.1]``."""
    if x is None or x != x:
        return "N/A"
    text = _pp(x)
    if low != low or high != high:
        return text
    return f"{text} [{_pp(low)}, {_pp(high)}]"


def _pp(x: float) -> str:
    return f"{round(100 * x, 1) + 0.0:+.1f}"     # (+ 0.0: never "-0.0")


def p_value(p: float) -> str:
    """A p-value as reported: three decimals, "<0.001" below that, "N/A" for NaN."""
    if p is None or p != p:
        return "N/A"
    return "<0.001" if p < 0.001 else f"{p:.3f}"
