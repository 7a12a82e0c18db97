"""Reading jsonl files of records, with `file:line: message` errors whose `file` field names the file
(shared by the pair reader, manifests and fidelity)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from fairpairs.errors import DatasetError


def json_error(exc: json.JSONDecodeError, line: bool = True) -> str:
    """One JSON parse error as "<problem> at line L, column C" (the parser's own text ends some
    problems with "at", which would read "... at at column C"); `line=False` leaves the line out
    (a jsonl message names it already)."""
    problem = exc.msg[:-3] if exc.msg.endswith(" at") else exc.msg
    where = f"line {exc.lineno}, column {exc.colno}" if line else f"column {exc.colno}"
    return f"{problem} at {where}"


def load_json(path, where: tuple | None = None, invalid: str = "invalid JSON"):
    """The document of a JSON file. Text that is not UTF-8 or not JSON is one DatasetError line
    starting with `where` (the parts of a message; default: the path) and saying `invalid` with the
    parser's problem; an OSError (a missing file) passes through for the caller to word."""
    where = (f"{path}",) if where is None else where
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise DatasetError(*where, f": not UTF-8 text (byte {exc.start})", file=str(path)) from None
    except json.JSONDecodeError as exc:
        raise DatasetError(*where, f": {invalid} ({json_error(exc)})", file=str(path)) from None


def iter_objects(path: Path) -> Iterator[tuple[int, dict]]:
    """(line number, JSON object) for every non-blank line of a jsonl file, lazily."""
    try:
        with path.open(encoding="utf-8-sig") as fh:   # a byte-order mark is not part of line 1
            for lineno, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise DatasetError(f"{path}:{lineno}: invalid JSON ({json_error(exc, line=False)})",
                                       file=str(path)) from None
                if not isinstance(obj, dict):
                    raise DatasetError(f"{path}:{lineno}: expected a JSON object, got {type(obj).__name__}",
                                       file=str(path))
                yield lineno, obj
    except UnicodeDecodeError as exc:
        raise DatasetError(f"{path}: not UTF-8 text ({exc.reason})", file=str(path)) from None
