"""The marker of a folder fairpairs wrote, `.fairpairs`, and which command's output it is.

The marker holds a fixed signature (fairpairs wrote the folder), the `kind` of folder (which
command wrote it: `KINDS`) and the list of the files the command wrote (`fairpairs.io.files`).
A command replaces, or writes into, only a folder of its own kind (`check_kind`): `evaluate --out
RUN` must not replace the run folder it meant to evaluate, `generate --out` must not replace an
evaluation report.

Markers written before fairpairs recorded the kind (0.1.x) say only that fairpairs wrote the folder.
`folder_kind` then infers the kind from what those versions wrote, as their marker lists it: a run
folder's manifest.json, an evaluation's report.md, robustness' report, a publish folder's copy of
the manifest; a marker listing no files (a score cache, or an evaluation folder claimed for its
cache or run before its report was written) by what the folder holds. Where nothing says, the
kind is unknown and no command replaces the folder.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from fairpairs.errors import OutputError, Param

MARKER = ".fairpairs"
SIGNATURE = "fairpairs output folder/1"
KINDS = {
    "run": "a run folder of `fairpairs generate`",
    "evaluation": "an evaluation report of `fairpairs evaluate`",
    "robustness": "a report of `fairpairs robustness`",
    "publish": "a dataset folder of `fairpairs publish`",
    "cache": "a score cache",
    "audit": "the tables of `fairpairs audit --out`",
    "selection": "a selection of `fairpairs audit --select`",
}
EMPTY = ""            # a folder of ours holding nothing but its marker: any command may take it
UNKNOWN = None        # an old marker whose files do not say which command wrote them

# a file that fairpairs 0.1.x listed in the marker of each kind of folder it wrote whole
_LEGACY_FILES = (("run", "manifest.json"), ("evaluation", "report.md"), ("robustness", "robustness.md"),
                 ("publish", "fairpairs_manifest.json"))
_CLAIMED = ("cache", "run")    # what an evaluation folder held before its report was written


def read_marker(folder: Path) -> dict | None:
    """The marker of `folder`, or None where it has none (or another program's file of that name)."""
    try:
        doc = json.loads((Path(folder) / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) and doc.get("signature") == SIGNATURE else None


def is_ours(folder: Path) -> bool:
    """Whether `folder` carries fairpairs' marker (so fairpairs wrote it)."""
    return read_marker(folder) is not None


def marker_text(files: list[str] | None, pid: int | None = None, kind: str | None = None) -> str:
    """The marker of a folder of `kind` holding `files` (None while it is written by process `pid`)."""
    doc = {"signature": SIGNATURE, "kind": kind, "note": "written by fairpairs; it may replace this folder",
           "pid": pid, "files": files}
    return json.dumps(doc, indent=1) + "\n"


def folder_kind(folder: Path, marker: dict) -> str | None:
    """The kind of the folder of ours `folder` whose marker is `marker`: the kind recorded, else
    the one inferred (module doc); `EMPTY` for a folder holding only its marker, `UNKNOWN` (None)
    where nothing says."""
    names = {p.name for p in Path(folder).iterdir() if p.name != MARKER}
    if not names:
        return EMPTY
    if marker.get("kind") is not None:
        return marker["kind"] if marker["kind"] in KINDS else UNKNOWN
    files = marker.get("files") or []
    for kind, name in _LEGACY_FILES:
        if name in files:
            return kind
    if files:
        return UNKNOWN
    if names <= set(_CLAIMED):
        return "evaluation"
    if all(n.endswith((".parquet", ".parts")) for n in names):
        return "cache"
    return UNKNOWN


def owning_folder(path: Path) -> tuple[Path, str | None] | None:
    """(folder, kind) of the folder of ours whose marker lists the file `path` (a file a command
    wrote as part of its output folder), or None."""
    full = Path(os.path.abspath(path))
    for folder in full.parents:
        marker = read_marker(folder)
        if marker is not None and full.relative_to(folder).as_posix() in (marker.get("files") or []):
            return folder, folder_kind(folder, marker)
    return None


def check_kind(out: Path, what: str, kind: str, action: str) -> None:
    """`out`, a folder of ours, is of `kind` (or holds nothing but its marker); else an OutputError
    naming `what` (the parameter) and what the folder is. `action`: "replace" or "write into"."""
    found = folder_kind(out, read_marker(out) or {})
    if found == kind or found == EMPTY:
        return
    if found is UNKNOWN:
        raise OutputError(Param(what), f" {out}: written by an earlier fairpairs that did not record which command "
                          f"wrote it, and its files do not say; refusing to {action} it (delete it yourself if you "
                          "mean to, or choose another ", Param(what), ")", value=out)
    raise OutputError(Param(what), f" {out}: {KINDS[found]}, not {KINDS[kind]}; refusing to {action} it "
                      "(choose another ", Param(what), ")", value=out)
