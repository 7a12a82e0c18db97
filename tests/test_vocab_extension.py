"""The checked extension of the Russian table (issue 47, item 2): every row tools/extend_vocab.py
wrote (`source: pymorphy3 ...`) has, feature by feature, the grammemes pymorphy3's dictionary gives
its head word (the first word; the rest of a long verb phrase is a fixed complement), and the table
is exactly what the script writes (no hand edit). The expected grammemes are written here from the
table's conventions (docs/vocabulary.md), not taken from the script.

Each test fails on a row whose feature is wrong: e.g. a row `спят` marked `number: sg` has no
parse with `sing`; `спал` marked `kind: present` has no parse with `pres`."""

from __future__ import annotations

import csv
import sys
from pathlib import Path

import pymorphy3   # (the `test` extra installs it, with pymorphy3-dicts-ru)
import pytest

ROOT = Path(__file__).resolve().parents[1]
NUMBER = {"sg": "sing", "pl": "plur"}
TENSE = {"present": "pres", "past": "past"}


@pytest.fixture(scope="module")
def morph():
    return pymorphy3.MorphAnalyzer(lang="ru")


def _rows() -> list[dict]:
    with open(ROOT / "vocab" / "ru.csv", encoding="utf-8", newline="") as fh:
        return [r for r in csv.DictReader(fh) if r["source"].startswith("pymorphy3 ")]


def _parses(morph, row: dict):
    return morph.parse(row["expression"].split()[0])


def _lacking(morph, wanted) -> list[str]:
    """The extension rows none of whose head word's parses has the grammemes `wanted(row)` names
    (rows for which it names none are not concerned)."""
    out = []
    for row in _rows():
        want = wanted(row)
        if want and not any(set(want) <= set(p.tag.grammemes) for p in _parses(morph, row)):
            out.append(f"{row['expression']} ({row['category']} {row['kind']} {row['number']}): no parse with {sorted(want)}")
    return out


def test_the_extension_is_there_and_names_its_library():
    rows = _rows()
    assert len(rows) >= 100
    assert {r["source"].split(" / ")[0].split()[0] for r in rows} == {"pymorphy3"}
    assert all("pymorphy3-dicts-ru " in r["source"] for r in rows)


def test_number(morph):
    assert _lacking(morph, lambda r: {NUMBER[r["number"]]}) == []


def test_person(morph):
    """Present forms (and the transitive verbs, all present) are third person."""
    assert _lacking(morph, lambda r: {"3per"} if r["kind"] == "present" or r["category"] == "V" else set()) == []


def test_tense_and_part_of_speech(morph):
    want = {"present": {"VERB", "pres", "indc"}, "past": {"VERB", "past", "indc"}, "adj": {"ADJF"}}
    assert _lacking(morph, lambda r: want["present"] if r["category"] == "V" else want[r["kind"]]) == []


def test_gender(morph):
    """A singular past verb or adjective is masculine: CLAMS' Russian subjects are masculine nouns."""
    assert _lacking(morph, lambda r: {"masc"} if r["kind"] in ("past", "adj") and r["number"] == "sg" else set()) == []


def test_case(morph):
    """A predicative adjective is nominative."""
    assert _lacking(morph, lambda r: {"nomn"} if r["kind"] == "adj" else set()) == []


def test_forms_of_one_lexeme_share_a_dictionary_lemma(morph):
    """The rows sharing `lemma` (and category) are forms of one dictionary word."""
    lexemes: dict[tuple, list[dict]] = {}
    for row in _rows():
        lexemes.setdefault((row["lemma"], row["category"]), []).append(row)
    bad = []
    for key, rows in lexemes.items():
        common = set.intersection(*({p.normal_form for p in _parses(morph, r)} for r in rows))
        if len(rows) != 2 or not common:
            bad.append(key)
    assert bad == []


def test_one_parse_has_every_feature_of_a_row(morph):
    """Not only each feature somewhere: one parse of the head word has all of a row's grammemes."""
    def wanted(r):
        kind = "present" if r["category"] == "V" else r["kind"]
        w = {NUMBER[r["number"]]}
        w |= {"ADJF", "nomn"} if kind == "adj" else {"VERB", TENSE[kind]}
        w |= {"3per"} if kind == "present" else set()
        w |= {"masc"} if kind in ("past", "adj") and r["number"] == "sg" else set()
        return w
    assert _lacking(morph, wanted) == []


def test_the_table_is_what_the_script_writes():
    """vocab/ru.csv = tools/extend_vocab.py's output (its clams rows untouched, no row edited by hand)."""
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import extend_vocab
    finally:
        sys.path.remove(str(ROOT / "tools"))
    assert extend_vocab.main(["--check"]) == 0
