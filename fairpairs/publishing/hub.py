"""Turn a generated run folder into a Hub-ready dataset repository, and upload it.

Layout of the built folder (everything in it is uploaded, nothing else):

    README.md                                  dataset card, YAML front matter lists every config
    fairpairs_manifest.json                    the run's manifest.json, byte for byte
    data/<config>/train-00000-of-00001.parquet one parquet file per config, split `train`
    lm_eval/<prefix>/_template_yaml            shared lm-evaluation-harness task template
    lm_eval/<prefix>/_<group>.yaml             one group per published set
    lm_eval/<prefix>/<task>.yaml               one task per config

Config naming (the same in every repository fairpairs publishes): the debiased pairs of paradigm
UID are config `UID`; the original (uncontrolled) pairs are config `UID-original`. Each config has
the single split `train`, as in BLiMP (`nyu-mll/blimp`).
"""

from __future__ import annotations

import re
import shutil
import typing
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from fairpairs import __version__
from fairpairs.analysis.length_audit import dataset_paths
from fairpairs.control.balance_report import LOW_DIVERSITY
from fairpairs.errors import Param, DatasetError, DatasetNotFoundError, FairpairsWarning, NetworkError, PublishError, UsageError, one_line
from fairpairs.io.files import MARKER, OutputFolder
from fairpairs.io.network import network_deadline
from fairpairs.io.jsonl import iter_objects
from fairpairs.records import PAIR_FIELDS, card_type, published_fields
from fairpairs.manifest import read_manifest
from fairpairs.typecheck import describe, mismatch

if typing.TYPE_CHECKING:
    from fairpairs.publishing.verify import RunCheck

SETS = ("debiased", "original")
DATA_FILE = "train-00000-of-00001.parquet"
MANIFEST_COPY = "fairpairs_manifest.json"
# the published columns and the jsonl keys a row must / may have come from records.PairRecord
COLUMNS = published_fields()
OPTIONAL = tuple(n for n in PAIR_FIELDS if any(c.source == n and c.optional for c in COLUMNS))
REQUIRED = tuple(n for n in PAIR_FIELDS if n not in OPTIONAL)
# paths a new upload replaces wholesale, so stale configs of an earlier upload disappear
REPLACED_ON_UPLOAD = ["data/**", "lm_eval/**"]
# version of the exported lm-eval tasks; 2.0: `target_delimiter: ""` (1.0 scored " " + sentence)
LM_EVAL_TASK_VERSION = 2.0


@dataclass
class Config:
    """One dataset config: the pairs of one paradigm in one set."""

    name: str
    uid: str
    set: str
    source: Path
    rows: list[dict]
    task: str = ""
    lines: list[int] = field(default_factory=list)   # the jsonl line of each row


@dataclass
class Built:
    """What `build_folder` wrote."""

    folder: Path
    configs: list[Config]
    skipped: list[str] = field(default_factory=list)
    checks: "RunCheck | None" = None  # what was checked against the run's files (fairpairs.publishing.verify)
    repo_url: str | None = None      # set by an upload (`fp.publish` without dry_run)
    commit_url: str | None = None

    @property
    def n_pairs(self) -> int:
        return sum(len(c.rows) for c in self.configs)


def config_name(uid: str, set_name: str) -> str:
    """Config name of paradigm `uid` in `set_name` ("debiased" -> UID, "original" -> UID-original)."""
    return uid if set_name == "debiased" else f"{uid}-original"


def task_prefix(repo_id: str) -> str:
    """lm-eval task prefix derived from the repository name: `user/Fair-BLiMP` -> `fair_blimp`."""
    prefix = re.sub(r"[^0-9a-z]+", "_", repo_id.split("/")[-1].lower()).strip("_")
    return prefix if prefix and not prefix[0].isdigit() else f"fp_{prefix}"


