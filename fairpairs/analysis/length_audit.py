"""Loading minimal-pair datasets in BLiMP format, and the token-length-bias audit.

Accepted inputs (`load_sets`):

- one file: ``.jsonl`` (one JSON object a line), ``.json`` (a list of objects), ``.csv``, ``.tsv``
  or ``.parquet``;
- a folder of such files (all of them, recursively, in sorted order);
- a run folder written by ``fairpairs generate`` (``original/`` and ``debiased/`` sub-folders);
- a Hugging Face dataset saved with ``save_to_disk`` (a ``DatasetDict`` gives one set per split).

Every pair needs a good and a bad sentence (``sentence_good`` / ``sentence_bad`` unless other
column names are given) and is grouped by ``UID`` (or ``--group-col``; without either, by the
file's name). Token length is the generator's: content tokens of the string as written, special
tokens excluded (`fairpairs.control.tokenization.LengthMeter`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from fairpairs.errors import DatasetError, DatasetNotFoundError
from fairpairs.io.files import atomic_write
from fairpairs.io.jsonl import iter_objects, load_json
from fairpairs.manifest import read_manifest

SUFFIXES = (".jsonl", ".json", ".csv", ".tsv", ".parquet")
RUN_SETS = ("original", "debiased")
ALL = "ALL"  # the uid of the rows that pool every group
SPLITS = ("A=U", "A>U", "A<U")  # the seed paper's splits of a pair by token length (`split_label`)
PAIR_COLUMNS = ["uid", "pair_id", "sentence_good", "sentence_bad"]


@dataclass(frozen=True)
class Columns:
    """Which input columns hold the good sentence, the bad sentence and the group (paradigm)."""

    good: str = "sentence_good"
    bad: str = "sentence_bad"
    group: str | None = None  # None: "UID" where present, else the file's stem


# ---------------------------------------------------------------------------- loading


def load_sets(path: str | os.PathLike, columns: Columns = Columns()) -> dict[str, pd.DataFrame]:
    """Read a dataset into named sets of pairs (columns `PAIR_COLUMNS`).

    A run folder gives the sets ``original`` and ``debiased``; a saved ``DatasetDict`` one set per
    split; anything else one set named after the file or folder.
    """
    p = Path(path)
    if not p.exists():
        raise DatasetNotFoundError(f"{p}: no such file or folder")
    if p.is_dir():
        if (p / "dataset_dict.json").is_file() or (p / "state.json").is_file():
            return _load_hf_disk(p, columns)
        subsets = [s for s in RUN_SETS if (p / s).is_dir()]
        if subsets:
            _check_run_folder(p, subsets)
            return {s: _load_folder(p / s, columns) for s in subsets}
        return {p.name: _load_folder(p, columns)}
    return {p.stem: _finish(_read_file(p, columns), p)}


def dataset_paths(path: str | os.PathLike) -> list[Path]:
    """The files and folders `load_sets(path)` reads: the file; a run folder's set folders and
    manifest; any other folder as a whole. A command that writes must not write into these (the
    next read would take its output for data)."""
    p = Path(path)
    if p.is_dir() and not ((p / "dataset_dict.json").is_file() or (p / "state.json").is_file()):
        subsets = [p / s for s in RUN_SETS if (p / s).is_dir()]
        if subsets:
            return subsets + [p / "manifest.json"]
    return [p]


def _check_run_folder(p: Path, subsets: list[str]) -> None:
    """A run folder of `fairpairs generate` is complete: a valid manifest and both sets."""
    missing = [s for s in RUN_SETS if s not in subsets]
    if missing:
        raise DatasetError(f"{p}: a run folder without {' and '.join(m + '/' for m in missing)} "
                           f"(an incomplete `fairpairs generate` output?)")
    read_manifest(p)


def _load_folder(folder: Path, columns: Columns) -> pd.DataFrame:
    files = sorted(f for f in folder.rglob("*") if f.is_file() and f.suffix.lower() in SUFFIXES
                   and f.name not in {"manifest.json", "fairpairs_manifest.json"}   # run / publish-folder metadata
                   and not any(part.startswith(".") for part in f.relative_to(folder).parts))
    if not files:
        raise DatasetError(f"{folder}: no dataset files ({', '.join(SUFFIXES)}) in this folder")
    return _finish(pd.concat([_read_file(f, columns) for f in files], ignore_index=True), folder)


def _finish(df: pd.DataFrame, where: Path) -> pd.DataFrame:
    if df.empty:
        raise DatasetError(f"{where}: the dataset holds no pairs")
    return df[PAIR_COLUMNS].reset_index(drop=True)


def _read_file(path: Path, columns: Columns) -> pd.DataFrame:
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        records = _read_jsonl(path)
        return _from_records(records, path, columns, unit="line")
    if suffix == ".json":
        data = load_json(path)
        if isinstance(data, dict) and isinstance(data.get("data"), list):
            data = data["data"]
        if not isinstance(data, list):
            raise DatasetError(f"{path}: expected a JSON list of pair objects")
        return _from_records([(i + 1, r) for i, r in enumerate(data)], path, columns, unit="item")
    if suffix in (".csv", ".tsv"):
        try:
            frame = pd.read_csv(path, sep="\t" if suffix == ".tsv" else ",", dtype=str,
                                keep_default_na=False)
        except (pd.errors.ParserError, UnicodeDecodeError, pd.errors.EmptyDataError) as exc:
            raise DatasetError(f"{path}: cannot parse ({str(exc).splitlines()[0]})") from None
        return _from_frame(frame, path, columns)
    if suffix == ".parquet":
        try:
            frame = pd.read_parquet(path)
        except (OSError, ValueError) as exc:
            raise DatasetError(f"{path}: cannot read parquet ({str(exc).splitlines()[0]})") from None
        return _from_frame(frame, path, columns)
    raise DatasetError(f"{path}: unsupported file type {suffix!r} (use one of {', '.join(SUFFIXES)})")


def _read_jsonl(path: Path) -> list[tuple[int, dict]]:
    return list(iter_objects(path))


def _check_text(value, where: str, field: str) -> str:
    if not isinstance(value, str) or not value.strip():
        what = "missing" if value is None else f"empty or not a string ({value!r})"
        raise DatasetError(f"{where}: field {field!r} is {what}")
    return value


def _from_records(records: list[tuple[int, dict]], path: Path, columns: Columns, unit: str) -> pd.DataFrame:
    group_col = columns.group or "UID"
    rows = []
    for n, (pos, rec) in enumerate(records):
        where = f"{path}:{pos}" if unit == "line" else f"{path}: item {pos}"
        for field in (columns.good, columns.bad):
            if field not in rec:
                raise DatasetError(f"{where}: missing field {field!r}")
        if columns.group and columns.group not in rec:
            raise DatasetError(f"{where}: missing field {columns.group!r}")
        group = rec.get(group_col, path.stem)
        rows.append((
            str(group),
            str(rec.get("pairID", n)),
            _check_text(rec[columns.good], where, columns.good),
            _check_text(rec[columns.bad], where, columns.bad),
        ))
    return pd.DataFrame(rows, columns=PAIR_COLUMNS)


def _from_frame(frame: pd.DataFrame, path: Path, columns: Columns) -> pd.DataFrame:
    for field in (columns.good, columns.bad) + ((columns.group,) if columns.group else ()):
        if field not in frame.columns:
            shown = ", ".join(map(str, frame.columns[:12]))
            raise DatasetError(f"{path}: missing column {field!r} (columns: {shown})")
    for field in (columns.good, columns.bad):
        bad = frame[field].map(lambda v: not isinstance(v, str) or not v.strip())
        if bad.any():
            row = int(bad.to_numpy().argmax())
            raise DatasetError(f"{path}: row {row + 1}: field {field!r} is empty or not a string")
    group_col = columns.group or ("UID" if "UID" in frame.columns else None)
    out = pd.DataFrame({
        "uid": frame[group_col].astype(str) if group_col else path.stem,
        "pair_id": frame["pairID"].astype(str) if "pairID" in frame.columns else [str(i) for i in range(len(frame))],
        "sentence_good": frame[columns.good].astype(str),
        "sentence_bad": frame[columns.bad].astype(str),
    })
    return out.reset_index(drop=True)


def _load_hf_disk(folder: Path, columns: Columns) -> dict[str, pd.DataFrame]:
    import datasets

    try:
        ds = datasets.load_from_disk(str(folder))
    except (OSError, ValueError, FileNotFoundError) as exc:
        raise DatasetError(f"{folder}: cannot load the saved HF dataset ({str(exc).splitlines()[0]})") from None
    parts = dict(ds) if isinstance(ds, datasets.DatasetDict) else {folder.name: ds}
    return {name: _finish(_from_frame(part.to_pandas(), folder / name, columns), folder / name)
            for name, part in parts.items()}


# ---------------------------------------------------------------------------- audit


def split_label(len_good: int, len_bad: int) -> str:
    """The seed paper's split of a pair: ``A=U``, ``A>U`` (good longer) or ``A<U``."""
    if len_good == len_bad:
        return "A=U"
    return "A>U" if len_good > len_bad else "A<U"


