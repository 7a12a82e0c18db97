"""A paradigm file's `include:` (YAML merged over shared files such as _common.yaml) and `use:` (a
named definition reused by slots)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any
import yaml
from fairpairs.errors import GrammarError
from fairpairs.io.reading import read_text
from fairpairs.io.paths import data_dir
from fairpairs.generation.slots import ParseContext, as_list


# ---------------------------------------------------------------------------- include: and use:
def _read_yaml(path: Path) -> dict:
    text = read_text(path, "file", GrammarError)
    try:
        data = yaml.load(text, Loader=FAST_LOADER)
    except yaml.YAMLError:     # (read again by the pure-Python loader: its message, as always)
        data = _read_slowly(path, text)
    if not isinstance(data, dict):
        raise GrammarError(f"{path}: top level must be a mapping")
    return data


FAST_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)    # libyaml's, where PyYAML has it: 5x faster


def _read_slowly(path: Path, text: str):
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark else ""
        raise GrammarError(f"{path}: YAML syntax error{where}: {getattr(exc, 'problem', exc)}") from None


def merge(base: Any, local: Any) -> Any:
    """`local` over `base`: mappings merge key by key (recursively, local wins); any other value
    (string, list, number) replaces the base value. Keys keep the base's order, new ones follow."""
    if isinstance(base, dict) and isinstance(local, dict):
        out = dict(base)
        for k, v in local.items():
            out[k] = merge(base[k], v) if k in base else v
        return out
    return local


def _include_path(path: Path, name: Any) -> Path:
    if not isinstance(name, str) or not name.strip():
        raise GrammarError(f"{path}: include: must be a file name or a list of file names")
    target = path.parent / name
    if not target.exists() and not Path(name).is_absolute():
        bundled = data_dir("grammars") / name   # a user's paradigm may include the bundled _common.yaml
        if bundled.exists():
            return bundled
    if not target.exists():
        raise GrammarError(f"{path}: include: {name} not found (looked in {path.parent}"
                           f"{'' if Path(name).is_absolute() else ' and the bundled grammars/'})")
    return target


def read_with_includes(path: str | Path, _stack: tuple[Path, ...] = ()) -> dict:
    """A paradigm (or include) file's mapping with its `include:` files merged underneath it, in
    order (later includes over earlier ones, the file itself over all). Include paths are relative
    to the including file; a name not found there is looked up in the bundled grammars/ folder."""
    path = Path(path)
    key = path.resolve()
    if key in _stack:
        chain = " -> ".join(p.name for p in (*_stack[_stack.index(key):], key))
        raise GrammarError(f"{path}: include: cycle {chain}")
    data = _read_yaml(path)
    includes = data.pop("include", None)
    if includes is None:
        return data
    base: dict = {}
    for name in [includes] if isinstance(includes, str) else as_list(includes) or [None]:
        base = merge(base, read_with_includes(_include_path(path, name), (*_stack, key)))
    return merge(base, data)


def resolve_use(ctx: ParseContext, key: str, spec: Any, defs: dict) -> Any:
    """A slot spec with `use: NAME` replaced by definition NAME (from `defs:`) merged under it."""
    if not isinstance(spec, dict) or "use" not in spec:
        return spec
    name = spec["use"]
    if not isinstance(name, str) or name not in defs:
        known = ", ".join(sorted(defs)) or "none; include a file with defs:, e.g. include: _common.yaml"
        raise ctx.error(f"{key}.use", f"unknown definition {name!r} (defs: {known})")
    base = defs[name]
    if not isinstance(base, dict):
        raise ctx.error(f"defs.{name}", "must be a mapping of slot constraints")
    if "use" in base:
        raise ctx.error(f"defs.{name}.use", "a definition cannot use another one")
    return merge(base, {k: v for k, v in spec.items() if k != "use"})


def content_sha256(data: Any) -> str:
    """The sha256 of a paradigm file's content as read (`read_with_includes`: its includes merged,
    so an include edited changes it too), as canonical JSON: what a run records of the file it read."""
    text = json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