def check_repo_id(repo_id: str) -> None:
    """Reject anything that is not `owner/name` as the Hub spells repository ids."""
    if not re.fullmatch(r"[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*", repo_id) or ".." in repo_id \
            or repo_id.endswith((".", "-")) or len(repo_id.split("/")[1]) > 96:
        raise UsageError(Param("repo_id"), f" {repo_id!r}", value=repo_id, reason=f"expected owner/name (letters, digits, '-', '_', '.')")


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


# ---------------------------------------------------------------- writing the folder
def to_table(rows: list[dict]):
    """A pyarrow table of the rows with an explicit schema: the published columns the first row has,
    with types from PairRecord's (struct fields in first-seen order; a mapping column whose rows
    hold no keys at all is left out, as parquet cannot hold a struct without fields)."""
    import pyarrow as pa

    fields = []
    for col in COLUMNS:
        if col.name not in rows[0]:
            continue
        kind = arrow_type(col.type, [row[col.name] for row in rows])
        if kind is not None:
            fields.append(pa.field(col.name, kind))
    schema = pa.schema(fields)
    return pa.Table.from_pylist([{f.name: row.get(f.name) for f in schema} for row in rows],
                                schema=schema)


def arrow_type(tp, values: list):
    """The pyarrow type of a column of Python type `tp` holding `values` (a mapping becomes a struct
    of the keys seen, in first-seen order; a record type a struct of its keys); None for a mapping
    with no keys at all."""
    import pyarrow as pa

    if typing.get_origin(tp) is dict:
        keys = list(dict.fromkeys(k for v in values for k in v))
        inner = typing.get_args(tp)[1]
        if not keys:
            return None
        return pa.struct([pa.field(k, arrow_type(inner, [v[k] for v in values if k in v])) for k in keys])
    if typing.is_typeddict(tp):
        return pa.struct([pa.field(k, arrow_type(t, [v[k] for v in values]))
                          for k, t in typing.get_type_hints(tp).items()])
    return {str: pa.string(), int: pa.int64(), bool: pa.bool_()}[tp]


def card_fields() -> list[dict]:
    """The dataset card's field table: one row per published column (consecutive columns with the
    same type and meaning share a row)."""
    table: list[dict] = []
    for col in COLUMNS:
        row = {"names": [col.name], "type": card_type(col.type), "meaning": col.meaning}
        if table and (table[-1]["type"], table[-1]["meaning"]) == (row["type"], row["meaning"]):
            table[-1]["names"].append(col.name)
        else:
            table.append(row)
    return table


def size_category(n: int) -> str:
    """The Hub's size_categories bucket for n rows."""
    for bound, label in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"),
                         (1_000_000, "100K<n<1M"), (10_000_000, "1M<n<10M")):
        if n < bound:
            return label
    return "10M<n<100M"


def _dump_yaml(data) -> str:
    import yaml

    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=1000)


def lm_eval_files(repo_id: str, configs: list[Config], prefix: str) -> dict[str, str]:
    """lm-evaluation-harness task folder: relative path -> YAML text (template, tasks, groups)."""
    base = f"lm_eval/{prefix}"
    template = {
        "dataset_path": repo_id,
        "output_type": "multiple_choice",
        "validation_split": "train",
        "doc_to_text": "",
        # lm-eval scores `target_delimiter + choice` after its prefix token; its default " " would
        # score " " + sentence, which is not the token sequence whose length was controlled (GPT-2's
        # BPE splits a sentence-initial word differently after a space). "" scores the sentence as
        # written, as fairpairs does and as lm-eval's own multiblimp / zhoblimp / blimp_nl tasks.
        "target_delimiter": "",
        "doc_to_target": 0,
        "doc_to_choice": "{{[sentence_good, sentence_bad]}}",
        "num_fewshot": 0,
        "should_decontaminate": True,
        "doc_to_decontamination_query": "{{sentence_good}} {{sentence_bad}}",
        "metric_list": [{"metric": "acc", "aggregation": "mean", "higher_is_better": True}],
        "metadata": {"version": LM_EVAL_TASK_VERSION},
    }
    files = {f"{base}/_template_yaml": _dump_yaml(template)}
    for set_name in SETS:
        tasks = [c.task for c in configs if c.set == set_name]
        if not tasks:
            continue
        group = prefix if set_name == "debiased" else f"{prefix}_original"
        files[f"{base}/_{group}.yaml"] = _dump_yaml({
            "group": group,
            "task": tasks,
            "aggregate_metric_list": [{"metric": "acc", "aggregation": "mean", "weight_by_size": False}],
            "metadata": {"version": LM_EVAL_TASK_VERSION},
        })
    for c in configs:
        files[f"{base}/{c.task}.yaml"] = _dump_yaml(
            {"include": "_template_yaml", "task": c.task, "dataset_name": c.name})
    return files


