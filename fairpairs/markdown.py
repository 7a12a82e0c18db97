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
