"""Vocabulary queries against hand-checked rows and a naive DNF evaluator; each fix proven."""

import csv
import re
from pathlib import Path

import numpy as np
import pytest

from fairpairs.errors import VocabularyError
from fairpairs.generation.vocab import Vocabulary, default_vocabulary
from fairpairs.generation.restrictions import parse_dnf
from references import VOCABULARY_SHA256, VOCABULARY_TABLE, sha256


@pytest.fixture(scope="module")
def vocab():
    return default_vocabulary()


@pytest.fixture(scope="module")
def rows(vocab) -> list[dict]:
    """The fixed table's rows as dicts, made once for the module (pandas builds them slowly: ten tests
    read them, none changes them)."""
    return vocab.df.to_dict("records")


@pytest.fixture(scope="module")
def original_rows():
    """BLiMP's unmodified table (vocab/blimp_vocabulary.csv, checked to be the reference file), read
    with the csv module: the rows before any fix."""
    assert sha256(VOCABULARY_TABLE) == VOCABULARY_SHA256, "vocab/blimp_vocabulary.csv is not BLiMP's table"
    with open(VOCABULARY_TABLE, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def naive_satisfies(row: dict, dnf: str) -> bool:
    """DNF check written plainly: ';' = or, '^' = and, 'col=value'."""
    if not dnf.strip():
        return True
    for conj in dnf.split(";"):
        if all(row.get(c.split("=", 1)[0], None) == c.split("=", 1)[1] for c in conj.split("^")):
            return True
    return False


def idx(vocab, expression, **kw):
    rows = vocab.rows_for(expression, **kw)
    assert len(rows) >= 1, expression
    return int(rows[0])


def test_parse_dnf():
    assert parse_dnf("sg=1^animate=1;institution=1") == ((("sg", "1"), ("animate", "1")), (("institution", "1"),))
    assert parse_dnf("") == ()
    assert parse_dnf("locale=") == ((("locale", ""),),)
    with pytest.raises(VocabularyError):
        parse_dnf("sg1")


def test_select_conjunction_hand_checked(vocab):
    mask = vocab.select({"category": "N", "irrpl": "1", "sg": "1"})
    words = set(vocab.expressions[mask])
    assert {"man", "woman", "child", "foot"} <= words
    assert "boy" not in words and "men" not in words
    neg = vocab.select({"category": "N", "sg": "1"}, {"irrpl": "1"})
    assert "boy" in set(vocab.expressions[neg]) and "man" not in set(vocab.expressions[neg])
    # list = any of
    d = set(vocab.expressions[vocab.select({"category_2": "D", "expression": ["this", "those"]})])
    assert d == {"this", "those"}


def test_unknown_column_and_value_are_errors(vocab):
    with pytest.raises(VocabularyError, match="unknown vocabulary column 'categry'"):
        vocab.select({"categry": "N"})
    with pytest.raises(VocabularyError, match="never occurs in vocabulary column 'category_2'"):
        vocab.select({"category_2": "Determiner"})


def test_satisfiers_match_naive_evaluator(vocab, rows):
    for functor, arg in [("these", "arg_1"), ("herself", "arg_1"), ("is", "arg_1"), ("an", "arg_1")]:
        f = idx(vocab, functor, category_2={"these": "D", "an": "D", "herself": "refl", "is": "aux"}[functor])
        dnf = rows[f][arg]
        expected = np.array([naive_satisfies(r, dnf) for r in rows])
        assert np.array_equal(vocab.satisfiers(f, arg), expected), functor


def test_restrictions_both_directions_hand_checked(vocab):
    these = idx(vocab, "these", category_2="D")
    boys, boy = idx(vocab, "boys"), idx(vocab, "boy")
    assert vocab.accepts(these, "arg_1", boys) and not vocab.accepts(these, "arg_1", boy)
    # words whose restriction 'boys' satisfies: determiners for a plural count noun
    dets = set(vocab.expressions[vocab.accepted_by(boys, "arg_1") & vocab.select({"category_2": "D"})])
    assert {"these", "those", "the", "many", "some", ""} <= dets
    assert not {"this", "that", "a", "an", "every"} & dets
    # reflexives accepting a feminine singular noun
    woman = idx(vocab, "woman")
    refl = set(vocab.expressions[vocab.accepted_by(woman, "arg_1") & vocab.select({"category_2": "refl"})])
    assert refl == {"herself"}


def test_accepted_by_matches_naive(vocab, rows):
    boys = idx(vocab, "boys")
    got = vocab.accepted_by(boys, "arg_1")
    sample = range(0, len(rows), 7)
    for i in sample:
        assert got[i] == naive_satisfies(rows[boys], rows[i]["arg_1"]), rows[i]["expression"]


def test_forms_of_a_lexeme(vocab):
    assert vocab.expressions[vocab.other_number(idx(vocab, "child"))] == "children"
    assert vocab.expressions[vocab.other_number(idx(vocab, "children"))] == "child"
    wore = idx(vocab, "wore")
    assert set(vocab.expressions[vocab.form_of(wore, {"en": 1})]) == {"worn"}
    assert set(vocab.expressions[vocab.form_of(wore, {"bare": 1})]) == {"wear"}


# ---------------------------------------------------------------- each fix, against the original
def test_fix_out_in_the_open_not_prenominal(vocab, original_rows):
    orig = [r for r in original_rows if r["expression"] == "out in the open"]
    assert orig and all(r["category"] == "N/N" for r in orig)  # the error exists upstream
    prenominal = set(vocab.expressions[vocab.select({"category": "N/N"})])
    assert "out in the open" not in prenominal
    assert len(vocab.rows_for("out in the open")) == 1


def test_fix_no_rows_without_category(vocab, original_rows):
    assert sum(1 for r in original_rows if r["category"] == "") == 54
    assert (vocab.df["category"] == "").sum() == 0
    # the function words kept their identity and got a category
    assert vocab.get(idx(vocab, "himself"), "category") == "NP[refl]"
    assert vocab.get(idx(vocab, "whose"), "category_2") == "D_wh"


def test_fix_blank_rows_dropped(vocab, original_rows):
    blank = [r for r in original_rows if not r["expression"] and not r["category"] and not r["category_2"]]
    assert len(blank) == 7
    assert ((vocab.df.expression == "") & (vocab.df.category_2 == "")).sum() == 0
    # the meaningful empty rows (empty auxiliary, empty determiner) stay
    assert len(vocab.rows_for("", category_2="aux")) == 1 and len(vocab.rows_for("", category_2="D")) == 1


def test_fix_argues(vocab, original_rows):
    assert [r["category"] for r in original_rows if r["expression"] == "argues" and r["root"] == "argue_"] == [""]
    forms = vocab.form_of(idx(vocab, "argue", category="S\\NP"), {"3sg": 1})
    assert set(vocab.expressions[forms]) == {"argues"}


def test_fix_plural_forms(vocab, original_rows):
    orig = {r["expression"]: r["pluralform"] for r in original_rows if r["category"] == "N"}
    assert orig["dish"] == "dishs" and orig["couch"] == "couchs"
    assert orig["muffin"] == "muffin"
    for sg, pl in [("dish", "dishes"), ("couch", "couches"), ("nose", "noses"), ("face", "faces"),
                   ("muffin", "muffins")]:
        other = vocab.other_number(idx(vocab, sg, category="N"))
        assert other is not None and vocab.expressions[other] == pl
        assert vocab.get(other, "pl") == "1"


def test_every_number_link_resolves_and_round_trips(vocab):
    nouns = vocab.select({"category": "N"})
    linked = (vocab.df["pluralform"] != "") | (vocab.df["singularform"] != "")
    for i in np.flatnonzero(nouns & linked.to_numpy()):
        j = vocab.other_number(i)
        assert j is not None and j != i, vocab.expressions[i]
        assert vocab.get(i, "sg") != vocab.get(j, "sg"), vocab.expressions[i]


def test_fixes_file_errors(tmp_path):
    bad = tmp_path / "fixes.yaml"
    bad.write_text("- id: nothing\n  match: {expression: no-such-word}\n  set: {category: N}\n")
    with pytest.raises(VocabularyError, match="nothing: match: no row matches"):
        Vocabulary.load(VOCABULARY_TABLE, bad)


def _table(tmp_path, rows):
    """A tiny vocabulary CSV written by hand."""
    path = tmp_path / "vocab.csv"
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=["expression", "category", "gender"])
        w.writeheader()
        w.writerows(rows)
    return path


