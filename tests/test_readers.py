"""`fairpairs audit` on other languages' datasets: CLAMS evalsets, MultiBLiMP's data.tsv and
ZhoBLiMP-style jsonl (fairpairs.analysis.readers), the pairs equal under every tokenizer, and `--select`
(row ids and the balance report). Fixtures: tests/fixtures/{clams,multiblimp,zhoblimp} (sources
and licences there). Expected token counts come from the `tokenizers` library reading the bundled
GPT-2 and BERT files directly (a peer reader, not fairpairs' LengthMeter)."""

from pathlib import Path

import pandas as pd
import pytest

import fairpairs as fp
from fairpairs.errors import DatasetError
from fairpairs.analysis.readers import detect, read
from references import reference_tokenizer

FIX = Path(__file__).parent / "fixtures"
def n_tokens(name: str, text: str) -> int:
    """Tokens of `text` under the reference tokenizer file, read by the `tokenizers` library (loaded once)."""
    return len(reference_tokenizer(name).encode(text, add_special_tokens=False).ids)


# ---------------------------------------------------------------- readers
def test_clams_pairs_are_adjacent_true_false_lines():
    assert detect(FIX / "clams") == "clams" and detect(FIX / "clams" / "prep_anim.txt") == "clams"
    (name, df), = read(FIX / "clams").frames().items()
    assert name == "clams"
    assert df.to_dict("records") == [
        {"uid": "prep_anim", "pair_id": "prep_anim.txt:1", "sentence_good": "die Schriftsteller vor den Wächter sind alt",
         "sentence_bad": "die Schriftsteller vor den Wächter ist alt"},
        {"uid": "prep_anim", "pair_id": "prep_anim.txt:3", "sentence_good": "die Schriftsteller vor den Wächter sind jung",
         "sentence_bad": "die Schriftsteller vor den Wächter ist jung"},
        {"uid": "simple_agrmt", "pair_id": "simple_agrmt.txt:1", "sentence_good": "les auteurs sont vieux",
         "sentence_bad": "les auteurs est vieux"},
        {"uid": "simple_agrmt", "pair_id": "simple_agrmt.txt:3", "sentence_good": "les auteurs sont jeunes",
         "sentence_bad": "les auteurs est jeune"},
        {"uid": "simple_agrmt", "pair_id": "simple_agrmt.txt:5", "sentence_good": "les auteurs sont petits",
         "sentence_bad": "les auteurs est petit"},
    ]


@pytest.mark.parametrize("text, message", [
    ("True\ta b\nTrue\tc d\nFalse\te f\n", r"x.txt:2: a True line follows the True line 1"),
    ("False\ta b\n", r"x.txt:1: a False line with no True line before it"),
    ("True\ta b\n", r"x.txt:1: the last True line has no False line"),
    ("True\ta b\nMaybe\tc d\n", r"x.txt:2: not a CLAMS line"),
    ("True a b\nFalse c d\n", r"x.txt:1: not a CLAMS line"),
])
def test_clams_bad_files(tmp_path, text, message):
    f = tmp_path / "x.txt"
    f.write_text(text, encoding="utf-8")
    with pytest.raises(DatasetError, match=message):
        read(f, "clams")


def test_multiblimp_groups_by_language_phenomenon_and_features():
    assert detect(FIX / "multiblimp") == "multiblimp" and detect(FIX / "multiblimp" / "data.tsv") == "multiblimp"
    (name, df), = read(FIX / "multiblimp").frames().items()
    assert name == "multiblimp"
    assert df["uid"].tolist() == ["fra/SV-#/PL→SG", "fra/SV-#/SG→PL", "fra/SV-P/1→2", "deu/SV-#/PL→SG",
                                  "deu/SV-#/SG→PL", "fra/SP-G/Fem→Masc"]
    assert df["pair_id"].tolist() == [f"data.tsv:{n}" for n in range(2, 8)]   # line numbers, header = line 1
    assert df.iloc[3]["sentence_good"] == "Die Kinder spielen im Garten."
    assert df.iloc[3]["sentence_bad"] == "Die Kinder spielt im Garten."


def test_multiblimp_missing_column(tmp_path):
    f = tmp_path / "data.tsv"
    f.write_text("sen\twrong_sen\tlang\nA b.\tA c.\tfra\n", encoding="utf-8")
    with pytest.raises(DatasetError, match=r"data.tsv: missing column\(s\) phenomenon, grammatical_feature"):
        read(f, "multiblimp")


