"""The checked extension of BLiMP's English table (issue 47, item 2; vocab/blimp_extension.csv, written by
tools/extend_vocab.py --language en): every row's form, feature by feature, against lemminflect (a
noun's number and its sibling form, `irrpl`, a verb's bare/present/3sg/past/-ing/-en form and its
lemma), its frequency against wordfreq, its other features against the BLiMP word it names as its
model, and the table is what the script writes. The expected values are computed here from the
libraries and from BLiMP's table, not taken from the script; each test fails on one wrong row (e.g.
`wolfs` as the plural of wolf, `knives` without `irrpl`, `amused` flagged `ing`, a noun copying a verb's
features).

And the two lexicons: loading the English vocabulary appends the extension after BLiMP's rows without
changing them, and an original set draws none of its words."""

from __future__ import annotations

import csv
import sys
from pathlib import Path

import pytest
from lemminflect import getInflection, getLemma   # (the `test` extra installs it)
from wordfreq import zipf_frequency

from fairpairs.generation.vocab import Vocabulary, default_vocabulary

ROOT = Path(__file__).resolve().parents[1]
TABLE = ROOT / "vocab" / "blimp_extension.csv"
# the columns a new word may differ in from its model word (its form and what names its forms)
FORM_COLUMNS = {"expression", "pluralform", "singularform", "irrpl", "start_with_vowel", "root", "source", "model"}