def test_fix_match_list_and_dedupe(tmp_path):
    csv_path = _table(tmp_path, [
        {"expression": "a", "category": "N", "gender": ""},
        {"expression": "a", "category": "N", "gender": ""},      # identical to the row above
        {"expression": "b", "category": "N", "gender": ""},
        {"expression": "b", "category": "N", "gender": "f"},     # same word, other features: kept
        {"expression": "c", "category": "N", "gender": ""},
        {"expression": "c", "category": "N", "gender": ""},      # identical but not matched: kept
    ])
    fixes = tmp_path / "fixes.yaml"
    fixes.write_text("- id: gender\n  match: {expression: [a, b], gender: ''}\n  set: {gender: m}\n"
                     "- id: dups\n  match: {expression: [a]}\n  dedupe: true\n")
    v = Vocabulary.load(csv_path, fixes)
    assert list(zip(v.df.expression, v.df.gender)) == [("a", "m"), ("b", "m"), ("b", "f"), ("c", ""), ("c", "")]
    assert v.fixes == ["gender", "dups"]


@pytest.mark.parametrize("text,needle", [
    # a listed value that matches nothing is an error even when the others match
    ("- id: x\n  match: {expression: [a, zzz]}\n  set: {gender: m}\n", "x: match: no row matches expression='zzz'"),
    # dedupe of rows that are not identical
    ("- id: y\n  match: {expression: b}\n  dedupe: true\n", "y: dedupe: no two identical rows with expression='b'"),
    ("- id: z\n  match: {expression: [a, b]}\n  dedupe: true\n", "z: dedupe: no two identical rows with expression='b'"),
])
def test_fix_match_list_and_dedupe_errors(tmp_path, text, needle):
    csv_path = _table(tmp_path, [
        {"expression": "a", "category": "N", "gender": ""},
        {"expression": "a", "category": "N", "gender": ""},
        {"expression": "b", "category": "N", "gender": ""},
        {"expression": "b", "category": "N", "gender": "f"},
    ])
    fixes = tmp_path / "fixes.yaml"
    fixes.write_text(text)
    with pytest.raises(VocabularyError, match=re.escape(needle)):
        Vocabulary.load(csv_path, fixes)


