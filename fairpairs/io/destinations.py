"""Where an output may be written, checked before any work starts (docs/outputs.md): a file
(`check_output_file`) or a folder of a kind (`check_output_folder`) is never an input, never inside
a folder the command reads whole, never a file another command wrote as part of its folder, never
inside a folder fairpairs keeps for its own outputs (`check_not_in_ours`: a run folder is data, a
publish folder is uploaded whole, a score cache is read whole), and can really be created.
`fairpairs.io.files` writes what these checks let through.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from fairpairs.errors import OutputError, Param
from fairpairs.io.marker import KINDS, MARKER, UNKNOWN, check_kind, folder_kind, is_ours, owning_folder, read_marker


def check_output_file(path: str | os.PathLike, what: str = "out", *, inputs=(), reads=()) -> Path:
    """Before any work: `path` can be written as a file, it is none of `inputs` (a command never
    overwrites what it reads) and lies in none of the folders `reads` (folders whose every file
    the command reads, where the next run would take it for input). `what` names the parameter."""
    path = Path(path)
    if path.is_dir():
        raise OutputError(Param(what), f" {path}", value=path, reason=f"is a folder; give a file name")
    for i in inputs:
        if i is not None and _same(path, Path(i)):
            raise OutputError(Param(what), f" {path}", value=path, reason=f"is also an input; refusing to overwrite it")
    _check_not_inside(path, what, reads)
    owner = owning_folder(path)
    if owner is not None:        # a file another command wrote as part of its folder
        raise OutputError(Param(what), f" {path}", value=path, reason=f"is a file of {KINDS.get(owner[1], 'a folder')} "
                          f"{owner[0]} (its {MARKER} marker lists it); write it elsewhere")
    check_not_in_ours(path, what)
    _check_can_create(path.parent, what, path)
    if path.exists() and not os.access(path, os.W_OK):
        raise OutputError(Param(what), f" {path}", value=path, reason=f"exists and is not writable")
    return path


def _check_not_inside(path: Path, what: str, reads) -> None:
    """`path` (an output) is not inside a folder among `reads` (folders the command reads whole)."""
    full = Path(os.path.realpath(path))
    for i in reads:
        if i is None or not Path(i).is_dir():
            continue
        folder = Path(os.path.realpath(i))
        if folder in full.parents:
            raise OutputError(Param(what), f" {path}", value=path, reason=f"is inside {i}, which this command reads as input (the next "
                              f"read would take the output for data); write it elsewhere")


def _same(a: Path, b: Path) -> bool:
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


def _check_can_create(folder: Path, what: str, target: Path) -> None:
    """`folder` exists (or can be made) and new entries can be made in it."""
    probe = folder
    while not probe.exists():
        if probe.parent == probe:
            break
        probe = probe.parent
    if not probe.is_dir():
        raise OutputError(Param(what), f" {target}", value=target, reason=f"{probe} is not a folder")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise OutputError(Param(what), f" {target}", value=target, reason=f"{probe} is not writable")
    try:   # permissions are not the whole story (read-only mounts, /proc ...): really try
        os.rmdir(tempfile.mkdtemp(prefix=".fairpairs-probe-", dir=probe))
    except OSError as exc:
        raise OutputError(Param(what), f" {target}", value=target, reason=f"cannot write in {probe} ({exc.strerror or exc})") from None


def check_output_folder(out: str | os.PathLike, what: str = "out", inputs=(), reads=(), *, kind: str,
                        action: str = "replace") -> Path:
    """Before any work: `out` is absent, an empty folder, or a folder fairpairs wrote of `kind`
    (`fairpairs.io.marker.KINDS`), it neither is nor holds the current folder or one of `inputs`,
    it is not inside one of the folders `reads` (which the command reads whole), and its parent is
    writable. Anything else is an OutputError naming `what`."""
    out = Path(out)
    full = Path(os.path.abspath(out))
    if full == Path(full.anchor):
        raise OutputError(Param(what), f" {out}", value=out, reason=f"is the root folder; give a folder to write into")
    if full == Path.cwd() or full in Path.cwd().parents:
        raise OutputError(Param(what), f" {out}: is or holds the current folder, which the output folder would "
                          "replace; give a new folder name, e.g. ", Param(what), f" {Path(out) / 'run'}", value=out)
    for i in inputs:
        other = Path(os.path.abspath(i))
        if other == full or full in other.parents:
            raise OutputError(Param(what), f" {out}", value=out, reason=f"is or holds the input {i}, which the output folder would "
                              f"replace; give a folder that holds no input")
    _check_not_inside(out, what, reads)
    if out.is_symlink():    # (the swap would replace the link, never the folder it points to)
        target = os.readlink(out)
        raise OutputError(Param(what), f" {out}", value=out, reason=f"is a symbolic link (to {target}); an output folder "
                          f"is replaced whole, which would replace the link and not its folder: give the folder "
                          f"itself ({os.path.realpath(out)})")
    if out.exists() and not out.is_dir():
        raise OutputError(Param(what), f" {out}", value=out, reason=f"exists and is not a folder")
    check_not_in_ours(out, what, kind)
    if out.is_dir():
        try:
            empty = not any(out.iterdir())
        except OSError as exc:
            raise OutputError(Param(what), f" {out}", value=out, reason=f"cannot read ({exc.strerror})") from None
        if not empty and not is_ours(out):
            raise OutputError(Param(what), f" {out}: a non-empty folder that fairpairs did not write (it has no "
                              f"{MARKER} marker); refusing to {action} it (choose another ", Param(what), ")", value=out)
        if not empty:
            check_kind(out, what, kind, action)
        if not os.access(out, os.W_OK | os.X_OK):
            raise OutputError(Param(what), f" {out}", value=out, reason=f"is not writable")
    _check_can_create(out.resolve().parent, what, out)
    return out


# the entries of a run folder that are its data: every reader of the run reads them whole
RUN_DATA = ("original", "debiased", "manifest.json")


def check_not_in_ours(path: str | os.PathLike, what: str = "out", kind: str | None = None) -> None:
    """Before any work: the output `path` (a file when `kind` is None, else a folder of that kind)
    lies nowhere a folder fairpairs wrote keeps for its own command's outputs, whichever command
    writes it: no file anywhere in a run folder, no folder in a run's sets or manifest (a run is
    data: the next read would take the output for pairs; folders of ours beside the sets, such as
    RUN/hub or RUN/evaluation, are fine), nothing in a publish folder (uploaded whole) or a score
    cache (read whole). Other folders of ours (reports, which carry over the files a user adds)
    take anything. Else an OutputError naming `what` and the folder."""
    full = Path(os.path.realpath(path))
    for folder in full.parents:
        marker = read_marker(folder)
        if marker is None:
            continue
        try:
            held = marker["kind"] if marker.get("kind") in KINDS else folder_kind(folder, marker)
        except OSError:         # (a folder of ours that cannot be listed: its kind is unknown)
            held = UNKNOWN
        top = full.relative_to(folder).parts[0]
        if held == "run" and (kind is None or top in RUN_DATA):
            raise OutputError(Param(what), f" {path}", value=path, reason=f"is inside the run folder {_shown(folder)}, which is data: "
                              f"fairpairs adds no file to a run folder, nor any folder to its {RUN_DATA[0]}/ or "
                              f"{RUN_DATA[1]}/ (the next read would take it for pairs); write it elsewhere")
        if held in ("publish", "cache"):
            raise OutputError(Param(what), f" {path}", value=path, reason=f"is inside {_shown(folder)}, {KINDS[held]}, "
                              f"which holds only what that command writes; write it elsewhere")


def _shown(folder: Path) -> str:
    """`folder` (absolute) as a message shows it: relative to the current folder when inside it."""
    rel = os.path.relpath(folder)
    return str(folder) if rel.startswith("..") else rel
