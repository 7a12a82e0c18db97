"""Checking the arguments of public calls: one rule everywhere (see `fairpairs.errors`).

A wrong type is a `UsageTypeError` (a TypeError), a value that cannot be used a `UsageError` (a
ValueError) and a path that does not exist the not-found variant of the caller's error class (a
FileNotFoundError). Every message starts with the parameter's name, which the CLI writes as its
option (`FairpairsError.render`, `fairpairs.cli.option_names`). A bool is not a count: ``n=True`` is a wrong type, not 1.
"""

from __future__ import annotations

import math
import numbers
import os
from pathlib import Path

from fairpairs.errors import Param, UsageError, UsageTypeError, not_found


def count(value, name: str, minimum: int = 0, *, optional: bool = False) -> int | None:
    """`value` as an int >= `minimum` (None passes when `optional`)."""
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise UsageTypeError(Param(name), f": expected a whole number >= {minimum}, not {_shown(value)}", value=value,
                             expected=f"a whole number >= {minimum}")
    if value < minimum:
        raise UsageError(Param(name), f": expected a whole number >= {minimum}, not {value}", value=value,
                         expected=f"a whole number >= {minimum}")
    return int(value)


def number(value, name: str, *, minimum: float | None = None, optional: bool = False) -> float | None:
    """`value` as a finite float (>= `minimum` if given; None passes when `optional`). NaN and
    infinity are refused: a score or a tolerance computed from them cannot be right."""
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise UsageTypeError(Param(name), f": expected a number, not {_shown(value)}", value=value, expected="a number")
    value = float(value)
    if not math.isfinite(value):
        raise UsageError(Param(name), f": expected a finite number, not {value}", value=value,
                         expected="a finite number")
    if minimum is not None and value < minimum:
        raise UsageError(Param(name), f": expected a number >= {minimum:g}, not {value:g}", value=value,
                         expected=f"a number >= {minimum:g}")
    return value


def text(value, name: str, *, optional: bool = False) -> str | None:
    """`value` if it is a string (None passes when `optional`)."""
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise UsageTypeError(Param(name), f": expected a string, not {_shown(value)}", value=value, expected="a string")
    return value


def names(value, name: str) -> list[str]:
    """A comma-free name or an iterable of names as a list of strings."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, (bytes, os.PathLike)) or not _iterable(value):
        raise UsageTypeError(Param(name), f": expected a name or a list of names, not {_shown(value)}")
    out = list(value)
    bad = [v for v in out if not isinstance(v, str)]
    if bad:
        raise UsageTypeError(Param(name), f": expected names (strings), not {_shown(bad[0])}")
    return out


def path(value, name: str, *, exists: bool = True, error: type = UsageError, what: str = "file or folder",
         optional: bool = False) -> Path | None:
    """`value` (a str or os.PathLike) as a Path; with `exists`, a path that does not exist is the
    not-found variant of `error` (a FileNotFoundError) naming `name` and `what` it should be."""
    if value is None and optional:
        return None
    if not isinstance(value, (str, os.PathLike)) or isinstance(value, bytes):
        raise UsageTypeError(Param(name), f": expected a path (str or os.PathLike), not {_shown(value)}")
    p = Path(value)
    if exists and not p.exists():
        raise not_found(error)(Param(name), f" {p}", value=p, reason=f"no such {what}")
    return p


def _iterable(value) -> bool:
    try:
        iter(value)
    except TypeError:
        return False
    return True


def _shown(value) -> str:
    """A value for a message: a short string quoted, a number as written (numpy's too: 1.5, not
    np.float64(1.5)), anything else by its type's name."""
    if isinstance(value, str) and len(value) <= 40:
        return repr(value)
    if isinstance(value, (bool, numbers.Real)):
        return str(value)
    return type(value).__name__


# old spelling of a parameter -> its one name now (issue 24); accepted for one release, with a warning
RENAMED = {"n": "pairs", "tokenizers": "models", "which": "set"}


def renamed(call: str, old: dict, **current) -> dict:
    """The values of `current` (new name -> (value given, default)) with the deprecated spellings in
    `old` (the call's **kwargs) moved to their new names: each warns once with a
    `FairpairsDeprecationWarning`; an old and a new name given together is a UsageError; any other
    keyword is the TypeError Python raises for an unknown one."""
    import warnings

    from fairpairs.errors import FairpairsDeprecationWarning

    out = {name: value for name, (value, _) in current.items()}
    for key, value in old.items():
        new = RENAMED.get(key)
        if new not in current:
            raise TypeError(f"{call}() got an unexpected keyword argument {key!r}")
        given, default = current[new]
        if given is not default and given != default:
            raise UsageError(Param(key), ": the old name of ", Param(new), "; give only ", Param(new), param=key)
        warnings.warn(FairpairsDeprecationWarning(f"{call}(): `{key}` is deprecated, use `{new}` (same meaning)"),
                      stacklevel=3)
        out[new] = value
    return out


def old_names(call):
    """Decorate a public call that takes old spellings (`RENAMED`) in **kwargs: an error about an
    argument the caller gave by its old name names it as written (``tokenizers: ...``, not
    ``models: ...``)."""
    import functools

    from fairpairs.errors import FairpairsError

    @functools.wraps(call)
    def wrapper(*args, **kwargs):
        try:
            return call(*args, **kwargs)
        except FairpairsError as exc:
            old = {RENAMED[k]: k for k in kwargs if k in RENAMED}
            if exc.param not in old:
                raise
            raise exc.with_param(exc.param, old[exc.param]) from None
    return wrapper


def setting(settings: type, name: str) -> tuple:
    """(default, help text) of field `name` of a settings dataclass (`control.config.RunConfig`,
    `scoring.settings.ScoringSettings`): the one home of both, which the CLI's options and the
    API's signatures are built from or checked against."""
    f = settings.__dataclass_fields__[name]
    return f.default, f.metadata.get("help", "")