def _orig(original_rows, **kw):
    return [r for r in original_rows if all(r[k] == v for k, v in kw.items())]


def test_fix_bite_participle(vocab, original_rows):
    # upstream: the participle row of bite is spelt like the past, and there is no "bitten"
    assert [r["expression"] for r in _orig(original_rows, root="bite_(S\\NP)/NP", en="1")] == ["bit"]
    assert not _orig(original_rows, expression="bitten")
    bite = idx(vocab, "bite", category="(S\\NP)/NP")
    assert set(vocab.expressions[vocab.form_of(bite, {"en": 1})]) == {"bitten"}
    assert set(vocab.expressions[vocab.form_of(bite, {"past": 1})]) == {"bit"}
    assert len(vocab.rows_for("bit")) == 1


def test_homophonous_means_past_spelt_like_participle(vocab, original_rows, rows):
    """homophonous=1 on a lexeme's past/participle rows exactly when the two are spelt alike."""
    def mismatches(rows):
        lex = {}
        for r in rows:
            if r["root"] and (r["past"] == "1" or r["en"] == "1"):
                lex.setdefault(r["root"], []).append(r)
        bad = set()
        for root, rs in lex.items():
            past = {r["expression"] for r in rs if r["past"] == "1"}
            en = {r["expression"] for r in rs if r["en"] == "1"}
            if past and en and any((r["homophonous"] == "1") != (past == en) for r in rs):
                bad.add(root)
        return bad
    # (bite's "bit"/"bit" was consistent upstream; it is fixed to "bit"/"bitten" above)
    assert mismatches(original_rows) == {"drink_S\\NP", "drink_(S\\NP)/NP"}
    assert mismatches(rows) == set()


def test_fix_saw_is_past_of_see(vocab, original_rows):
    assert sorted(r["root"] for r in _orig(original_rows, expression="saw")) == ["saw_(S\\NP)/NP", "saw_S\\NP"]
    # no other form of a verb "to saw" upstream: the two rows are see's past
    assert not [r for r in original_rows if r["expression"] in ("saws", "sawed", "sawing", "sawn")]
    for cat in ("(S\\NP)/NP", "S\\NP"):
        seen = idx(vocab, "seen", category=cat)
        assert set(vocab.expressions[vocab.form_of(seen, {"past": 1})]) == {"saw"}, cat
    assert not any(r.startswith("saw_") for r in vocab.df["root"])


