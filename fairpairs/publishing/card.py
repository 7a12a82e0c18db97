"""What a published dataset holds besides its rows' source: the parquet table and its arrow types,
the dataset card (README.md with the field table derived from PairRecord), and the lm-evaluation-
harness task files."""

from __future__ import annotations

import typing
from fairpairs import __version__
from fairpairs.control.balance_measures import LOW_DIVERSITY
from fairpairs.manifest import RunManifest
from fairpairs.records import card_type
from fairpairs.publishing.layout import COLUMNS, Config, DATA_FILE, LM_EVAL_TASK_VERSION, SETS
from fairpairs.publishing.verify import RunCheck


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
    schema = pa.schema(fields)    # (built column by column: the same table as row by row, without a dict per row)
    return pa.Table.from_pydict({f.name: [row.get(f.name) for row in rows] for f in fields}, schema=schema)


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


def _known(value, default):
    """`value`, or `default` where the manifest has none (None: absent from the file)."""
    return default if value is None else value


def _cell(record, name: str):
    """A table cell: the record's field, blank where the record or the field is absent."""
    return "" if record is None or getattr(record, name) is None else getattr(record, name)


def render_card(repo_id: str, manifest: RunManifest, configs: list[Config], skipped: list[str],
                sets: tuple[str, ...], prefix: str, check: "RunCheck | None" = None) -> str:
    """README.md: YAML front matter (configs, licence, language, task, size) and the card body."""
    import jinja2

    from fairpairs.manifest import verdict_text

    n_pairs = sum(len(c.rows) for c in configs)
    language = manifest.run_language      # (resolved by the API's reader)
    front = {
        "license": "cc-by-4.0",
        "language": [language.code],
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
    paradigms = manifest.paradigms or {}
    uids = list(dict.fromkeys(c.uid for c in configs))
    counts = {(c.uid, c.set): len(c.rows) for c in configs}
    table = []
    for uid in uids:
        info = paradigms.get(uid)    # a ParadigmEntry, None if the manifest has none for uid
        table.append({"uid": uid, "info": info, "stats": info.debiased_stats if info else None,
                      "balance": (info.balance if info else None) or {},
                      "published": {s: counts.get((uid, s)) for s in sets}})
    balance = {row["uid"]: row["balance"] for row in table}
    low_diversity = [(uid, r) for uid, b in balance.items()
                     if (r := b.get("distinct_ratio")) is not None and r < LOW_DIVERSITY]
    flagged = [(uid, b["flags"] + (b.get("causes") or [])) for uid, b in balance.items() if b.get("flags")]
    extension = [(uid, b["extension_share"]) for uid, b in balance.items() if b.get("extension_share")]
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("fairpairs", "templates"), undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True, autoescape=False)
    body = env.get_template("dataset_card.md.j2").render(
        repo_id=repo_id, manifest=manifest, language=language.name, configs=configs, table=table, sets=sets,
        skipped=skipped, prefix=prefix, n_pairs=n_pairs, version=__version__,
        example=configs[0], data_file=DATA_FILE, low_diversity=low_diversity, low_ratio=LOW_DIVERSITY,
        flagged=flagged, extension=extension, fields=card_fields(), check=check,
        verdict=verdict_text(manifest.verdict), pair=next((c for c in configs if c.rows), None), fmt=lambda x: "" if x is None else f"{x:+.2f}",
        known=_known, cell=_cell, dropped=any(row["stats"].dropped for row in table if row["stats"] and row["stats"].dropped),
        bias=manifest.original_bias or {}, splits=("A=U", "A>U", "A<U"),
        split_rows=[(row["uid"], row["info"].original_bias) for row in table if row["info"] and row["info"].original_bias])
    return f"---\n{_dump_yaml(front)}---\n\n{body}"
