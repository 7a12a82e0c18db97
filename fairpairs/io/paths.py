"""Where the project's data folders (grammars/, vocab/) are, installed or in a checkout."""

from __future__ import annotations

from pathlib import Path

_PKG = Path(__file__).resolve().parents[1]   # fairpairs/ (this file is fairpairs/io/paths.py)


def data_dir(name: str) -> Path:
    """`grammars` or `vocab`: inside the wheel (fairpairs/_data/<name>) or the source checkout."""
    for candidate in (_PKG / "_data" / name, _PKG.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"fairpairs data folder {name!r} not found next to {_PKG}")