def _regular_plurals(sg: str) -> set[str]:
    """Plurals made by -s, -es or y -> -ies on one word of the expression."""
    words = sg.split()
    out = set()
    for i, w in enumerate(words):
        forms = {w + "s", w + "es"} | ({w[:-1] + "ies"} if w.endswith("y") else set())
        out |= {" ".join(words[:i] + [f] + words[i + 1:]) for f in forms}
    return out


def _irrpl_mismatches(rows) -> set[str]:
    """Nouns whose irrpl flag disagrees with whether their number pair is a regular plural."""
    out = set()
    for r in rows:
        if r["noun"] != "1":
            continue
        if r["sg"] == "1" and r["pluralform"]:
            sg, pl = r["expression"], r["pluralform"]
        elif r["pl"] == "1" and r["singularform"]:
            sg, pl = r["singularform"], r["expression"]
        else:
            continue
        if (pl not in _regular_plurals(sg)) != (r["irrpl"] == "1"):
            out.add(r["expression"])
    return out


def test_fix_irregular_plural_flags(vocab, original_rows, rows):
    assert _orig(original_rows, expression="children", frequent="1")[0]["irrpl"] == ""
    assert _irrpl_mismatches(original_rows) >= {"children", "fish", "handyman", "handymen"}
    # scarf/scarves (f -> ves) is left as BLiMP has it: a regular-ish plural, not flagged
    assert _irrpl_mismatches(rows) == {"scarf", "scarves"}
    irregular = set(vocab.expressions[vocab.select({"category": "N", "irrpl": "1"})])
    assert {"children", "fish", "handyman", "handymen"} <= irregular


def _verb_form_problems(rows) -> set[tuple[str, str]]:
    """(expression, problem) for verb rows whose form flags contradict the spelling or subject."""
    out = set()
    for r in rows:
        if r["verb"] != "1" or not r["root"]:
            continue
        head = r["expression"].split()[0]
        if r["3sg"] == "1" and (r["pres"] != "1" or not head.endswith("s")):
            out.add((r["expression"], "3sg"))
        if r["pres"] == "1" and r["3sg"] != "1" and "sg=1" in r["arg_1"] and "sg=0" not in r["arg_1"]:
            out.add((r["expression"], "non-3sg present with a singular subject"))
        if r["ing"] == "1" and not head.endswith("ing"):
            out.add((r["expression"], "ing"))
        if r["pres"] == "1" and head.endswith("ing") and head not in ("sing", "bring", "fling"):
            out.add((r["expression"], "present spelt -ing"))
    return out


def test_fix_verb_form_flags(vocab, original_rows, rows):
    assert _verb_form_problems(original_rows) == {
        ("trains", "non-3sg present with a singular subject"), ("training", "3sg"),
        ("singing", "3sg"), ("singing", "present spelt -ing")}
    assert _verb_form_problems(rows) == set()
    train = idx(vocab, "train", category="S\\NP")
    assert set(vocab.expressions[vocab.form_of(train, {"3sg": 1})]) == {"trains"}
    sing = idx(vocab, "sing", category="S\\NP")
    assert set(vocab.expressions[vocab.form_of(sing, {"3sg": 1})]) == {"sings"}
    assert set(vocab.expressions[vocab.form_of(sing, {"ing": 1})]) == {"singing"}


def _root_problems(rows) -> set[str]:
    """Roots that do not read '<bare form>_<category>' for the rows that carry them."""
    lex: dict[str, list[dict]] = {}
    for r in rows:
        if r["root"]:
            lex.setdefault(r["root"], []).append(r)
    out = set()
    for root, rs in lex.items():
        lemma, _, cat = root.rpartition("_")
        if any(r["category"] != cat for r in rs):
            out.add(root)
        if any(r["verb"] == "1" for r in rs) and {r["expression"] for r in rs if r["bare"] == "1"} != {lemma}:
            out.add(root)
    return out


