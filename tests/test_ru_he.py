"""Russian and Hebrew paradigms converted from CLAMS (issue 38), Hebrew's prefix rule, right-to-left
text through jsonl, parquet and the card, and runs whose paradigms cannot all reach --pairs.

Expected sentences are written by hand from CLAMS' word lists (aaronmueller/clams @ 36b5c9a,
Apache-2.0: ru_replication and he_replication) and from Russian and Hebrew grammar (the
instrumental after рядом с, the attached Hebrew article), not from the converter's output."""

import json
import re

import pytest

import fairpairs as fp
from fairpairs.errors import GrammarError, NotComparableError
from fairpairs.generation.languages import get_language
from fairpairs.io.paths import data_dir

SEVEN = sorted(["simple_agrmt", "vp_coord", "long_vp_coord", "subj_rel", "obj_rel_within_anim",
                "obj_rel_across_anim", "prep_anim"])
# CLAMS he common.avg
HE_N1 = "מלצר|מנהל|חקלאי|רופא|טבח|נהג|חייל|קצין|טייס|יועץ"
HE_N1_PL = "מלצרים|מנהלים|חקלאים|רופאים|טבחים|נהגים|חיילים|קצינים|טייסים|יועצים"
HE_N2_SG = "שומר|שר|עובד|זמר|נהג|רקדן|בנאי|מהנדס|טכנאי|מלחין"
HE_N2_PL = "שומרים|שרים|עובדים|זמרים|נהגים|רקדנים|בנאים|מהנדסים|טכנאים|מלחינים"
HE_VTR = "אוהב|שונא|מכיר|מעריץ"
HE_VINTR = {"רוקד": "רוקדים", "נוסע": "נוסעים", "רץ": "רצים", "ישן": "ישנים", "שוחה": "שוחים", "חי": "חיים",
            "צוחק": "צוחקים", "מבשל": "מבשלים", "אוכל": "אוכלים", "שותה": "שותים",
            # and the predicates fairpairs adds (grammars/he/README.md, "Words added")
            "כותב": "כותבים", "יושב": "יושבים", "צועק": "צועקים", "קם": "קמים", "עוזר": "עוזרים",
            "שותק": "שותקים", "נעלם": "נעלמים", "נופל": "נופלים", "שוכב": "שוכבים"}
# CLAMS ru common.avg NP_1[3,s,m,anim] (capitalised) and prep_anim.avg NP_2[3,p,m,pa] (the instrumental)
RU_N1 = "Автор|Режиссёр|Фермер|Врач|Сенатор|Профессор|Клиент|Офицер|Пилот|Ученик"
RU_N2_INS_PL = "агентами|министрами|рабочими|помощниками|солдатами|лидерами|художниками"


# ---------------------------------------------------------------- the Hebrew rule
@pytest.mark.parametrize("text, expected", [
    ("ה מלצר רץ.", "המלצר רץ."),                                   # the article
    ("ה מלצר ש ה שומר אוהב רוקד.", "המלצר שהשומר אוהב רוקד."),      # relativiser + article
    ("ה מלצר רץ ו צוחק.", "המלצר רץ וצוחק."),                        # and
    ("ה מלצרים גרים ב מרכז ה עיר.", "המלצרים גרים במרכז העיר."),     # ב + ה -> ב
    ("הוא הולך ל ה שוק.", "הוא הולך לשוק."),                          # ל + ה -> ל
    ("ו ה שומרים רצים.", "והשומרים רצים."),                           # ו + ה keeps the article
    ("ה מלצר ש אוהב את ה שומר רץ.", "המלצר שאוהב את השומר רץ."),    # את is a word, not a prefix
    ("הספר של ה מלצר.", "הספר של המלצר."),                          # a word ending in ל is not ל
])
def test_hebrew_prefixes_are_attached(text, expected):
    assert get_language("he").apply(["prefixes"], text) == expected


def test_hebrew_articles():
    he = get_language("he")
    assert he.article("definite", {"number": "pl", "gender": "m"}) == "ה"
    assert he.article("indefinite", {"number": "sg", "gender": "m"}) == ""


# ---------------------------------------------------------------- the converted paradigms
def test_russian_and_hebrew_paradigms_validate(fairpairs_cli):
    code, out, err = fairpairs_cli("validate", data_dir("grammars") / "ru", data_dir("grammars") / "he")
    assert code == 0, out + err
    assert out.startswith("OK: 46 paradigm file(s)")      # CLAMS' S[] lines: ru 24, he 22
    for lang in ("ru", "he"):
        terms = sorted({fp.load_paradigm(f).linguistics_term for f in (data_dir("grammars") / lang).glob("*.yaml")})
        assert terms == SEVEN