def token_lengths(pairs: pd.DataFrame, tokenizer: str) -> pd.DataFrame:
    """`pairs` plus `len_good`, `len_bad` and `len_diff` (= bad - good) under `tokenizer`."""
    from fairpairs.control.tokenization import LengthMeter

    meter = LengthMeter(tokenizer)
    out = pairs.copy()
    out["len_good"] = meter.lengths(pairs["sentence_good"].tolist())
    out["len_bad"] = meter.lengths(pairs["sentence_bad"].tolist())
    out["len_diff"] = out["len_bad"] - out["len_good"]
    return out


def _counts(diff: pd.Series) -> dict:
    return {
        "n_pairs": int(diff.size),
        "n_equal": int((diff == 0).sum()),
        "n_good_longer": int((diff < 0).sum()),
        "n_good_shorter": int((diff > 0).sum()),
    }


def pair_lengths(sets: dict[str, pd.DataFrame], tokenizers: list[str]) -> dict[str, dict[str, pd.DataFrame]]:
    """{set: {tokenizer: the set's pairs with len_good, len_bad, len_diff}}: every sentence measured
    once per tokenizer (what `length_bias`, `equal_under_all` and `select_balanced` read)."""
    from fairpairs.control.sources import expand

    return {set_name: {tok: token_lengths(pairs, tok) for tok in expand(tokenizers)}
            for set_name, pairs in sets.items()}