def render_card(repo_id: str, manifest: dict, configs: list[Config], skipped: list[str],
                sets: tuple[str, ...], prefix: str, check: "RunCheck | None" = None) -> str:
    """README.md: YAML front matter (configs, licence, language, task, size) and the card body."""
    import jinja2

    n_pairs = sum(len(c.rows) for c in configs)
    front = {
        "license": "cc-by-4.0",
        "language": ["en"],
        "pretty_name": repo_id.split("/")[-1],
        "task_categories": ["text-classification"],
        "task_ids": ["acceptability-classification"],
        "multilinguality": ["monolingual"],
        "annotations_creators": ["machine-generated"],
        "language_creators": ["machine-generated"],
        "size_categories": [size_category(n_pairs)],
        "tags": ["minimal-pairs", "blimp", "linguistic-acceptability", "token-length-bias", "fairpairs"],
        "configs": [{"config_name": c.name,
                     "data_files": [{"split": "train", "path": f"data/{c.name}/{DATA_FILE}"}]}
                    for c in configs],
    }
    paradigms = manifest.get("paradigms") or {}
    uids = list(dict.fromkeys(c.uid for c in configs))
    counts = {(c.uid, c.set): len(c.rows) for c in configs}
    table = []
    for uid in uids:
        info = paradigms.get(uid) if isinstance(paradigms.get(uid), dict) else {}
        table.append({"uid": uid, "info": info,
                      "published": {s: counts.get((uid, s)) for s in sets}})
    balance = {row["uid"]: row["info"].get("balance") or {} for row in table}
    low_diversity = [(uid, r) for uid, b in balance.items()
                     if (r := b.get("distinct_ratio")) is not None and r < LOW_DIVERSITY]
    flagged = [(uid, b["flags"] + (b.get("causes") or [])) for uid, b in balance.items() if b.get("flags")]
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("fairpairs", "templates"), undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True, autoescape=False)
    body = env.get_template("dataset_card.md.j2").render(
        repo_id=repo_id, manifest=manifest, configs=configs, table=table, sets=sets,
        skipped=skipped, prefix=prefix, n_pairs=n_pairs, version=__version__,
        example=configs[0], data_file=DATA_FILE, low_diversity=low_diversity, low_ratio=LOW_DIVERSITY,
        flagged=flagged, fields=card_fields(), check=check, fmt=lambda x: "" if x is None else f"{x:+.2f}")
    return f"---\n{_dump_yaml(front)}---\n\n{body}"


