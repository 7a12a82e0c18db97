"""Pairs as pandas frames: `fp.to_frame` (one row per pair, len_<tokenizer>_good/bad columns),
`fp.load_sets` keeping every column, `RunResult.table()` under the manifest's names.

References: token counts from the bundled tokenizer.json files read with the `tokenizers` library
directly (tests/references.py), the jsonl rows a run writes (read with json), its manifest.json.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest

import fairpairs as fp
from references import reference_tokenizer

UIDS = ["determiner_noun_agreement_1", "anaphor_number_agreement"]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("frames") / "run"
    result = fp.generate_run(out, paradigms=UIDS, models=["gpt2", "bert-base-cased"], pairs=30, seed=3)
    return out, result


def jsonl_rows(folder):
    return [json.loads(line) for f in sorted(folder.glob("*.jsonl")) for line in f.read_text().splitlines()]


def test_to_frame_of_generated_pairs_has_flat_lengths():
    pairs = fp.generate(fp.load_paradigm(UIDS[0]), pairs=12, models=["gpt2", "bert-base-cased"], seed=1)
    frame = fp.to_frame(pairs)
    assert len(frame) == 12 and "token_lengths" not in frame.columns
    for tok in ("gpt2", "bert-base-cased"):
        ref = reference_tokenizer(tok)
        for side in ("good", "bad"):
            col = frame[f"len_{tok}_{side}"]
            assert str(col.dtype) == "Int64"
            expected = [len(ref.encode(s, add_special_tokens=False).ids) for s in frame[f"sentence_{side}"]]
            assert col.tolist() == expected
    # every other field of the records is there, under its record name (uid, pair_id: the API's names)
    assert {"field", "linguistics_term", "critical_good", "critical_bad", "control", "draw", "fillers"} <= set(frame)
    assert frame["uid"].tolist() == [p.uid for p in pairs] and frame["pair_id"].tolist() == [p.pair_id for p in pairs]
    assert frame["critical_good"].tolist() == [p.critical_good for p in pairs]
    # a slice a researcher makes: pairs whose lengths differ under gpt2 (none, after length control)
    assert (frame["len_gpt2_good"] != frame["len_gpt2_bad"]).sum() == 0


def test_load_sets_keeps_every_column_of_a_run(run):
    out, _ = run
    sets = fp.load_sets(out)
    for name in ("original", "debiased"):
        rows = jsonl_rows(out / name)
        df = sets[name]
        assert list(df.columns[:4]) == ["uid", "pair_id", "sentence_good", "sentence_bad"]
        assert len(df) == len(rows)
        assert set(df.columns) == set(rows[0])     # one pair schema: the frame's columns are the jsonl keys
        for key in rows[0]:
            assert df[key].tolist() == [r[key] for r in rows], key


def test_to_frame_of_a_run_folder_has_both_sets(run):
    out, _ = run
    frame = fp.to_frame(out)
    assert frame.columns[0] == "set" and set(frame["set"]) == {"original", "debiased"}
    debiased = frame[frame["set"] == "debiased"]
    assert (debiased["len_gpt2_good"] == debiased["len_gpt2_bad"]).all()
    assert (debiased["len_bert-base-cased_good"] == debiased["len_bert-base-cased_bad"]).all()
    n_orig = len(jsonl_rows(out / "original"))
    assert (frame["set"] == "original").sum() == n_orig


def test_load_sets_of_a_frame_keeps_its_columns():
    df = pd.DataFrame({"sentence_good": ["A cat sleeps.", "Dogs bark."], "sentence_bad": ["A cat sleep.", "Dogs barks."],
                       "UID": ["sv", "sv"], "annotator": ["x", "y"]})
    (name, got), = fp.load_sets(df).items()
    assert got.columns.tolist() == ["uid", "pair_id", "sentence_good", "sentence_bad", "annotator"]
    assert got["annotator"].tolist() == ["x", "y"] and got["uid"].tolist() == ["sv", "sv"]


def test_run_table_uses_the_manifest_names_and_agrees_with_the_rows(run):
    out, result = run
    table = result.table()
    assert "yield_" not in table.columns and "yield" in table.columns
    manifest = json.loads((out / "manifest.json").read_text())
    assert len(table) == 2 * len(UIDS)
    for row in table.to_dict("records"):
        stats = manifest["paradigms"][row["uid"]][f"{row['set']}_stats"]
        assert {k: row[k] for k in stats} == stats
        assert list(table.columns[2:]) == list(stats)
    # the account recounted from the debiased rows' `control` field (by hand, not from the stats)
    rows = [r for r in jsonl_rows(out / "debiased") if r["uid"] == UIDS[0]]
    row = table[(table["uid"] == UIDS[0]) & (table["set"] == "debiased")].iloc[0]
    counts = pd.Series([r["control"] for r in rows]).value_counts()
    assert row["kept"] == len(rows)
    assert row["kept_as_drawn"] == counts.get("as_drawn", 0) and row["replaced"] == counts.get("replaced", 0)
    assert row["yield"] == pytest.approx((counts.get("as_drawn", 0) + counts.get("bad_redrawn", 0)) / row["drawn"], abs=1e-4)
    with_balance = result.table(balance=True)
    assert with_balance.loc[with_balance["set"] == "debiased", "distinct_ratio"].notna().all()
    assert not with_balance.columns.duplicated().any()
