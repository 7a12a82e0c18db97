"""Reading a run folder for publishing: every row of every set checked once against the published
fields, and the run checked against its manifest (fairpairs.publishing.verify)."""

from __future__ import annotations

from pathlib import Path
from fairpairs.errors import DatasetError, DatasetNotFoundError
from fairpairs.manifest import read_manifest
from fairpairs.publishing.layout import COLUMNS, Config, OPTIONAL, REQUIRED, SETS, config_name


# ---------------------------------------------------------------- reading the run folder
def _published(row: dict, where: str, keys: tuple[str, ...]) -> dict:
    """A row as `fairpairs.pairsets.read_run_file` checked it, in the published shape: a complete pair
    of `fairpairs generate` (every required field, and the optional fields the file's first row
    has), columns in their published order."""
    for key in REQUIRED + keys:
        if key not in row:
            raise DatasetError(f"{where}: missing field {key!r}")
    return {col.name: row[col.name] for col in COLUMNS if not col.optional or col.name in keys}


def read_pairs_lines(path: Path) -> tuple[list[dict], list[int]]:
    """The rows of one `<uid>.jsonl` in the published shape, and the line of each. Rows are read
    and checked by the one pair reader (`fairpairs.pairsets.read_run_file`: `file:line:` errors,
    every row of the paradigm the file names); the optional fields are those present in the first row."""
    from fairpairs.pairsets import read_run_file

    checked, origin = read_run_file(path)
    keys = tuple(k for k in OPTIONAL if checked and k in checked[0])
    rows = [_published(row, f"{path}:{line}", keys) for row, (_, line) in zip(checked, origin)]
    return rows, [line for _, line in origin]


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
        rows[c.set][c.uid] = list(zip(c.lines, c.rows))
    for set_name in SETS:
        if set_name not in sets and (run_dir / set_name).is_dir():
            for path in sorted((run_dir / set_name).glob("*.jsonl")):
                got, lines = read_pairs_lines(path)
                rows[set_name][path.stem] = list(zip(lines, got))
    empty = [("original", n[: -len("-original")]) if n.endswith("-original") else ("debiased", n) for n in skipped]
    for set_name, uid in empty:     # an empty file: a set of no pairs
        rows[set_name][uid] = []
    check = check_run(run_dir, manifest, rows, [(c.set, c.uid) for c in configs] + empty)
    return manifest, configs, skipped, check

