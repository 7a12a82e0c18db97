"""Trust, round 4 (issue 34): the run's language everywhere, empty and unloadable sets in balance,
no tracebacks, messages that name what the user wrote. One test (or a few) per class; each failed
on c7e230c. The CLI runs in-process (`cli`)."""

from __future__ import annotations

import json
import math
import statistics
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FR = ["fr/fr_simple_agrmt_n1sg", "fr/fr_subj_rel_n1pl_n2sg"]
DE = ["de/de_simple_agrmt_n1sg"]
UID = "determiner_noun_agreement_1"


def error_line(err: str) -> str:
    lines = [x for x in err.splitlines() if x.strip()]
    assert len(lines) == 1, err
    return lines[0]


def _generate(out: Path, paradigms: list[str], pairs: int = 8) -> Path:
    import fairpairs as fp

    fp.generate_run(out, paradigms, models=["gpt2"], pairs=pairs)
    return out


@pytest.fixture(scope="module")
def fr_run(tmp_path_factory) -> Path:
    return _generate(tmp_path_factory.mktemp("fr") / "run", FR)


@pytest.fixture(scope="module")
def de_run(tmp_path_factory) -> Path:
    return _generate(tmp_path_factory.mktemp("de") / "run", DE)


@pytest.fixture(scope="module")
def en_run(tmp_path_factory) -> Path:
    return _generate(tmp_path_factory.mktemp("en") / "run", [UID], pairs=6)