def test_fix_roots(vocab, original_rows, rows):
    assert _root_problems(original_rows) == {
        # cut off at 20 characters
        "complain about_(S\\NP)", "disagree with_(S\\NP)", "escape from_(S\\NP)/N",
        "explain everything_S", "prevent_(S\\NP)/(S[fr", "refuse_(S\\NP)/(S[to]",
        # forms filed under a lexeme of their own or another lexeme's
        "saw_(S\\NP)/NP", "saw_S\\NP", "fell_S\\NP", "skate around_(S\\NP)/NP", "walk through_(S\\NP)/NP",
        "argue_"}
    assert _root_problems(rows) == set()
    fall = idx(vocab, "fall", category="S\\NP")
    assert set(vocab.expressions[vocab.form_of(fall, {"past": 1})]) == {"fell"}
    walked = idx(vocab, "walked through")
    assert set(vocab.expressions[vocab.form_of(walked, {"bare": 1})]) == {"walk through"}
    skated = idx(vocab, "skated around")
    assert set(vocab.expressions[vocab.form_of(skated, {"bare": 1})]) == {"skate around"}
    complains = idx(vocab, "complains about")
    assert vocab.get(complains, "root") == "complain about_(S\\NP)/NP"
    assert len(vocab.lexeme(complains)) == 6


def test_fix_special_en_form_means_a_distinct_participle(vocab, original_rows, rows):
    def same_past_and_participle(rows):
        lex: dict[str, list[dict]] = {}
        for r in rows:
            if r["root"] and r["special_en_form"] == "1":
                lex.setdefault(r["root"], []).append(r)
        return {root for root, rs in lex.items()
                if {r["expression"] for r in rs if r["past"] == "1"} == {r["expression"] for r in rs if r["en"] == "1"}}
    assert same_past_and_participle(original_rows) == {"awaken_S\\NP"}
    assert same_past_and_participle(rows) == set()
    assert not vocab.select({"root": "awaken_S\\NP", "irr_verb": "1"}).any()


def test_fix_car_is_a_vehicle(vocab, original_rows):
    orig = _orig(original_rows, expression="car")
    assert sorted((r["artifact"], r["vehicle"]) for r in orig) == [("0", ""), ("1", "1")]  # the twins disagree
    for word in ("car", "cars"):
        rows = vocab.rows_for(word)
        assert len(rows) == 2 and all(vocab.get(i, "artifact") == "1" and vocab.get(i, "vehicle") == "1"
                                      for i in rows), word


def test_fix_popsicle_plural(vocab, original_rows):
    assert _orig(original_rows, expression="popsicle")[0]["pluralform"] == ""
    assert not _orig(original_rows, expression="popsicles")
    pl = vocab.other_number(idx(vocab, "popsicle"))
    assert pl is not None and vocab.expressions[pl] == "popsicles"
    sg, plural = vocab.row(idx(vocab, "popsicle")), vocab.row(pl)
    # the plural row differs from the singular only in the number columns
    differ = {c for c in sg if sg[c] != plural[c]}
    assert differ == {"expression", "sg", "pl", "pluralform", "singularform"}


def test_count_nouns_have_a_plural(vocab, original_rows, rows):
    """Common count nouns of category N (outside the relational and clausal blocks) name their
    other number, except the plural-only nouns."""
    def unlinked(rows):
        return {r["expression"] for r in rows
                if r["category"] == "N" and r["noun"] == "1" and r["properNoun"] != "1" and r["mass"] == "0"
                and not r["pluralform"] and not r["singularform"]}
    plural_only = {"glasses", "pants", "stairs", "steps"}
    assert unlinked(original_rows) == plural_only | {"popsicle"}
    assert unlinked(rows) == plural_only


def test_fix_genders(vocab, original_rows, rows):
    def genderless(rows):
        return {r["expression"] for r in rows
                if r["category"] == "N" and r["animate"] == "1" and r["sg"] == "1" and r["properNoun"] == "1"
                and not r["gender"]}
    assert genderless(original_rows) == {"Winston Churchill", "Monet", "Jesus", "Galileo"}
    assert genderless(rows) == set()
    himself = idx(vocab, "himself", category_2="refl")
    herself = idx(vocab, "herself", category_2="refl")
    for name in ("Winston Churchill", "Monet", "Jesus", "Galileo"):
        assert vocab.accepts(himself, "arg_1", idx(vocab, name)) and not vocab.accepts(herself, "arg_1", idx(vocab, name))
    assert {r["gender"] for r in _orig(original_rows, expression="dancer")} == {"f"}
    dancer = idx(vocab, "dancer")
    assert vocab.accepts(himself, "arg_1", dancer) and vocab.accepts(herself, "arg_1", dancer)