def test_hebrew_subject_relative_is_written_hebrew():
    """ה מלצר ש אוהב את ה שומרים רוקד (CLAMS) is written המלצר שאוהב את השומרים רוקד; the bad
    sentence puts the matrix verb in the plural; the attractor is never the subject's own noun."""
    pat = re.compile(rf"^ה({HE_N1}) ש({HE_VTR}) את ה({HE_N2_PL}) ({'|'.join(HE_VINTR)})\.$")
    pairs = fp.generate("he_subj_rel_n1sg_n2pl", pairs=40, strategy=None, seed=3)
    assert len(pairs) == 40
    for p in pairs:
        m = pat.match(p.sentence_good)
        assert m, p.sentence_good
        assert p.sentence_bad == p.sentence_good[:m.start(4)] + HE_VINTR[m.group(4)] + "."
        assert not (m.group(1) == "נהג" and m.group(3) == "נהגים")


def test_hebrew_coordination_never_repeats_a_predicate():
    pat = re.compile(rf"^ה({HE_N1}) ({'|'.join(HE_VINTR)}) ו({'|'.join(HE_VINTR)})\.$")
    for p in fp.generate("he_vp_coord_n1sg", pairs=60, strategy=None, seed=1):
        m = pat.match(p.sentence_good)
        assert m and m.group(2) != m.group(3), p.sentence_good


def test_russian_preposition_takes_the_instrumental():
    pat = re.compile(rf"^({RU_N1}) (перед|за|рядом с) ({RU_N2_INS_PL}) (\w+( здесь)?)\.$")
    for p in fp.generate("ru_prep_anim_n1sg_n2pl", pairs=40, strategy=None, seed=2):
        assert pat.match(p.sentence_good), p.sentence_good


# ---------------------------------------------------------------- right-to-left text, byte for byte
def test_hebrew_round_trips_through_jsonl_parquet_and_the_card(tmp_path, fairpairs_cli):
    """(Under a tokenizer of one token a word, as no bundled one suits Hebrew: a run whose debiased
    set is empty throughout is an error.)"""
    import pyarrow.parquet as pq

    words = tmp_path / "words.json"    # every word (unknown) and mark one token: a pair's counts are equal
    words.write_text(json.dumps({"version": "1.0", "truncation": None, "padding": None, "added_tokens": [],
                                 "normalizer": None, "pre_tokenizer": {"type": "Whitespace"}, "post_processor": None,
                                 "decoder": None, "model": {"type": "WordLevel", "unk_token": "[UNK]",
                                                            "vocab": {"[UNK]": 0, ".": 1}}}), encoding="utf-8")
    run = tmp_path / "run"
    code, out, err = fairpairs_cli("generate", "--paradigms", "he_prep_anim_n1pl_n2sg", "--models", words, "--pairs",
                                   "12",
                              "--out", run, "--quiet")
    assert code == 0, err
    lines = (run / "original" / "he_prep_anim_n1pl_n2sg.jsonl").read_bytes().decode("utf-8").splitlines()
    rows = [json.loads(x) for x in lines]
    pat = re.compile(rf"^ה({HE_N1_PL}) (מאחורי|ליד) ה({HE_N2_SG}) ({'|'.join(HE_VINTR.values())})\.$")
    assert len(rows) == 12 and all(pat.match(r["sentence_good"]) for r in rows), [r["sentence_good"] for r in rows]
    assert all("\u200f" not in x and "\\u05" not in x for x in lines)   # no marks added, not escaped
    hub = tmp_path / "hub"
    code, out, err = fairpairs_cli("publish", run, "--repo-id", "someone/he", "--set", "original", "--dry-run",
                                   "--out", hub)
    assert code == 0, err
    table = pq.read_table(hub / "data" / "he_prep_anim_n1pl_n2sg-original" / "train-00000-of-00001.parquet")
    for col in ("sentence_good", "sentence_bad"):
        assert [v.encode("utf-8") for v in table.column(col).to_pylist()] == [r[col].encode("utf-8") for r in rows]
    card = (hub / "README.md").read_bytes()
    assert b"\n- he\n" in card
    assert f"acceptable: {rows[0]['sentence_good']}\n".encode("utf-8") in card
    assert f"unacceptable: {rows[0]['sentence_bad']}\n".encode("utf-8") in card


