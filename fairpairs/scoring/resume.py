"""Scores saved as they are produced, so that a killed run restarts where it stopped.

A resume folder holds ``meta.json`` (the model and settings the scores belong to) and one parquet
file per finished batch (``part-<run>-r<rank>-<n>.parquet``: sentence, sum_logprob, n_tokens),
each written through a temporary file and a rename, so a file is either complete or absent. Any
number of ranks may write into one folder (on a shared file system) or each into its own.
`fairpairs.analysis.evaluation` keeps the folder next to its cache file and removes it once the cache file
is written; folders that can no longer be resumed (`remove_stale_resumes`) are removed when the same model
is scored again.
"""

from __future__ import annotations

import io
import json
import os
import re
import time
from pathlib import Path

import numpy as np

from fairpairs.errors import DatasetError

META = "meta.json"
PATTERN = "part-*.parquet"
COLUMNS = ["sentence", "sum_logprob", "n_tokens"]


class Parts:
    """One rank's view of a resume folder."""

    def __init__(self, folder, rank: int = 0, meta: dict | None = None):
        self.folder = Path(folder)
        self.rank = rank
        self.meta = dict(meta or {})
        self.run = f"{time.time_ns():x}-{os.getpid()}"
        self._seq = 0

    def _check_meta(self) -> None:
        path = self.folder / META
        if not path.is_file():
            return
        try:
            found = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return  # meta.json is written atomically; an unreadable one is not ours to judge
        if found != self.meta:
            raise DatasetError(f"resume_dir {self.folder}: holds scores of {found}, not of {self.meta}; "
                                 f"use another folder")

    def load(self) -> dict[str, tuple[float, int]]:
        """sentence -> (sum_logprob, n_tokens) of every readable part file in the folder."""
        import pandas as pd

        if not self.folder.is_dir():
            return {}
        self._check_meta()
        out: dict[str, tuple[float, int]] = {}
        for f in sorted(self.folder.glob(PATTERN)):
            try:
                df = pd.read_parquet(f, columns=COLUMNS)
            except Exception:  # noqa: BLE001 - not a part file we can use: its sentences are re-scored
                continue
            for s, v, k in zip(df["sentence"].tolist(), df["sum_logprob"].tolist(), df["n_tokens"].tolist()):
                out[s] = (float(v), int(k))
        return out

    def write(self, sentences: list[str], sums, n_tokens) -> Path:
        """Save one batch's finished sentences (atomically); returns the file."""
        import pandas as pd

        from fairpairs.io.files import atomic_write

        if self._seq == 0:
            self.folder.mkdir(parents=True, exist_ok=True)
            if not (self.folder / META).is_file():
                atomic_write(self.folder / META, json.dumps(self.meta, sort_keys=True) + "\n")
        self._seq += 1
        df = pd.DataFrame({"sentence": list(sentences), "sum_logprob": np.asarray(sums, dtype=np.float64),
                           "n_tokens": np.asarray(n_tokens, dtype=np.int64)})
        buf = io.BytesIO()
        df.to_parquet(buf, index=False)
        path = self.folder / f"part-{self.run}-r{self.rank}-{self._seq:06d}.parquet"
        atomic_write(path, buf.getvalue())
        return path


def remove_parts(folder) -> None:
    """Delete a resume folder's part files and meta.json, then the folder if it is empty (several
    ranks may do this at once on a shared folder)."""
    folder = Path(folder)
    if not folder.is_dir():
        return
    for f in folder.glob(PATTERN):
        f.unlink(missing_ok=True)
    (folder / META).unlink(missing_ok=True)
    try:
        folder.rmdir()
    except OSError:  # not empty (files we did not write) or already gone
        pass


_PART_NAME = re.compile(r"^part-[0-9a-f]+-(\d+)-r\d+-\d+\.parquet$")


def _ours(folder: Path) -> list[Path] | None:
    """The files of a resume folder if it is recognisably one fairpairs wrote (a `*.parts` folder
    holding meta.json and part files and nothing else), else None."""
    if not folder.name.endswith(".parts") or folder.is_symlink() or not folder.is_dir():
        return None
    files = list(folder.iterdir())
    if not all(f.is_file() and not f.is_symlink() and (f.name == META or _PART_NAME.match(f.name)) for f in files):
        return None
    return files


def _writer_alive(files: list[Path]) -> bool:
    from fairpairs.io.files import process_alive

    pids = {int(m.group(1)) for f in files if (m := _PART_NAME.match(f.name))}
    return any(pid != os.getpid() and process_alive(pid) for pid in pids)


def remove_stale_resumes(cache_dir, model: str, keep) -> list[Path]:
    """Remove the resume folders in `cache_dir` that a run of `model` can no longer resume:
    those of the same model (by their meta.json) for another cache key than `keep` (the model's
    files, the input or the settings changed since they were saved), and any whose cache file
    exists (the scores were finished). Only folders fairpairs recognisably wrote (see `_ours`),
    in a cache folder carrying fairpairs' marker, and none that a live process is writing."""
    from fairpairs.io.files import is_ours

    cache_dir, keep = Path(cache_dir), Path(keep)
    if not cache_dir.is_dir() or not is_ours(cache_dir):
        return []
    removed = []
    for folder in sorted(cache_dir.glob("*.parts")):
        files = _ours(folder)
        if files is None or folder == keep or _writer_alive(files):
            continue
        finished = folder.with_name(folder.name[: -len(".parts")] + ".parquet").is_file()
        try:
            meta = json.loads((folder / META).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            meta = None
        same_model = isinstance(meta, dict) and meta.get("model") == model
        if finished or same_model or (meta is None and not any(f.name != META for f in files)):
            remove_parts(folder)
            removed.append(folder)
    return removed