def length_bias(sets: dict[str, pd.DataFrame], tokenizers: list[str],
                lengths: dict[str, dict[str, pd.DataFrame]] | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per set, group and tokenizer: the A=U / A>U / A<U counts, and the distribution of
    len(bad) - len(good). Returns (summary, distribution); the summary has one extra row per set
    and tokenizer with uid ``ALL`` that pools every group. `lengths`: `pair_lengths(sets,
    tokenizers)`, when already measured."""
    from fairpairs.control.sources import expand

    rows, dist = [], []
    for tok in expand(tokenizers):
        for set_name, pairs in sets.items():
            lens = lengths[set_name][tok] if lengths is not None else token_lengths(pairs, tok)
            groups = [(uid, g["len_diff"]) for uid, g in lens.groupby("uid", sort=True)]
            groups.append((ALL, lens["len_diff"]))
            for uid, diff in groups:
                counts = _counts(diff)
                rows.append({
                    "uid": uid, "tokenizer": tok, **counts, "set": set_name,
                    "share_unequal": round(1 - counts["n_equal"] / counts["n_pairs"], 6),
                    "mean_diff": round(float(diff.mean()), 6),
                    "min_diff": int(diff.min()), "max_diff": int(diff.max()),
                })
                if uid != ALL:
                    for d, c in diff.value_counts().sort_index().items():
                        dist.append({"set": set_name, "uid": uid, "tokenizer": tok,
                                     "len_diff": int(d), "count": int(c)})
    return pd.DataFrame(rows), pd.DataFrame(dist, columns=["set", "uid", "tokenizer", "len_diff", "count"])


def _equal_all(lens: dict[str, pd.DataFrame]):
    """Per pair: equal token counts under every tokenizer (a boolean array)."""
    import numpy as np

    frames = list(lens.values())
    return np.logical_and.reduce([f["len_diff"].to_numpy() == 0 for f in frames])


def equal_under_all(sets: dict[str, pd.DataFrame], lengths: dict[str, dict[str, pd.DataFrame]]) -> pd.DataFrame:
    """Per set and group (``ALL`` pools them): pairs whose good and bad sentences have equal token
    counts under every tokenizer at once (n_equal_all, share_equal_all) - the pairs a length-balanced
    subset keeps."""
    rows = []
    for set_name, pairs in sets.items():
        eq = _equal_all(lengths[set_name])
        frame = pd.DataFrame({"uid": pairs["uid"].to_numpy(), "eq": eq})
        groups = [(uid, g["eq"]) for uid, g in frame.groupby("uid", sort=True)] + [(ALL, frame["eq"])]
        for uid, e in groups:
            rows.append({"set": set_name, "uid": uid, "tokenizers": len(lengths[set_name]), "n_pairs": int(e.size),
                         "n_equal_all": int(e.sum()), "share_equal_all": round(float(e.mean()), 6)})
    return pd.DataFrame(rows)


def select_balanced(sets: dict[str, pd.DataFrame], lengths: dict[str, dict[str, pd.DataFrame]],
                    language: str = "en") -> tuple[pd.DataFrame, pd.DataFrame]:
    """The length-balanced subset: the pairs with equal token counts under every tokenizer, as row
    ids (set, uid, pair_id; no sentences: several datasets' licences do not allow copying them),
    and the balance report of the subset against the whole set (`balance_report.balance_table`:
    a selected subset is a selection, so it says what the selection changed: word frequency, word
    and character counts, distinct words, per group). `language`: wordfreq's code for the
    frequencies."""
    from fairpairs.control.balance_report import balance_table

    ids, reports = [], []
    for set_name, pairs in sets.items():
        keep = _equal_all(lengths[set_name])
        ids.append(pairs.loc[keep, ["uid", "pair_id"]].assign(set=set_name)[["set", "uid", "pair_id"]])
        rows = pairs[["uid", "sentence_good", "sentence_bad"]].to_dict("records")
        original: dict[str, list] = {}
        chosen: dict[str, list] = {}
        for row, k in zip(rows, keep):
            original.setdefault(row["uid"], []).append(row)
            if k:
                chosen.setdefault(row["uid"], []).append(row)
        reports.append(balance_table(original, chosen, language=language).assign(set=set_name))
    report = pd.concat(reports, ignore_index=True)
    report = report[["set", *[c for c in report.columns if c != "set"]]]
    return pd.concat(ids, ignore_index=True), report


def summary_text(summary: pd.DataFrame) -> str:
    """A short plain-text table: the pooled counts per set and tokenizer, and how many groups
    contain any pair of unequal token length."""
    lines = []
    for (set_name, tok), g in summary.groupby(["set", "tokenizer"], sort=False):
        tot = g[g["uid"] == ALL].iloc[0]
        per = g[g["uid"] != ALL]
        affected = int((per["n_equal"] < per["n_pairs"]).sum())
        lines.append({
            "set": set_name, "tokenizer": tok, "pairs": int(tot["n_pairs"]),
            "A=U": int(tot["n_equal"]), "A>U": int(tot["n_good_longer"]), "A<U": int(tot["n_good_shorter"]),
            "groups": len(per), "groups_with_unequal": affected,
        })
    return pd.DataFrame(lines).to_string(index=False)


# ---------------------------------------------------------------------------- writing


def write_csv(df: pd.DataFrame, path: str | os.PathLike) -> None:
    """Atomically write `df` as CSV (no index, "\\n" line ends, empty cells for missing values)."""
    atomic_write(path, df.to_csv(index=False, lineterminator="\n"))