# ---------------------------------------------------------------- runs with a short paradigm
def test_a_paradigm_short_of_pairs_keeps_the_rest_of_the_run(tmp_path, fairpairs_cli):
    """Under gpt2 + bert-base-cased, 3 of the 19 French predicates have singular and plural of equal
    length, so fr_simple_agrmt_n1pl has 10 subjects x 3 = 30 distinct equal pairs: asked for 40,
    it ends with 30, the other paradigm reaches 40, the run is written and exits 0, and the manifest
    says which paradigm is short and that the set is not comparable."""
    run = tmp_path / "run"
    code, out, err = fairpairs_cli("generate", "--paradigms", "fr_simple_agrmt_n1pl,fr_subj_rel_n1sg_n2sg", "--models",
                              "gpt2,bert-base-cased", "--pairs", "40", "--out", run)
    assert code == 0, err
    counts = {u: len((run / "debiased" / f"{u}.jsonl").read_text(encoding="utf-8").splitlines())
              for u in ("fr_simple_agrmt_n1pl", "fr_subj_rel_n1sg_n2sg")}
    assert counts == {"fr_simple_agrmt_n1pl": 30, "fr_subj_rel_n1sg_n2sg": 40}
    manifest = json.loads((run / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["paradigms"]["fr_simple_agrmt_n1pl"]["short"]["debiased"].startswith("30 of 40 pairs")
    assert "short" not in manifest["paradigms"]["fr_subj_rel_n1sg_n2sg"]
    assert manifest["verdict"]["short"] == ["fr_simple_agrmt_n1pl"]
    assert manifest["verdict"]["suggested_tokenizers"] == ["preset:multilingual"]
    assert "30!" in out and "Verdict:" in out      # (the table: on stdout, issue 37)

    strict = tmp_path / "strict"
    code, out, err = fairpairs_cli("generate", "--paradigms", "fr_simple_agrmt_n1pl,fr_subj_rel_n1sg_n2sg", "--models",
                              "gpt2,bert-base-cased", "--pairs", "40", "--out", strict, "--strict", "--quiet")
    assert code == 1 and not strict.exists()
    assert err.count("\n") == 1 and "fr_simple_agrmt_n1pl" in err and "--max-draws" in err


def test_a_run_with_no_balanced_paradigm_is_not_comparable_and_strict_refuses_it(tmp_path):
    kw = dict(paradigms="fr_simple_agrmt_n1sg", models=["gpt2", "bert-base-cased"], pairs=20)
    result = fp.generate_run(tmp_path / "run", **kw)
    assert result.verdict["comparable"] is False
    assert "0 of 1 paradigm(s) balanced" in result.verdict["reasons"][0]
    with pytest.raises(NotComparableError, match="strict: the debiased set is NOT comparable.*preset:multilingual"):
        fp.generate_run(tmp_path / "strict", strict=True, **kw)
    assert not (tmp_path / "strict").exists()


def test_one_paradigm_asked_of_the_api_still_fails_when_short():
    with pytest.raises(GrammarError, match="length control kept no pair"):
        fp.generate("he_simple_agrmt_n1sg", pairs=5, models=["gpt2"])


# ---------------------------------------------------------------- languages a user can find
def test_languages_and_paradigms_by_language(fairpairs_cli):
    rows = {r["code"]: r for r in fp.languages()}
    assert list(rows)[0] == "en" and set(rows) == {"en", "fr", "de", "ru", "he"}
    # one paradigm per CLAMS sentence template (S[] line): fr 28, de 22, ru 24, he 22
    assert {c: rows[c]["paradigms"] for c in ("fr", "de", "ru", "he")} == {"fr": 28, "de": 22, "ru": 24, "he": 22}
    assert rows["ru"]["licence"] == "Apache-2.0" and "CLAMS" in rows["he"]["source"]
    assert "meta-llama/Meta-Llama-3-8B" not in rows["he"]["tokenizers"]
    assert {p["language"] for p in fp.paradigms(language="he")} == {"he"} and len(fp.paradigms(language="he")) == 22
    code, out, err = fairpairs_cli("paradigms", "--language", "ru")
    assert code == 0 and len(out.splitlines()) == 24 and all(u.startswith("ru_") for u in out.split())
    code, out, err = fairpairs_cli("paradigms", "--language", "es")
    error = err.splitlines()[-1]     # (a usage error: exit 2, click's Usage header, one Error line)
    assert code == 2 and error.startswith("Error: Invalid value for '--language'") and "he, ru" in error
    code, out, err = fairpairs_cli("languages")
    assert code == 0 and "Hebrew" in out and "paradigms --language he" in out


@pytest.mark.slow     # Llama-3's real tokenizer comes with the `multilingual` extra, which the slow tier installs
def test_hebrew_under_llama3_keeps_no_pair_and_the_error_names_the_tokenizers_that_suit(tmp_path):
    """No Hebrew singular/plural verb pair has equal length under Llama-3 (grammars/he/README.md):
    a run that keeps nothing at all is an error (issue 45) that suggests Llama-4, Tekken and Qwen."""
    with pytest.raises(NotComparableError, match="can keep no pair under these tokenizers.*suit Hebrew.*: "
                       "meta-llama/Llama-4-Scout-17B-16E, mistralai/Mistral-Nemo-Base-2407, Qwen/Qwen2.5-7B"):
        fp.generate_run(tmp_path / "run", "he_simple_agrmt_n1sg", ["meta-llama/Meta-Llama-3-8B"], pairs=10)
    assert not (tmp_path / "run").exists()
