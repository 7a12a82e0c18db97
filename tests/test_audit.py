"""`fairpairs audit`: dataset loading and token-length-bias counts."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pandas as pd
import pytest

from fairpairs.analysis.length_audit import length_bias, split_label
from fairpairs.pairsets import Columns
from fairpairs.api import load_sets
from references import BLIMP_SAMPLE, BLIMP_SAMPLE_PAIRS, reference_tokenizer

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def write_jsonl(path: Path, rows) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def pair(good, bad, uid="p1", pid="0"):
    return {"sentence_good": good, "sentence_bad": bad, "field": "f", "linguistics_term": "t",
            "UID": uid, "pairID": pid, "lexically_identical": False}


# Every word and the full stop is one token for both gpt2 and bert-base-cased:
# "The cat is here." = 5 tokens, "The cat is here now." = 6, "The cat is here here." = 6.
HAND = [
    pair("The cat is here.", "The cat are here.", "p1", "0"),        # 5 vs 5  A=U
    pair("The cat is here.", "The cat is here here.", "p1", "1"),    # 5 vs 6  A<U
    pair("The cat is here now.", "The cat is here.", "p1", "2"),     # 6 vs 5  A>U
    pair("The cat is here now.", "The cat is here.", "p2", "0"),     # 6 vs 5  A>U
    pair("The cat is here.", "The cat was here.", "p2", "1"),        # 5 vs 5  A=U
]


def test_split_label_directions():
    assert split_label(5, 5) == "A=U"
    assert split_label(6, 5) == "A>U"  # acceptable sentence longer
    assert split_label(5, 6) == "A<U"


def test_hand_made_counts(tmp_path, fairpairs_cli):
    data = write_jsonl(tmp_path / "hand.jsonl", HAND)
    code, out, _ = fairpairs_cli("audit", data, "--models", "gpt2,bert-base-cased", "--out", tmp_path / "o")
    assert code == 0
    df = pd.read_csv(tmp_path / "o" / "length_bias.csv")
    assert list(df.columns[:6]) == ["uid", "tokenizer", "n_pairs", "n_equal", "n_good_longer", "n_good_shorter"]
    for tok in ("gpt2", "bert-base-cased"):
        got = df[df.tokenizer == tok].set_index("uid")
        assert got.loc["p1", ["n_pairs", "n_equal", "n_good_longer", "n_good_shorter"]].tolist() == [3, 1, 1, 1]
        assert got.loc["p2", ["n_pairs", "n_equal", "n_good_longer", "n_good_shorter"]].tolist() == [2, 1, 1, 0]
        assert got.loc["ALL", ["n_pairs", "n_equal", "n_good_longer", "n_good_shorter"]].tolist() == [5, 2, 2, 1]
        assert got.loc["p1", "mean_diff"] == pytest.approx(0.0)
        assert got.loc["p2", "mean_diff"] == pytest.approx(-0.5)
    dist = pd.read_csv(tmp_path / "o" / "length_diff.csv")
    p1 = dist[(dist.uid == "p1") & (dist.tokenizer == "gpt2")]
    assert dict(zip(p1.len_diff, p1["count"])) == {-1: 1, 0: 1, 1: 1}
    assert "A>U" in out and "gpt2" in out


def naive_counts(path: Path, tokenizer: str) -> tuple[int, int, int, int]:
    """Count A=U / A>U / A<U with the reference tokenizer file read by the `tokenizers` library."""
    tok = reference_tokenizer(tokenizer)
    eq = longer = shorter = n = 0
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        g = len(tok.encode(row["sentence_good"], add_special_tokens=False).ids)
        b = len(tok.encode(row["sentence_bad"], add_special_tokens=False).ids)
        n += 1
        eq += g == b
        longer += g > b
        shorter += g < b
    return n, eq, longer, shorter


def check_public_blimp_files(blimp: Path, n: int, tmp_path, fairpairs_cli):
    folder = tmp_path / "blimp"
    folder.mkdir()
    files = ["determiner_noun_agreement_1.jsonl", "causative.jsonl"]
    for f in files:
        shutil.copy(blimp / f, folder / f)
    code, _, _ = fairpairs_cli("audit", folder, "--models", "gpt2,bert-base-cased", "--out", tmp_path / "o")
    assert code == 0
    df = pd.read_csv(tmp_path / "o" / "length_bias.csv").set_index(["uid", "tokenizer"])
    total = {"gpt2": [0, 0, 0, 0], "bert-base-cased": [0, 0, 0, 0]}
    for f in files:
        for tok in total:
            want = naive_counts(blimp / f, tok)
            got = df.loc[(f[:-len(".jsonl")], tok), ["n_pairs", "n_equal", "n_good_longer", "n_good_shorter"]]
            assert tuple(int(x) for x in got) == want
            assert want[0] == n and want[1] < n  # these paradigms do hold pairs of unequal length
            total[tok] = [a + b for a, b in zip(total[tok], want)]
    for tok, want in total.items():
        got = df.loc[("ALL", tok), ["n_pairs", "n_equal", "n_good_longer", "n_good_shorter"]]
        assert [int(x) for x in got] == want


def test_public_blimp_sample_matches_independent_tokenizers(tmp_path, fairpairs_cli):
    check_public_blimp_files(BLIMP_SAMPLE, BLIMP_SAMPLE_PAIRS, tmp_path, fairpairs_cli)


@pytest.mark.slow
def test_public_blimp_files_match_independent_tokenizers(shared, tmp_path, fairpairs_cli):
    check_public_blimp_files(shared / "reference" / "blimp", 1000, tmp_path, fairpairs_cli)


@pytest.mark.slow
def test_crows_pairs_reproduces_seed_paper_table2(shared, fairpairs_cli):
    # Ueda et al. 2024, Table 2, CrowS-Pairs row: A=U / A>U / A<U per tokenizer.
    code, out, _ = fairpairs_cli("audit", shared / "reference" / "crows_pairs_anonymized.csv",
                                 "--good-col", "sent_more", "--bad-col", "sent_less",
                                 "--models", "gpt2,bert-base-cased,electra-base-generator")
    assert code == 0
    sets = load_sets(shared / "reference" / "crows_pairs_anonymized.csv", Columns("sent_more", "sent_less"))
    summary, _ = length_bias(sets, ["gpt2", "bert-base-cased", "electra-base-generator"])
    table = summary[summary.uid == "ALL"].set_index("tokenizer")
    paper = {"gpt2": (997, 282, 229), "bert-base-cased": (1021, 283, 204), "electra-base-generator": (1092, 255, 161)}
    for tok, want in paper.items():
        assert tuple(table.loc[tok, ["n_equal", "n_good_longer", "n_good_shorter"]]) == want
        assert " ".join(map(str, want)) in " ".join(out.split())


def test_group_col_on_csv(tmp_path):
    csv = tmp_path / "c.csv"
    pd.DataFrame({"a": ["The cat is here.", "The cat is here now."], "b": ["The cat is here here.", "The cat is here."],
                  "kind": ["x", "y"]}).to_csv(csv, index=False)
    summary, _ = length_bias(load_sets(csv, Columns("a", "b", "kind")), ["gpt2"])
    got = summary.set_index("uid")
    assert got.loc["x", "n_good_shorter"] == 1 and got.loc["y", "n_good_longer"] == 1
    # without a group column every pair falls into one group named after the file
    assert load_sets(csv, Columns("a", "b"))["c"]["uid"].unique().tolist() == ["c"]


def test_run_folder_parquet_and_hf_disk_inputs(tmp_path):
    run = tmp_path / "run"
    row = dict(HAND[1], critical_good={"x": "is"}, critical_bad={"x": "here"},
               token_lengths={"gpt2": {"good": 5, "bad": 6}}, redraws=0)
    write_jsonl(run / "original" / "p1.jsonl", [row, HAND[0]])
    write_jsonl(run / "debiased" / "p1.jsonl", [HAND[0]])
    (run / "manifest.json").write_text("{}")
    sets = load_sets(run)
    assert sorted(sets) == ["debiased", "original"]
    assert len(sets["original"]) == 2 and len(sets["debiased"]) == 1
    assert sets["original"]["pair_id"].tolist() == ["1", "0"]
    # a publish folder: jsonl files beside the copied run manifest, which is no data
    pub = tmp_path / "pub"
    write_jsonl(pub / "data" / "p1.jsonl", [HAND[0], HAND[1]])
    (pub / "fairpairs_manifest.json").write_text('{"paradigms": {}}')
    assert len(load_sets(pub)["pub"]) == 2

    pq = tmp_path / "hand.parquet"
    pd.DataFrame(HAND).to_parquet(pq)
    assert load_sets(pq)["hand"]["sentence_bad"].tolist() == [r["sentence_bad"] for r in HAND]

    import datasets

    datasets.DatasetDict({"train": datasets.Dataset.from_list(HAND[:2]),
                          "test": datasets.Dataset.from_list(HAND[2:])}).save_to_disk(str(tmp_path / "hf"))
    hf = load_sets(tmp_path / "hf")
    assert sorted(hf) == ["test", "train"] and len(hf["test"]) == 3


@pytest.mark.parametrize("content, message", [
    ('{"sentence_good": "A b.", "sentence_bad": "A c.", "UID": "u"}\n{"sentence_good": "A b.", "UID": "u"}\n',
     "bad.jsonl:2: missing field 'sentence_bad'"),
    ('{"sentence_good": "A b.", "sentence_bad": "A c.", "UID": "u"}\n{"sentence_good": "A b.", \n',
     "bad.jsonl:2: invalid JSON"),
    ('{"sentence_good": "", "sentence_bad": "A c.", "UID": "u"}\n', "bad.jsonl:1: field 'sentence_good' is empty"),
    ('["A b.", "A c."]\n', "bad.jsonl:1: expected a JSON object"),
])
def test_bad_jsonl_gives_file_and_line(tmp_path, fairpairs_cli, content, message):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(content, encoding="utf-8")
    code, out, err = fairpairs_cli("audit", bad, "--models", "gpt2", "--out", tmp_path / "o")
    assert code == 1
    assert err.startswith("fairpairs: error: ") and message in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "o" / "length_bias.csv").exists()


def test_bad_inputs_other_formats(tmp_path, fairpairs_cli):
    csv = tmp_path / "x.csv"
    csv.write_text("sent_more,other\nA b.,A c.\n", encoding="utf-8")
    code, _, err = fairpairs_cli("audit", csv, "--good-col", "sent_more", "--bad-col", "sent_less")
    assert code == 1 and "x.csv: missing column 'sent_less'" in err

    csv.write_text("sentence_good,sentence_bad\nA b.,A c.\nA b.,\n", encoding="utf-8")
    code, _, err = fairpairs_cli("audit", csv)
    assert code == 1 and "x.csv: row 2: field 'sentence_bad' is empty" in err

    code, _, err = fairpairs_cli("audit", tmp_path / "nope.jsonl")
    assert code == 1 and "nope.jsonl: no such file or folder" in err

    (tmp_path / "empty").mkdir()
    code, _, err = fairpairs_cli("audit", tmp_path / "empty")
    assert code == 1 and "no dataset files" in err

    write_jsonl(tmp_path / "g.jsonl", HAND[:1])
    code, _, err = fairpairs_cli("audit", tmp_path / "g.jsonl", "--group-col", "paradigm")
    assert code == 1 and "g.jsonl:1: missing field 'paradigm'" in err

    code, _, err = fairpairs_cli("audit", tmp_path / "g.jsonl", "--models", "no-such-tokenizer-xyz")
    assert code == 1 and "no-such-tokenizer-xyz" in err
