"""The C heap of this process (glibc's malloc on Linux; elsewhere these do nothing): give its free
pages back to the system, and map large blocks apart so that freeing them gives them back."""

from __future__ import annotations

import ctypes
import platform

_M_MMAP_THRESHOLD = -3        # mallopt's parameter number (malloc.h)


def release_free_memory() -> None:
    """Give the pages the C heap holds free back to the system (glibc's `malloc_trim`; elsewhere
    nothing): loading tokenizers parses JSON of tens of MB whose freed pages the heap keeps (~150 MB
    after preset:modern's eight), resident in this process and in every worker forked from it."""
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):    # (not glibc)
        return
    trim(0)


def map_apart(nbytes: int) -> bool:
    """Under glibc: blocks of `nbytes` or more get mappings of their own, returned to the system when
    freed (a fixed mmap threshold, for the rest of the process: glibc cannot go back to its dynamic
    one). Returns whether it was set (False elsewhere: other C libraries' thresholds differ)."""
    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return False
    try:
        return bool(ctypes.CDLL(None).mallopt(_M_MMAP_THRESHOLD, int(nbytes)))
    except (OSError, AttributeError):
        return False
