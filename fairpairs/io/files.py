"""Writing outputs safely: atomic files, atomic run folders with an ownership marker.

Rules every command that writes follows (see docs/outputs.md):

* A file is written to a temporary file in the same folder and renamed into place (`atomic_write`),
  with the permissions the umask gives, so a crash never leaves half a file.
* A folder of outputs (a generation run, a publish folder) is built in a hidden temporary folder
  beside the destination and swapped into place at the end (`OutputFolder`). Every such folder holds
  a marker file, `.fairpairs`, with a fixed signature, the kind of folder (which command wrote it:
  `fairpairs.io.marker`) and the list of the files the run wrote. An existing destination is
  replaced only when it is empty or carries that marker with the command's own kind; anything
  else (a folder someone else wrote, another command's output, a file) is an error *before* any
  work starts. Files a user added to an earlier run folder (notes, `hub/` from `publish`,
  evaluation folders) are carried over into the new folder, never deleted; where one would
  collide with a file of the new run, the swap is refused and the earlier folder is left as it was.
* SIGTERM is handled like Ctrl-C (`fairpairs.io.signals`): the temporary folder is removed.
  Temporary folders that a killed run (SIGKILL, power loss) left behind are recognised by their name
  and marker and removed by the next run into the same destination.
* Whether the destination can be written is checked before the work starts, and so is where it
  lies: never inside a folder fairpairs wrote that holds only its command's outputs
  (`check_not_in_ours`: a run folder is data, a publish folder is uploaded whole, a score cache is
  read whole), whichever command writes.
* A write the operating system refuses (disk full, file too large for the limit, quota) is one
  `OutputError` naming the file or the output folder; the temporary file or folder is removed.

Reading inputs is `fairpairs.io.reading`; the network time of Hub calls `fairpairs.io.network`.
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import tempfile
from pathlib import Path

from fairpairs.errors import Param, OutputError, one_line
from fairpairs.io.marker import (KINDS, MARKER, check_kind, check_not_in_ours, is_ours, marker_text, owning_folder,
                                 read_marker)
from fairpairs.io.signals import signals_deferred


# ------------------------------------------------------------------------------------ files
def umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write(path: str | os.PathLike, data: str | bytes) -> None:
    """Write `data` (text as UTF-8 with the given line ends, or bytes) to `path` through a temporary
    file in the same folder and os.replace; the file gets the umask's usual permissions."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise OutputError(f"{path}: cannot write ({exc.strerror or exc})") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data.encode("utf-8") if isinstance(data, str) else data)
        os.chmod(tmp, 0o666 & ~umask())  # mkstemp creates 0600
        os.replace(tmp, path)
    except OSError as exc:     # (disk full, file too large ...: the OS names no file; we do)
        Path(tmp).unlink(missing_ok=True)
        raise write_error(path, exc) from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


# what the operating system says when the data, not the place, cannot be written
FULL = (errno.ENOSPC, errno.EFBIG, errno.EDQUOT)


def write_error(path: Path, exc: OSError) -> OutputError:
    """The OutputError for the OS error `exc` raised writing `path`: one line naming the file, with
    the OS's errno and reason kept (`errno`, `strerror`, `filename`) for callers that ask."""
    if isinstance(exc, OutputError):
        return exc
    reason = exc.strerror or one_line(exc)
    error = OutputError(f"{path}: cannot write ({reason})", file=str(path))
    error.errno, error.strerror, error.filename = exc.errno, reason, str(path)
    return error


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


# ------------------------------------------------------------------------------------ folders
def _write_marker(folder: Path, files: list[str] | None, pid: int | None = None, kind: str | None = None) -> None:
    atomic_write(folder / MARKER, marker_text(files, pid, kind))


def _tmp_pattern(name: str) -> re.Pattern:
    return re.compile(rf"^\.{re.escape(name)}\.(tmp|old)-(\d+)-")


def process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_stale(out: Path) -> list[Path]:
    """Remove temporary folders that an earlier, killed run into `out` left beside it (hidden,
    named `.<name>.tmp-<pid>-*` or `.<name>.old-<pid>-*`, carrying the marker, process gone)."""
    removed = []
    pattern = _tmp_pattern(out.name)
    try:
        entries = list(out.parent.iterdir())
    except OSError:
        return removed
    for entry in entries:
        m = pattern.match(entry.name)
        if m and entry.is_dir() and not entry.is_symlink() and is_ours(entry) and not process_alive(int(m.group(2))):
            shutil.rmtree(entry, ignore_errors=True)
            removed.append(entry)
    return removed


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


def claim_folder(folder: str | os.PathLike, what: str = "out", inputs=(), reads=(), *, kind: str) -> Path:
    """Make `folder` a folder of ours that a command adds files to over several runs (a score
    cache): checked as `check_output_folder` (absent, empty or carrying the marker of `kind`; not an
    input), then created with the marker if it has none. The folder appears with its marker in one rename,
    so processes of one launch may claim it at the same time."""
    out = check_output_folder(folder, what, inputs, reads, kind=kind, action="write into")
    marker = read_marker(out)
    if marker is not None:
        if marker.get("kind") != kind:    # of this kind (an old marker) or holding nothing yet: record the kind
            _write_marker(Path(out), marker.get("files") or [], kind=kind)
        return out
    full = Path(os.path.abspath(out))
    try:
        full.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{full.name}.tmp-{os.getpid()}-", dir=full.parent))
    except OSError as exc:
        raise OutputError(Param(what), f" {out}", value=out, reason=f"cannot create it ({exc.strerror or exc})") from None
    try:
        os.chmod(tmp, 0o777 & ~umask())
        _write_marker(tmp, [], kind=kind)
        os.replace(tmp, full)            # (replaces an empty folder; fails on a non-empty one)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)
        if not is_ours(full):            # another process of the launch may have claimed it first
            raise OutputError(Param(what), f" {out}: a non-empty folder that fairpairs did not write (it has no "
                              f"{MARKER} marker); refusing to write into it (choose another ", Param(what), ")",
                              value=out) from None
        check_kind(full, what, kind, "write into")
    return out