def test_zhoblimp_groups_by_paradigm_field():
    sets = read(FIX / "zhoblimp", "zhoblimp")
    df = sets["zhoblimp"].frame
    assert df["uid"].tolist() == ["BA_verb_le_a", "BA_inversion", "classifier_noun_agreement",
                                  "classifier_noun_agreement", "classifier_noun_agreement"]
    assert df["pair_id"].tolist() == ["ba.jsonl:1", "ba.jsonl:2", "classifier.jsonl:1", "classifier.jsonl:2",
                                      "classifier.jsonl:3"]


def test_unknown_format():
    with pytest.raises(ValueError, match=r"^format: unknown dataset format 'cola'"):
        fp.audit(FIX / "clams", "gpt2", format="cola")


# ---------------------------------------------------------------- audit on them
@pytest.mark.parametrize("folder, fmt", [("clams", "auto"), ("multiblimp", "multiblimp"), ("zhoblimp", "zhoblimp")])
def test_audit_counts_match_a_peer_tokenizer(folder, fmt):
    sets = read(FIX / folder, fmt)
    pairs = next(iter(sets.values())).pairs
    report = fp.audit_report(FIX / folder, ["gpt2", "bert-base-cased"], format=fmt)
    summary = report["summary"]
    eq_all = 0
    equal = {"gpt2": 0, "bert-base-cased": 0}
    longer = {"gpt2": 0, "bert-base-cased": 0}
    for row in pairs.itertuples():
        diffs = {t: n_tokens(t, row.sentence_bad) - n_tokens(t, row.sentence_good) for t in equal}
        for t, d in diffs.items():
            equal[t] += d == 0
            longer[t] += d < 0
        eq_all += all(d == 0 for d in diffs.values())
    for t in equal:
        pooled = summary[(summary["uid"] == "ALL") & (summary["tokenizer"] == t)].iloc[0]
        assert (pooled["n_pairs"], pooled["n_equal"], pooled["n_good_longer"]) == (len(pairs), equal[t], longer[t])
    joint = report["equal_all"]
    assert joint[joint["uid"] == "ALL"].iloc[0]["n_equal_all"] == eq_all


# ---------------------------------------------------------------- --select
def test_select_writes_row_ids_and_the_balance_report(tmp_path, fairpairs_cli):
    sel = tmp_path / "sel"
    code, out, err = fairpairs_cli("audit", str(FIX / "multiblimp"), "--models", "gpt2,bert-base-cased",
                                   "--select", str(sel), "--language", "fr")
    assert code == 0, err
    ids = pd.read_csv(sel / "selected_ids.csv", dtype=str)
    assert list(ids.columns) == ["set", "uid", "pair_id"]
    pairs = read(FIX / "multiblimp")["multiblimp"].pairs
    keep = [r.pair_id for r in pairs.itertuples()
            if all(n_tokens(t, r.sentence_good) == n_tokens(t, r.sentence_bad) for t in ("gpt2", "bert-base-cased"))]
    assert ids["pair_id"].tolist() == keep
    text = (sel / "selected_ids.csv").read_text(encoding="utf-8")
    assert not any(s in text for s in pairs["sentence_good"])          # ids, never the sentences
    balance = pd.read_csv(sel / "balance.csv")
    assert {"set", "uid", "n_original", "n_debiased", "smd_words_good", "balanced"} <= set(balance.columns)
    assert balance[balance["uid"] == "ALL"].iloc[0]["n_debiased"] == len(keep)
    assert f"{len(keep)} of 6 pairs" in out


def test_select_refuses_to_write_into_the_dataset(tmp_path, fairpairs_cli):
    data = tmp_path / "clams"
    data.mkdir()
    (data / "simple_agrmt.txt").write_bytes((FIX / "clams" / "simple_agrmt.txt").read_bytes())
    code, out, err = fairpairs_cli("audit", str(data), "--models", "gpt2", "--select", str(data))
    assert code in (1, 2) and err.count("\n") == 1 and "--select" in err
    assert sorted(p.name for p in data.iterdir()) == ["simple_agrmt.txt"]


def test_cli_bad_file_is_one_line(tmp_path, fairpairs_cli):
    f = tmp_path / "x.txt"
    f.write_text("True\tles auteurs sont vieux\nTrue\tles auteurs est vieux\n", encoding="utf-8")
    code, out, err = fairpairs_cli("audit", str(f), "--models", "gpt2")
    assert code == 1 and err.count("\n") == 1 and "x.txt:2: a True line follows the True line 1" in err
