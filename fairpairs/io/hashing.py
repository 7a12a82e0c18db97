"""The sha256 of a file's content, read once per process (the one file hash of fairpairs)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

_HASHED: dict[tuple, str] = {}


def file_sha256(path) -> str:
    """sha256 of a file's bytes, streamed; remembered for the process under the file's real path,
    inode, size, mtime and ctime (a replaced or rewritten file changes its ctime, which no copy
    or `touch` can restore, so it is read again)."""
    p = Path(path)
    st = p.stat()
    key = (os.path.realpath(p), st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    if key not in _HASHED:
        h = hashlib.sha256()
        with open(p, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 22), b""):
                h.update(block)
        _HASHED[key] = h.hexdigest()
    return _HASHED[key]