def _write_bytes(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def build_folder(run_dir: Path, repo_id: str, out: Path, which: str = "debiased",
                 progress: bool | None = None) -> Built:
    """Build the Hub-ready folder at `out` from a run folder; all or nothing (temp dir + rename).

    `which` is "debiased", "original" or "both". An existing `out` is replaced only if fairpairs
    wrote it (fairpairs.io.files.OutputFolder: its marker) or it is empty. `progress`: a bar while the
    parquet files are written (fairpairs.io.progress: True, False, None automatic).
    """
    import pyarrow.parquet as pq

    from fairpairs.io.progress import bar as progress_bar

    check_repo_id(repo_id)
    if which not in (*SETS, "both"):
        raise UsageError(Param("set"), f" {which!r}", value=which, reason=f"expected debiased, original or both")
    sets = SETS if which == "both" else (which,)
    run_dir, out = Path(run_dir), Path(out)
    reads = dataset_paths(run_dir)     # (run_dir/hub, the default, is beside what is read, not in it)
    folder = OutputFolder(out, "out", inputs=reads, reads=reads)   # refuses a folder not ours, before any work
    prefix = task_prefix(repo_id)
    manifest, configs, skipped, check = read_checked_run(run_dir, sets, prefix)
    for line in check.unchecked:
        warnings.warn(f"not checked: {line}", FairpairsWarning, stacklevel=2)
    with folder as tmp:
        with progress_bar(len(configs), "parquet", "config", progress=progress,
                          first=f"writing {len(configs):,} dataset configs to {out}") as bar:
            for c in configs:
                target = tmp / "data" / c.name / DATA_FILE
                target.parent.mkdir(parents=True)
                pq.write_table(to_table(c.rows), target)
                bar.update(1)
        for rel, text in lm_eval_files(repo_id, configs, prefix).items():
            _write_bytes(tmp / rel, text.encode("utf-8"))
        card = render_card(repo_id, manifest, configs, skipped, sets, prefix, check)
        _write_bytes(tmp / "README.md", card.encode("utf-8"))
        shutil.copyfile(run_dir / "manifest.json", tmp / MANIFEST_COPY)
    return Built(out, configs, skipped, check)


# ---------------------------------------------------------------- uploading
def _network_errors() -> tuple[type[BaseException], ...]:
    """Exception types that mean "the Hub could not be reached or refused the upload"."""
    import importlib

    from huggingface_hub.errors import HfHubHTTPError, OfflineModeIsEnabled

    errors: list[type[BaseException]] = [HfHubHTTPError, OfflineModeIsEnabled, OSError, ValueError]
    for name in ("httpx2", "httpx"):  # huggingface_hub's HTTP client (requests errors are OSErrors)
        try:
            errors.append(importlib.import_module(name).HTTPError)
        except ImportError:
            continue
    return tuple(errors)


def upload(built: Built, repo_id: str, private: bool = False) -> tuple[str, str]:
    """Create the dataset repo if needed and upload the folder in one commit -> (repo URL, commit URL).

    Offline mode, a missing token or any Hub/network failure is a one-line PublishError that says
    the built folder was kept.
    """
    import huggingface_hub
    from huggingface_hub import HfApi, constants

    kept = f"the built folder is kept at {built.folder}"
    if constants.is_offline_mode():
        raise PublishError(f"cannot upload: offline mode (HF_HUB_OFFLINE) is set; {kept}")
    token = huggingface_hub.get_token()
    if not token:
        raise PublishError("cannot upload: no Hugging Face token; set HF_TOKEN or run "
                           f"`hf auth login`; {kept}")
    sets = sorted({c.set for c in built.configs}, key=SETS.index)
    message = (f"fairpairs {__version__}: publish {' + '.join(sets)} pairs "
               f"({len(built.configs)} configs, {built.n_pairs} pairs)")
    api = HfApi(token=token)
    try:
        with network_deadline(f"upload to {repo_id}"):
            repo_url = api.create_repo(repo_id, repo_type="dataset", private=private, exist_ok=True)
            info = api.upload_folder(folder_path=built.folder, repo_id=repo_id, repo_type="dataset",
                                     commit_message=message, delete_patterns=REPLACED_ON_UPLOAD,
                                     ignore_patterns=[MARKER])
    except NetworkError as exc:
        raise PublishError(f"{exc}; {kept}") from None
    except _network_errors() as exc:
        reason = one_line(exc) or type(exc).__name__
        raise PublishError(f"upload to {repo_id} failed: {reason}; {kept}") from None
    return str(repo_url), info.commit_url