def _rows(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def _naive_smd_zipf_good(run: Path, uid: str, language: str) -> float:
    """The SMD of the good sentences' critical-word Zipf frequency, by hand: per pair the mean
    wordfreq Zipf of its critical_good words, (mean(debiased) - mean(original)) / pooled SD."""
    from wordfreq import zipf_frequency

    def per_pair(which):
        return [statistics.mean(zipf_frequency(w, language) for w in r["critical_good"].values() if w.strip())
                for r in _rows(run / which / f"{uid}.jsonl")]

    a, b = per_pair("original"), per_pair("debiased")
    return (statistics.mean(b) - statistics.mean(a)) / math.sqrt((statistics.variance(a) + statistics.variance(b)) / 2)


# ------------------------------------------------------------------ 3. the run's language everywhere
@pytest.mark.parametrize("which,code", [("fr_run", "fr"), ("de_run", "de")])
def test_a_french_or_german_run_publishes_with_a_card_in_its_language(which, code, request, tmp_path, fairpairs_cli):
    run = request.getfixturevalue(which)
    assert json.loads((run / "manifest.json").read_text())["language"] == code
    rc, out, err = fairpairs_cli("publish", run, "--dry-run", "--repo-id", "me/x", "--out", tmp_path / "pub")
    assert rc in (0, None), err
    front = (tmp_path / "pub" / "README.md").read_text(encoding="utf-8").split("---")[1]
    import yaml

    assert yaml.safe_load(front)["language"] == [code]
    assert "vocabulary table's sha256" in out      # the bundled fr.csv / de.csv is recognised and checked


def test_balance_uses_the_run_languages_word_frequencies(fr_run, tmp_path, fairpairs_cli):
    rc, out, err = fairpairs_cli("balance", fr_run, "--out", tmp_path / "b.csv")
    assert rc in (0, None), err
    import pandas as pd

    table = pd.read_csv(tmp_path / "b.csv").set_index("uid")
    uid = FR[0].split("/")[1]
    fr, en = _naive_smd_zipf_good(fr_run, uid, "fr"), _naive_smd_zipf_good(fr_run, uid, "en")
    assert abs(fr - en) > 0.01                       # the check can tell the languages apart
    assert table.loc[uid, "smd_zipf_good"] == pytest.approx(fr, abs=1e-4)
    assert table.loc[uid, "tvd_slots"] == table.loc[uid, "tvd_slots"]   # slot features found (fr files)


def test_balance_refuses_a_grammar_folder_without_the_runs_files(fr_run, tmp_path, fairpairs_cli):
    english = tmp_path / "g"
    english.mkdir()
    (english / "causative.yaml").write_bytes((REPO / "grammars" / "causative.yaml").read_bytes())
    rc, _, err = fairpairs_cli("balance", fr_run, "--grammars", english)
    assert rc == 1
    line = error_line(err)
    assert "--grammars" in line and "fr_simple_agrmt_n1sg" in line


def test_audit_select_uses_the_run_language_by_default(fr_run, tmp_path, fairpairs_cli):
    outs = {}
    for name, extra in (("default", []), ("fr", ["--language", "fr"]), ("en", ["--language", "en"])):
        rc, _, err = fairpairs_cli("audit", fr_run, "--models", "gpt2", "--select", tmp_path / name, *extra)
        assert rc in (0, None), err
        outs[name] = (tmp_path / name / "balance.csv").read_text()
    assert outs["default"] == outs["fr"] != outs["en"]


def test_publish_check_still_catches_an_edited_french_statistic(fr_run, tmp_path, fairpairs_cli):
    import shutil

    run = tmp_path / "run"
    shutil.copytree(fr_run, run)
    doc = json.loads((run / "manifest.json").read_text())
    uid = FR[0].split("/")[1]
    doc["paradigms"][uid]["balance"]["smd_zipf_good"] += 0.5
    (run / "manifest.json").write_text(json.dumps(doc, indent=2))
    rc, _, err = fairpairs_cli("publish", run, "--dry-run", "--repo-id", "me/x", "--out", tmp_path / "pub")
    assert rc == 1 and "smd_zipf_good" in error_line(err)


# ------------------------------------------------------------------ 5. empty sets, unloadable files
def test_an_empty_paradigm_is_not_balanced(en_run):
    import fairpairs as fp

    rows = _rows(en_run / "original" / f"{UID}.jsonl")
    other = [{**r, "uid": "other_paradigm"} for r in rows]
    table = fp.balance({"original": rows + other, "debiased": rows}).set_index("uid")
    assert bool(table.loc[UID, "balanced"])            # the same set against itself
    assert not bool(table.loc["other_paradigm", "balanced"])
    assert "empty" in table.loc["other_paradigm", "flags"]
    assert not bool(table.loc["ALL", "balanced"])


def test_balance_cli_counts_an_empty_paradigm_as_not_balanced(en_run, tmp_path, fairpairs_cli):
    import shutil

    run = tmp_path / "run"
    shutil.copytree(en_run, run)
    (run / "debiased" / f"{UID}.jsonl").write_text("")
    rc, out, err = fairpairs_cli("balance", run)
    assert rc in (0, None), err
    assert "0 of 1 paradigm(s) balanced" in " ".join(out.split())
    assert "empty" in out


def test_a_paradigm_file_that_does_not_load_is_reported_as_validate_does(en_run, tmp_path, fairpairs_cli):
    folder = tmp_path / "g"
    folder.mkdir()
    for f in (REPO / "grammars").glob("_*.yaml"):
        (folder / f.name).write_bytes(f.read_bytes())
    text = (REPO / "grammars" / f"{UID}.yaml").read_text()
    (folder / f"{UID}.yaml").write_text(text.replace("properNoun: '0', mass: '0'", "nosuchcolumn: '0'", 1))
    rc, out, _ = fairpairs_cli("validate", folder / f"{UID}.yaml")
    assert rc == 1
    expected = [x for x in out.splitlines() if x.strip()][0]
    rc, out, err = fairpairs_cli("balance", en_run, "--grammars", folder)
    assert rc == 1 and not out
    assert error_line(err) == f"fairpairs: error: {expected}"


def test_a_vocabulary_table_that_does_not_load_is_an_error(en_run, tmp_path, fairpairs_cli):
    bad = tmp_path / "v.csv"
    bad.write_text("expression,sg,pl\nfoo,1\n")
    rc, out, err = fairpairs_cli("balance", en_run, "--vocab", bad)
    assert rc == 1 and str(bad) in error_line(err)


# ------------------------------------------------------------------ 8. no tracebacks
def test_audit_select_with_a_language_wordfreq_does_not_know(en_run, tmp_path, fairpairs_cli):
    rc, _, err = fairpairs_cli("audit", en_run, "--models", "gpt2", "--select", tmp_path / "sel", "--language", "xx")
    assert rc == 1 and error_line(err).startswith("fairpairs: error: --language: ") and "'xx'" in err
    assert not (tmp_path / "sel").exists()


@pytest.fixture(scope="module")
def tiny_gpt2(tiny_models) -> str:
    return tiny_models["gpt2"]


SURROGATE = "A dog \ud800 barks."


@pytest.mark.parametrize("row", [{"sentence_good": SURROGATE, "sentence_bad": "A dog bark."}, {"sentence": SURROGATE}])
def test_a_lone_surrogate_given_to_score_is_one_line_with_file_and_line(row, tiny_gpt2, tmp_path, fairpairs_cli):
    src = tmp_path / "s.jsonl"
    first = {"sentence_good": "A dog barks.", "sentence_bad": "A dog bark."} if "sentence_good" in row else {"sentence": "A cat."}
    src.write_text(json.dumps(first) + "\n" + json.dumps(row) + "\n", encoding="utf-8")   # (ascii JSON: \ud800 escaped)
    rc, _, err = fairpairs_cli("score", "--models", tiny_gpt2, "--input", src, "--out", tmp_path / "o.csv")
    assert rc == 1
    line = error_line(err)
    assert f"{src}:2" in line and "surrogate" in line
    assert not (tmp_path / "o.csv").exists()


def test_audit_names_the_file_and_line_of_a_lone_surrogate(tmp_path, fairpairs_cli):
    src = tmp_path / "p.jsonl"
    src.write_text(json.dumps({"sentence_good": SURROGATE, "sentence_bad": "A dog bark."}) + "\n", encoding="utf-8")
    rc, _, err = fairpairs_cli("audit", src, "--models", "gpt2")
    assert rc == 1 and f"{src}:1" in error_line(err)


def test_scorer_score_refuses_what_is_not_a_list_of_sentences(tiny_gpt2):
    from fairpairs.errors import FairpairsError
    from fairpairs.scoring import Scorer

    scorer = Scorer.from_pretrained(tiny_gpt2)
    for bad in (5, None):
        with pytest.raises(FairpairsError) as info:
            scorer.score(bad)
        assert isinstance(info.value, TypeError) and info.value.param == "sentences"
    with pytest.raises(FairpairsError, match="sentence 1: holds a lone surrogate"):
        scorer.score(["A dog barks.", SURROGATE])


class PlainScorer:
    """log p = -1 per character, counting its calls (a stand-in written plainly here)."""

    calls = 0

    def score(self, sentences, normalize=()):
        PlainScorer.calls += 1
        import pandas as pd

        return pd.DataFrame([{"sentence": s, "sum_logprob": -1.0 * len(s), "n_tokens": len(s.split())}
                             for s in sentences])


def test_a_cache_file_holding_nan_scores_is_scored_again(tmp_path):
    import pandas as pd

    from fairpairs.scoring.cache import Settings, cached_scores

    settings = Settings(normalize=("lp",))
    sentences = sorted(["a b.", "a bb c.", "ccc."])
    PlainScorer.calls = 0
    first, hit = cached_scores("toy", sentences, settings, tmp_path, lambda m, s: PlainScorer())
    assert not hit and PlainScorer.calls == 1
    (path,) = tmp_path.glob("*.parquet")
    damaged = first.copy()
    damaged.loc[1, "sum_logprob"] = float("nan")
    damaged.to_parquet(path, index=False)
    again, hit = cached_scores("toy", sentences, settings, tmp_path, lambda m, s: PlainScorer())
    assert not hit and PlainScorer.calls == 2
    assert again["sum_logprob"].tolist() == [-len(s) for s in sentences]
    # an earlier file's NaN is not lent to another set of sentences either
    damaged.to_parquet(path, index=False)
    other = sorted(sentences + ["dd."])
    mixed, _ = cached_scores("toy", other, settings, tmp_path, lambda m, s: PlainScorer())
    assert not mixed["sum_logprob"].isna().any()
    assert mixed["sum_logprob"].tolist() == [-len(s) for s in other]


# ------------------------------------------------------------------ 10. messages
def test_an_old_keyword_is_named_as_the_caller_wrote_it():
    import warnings

    import fairpairs as fp
    from fairpairs.errors import FairpairsError

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(FairpairsError) as info:
            fp.generate("causative", pairs=2, tokenizers=5)
        assert str(info.value).startswith("tokenizers: ") and info.value.param == "tokenizers"
        with pytest.raises(FairpairsError) as info:
            fp.audit([{"sentence_good": "A b.", "sentence_bad": "A c."}], tokenizers=5)
        assert str(info.value).startswith("tokenizers: ")
    with pytest.raises(FairpairsError) as info:      # the new name is named as itself
        fp.generate("causative", pairs=2, models=5)
    assert str(info.value).startswith("models: ")


def test_a_corrupt_tokenizer_file_names_the_models_option(tmp_path, fairpairs_cli):
    bad = tmp_path / "bad.model"
    bad.write_bytes(b"\x00\x01 not a tokenizer")
    rc, _, err = fairpairs_cli("generate", "--paradigms", "causative", "--pairs", "2", "--models", bad, "--out",
                               tmp_path / "r")
    assert rc == 1
    assert error_line(err).startswith(f"fairpairs: error: --models {bad}: not a tokenizer file")


def test_a_column_empty_in_every_row_has_no_empty_example_list(tmp_path, fairpairs_cli):
    text = (REPO / "grammars" / "fr" / "fr_simple_agrmt_n1sg.yaml").read_text(encoding="utf-8")
    path = tmp_path / "fr_x.yaml"
    path.write_text(text.replace("uid: fr_simple_agrmt_n1sg", "uid: fr_x").replace(
        "{VP: '1', number: sg}", "{VP: '1', number: sg, case: nom}"), encoding="utf-8")
    rc, out, _ = fairpairs_cli("validate", path)
    assert rc == 1
    assert "case" in out and "(e.g. )" not in out and "empty in every row" in out


def test_a_language_table_with_a_misnamed_column_lists_the_language_columns(tmp_path, fairpairs_cli):
    table = tmp_path / "fr_own.csv"
    lines = (REPO / "vocab" / "fr.csv").read_text(encoding="utf-8").splitlines(keepends=True)
    table.write_text(lines[0].replace("lemma", "lemme", 1) + "".join(lines[1:]), encoding="utf-8")
    rc, _, err = fairpairs_cli("generate", "--paradigms", FR[0], "--pairs", "2", "--vocab", table, "--out",
                               tmp_path / "r",
                               "--quiet")
    assert rc == 1
    line = error_line(err)
    assert "missing column(s) lemma " in line and "gender" in line and "properNoun" not in line


def test_paradigms_of_all_and_another_language_are_languages_mixed(tmp_path, fairpairs_cli):
    rc, _, err = fairpairs_cli("generate", "--paradigms", "all,fr/all", "--pairs", "2", "--out", tmp_path / "r")
    assert rc == 1
    line = error_line(err)
    assert "several languages (en, fr)" in line and "unknown" not in line


def test_hidden_files_in_a_grammar_folder_are_not_paradigms(tmp_path, fairpairs_cli):
    folder = tmp_path / "g"
    folder.mkdir()
    for f in [*(REPO / "grammars").glob("_*.yaml"), REPO / "grammars" / "causative.yaml"]:
        (folder / f.name).write_bytes(f.read_bytes())
    (folder / ".#causative.yaml").symlink_to("user@host.1234:1700000000")   # an editor's lock file: dangling
    (folder / ".notes.yaml").write_text("not: [a paradigm")
    rc, out, err = fairpairs_cli("paradigms", "--grammars", folder)
    assert rc in (0, None), err
    assert "causative" in out and ".#" not in out
    rc, _, err = fairpairs_cli("generate", "--grammars", folder, "--pairs", "2", "--models", "gpt2", "--out",
                               tmp_path / "r",
                               "--quiet")
    assert rc in (0, None), err
    assert sorted(p.name for p in (tmp_path / "r" / "original").iterdir()) == ["causative.jsonl"]
