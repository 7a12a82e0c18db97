"""Reading a run folder for publishing: every set of every paradigm read by the one pair reader
(`fairpairs.pairsets.read_run_file`: rows checked once, as `PairRecord`s of the paradigm the file
names), and the run checked against its manifest (fairpairs.publishing.verify). The manifest comes
from the caller's reader (the API's: `RunManifest.run_language` resolved), never read here."""

from __future__ import annotations

import json
from pathlib import Path
from fairpairs.errors import DatasetError, DatasetNotFoundError
from fairpairs.pairsets import PairSet, read_run_file
from fairpairs.publishing.layout import Config, SETS, config_name


def read_checked_run(run_dir: Path, sets: tuple[str, ...], prefix: str, read_manifest):
    """(manifest, configs, skipped, check): the run's manifest as `read_manifest(run_dir)` gives it
    (with its resolved language), the non-empty configs (debiased before original, UIDs sorted),
    the skipped names, and the `RunCheck` of the run folder: the rows of every set (published or
    not) checked against the manifest (`fairpairs.publishing.verify`)."""
    from fairpairs.publishing.verify import check_run

    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise (DatasetError if run_dir.exists() else DatasetNotFoundError)(f"{run_dir}: no such run folder",
                                                                           file=str(run_dir))
    from fairpairs.control.statistics import reuse

    manifest = read_manifest(run_dir)
    held = reuse(run_dir, manifest)     # (the paradigms whose files and entry are those the run recorded)
    configs, skipped = [], []
    read = {s: {} for s in SETS}     # set -> uid -> its PairSet (the set not published too: the card shows its counts)
    for set_name in sets:
        folder = run_dir / set_name
        files = sorted(folder.glob("*.jsonl")) if folder.is_dir() else []
        if not files:
            raise DatasetError(f"{folder}: no <uid>.jsonl files (is {run_dir} a `fairpairs generate` "
                               "output folder?)", file=str(folder))
        for path in files:
            pairs = read[set_name][path.stem] = _read(path, held.current.get(path.stem, False))
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
                read[set_name][path.stem] = _read(path, held.current.get(path.stem, False))
    empty = [("original", n[: -len("-original")]) if n.endswith("-original") else ("debiased", n) for n in skipped]
    check = check_run(run_dir, manifest, read, [(c.set, c.uid) for c in configs] + empty, held)
    return manifest, configs, skipped, check


def _read(path: Path, recorded: bool) -> PairSet:
    """A run's `<uid>.jsonl` as a PairSet: checked row by row (`read_run_file`), or, for a file
    whose sha256 is the one the run recorded when `generate` wrote it (`recorded`), its rows put in
    the pair schema's order without checking each again (the same PairSet: `generate` writes every
    row in that schema, and the bytes are those it wrote)."""
    if not recorded:
        return read_run_file(path)
    rows, origin = [], []
    with path.open(encoding="utf-8") as fh:
        for line, text in enumerate(fh, 1):
            row = json.loads(text)
            rows.append({"uid": row["uid"], "pair_id": row["pair_id"], "sentence_good": row["sentence_good"],
                         "sentence_bad": row["sentence_bad"], **{k: v for k, v in row.items() if k not in FIRST}})
            origin.append((str(path), line))
    return PairSet(path.stem, tuple(rows), tuple(origin))


FIRST = ("uid", "pair_id", "sentence_good", "sentence_bad")   # (check_row's order of a pair's first fields)