def _rows() -> list[dict]:
    with open(TABLE, encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def _nouns():
    return [r for r in _rows() if r["noun"] == "1" and r["properNoun"] != "1"]


def _verbs():
    return [r for r in _rows() if r["verb"] == "1"]


def _regular_plurals(noun: str) -> set[str]:
    """English spelling rules for a regular plural, written out (independent of the script)."""
    if noun[-1] in "sxz" or noun[-2:] in ("ch", "sh"):
        return {noun + "es"}
    if noun[-1] == "y" and noun[-2] not in "aeiou":
        return {noun[:-1] + "ies"}
    return {noun + "s", noun + "es"} if noun[-1] == "o" else {noun + "s"}


@pytest.fixture(scope="module")
def blimp() -> Vocabulary:
    return Vocabulary.load()     # BLiMP's table with fixes.yaml, without the extension


def test_the_extension_is_there_and_names_its_source():
    rows = _rows()
    assert len(rows) >= 500
    assert {r["source"].split()[0] for r in rows} == {"lemminflect", "wordfreq"}
    assert all(r["source"].startswith("lemminflect ") == (r["properNoun"] != "1") for r in rows)
    assert all(r["model"] for r in rows)


def test_noun_number_and_sibling_form_against_lemminflect():
    bad = []
    for r in _nouns():
        if r["sg"] == "1":
            ok = r["pluralform"] in getInflection(r["expression"], tag="NNS") and \
                getLemma(r["expression"], upos="NOUN")[0] == r["expression"]
        else:
            ok = r["pl"] == "1" and r["expression"] in getInflection(r["singularform"], tag="NNS") and \
                r["singularform"] in getLemma(r["expression"], upos="NOUN")
        if not ok:
            bad.append(r["expression"])
    assert bad == []


def test_irregular_plural_flag():
    """`irrpl` is 1 exactly where the plural is not the regular spelling of the singular."""
    bad = []
    for r in _nouns():
        sg, pl = (r["expression"], r["pluralform"]) if r["sg"] == "1" else (r["singularform"], r["expression"])
        if (r["irrpl"] == "1") != (pl not in _regular_plurals(sg)):
            bad.append((sg, pl, r["irrpl"]))
    assert bad == []
    assert {"knives", "wolves", "criteria", "firemen"} <= {r["expression"] for r in _nouns() if r["irrpl"] == "1"}


def test_verb_forms_against_lemminflect():
    """Each verb row's form flags name the lemminflect form of its lemma (the root's head) it is; a
    phrase's (go soft) first word is the verb, inflected, the rest as in its lemma."""
    tags = {"ing": "VBG", "en": "VBN", "past": "VBD", "3sg": "VBZ"}
    bad = []
    for r in _verbs():
        lemma, _, rest = r["root"].split("_")[0].partition(" ")
        head, _, tail = r["expression"].partition(" ")
        flag = next((f for f in ("ing", "en", "past", "3sg") if r[f] == "1"), None)
        if flag is None:      # bare or plural present: the lemma itself
            ok = head == lemma and (r["bare"] == "1" or r["pres"] == "1")
        else:
            ok = head in getInflection(lemma, tag=tags[flag])
        if not ok or tail != rest or lemma not in getLemma(head, upos="VERB"):
            bad.append((r["expression"], flag))
    assert bad == []


def test_irregular_verbs_are_irregular_against_lemminflect():
    """The irregular verb phrases (go soft, go limp ...: irregular_past_participle_verbs draws a
    finite past whose participle differs, `special_en_form`) are marked so exactly where lemminflect's
    past of the head is not its participle (went / gone), and have past and participle rows of those
    forms. Fails on a regular verb given the flag (its past "soften-ed" is its participle) or on an
    irregular one without it; before this test the extension had regular verbs only."""
    lexemes: dict[str, dict] = {}
    for r in _verbs():
        lexemes.setdefault(r["root"], {}).setdefault("flags", set()).add(r["special_en_form"])
        for f in ("past", "en"):
            if r[f] == "1":
                lexemes[r["root"]].setdefault(f, set()).add(r["expression"])
    irregular = {root: v for root, v in lexemes.items() if "1" in v["flags"]}
    assert len(irregular) >= 3
    for root, v in lexemes.items():
        head, _, rest = root.split("_")[0].partition(" ")
        past, part = getInflection(head, tag="VBD")[0], getInflection(head, tag="VBN")[0]
        assert v["flags"] == ({"1"} if past != part else {""}), root
        if root in irregular:
            assert v["past"] == {f"{past} {rest}".strip()} and v["en"] == {f"{part} {rest}".strip()}, root


def test_adjectives_against_lemminflect(blimp):
    """The raising and tough adjectives (tough_vs_raising_1, _2, existential_there_subject_raising)
    are adjective lemmas in lemminflect's dictionary (not "terrifying", which it knows as a verb
    form only), each class has at least two, and none is one of BLiMP's adjectives of its class.
    Fails before: the extension had no adjective."""
    from lemminflect import getAllLemmas

    rows = [r for r in _rows() if r["category_2"].startswith("Adj")]
    assert [r["expression"] for r in rows if getAllLemmas(r["expression"]).get("ADJ") != (r["expression"],)] == []
    for cls in ("Adj_raising_subj", "Adj_tough"):
        words = {r["expression"] for r in rows if r["category_2"] == cls}
        assert len(words) >= 2, cls
        assert not words & set(blimp.expressions[blimp.column("category_2") == cls].tolist()), cls


def test_raising_and_control_verbs_have_every_form_of_their_class_against_lemminflect(blimp):
    """The object-raising and object-control verbs (existential_there_object_raising,
    expletive_it_object_raising draw a raising verb and swap in a control verb of the same form, `same:
    {verb: [finite, bare, pres, past, ing, en, 3sg]}`): the extension has verbs of both classes, each
    lexeme with a row for every form combination its model BLiMP verb has, each form the one
    lemminflect gives its lemma (VBZ, VBD, VBN, VBG; bare and plural present the lemma), and regular
    (past = participle, -ed). Fails before: the extension had no verb of either class."""
    forms = ("finite", "bare", "pres", "past", "ing", "en", "3sg")
    tags = {"3sg": "VBZ", "past": "VBD", "en": "VBN", "ing": "VBG"}
    for cls in ("V_raising_object", "V_control_object"):
        lexemes: dict[str, set] = {}
        model: dict[str, str] = {}
        for r in _rows():
            if r["category_2"] == cls:
                lemma = r["root"].split("_")[0]
                lexemes.setdefault(lemma, set()).add(tuple(r[f] for f in forms))
                model[lemma] = f"{r['model']}_{r['category']}"
                flag = next((f for f in ("3sg", "past", "en", "ing") if r[f] == "1"), None)
                want = [lemma] if flag is None else getInflection(lemma, tag=tags[flag])
                assert r["expression"] in want, (r["expression"], flag)
        assert len(lexemes) >= 5, cls
        for lemma, have in lexemes.items():
            root = blimp.column("root") == model[lemma]
            assert root.any() and blimp.get(int(root.nonzero()[0][0]), "category_2") == cls, lemma
            assert have == {tuple(blimp.get(int(i), f) for f in forms) for i in root.nonzero()[0]}, lemma
        for lemma in lexemes:
            past, part = getInflection(lemma, tag="VBD"), getInflection(lemma, tag="VBN")
            assert past == part and past[0].endswith("ed"), lemma


def test_every_form_is_common_enough_in_wordfreq():
    assert [r["expression"] for r in _rows() if zipf_frequency(r["expression"], "en") < 2.5] == []


def test_features_are_those_of_the_model_word(blimp):
    """Apart from its form, a row has every feature of a row of its model word (same category and form
    flags): it fills the slots its model fills, with the model's selectional restrictions."""
    bad = []
    for r in _rows():
        model = r["model"] if r["verb"] != "1" else None
        rows = blimp.rows_for(model) if model else \
            [i for i in range(len(blimp)) if blimp.get(i, "root") == f"{r['model']}_{r['category']}"]
        if r["noun"] == "1" and r["properNoun"] != "1" and r["pl"] == "1":
            rows = [blimp.other_number(int(i)) for i in rows]
        same = [i for i in rows if i is not None and all(blimp.get(i, c) == v for c, v in r.items() if c not in FORM_COLUMNS)]
        if not same:
            bad.append(r["expression"])
    assert bad == []


def test_no_extension_word_is_a_blimp_word_of_its_category(blimp):
    have = set(zip(blimp.column("expression").tolist(), blimp.column("category").tolist()))
    assert [r["expression"] for r in _rows() if (r["expression"], r["category"]) in have] == []


def test_the_english_vocabulary_is_blimp_then_the_extension(blimp):
    """BLiMP's rows come first, unchanged (the original sets draw them by index), then the extension's,
    which are the only rows outside the source lexicon."""
    full = default_vocabulary()
    n = len(blimp)
    assert len(full) == n + len(_rows())
    assert all((full.column(c)[:n] == blimp.column(c)).all() for c in blimp.column_names)
    assert full.source_rows()[:n].all() and not full.source_rows()[n:].any()
    assert "wolves" in full.extension_words() and "mouse" not in full.extension_words()


def test_an_original_set_draws_no_extension_word():
    from fairpairs.generation.grammar import read_paradigm_file
    from fairpairs.generation.sampler import Sampler

    vocab = default_vocabulary()
    p = read_paradigm_file(ROOT / "grammars" / "determiner_noun_agreement_irregular_1.yaml")
    s = Sampler(p, vocab, 0)
    ext = vocab.extension_words()
    words = {f.word for k in range(300) if (q := s.draw(k, will_change=False)) is not None for f in q.good.values()}
    assert words and not words & ext


def test_the_table_is_what_the_script_writes():
    """vocab/blimp_extension.csv = tools/extend_vocab.py --language en's output (no row edited by hand)."""
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import extend_vocab
    finally:
        sys.path.remove(str(ROOT / "tools"))
    assert extend_vocab.main(["--language", "en", "--check"]) == 0


def test_a_run_records_the_extension_it_drew_from(tmp_path):
    """The manifest's vocabulary names the extension by the sha256 of its bytes (computed here with
    hashlib from the file): BLiMP's table's sha256 does not cover the extension's rows, so without it a
    run drawn with another extension of the same size would look identical, and `balance` / `publish`
    would reuse statistics recorded for other replacements. Fails before: no `extension_sha256`, and
    `vocabulary_sha256` ignored the extension's content."""
    import hashlib
    import json

    import fairpairs as fp
    from fairpairs.control.statistics import vocabulary_sha256

    out = tmp_path / "run"
    fp.generate_run(out, paradigms="determiner_noun_agreement_irregular_1", pairs=5, models="gpt2")
    voc = json.loads((out / "manifest.json").read_text())["vocabulary"]
    assert voc["extension_sha256"] == hashlib.sha256(TABLE.read_bytes()).hexdigest()
    full = default_vocabulary()
    other = full.subset(full.source_rows() | ~full.source_rows())
    other.extension_sha256 = "0" * 64      # the same rows, another extension file
    assert len(other) == len(full) and vocabulary_sha256(other) != vocabulary_sha256(full)
