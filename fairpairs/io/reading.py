"""Reading input files: the one place that turns the operating system's errors into one line naming
the file and what it should be."""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from fairpairs.errors import not_found


# ------------------------------------------------------------------------------------ reading
@contextmanager
def reading(path: str | os.PathLike | tuple, what: str, error_cls: type[Exception]):
    """Run the reading of `path` (a `what`: "corpus", "vocabulary table", ...) so that a missing
    file, a folder, an unreadable file or bytes that are not UTF-8 end in one `error_cls` line
    naming the file (a missing file: its FileNotFoundError variant, `errors.not_found`); other
    errors pass through. `path` may be the parts of a message instead (`(Param("sentences"),
    " x.txt")`: the parameter that named the file, then the file)."""
    where = path if isinstance(path, tuple) else (f"{path}",)
    try:
        yield
    except FileNotFoundError:
        raise not_found(error_cls)(*where, f": {what} not found") from None
    except IsADirectoryError:
        raise error_cls(*where, f": is a folder, not a {what}") from None
    except OSError as exc:
        raise error_cls(*where, f": cannot read {what}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise error_cls(*where, f": {what} is not UTF-8 text (byte {exc.start})") from None


def read_text(path: str | os.PathLike, what: str, error_cls: type[Exception], encoding: str = "utf-8") -> str:
    """The text of file `path` (a `what`), with `reading`'s one-line errors."""
    with reading(path, what, error_cls):
        return Path(path).read_text(encoding=encoding)


def plain_row(row: dict[str, Any]) -> dict[str, Any]:
    """A table row without its missing cells (None or NaN: a column other rows have), with numpy
    values as plain Python ones (a parquet struct of lengths comes back as nested numpy values)."""
    return {k: _plain(v) for k, v in row.items() if not (v is None or (isinstance(v, float) and v != v))}


def _plain(v):
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items() if x is not None}
    if hasattr(v, "item") and not hasattr(v, "__len__"):
        return v.item()          # numpy scalar
    if hasattr(v, "tolist"):
        return v.tolist()        # numpy array
    return v