def test_added_plural_rows_mirror_their_singular(vocab, original_rows):
    # "couches" already had a row upstream (only couch's link to it was misspelt)
    assert len(_orig(original_rows, expression="couches")) == 1
    assert len(vocab.rows_for("couches")) == 1
    for sg in ("nose", "face", "couch", "popsicle"):
        i = idx(vocab, sg, category="N")
        a, b = vocab.row(i), vocab.row(vocab.other_number(i))
        assert {c for c in a if a[c] != b[c]} == {"expression", "sg", "pl", "pluralform", "singularform"}, sg


def test_fix_duplicate_rows(vocab, original_rows):
    # child: a frequent row with gender, and an irregular-block row without
    orig = _orig(original_rows, expression="child", category="N")
    assert sorted((r["frequent"], r["gender"], r["irrpl"]) for r in orig) == [("0", "", "1"), ("1", "n", "1")]
    for word, gender in [("child", "n"), ("children", "n"), ("man", "m"), ("men", "m"), ("woman", "f"), ("women", "f")]:
        rows = vocab.rows_for(word, category="N")
        assert len(rows) == 1, word
        assert vocab.get(rows[0], "gender") == gender and vocab.get(rows[0], "irrpl") == "1", word
        assert vocab.get(rows[0], "frequent") == "1", word
    # rows identical in every column: several upstream, none after the fixes
    seen, dups = set(), set()
    for r in original_rows:
        key = tuple(r.values())
        if key in seen and r["expression"]:
            dups.add(r["expression"])
        seen.add(key)
    assert dups == {"doctor", "doctors", "teacher", "teachers", "student", "students", "testified", "employed",
                    "unemployed", "confident", "not so amusing", "not so normal"}
    assert not vocab.df.duplicated().any()
    testify = idx(vocab, "testify", category="S\\NP")
    assert len(vocab.form_of(testify, {"en": 1})) == 1


def _dnf_without_number(text: str) -> set[frozenset]:
    """A restriction as a set of alternatives, ignoring sg/pl conditions (agreement)."""
    return {frozenset(c for c in conj.split("^") if c.split("=")[0] not in ("sg", "pl"))
            for conj in text.split(";")} if text else set()


def test_fix_lexeme_features_agree(vocab, original_rows, rows):
    """Forms of one lexeme share verb flag and selectional restrictions (up to number)."""
    def disagreeing(rows, col, norm=lambda x: x):
        lex: dict[str, set] = {}
        for r in rows:
            if r["root"]:
                lex.setdefault(r["root"], set()).add(frozenset(norm(r[col])) if col.startswith("arg") else r[col])
        return {root for root, vals in lex.items() if len(vals) > 1}
    assert "rot_S\\NP" in disagreeing(original_rows, "verb")
    assert "rot_S\\NP" not in disagreeing(rows, "verb")
    for root, col in [("sell_(S\\NP)/NP", "arg_1"), ("make_(S\\NP)/NP", "arg_2")]:
        assert root in disagreeing(original_rows, col, _dnf_without_number), root
        assert root not in disagreeing(rows, col, _dnf_without_number), root
    # the bank sells; nobody makes the boy
    sells, bank = idx(vocab, "sells"), idx(vocab, "bank")
    assert vocab.accepts(sells, "arg_1", bank)
    make = idx(vocab, "make", category="(S\\NP)/NP", bare="1")
    assert not vocab.accepts(make, "arg_2", idx(vocab, "boy"))
    assert [r["pl"] for r in _orig(original_rows, expression="allegations")] == ["0"]
    assert vocab.get(idx(vocab, "allegations"), "pl") == "1"


def test_docs_state_the_number_of_fixes_and_rows(vocab):
    repo = Path(__file__).resolve().parents[1]
    # (the rows of BLiMP's fixed table, the docs' figure: the English extension's rows are not BLiMP's)
    n_fixes, n_rows = len(vocab.fixes), f"{int(vocab.source_rows().sum()):,}"
    for doc, pattern in [("docs/vocabulary.md", r"holds (\d+) corrections"), ("vocab/README.md", r"corrections \((\d+),")]:
        text = (repo / doc).read_text(encoding="utf-8")
        assert re.search(pattern, text).group(1) == str(n_fixes), doc
        assert f"{n_rows} rows" in " ".join(text.split()), doc
