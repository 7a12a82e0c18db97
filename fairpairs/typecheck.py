"""Checking JSON values against the typed records (TypedDicts, dataclasses, Optional, lists and
dicts of them) and saying in words what a field must be: the one check behind a manifest's and a
published row's field errors."""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import fields
from typing import Any, Union


# ------------------------------------------------------------------------------- checking values
def _is_typeddict(tp) -> bool:
    return isinstance(tp, type) and typing.is_typeddict(tp)


def _keys(tp) -> list[tuple[str, Any, bool]]:
    """(JSON key, type, required) of a record class's fields."""
    if _is_typeddict(tp):
        return [(k, t, k in tp.__required_keys__) for k, t in typing.get_type_hints(tp).items()]
    hints = typing.get_type_hints(tp)
    return [(f.metadata.get("key", f.name), hints[f.name], not f.metadata.get("omit_if_none"))
            for f in fields(tp)]


def mismatch(value, tp, *, partial: bool = False) -> tuple[str, Any] | None:
    """Where `value` (JSON) does not fit type `tp`: (path below it, e.g. ".gpt2.good" or "", and
    the type expected there), or None if it fits. `partial`: a record's keys may be missing and
    unknown keys are ignored (manifests written by other versions); otherwise a TypedDict needs
    exactly its keys."""
    if tp is Any:
        return None
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        inner = [a for a in args if a is not type(None)]
        found = mismatch(value, inner[0], partial=partial)
        return found if found is None or found[0] else ("", tp)
    if tp is bool:
        ok = isinstance(value, bool)
    elif tp is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif tp is float:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    elif tp is str:
        ok = isinstance(value, str)
    elif origin is list:
        if not isinstance(value, list):
            return "", tp
        for i, v in enumerate(value):
            if (found := mismatch(v, args[0], partial=partial)) is not None:
                return f"[{i}]{found[0]}", found[1]
        return None
    elif origin is dict:
        if not isinstance(value, dict):
            return "", tp
        for k, v in value.items():
            if (found := mismatch(v, args[1], partial=partial)) is not None:
                return f".{k}{found[0]}", found[1]
        return None
    elif _is_typeddict(tp) or dataclasses.is_dataclass(tp):
        if not isinstance(value, dict):
            return "", tp
        keys = _keys(tp)
        required = {k for k, _, needed in keys if needed}
        if not partial and not (required <= set(value) <= {k for k, _, _ in keys}):
            return "", tp
        for k, t, _ in keys:
            if k in value and (found := mismatch(value[k], t, partial=partial)) is not None:
                return f".{k}{found[0]}", found[1]
        return None
    else:
        raise TypeError(f"no check for type {tp!r}")
    return None if ok else ("", tp)


def describe(tp, key: str | None = None) -> str:
    """What a value of type `tp` must be, for messages ("be an integer", "map each role to a
    string"); `key` names a mapping's keys."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (Union, types.UnionType):
        return describe(next(a for a in args if a is not type(None))) + " or null"
    if origin is dict and key:
        return f"map each {key} to {_noun(args[1])}"
    if origin is dict or _is_typeddict(tp) or dataclasses.is_dataclass(tp):
        return "be a JSON object"
    if origin is list:
        return "be a JSON list"
    return "be " + _noun(tp)


def _noun(tp) -> str:
    if _is_typeddict(tp):
        return "{" + ", ".join(f'"{k}": {_short(t)}' for k, t, _ in _keys(tp)) + "}"
    return {str: "a string", int: "an integer", float: "a number", bool: "true or false"}.get(tp, "a JSON object")


def _short(tp) -> str:
    return {str: "str", int: "int", float: "float", bool: "bool"}.get(tp, "object")
