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
* Whether the destination can be written, and where it lies, is checked before the work starts
  (`fairpairs.io.destinations`: never an input, never inside a folder fairpairs keeps for its own
  command's outputs, such as a run folder).
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
from fairpairs.io.destinations import check_output_file, check_output_folder   # noqa: F401  (callers' one import)
from fairpairs.io.marker import MARKER, check_kind, is_ours, marker_text, read_marker
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


