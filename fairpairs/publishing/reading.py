"""Reading a run folder for publishing: every set of every paradigm read by the one pair reader
(`fairpairs.pairsets.read_run_file`: rows checked once, as `PairRecord`s of the paradigm the file
names), and the run checked against its manifest (fairpairs.publishing.verify)."""

from __future__ import annotations

from pathlib import Path
from fairpairs.errors import DatasetError, DatasetNotFoundError
from fairpairs.manifest import read_manifest
from fairpairs.pairsets import read_run_file
from fairpairs.publishing.layout import Config, SETS, config_name


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
        raise (DatasetError if run_dir.exists() else DatasetNotFoundError)(f"{run_dir}: no such run folder",
                                                                           file=str(run_dir))
    manifest = read_manifest(run_dir)
    configs, skipped = [], []
    read = {s: {} for s in SETS}     # set -> uid -> its PairSet (the set not published too: the card shows its counts)
    for set_name in sets:
        folder = run_dir / set_name
        files = sorted(folder.glob("*.jsonl")) if folder.is_dir() else []
        if not files:
            raise DatasetError(f"{folder}: no <uid>.jsonl files (is {run_dir} a `fairpairs generate` "
                               "output folder?)", file=str(folder))
        for path in files:
            pairs = read[set_name][path.stem] = read_run_file(path)
            name = config_name(path.stem, set_name)
            if not pairs.rows:
                skipped.append(name)
                continue
            task = f"{prefix}_{path.stem}" if set_name == "debiased" else f"{prefix}_original_{path.stem}"
            configs.append(Config(name, path.stem, set_name, pairs, task))
    if not configs:
        raise DatasetError(f"{run_dir}: every selected jsonl file is empty; nothing to publish", file=str(run_dir))
    for set_name in SETS:
        if set_name not in sets and (run_dir / set_name).is_dir():
            for path in sorted((run_dir / set_name).glob("*.jsonl")):
                read[set_name][path.stem] = read_run_file(path)
    empty = [("original", n[: -len("-original")]) if n.endswith("-original") else ("debiased", n) for n in skipped]
    check = check_run(run_dir, manifest, read, [(c.set, c.uid) for c in configs] + empty)
    return manifest, configs, skipped, check