class OutputFolder:
    """Build a folder of outputs atomically::

        with OutputFolder(out, what="out", kind="run") as tmp:   # checks `out` first (check_output_folder)
            (tmp / "a.jsonl").write_text(...)
        # here `out` holds exactly the new files (+ files a user had added to the earlier run)

    On an exception (Ctrl-C, SIGTERM with handle_sigterm) the temporary folder is removed and an
    earlier `out` is untouched.
    """

    def __init__(self, out: str | os.PathLike, what: str = "out", inputs=(), reads=(), *, kind: str):
        self.out = Path(os.path.abspath(check_output_folder(out, what, inputs, reads, kind=kind)))
        self.shown = Path(out)
        self.what, self.inputs, self.reads, self.kind = what, tuple(inputs), tuple(reads), kind
        self.tmp: Path | None = None

    def __enter__(self) -> Path:
        out = self.out
        remove_stale(out)
        try:
            out.parent.mkdir(parents=True, exist_ok=True)
            self.tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-{os.getpid()}-", dir=out.parent))
            os.chmod(self.tmp, 0o777 & ~umask())  # mkdtemp creates 0700
            _write_marker(self.tmp, None, os.getpid(), self.kind)
        except OSError as exc:
            if self.tmp is not None:
                shutil.rmtree(self.tmp, ignore_errors=True)
            raise OutputError(Param(self.what), f" {out}: cannot write beside it ({exc.strerror or exc})") from None
        return self.tmp

    def __exit__(self, exc_type, exc, tb):
        tmp = self.tmp
        if exc_type is not None:
            shutil.rmtree(tmp, ignore_errors=True)
            self._raise_if_full(exc)
            return False
        try:
            with signals_deferred():
                self._commit(tmp)
        except BaseException as failed:
            shutil.rmtree(tmp, ignore_errors=True)
            self._raise_if_full(failed)
            raise
        return False

    def _raise_if_full(self, exc: BaseException) -> None:
        """A write the OS refused (`FULL`: disk full, file too large, quota) while the folder was
        built, as one line: the output folder, the file where the OS or `atomic_write` said which
        (under the output folder's name, not the temporary one's), and the reason."""
        if not isinstance(exc, OSError) or exc.errno not in FULL:
            return
        where, name = "", exc.filename
        if name is not None and Path(os.fspath(name)).is_relative_to(self.tmp):
            where = f" ({self.shown / Path(os.fspath(name)).relative_to(self.tmp)})"
        raise OutputError(Param(self.what), f" {self.shown}: cannot write the output folder{where}: "
                          f"{exc.strerror or one_line(exc)}; nothing was written", value=self.shown) from None

    def _commit(self, tmp: Path) -> None:
        out = self.out
        files = sorted(p.relative_to(tmp).as_posix() for p in tmp.rglob("*")
                       if p.is_file() and p.name != MARKER)
        _write_marker(tmp, files, kind=self.kind)
        if not out.exists():
            os.replace(tmp, out)
            return
        check_output_folder(out, self.what, self.inputs, self.reads, kind=self.kind)   # it may have changed meanwhile
        kept = _user_entries(out)
        clash = [rel for rel in kept if (tmp / rel).exists()]
        if clash:
            raise OutputError(Param(self.what), f" {out}: holds files fairpairs did not write where the new run "
                              f"writes ({', '.join(clash[:3])}); move them and run again (the earlier "
                              f"folder is unchanged)")
        old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-{os.getpid()}-", dir=out.parent))
        _write_marker(old, [], os.getpid())
        os.replace(out, old / "previous")
        os.replace(tmp, out)
        for rel in kept:   # carry what the user added over into the new folder
            (out / rel).parent.mkdir(parents=True, exist_ok=True)
            os.replace(old / "previous" / rel, out / rel)
        shutil.rmtree(old, ignore_errors=True)


def _user_entries(out: Path) -> list[str]:
    """Paths (relative, posix) under an earlier run folder that its marker does not list: the
    largest such entries (a whole folder when nothing inside it is ours; empty folders aside)."""
    marker = read_marker(out) or {}
    ours = set(marker.get("files") or [])
    ours_dirs = {str(Path(f).parent.as_posix()) for f in ours}
    ours_dirs = {d for f in ours_dirs for d in _ancestors(f)}
    found = []
    for root, dirs, names in os.walk(out):
        rel_root = Path(root).relative_to(out).as_posix()
        rel = (lambda n: n) if rel_root == "." else (lambda n, r=rel_root: f"{r}/{n}")
        for d in list(dirs):
            if rel(d) not in ours_dirs:
                if any(p.is_file() or p.is_symlink() for p in (Path(root) / d).rglob("*")):
                    found.append(rel(d))     # (an empty folder holds nothing to keep)
                dirs.remove(d)
        found += [rel(n) for n in names if rel(n) not in ours and rel(n) != MARKER]
    return sorted(found)


def _ancestors(d: str) -> list[str]:
    parts = [] if d in (".", "") else d.split("/")
    return [("/".join(parts[:i])) for i in range(1, len(parts) + 1)]


