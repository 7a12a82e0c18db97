"""Reading a run folder for publishing: every row of every set checked once against the published
fields, and the run checked against its manifest (fairpairs.publishing.verify)."""

from __future__ import annotations

from pathlib import Path
from fairpairs.errors import DatasetError, DatasetNotFoundError
from fairpairs.io.jsonl import iter_objects
from fairpairs.manifest import read_manifest
from fairpairs.typecheck import describe, mismatch
from fairpairs.publishing.layout import COLUMNS, Config, OPTIONAL, REQUIRED, SETS, config_name


# ---------------------------------------------------------------- reading the run folder
def _check_row(row: dict, where: str, uid: str, keys: tuple[str, ...]) -> dict:
    """Validate one jsonl row (a JSON object) against PairRecord's field types and return it in
    the published shape (columns in their published order; pairID -> int pair_id)."""
    for key in REQUIRED + keys:
        if key not in row:
            raise DatasetError(f"{where}: missing field {key!r}")
    out = {}
    for col in COLUMNS:
        if col.optional and col.source not in keys:
            continue
        value = row[col.source]
        if col.source == "pairID":   # "0", "1", ... in fairpairs' jsonl; an int in other tools' files
            if isinstance(value, bool) or not (isinstance(value, int) or (isinstance(value, str) and value.isdigit())):
                raise DatasetError(f"{where}: field 'pairID' must be a non-negative integer, got {value!r}")
            value = int(value)
        elif mismatch(value, col.type) is not None:
            raise DatasetError(f"{where}: field {col.source!r} must {describe(col.type, col.key)}")
        out[col.name] = value
    if row["UID"] != uid:
        raise DatasetError(f"{where}: field 'UID' is {row['UID']!r} but the file is named {uid}.jsonl")
    return out


def read_pairs(path: Path) -> list[dict]:
    """Rows of one `<uid>.jsonl`, validated; optional fields are those present in the first row.
    Read with the one jsonl reader (`fairpairs.io.jsonl.iter_objects`: `file:line:` errors)."""
    return read_pairs_lines(path)[0]


def read_pairs_lines(path: Path) -> tuple[list[dict], list[int]]:
    """`read_pairs`, and the line of each row."""
    uid = path.stem
    lines: list[int] = []
    rows: list[dict] = []
    keys: tuple[str, ...] = ()
    seen: set[int] = set()
    for lineno, row in iter_objects(path):
        where = f"{path}:{lineno}"
        if not rows:
            keys = tuple(k for k in OPTIONAL if k in row)
        out = _check_row(row, where, uid, keys)
        if out["pair_id"] in seen:
            raise DatasetError(f"{where}: field 'pairID' {out['pair_id']} repeats an earlier pair")
        seen.add(out["pair_id"])
        rows.append(out)
        lines.append(lineno)
    return rows, lines


def read_run(run_dir: Path, sets: tuple[str, ...], prefix: str) -> tuple[dict, list[Config], list[str]]:
    """Manifest, the non-empty configs (debiased before original, UIDs sorted) and skipped names.
    The rows of every set (published or not) are checked against the manifest (`fairpairs.publishing.verify`);
    see `read_checked_run`."""
    manifest, configs, skipped, _ = read_checked_run(run_dir, sets, prefix)
    return manifest, configs, skipped


def read_checked_run(run_dir: Path, sets: tuple[str, ...], prefix: str):
    """`read_run`, plus the `RunCheck` of the run folder: (manifest, configs, skipped, check)."""
    from fairpairs.publishing.verify import check_run

    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise (DatasetError if run_dir.exists() else DatasetNotFoundError)(f"{run_dir}: no such run folder")
    manifest = read_manifest(run_dir)
    configs, skipped = [], []
    for set_name in sets:
        folder = run_dir / set_name
        files = sorted(folder.glob("*.jsonl")) if folder.is_dir() else []
        if not files:
            raise DatasetError(f"{folder}: no <uid>.jsonl files (is {run_dir} a `fairpairs generate` "
                               "output folder?)")
        for path in files:
            rows, lines = read_pairs_lines(path)
            name = config_name(path.stem, set_name)
            if not rows:
                skipped.append(name)
                continue
            task = f"{prefix}_{path.stem}" if set_name == "debiased" else f"{prefix}_original_{path.stem}"
            configs.append(Config(name, path.stem, set_name, path, rows, task, lines))
    if not configs:
        raise DatasetError(f"{run_dir}: every selected jsonl file is empty; nothing to publish")
    # every set's rows as jsonl rows with their lines (the set not published too: the card shows its counts)
    rows = {s: {} for s in SETS}
    for c in configs:
        rows[c.set][c.uid] = [(line, _jsonl_row(r)) for line, r in zip(c.lines, c.rows)]
    for set_name in SETS:
        if set_name not in sets and (run_dir / set_name).is_dir():
            for path in sorted((run_dir / set_name).glob("*.jsonl")):
                got, lines = read_pairs_lines(path)
                rows[set_name][path.stem] = [(line, _jsonl_row(r)) for line, r in zip(lines, got)]
    empty = [("original", n[: -len("-original")]) if n.endswith("-original") else ("debiased", n) for n in skipped]
    for set_name, uid in empty:     # an empty file: a set of no pairs
        rows[set_name][uid] = []
    check = check_run(run_dir, manifest, rows, [(c.set, c.uid) for c in configs] + empty)
    return manifest, configs, skipped, check


def _jsonl_row(published: dict) -> dict:
    """A published row under its jsonl keys (pair_id -> pairID), for `fairpairs.publishing.verify`."""
    return {col.source: published[col.name] for col in COLUMNS if col.name in published}
