"""Paradigms in other languages: the `language` field, language tables (lemma, person, number,
gender, case) and the surface rules of fairpairs.generation.languages. Expected outputs are written by hand
from French and German grammar (articles, elision, contraction), not taken from the code."""

from pathlib import Path

import pytest

import fairpairs as fp
from fairpairs.errors import GrammarError, UsageError, VocabularyError
from fairpairs.generation.grammar import read_paradigm_file
from fairpairs.generation.selection import paradigm_index, select_paradigms
from fairpairs.generation.languages import Language, get_language, register
from fairpairs.generation.languages import de, fr
from fairpairs.generation.vocab import read_vocabulary

FIX = Path(__file__).parent / "fixtures" / "languages"


# ---------------------------------------------------------------- French rules
@pytest.mark.parametrize("text, expected", [
    ("Le auteur parle.", "L'auteur parle."),
    ("La habitante parle.", "L'habitante parle."),          # mute h
    ("Le héros parle.", "Le héros parle."),                 # aspirated h: no elision
    ("Le hibou et le yaourt.", "Le hibou et le yaourt."),   # aspirated h, y
    ("Il pense que il parle.", "Il pense qu'il parle."),
    ("Elle ne aime pas.", "Elle n'aime pas."),
    ("Le garde de Anne.", "Le garde d'Anne."),
    ("La école.", "L'école."),
    ("Les auteurs parlent.", "Les auteurs parlent."),       # les is never elided
    ("Une lettre.", "Une lettre."),                         # not a word that elides
])
def test_french_elision(text, expected):
    assert fr.elision(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("L'auteur près de le garde parle.", "L'auteur près du garde parle."),
    ("L'auteur près de les gardes parle.", "L'auteur près des gardes parle."),
    ("Il parle à le garde et à les gardes.", "Il parle au garde et aux gardes."),
    ("L'auteur près de la habitante.", "L'auteur près de la habitante."),   # de la stays
    ("De le garde.", "Du garde."),
    ("Le garde de l'auteur.", "Le garde de l'auteur."),
])
def test_french_contraction(text, expected):
    assert fr.contraction(text) == expected


def test_french_rules_in_order():
    rules = get_language("fr")
    assert rules.apply(["elision", "contraction"], "L'auteur à côté de le adjoint et de le garde.") == \
        "L'auteur à côté de l'adjoint et du garde."


@pytest.mark.parametrize("number, gender, definite, indefinite", [
    ("sg", "m", "le", "un"), ("sg", "f", "la", "une"), ("pl", "m", "les", "des"), ("pl", "f", "les", "des"),
])
def test_french_articles(number, gender, definite, indefinite):
    lang = get_language("fr")
    assert lang.article("definite", {"number": number, "gender": gender}) == definite
    assert lang.article("indefinite", {"number": number, "gender": gender}) == indefinite


# ---------------------------------------------------------------- German rules
# the definite article table of any German grammar (Duden): rows nom, acc, dat, gen
GERMAN_DEFINITE = {
    ("sg", "m"): "der den dem des", ("sg", "f"): "die die der der", ("sg", "n"): "das das dem des",
    ("pl", "m"): "die die den der", ("pl", "f"): "die die den der", ("pl", "n"): "die die den der",
}
GERMAN_INDEFINITE = {("sg", "m"): "ein einen einem eines", ("sg", "f"): "eine eine einer einer",
                     ("sg", "n"): "ein ein einem eines"}


@pytest.mark.parametrize("key", sorted(GERMAN_DEFINITE))
def test_german_articles(key):
    lang = get_language("de")
    number, gender = key
    for case, want in zip(("nom", "acc", "dat", "gen"), GERMAN_DEFINITE[key].split()):
        assert lang.article("definite", {"number": number, "gender": gender, "case": case}) == want
    for case, want in zip(("nom", "acc", "dat", "gen"), GERMAN_INDEFINITE.get(key, "- - - -").split()):
        got = lang.article("indefinite", {"number": number, "gender": gender, "case": case})
        assert got == ("" if want == "-" else want)


def test_german_article_needs_case_and_gender():
    with pytest.raises(ValueError, match="case"):
        de.articles("definite", {"number": "sg", "gender": "m", "case": ""})
    with pytest.raises(ValueError, match="gender"):
        de.articles("definite", {"number": "sg", "gender": "", "case": "nom"})


@pytest.mark.parametrize("text, expected", [
    ("Der Lehrer in der Nähe von dem Wächter lacht.", "Der Lehrer in der Nähe vom Wächter lacht."),
    ("Von dem Wächter.", "Vom Wächter."),
    ("Er geht zu der Schule und zu dem Arzt.", "Er geht zur Schule und zum Arzt."),
    ("Der Mann, von dem ich spreche, lacht.", "Der Mann, von dem ich spreche, lacht."),  # a relative pronoun
    ("Er ist in der Stadt.", "Er ist in der Stadt."),        # in der: no contraction
])
def test_german_contraction(text, expected):
    assert de.contraction(text) == expected


def test_registry():
    with pytest.raises(GrammarError, match="language: unknown language 'xx'"):
        get_language("xx")
    with pytest.raises(GrammarError, match="'elision' is not a surface rule of German"):
        get_language("de").apply(["elision"], "x")
    with pytest.raises(GrammarError, match="English .* has no article rule"):
        get_language("en").article("definite", {})
    register(Language(code="zz", name="Shouty", vocabulary="zz.csv", rules={"shout": str.upper}))
    assert get_language("zz").apply(["shout"], "Hello.") == "HELLO."


# ---------------------------------------------------------------- language tables
def test_language_table_lemma_links_forms():
    v = read_vocabulary(FIX / "fr_tiny.csv", "fr")
    assert v.language == "fr"
    auteur = int(v.rows_for("auteur")[0])
    assert v.expressions[v.other_number(auteur)] == "auteurs"
    parlent = int(v.rows_for("parlent")[0])
    assert v.expressions[v.other_number(parlent)] == "parle"
    assert sorted(v.expressions[v.lexeme(parlent)]) == ["parle", "parlent"]
    assert v.other_number(int(v.rows_for("héros")[0])) is None
    # a German noun keeps its case: the dative plural of the dative singular
    d = read_vocabulary(FIX / "de_tiny.csv", "de")
    assert d.expressions[d.other_number(int(d.rows_for("Wächter")[0]))] == "Wächtern"


def test_language_table_checks(tmp_path):
    text = (FIX / "fr_tiny.csv").read_text(encoding="utf-8")
    p = tmp_path / "t.csv"
    p.write_text(text.replace("auteurs,auteur,N,3,pl", "auteurs,auteur,N,3,plural"), encoding="utf-8")
    with pytest.raises(VocabularyError, match=r"t.csv: line 6 \(expression 'auteurs'\): number: 'plural' is not one of"):
        read_vocabulary(p, "fr")
    p.write_text(text.replace(",case,", ",kase,"), encoding="utf-8")
    with pytest.raises(VocabularyError, match=r"t.csv: missing column\(s\) case"):
        read_vocabulary(p, "fr")


# ---------------------------------------------------------------- paradigms
FR_PARADIGM = """uid: {uid}
language: fr
rules: [elision, contraction]
phenomenon: Subject-verb agreement
field: morphology
linguistics_term: prep_anim
slots:
  n1: {where: {list: N1}, article: definite}
  n2: {where: {list: N2}, article: definite}
  vp: {where: {category: VP}, same: {n1: [number]}}
template: "{{ n1 }} près de {{ n2 }} {{ vp }}."
critical:
  vp: {form: other_number}
"""


def _write(folder: Path, text: str, uid: str) -> Path:
    p = folder / f"{uid}.yaml"
    p.write_text(text.replace("{uid}", uid), encoding="utf-8")
    return p


def test_french_paradigm_generates_what_a_speaker_writes(tmp_path):
    vocab = read_vocabulary(FIX / "fr_tiny.csv", "fr")
    p = read_paradigm_file(_write(tmp_path, FR_PARADIGM, "fr_prep"), vocab)
    assert p.language == "fr" and p.rules == ("elision", "contraction")
    subjects = {"sg": ["L'auteur", "Le héros"], "pl": ["Les auteurs"]}
    attractors = ["du garde", "des gardes", "de l'habitante"]
    good = {f"{s} près {a} parle{'nt' if n == 'pl' else ''}." for n, ss in subjects.items() for s in ss
            for a in attractors}
    expected = {g: g.replace("parlent.", "PARLE.").replace("parle.", "parlent.").replace("PARLE.", "parle.")
                for g in good}
    assert len(expected) == 9
    pairs = fp.generate(p, pairs=9, seed=1, vocab=vocab)     # every distinct pair the paradigm allows
    assert {(r.sentence_good, r.sentence_bad) for r in pairs} == set(expected.items())


DE_PARADIGM = """uid: {uid}
language: de
rules: [contraction]
phenomenon: Subject-verb agreement
field: morphology
linguistics_term: prep_anim
slots:
  n1: {where: {list: N1}, article: definite}
  prep: {text: [neben, in der Nähe von]}
  n3: {where: {list: N3}, article: definite}
  vp: {where: {category: VP}, same: {n1: [number]}}
template: "{{ n1 }} {{ prep }} {{ n3 }} {{ vp }}."
critical:
  vp: {form: other_number}
"""


def test_german_paradigm_articles_by_gender_number_case(tmp_path):
    vocab = read_vocabulary(FIX / "de_tiny.csv", "de")
    p = read_paradigm_file(_write(tmp_path, DE_PARADIGM, "de_prep"), vocab)
    subj = {"sg": ("Der Lehrer", "lacht", "lachen"), "pl": ("Die Lehrer", "lachen", "lacht")}
    attr = {"neben": ["neben dem Wächter", "neben den Wächtern", "neben dem Kind"],
            "in der Nähe von": ["in der Nähe vom Wächter", "in der Nähe von den Wächtern", "in der Nähe vom Kind"]}
    expected = {f"{s} {a} {v}.": f"{s} {a} {b}." for s, v, b in subj.values()
                for group in attr.values() for a in group}
    assert len(expected) == 12
    pairs = fp.generate(p, pairs=12, seed=2, vocab=vocab)
    assert {(r.sentence_good, r.sentence_bad) for r in pairs} == set(expected.items())
    assert {r.fillers["n3.det"] for r in pairs} == {"dem", "den"}


def test_paradigm_language_errors(tmp_path):
    fr_vocab = read_vocabulary(FIX / "fr_tiny.csv", "fr")
    with pytest.raises(GrammarError, match=r"x1.yaml: language: unknown language 'xx'"):
        read_paradigm_file(_write(tmp_path, FR_PARADIGM.replace("language: fr", "language: xx"), "x1"), fr_vocab)
    with pytest.raises(GrammarError, match=r"x2.yaml: rules: 'umlaut' is not a surface rule of French"):
        read_paradigm_file(_write(tmp_path, FR_PARADIGM.replace("[elision, contraction]", "[umlaut]"), "x2"), fr_vocab)
    with pytest.raises(GrammarError, match=r"x3.yaml: language: fr, but the vocabulary blimp_vocabulary.csv is a BLiMP"):
        read_paradigm_file(_write(tmp_path, FR_PARADIGM, "x3"), fp.load_vocabulary())
    bad_art = FR_PARADIGM.replace("article: definite}", "article: partitive}", 1)
    with pytest.raises(GrammarError, match=r"x4.yaml: slots.n1.article: 'partitive' is not an article kind"):
        read_paradigm_file(_write(tmp_path, bad_art, "x4"), fr_vocab)
    no_les = fr_vocab.subset(fr_vocab.expressions != "les")
    with pytest.raises(GrammarError, match=r"x5.yaml: slots.n1.article: the article 'les' \(of 'auteurs'\) is not a "
                                           r"determiner row"):
        read_paradigm_file(_write(tmp_path, FR_PARADIGM, "x5"), no_les)
    both = FR_PARADIGM.replace("article: definite}", "article: definite, det: true}", 1)
    with pytest.raises(GrammarError, match=r"x6.yaml: slots.n1.article: give det .* or article"):
        read_paradigm_file(_write(tmp_path, both, "x6"), fr_vocab)


def test_english_is_the_default_language(tmp_path):
    """An English paradigm that says `language: en` is the paradigm that says nothing."""
    src = (Path(fp.__file__).parent.parent / "grammars" / "determiner_noun_agreement_1.yaml").read_text(encoding="utf-8")
    plain = read_paradigm_file(_write(tmp_path, src, "determiner_noun_agreement_1"))
    (tmp_path / "en").mkdir()
    said = read_paradigm_file(_write(tmp_path / "en", "language: en\n" + src, "determiner_noun_agreement_1"))
    assert plain.language == said.language == "en" and said.rules == ()
    a = [(r.sentence_good, r.sentence_bad) for r in fp.generate(plain, pairs=30, seed=5)]
    b = [(r.sentence_good, r.sentence_bad) for r in fp.generate(said, pairs=30, seed=5)]
    assert a == b


def test_language_folders_are_addressed_by_paradigms(tmp_path):
    """A grammar folder's language sub-folders: `fr/all`, `fr/<uid>` or a uid found there."""
    (tmp_path / "fr").mkdir()
    _write(tmp_path / "fr", FR_PARADIGM, "fr_prep_a")
    _write(tmp_path / "fr", FR_PARADIGM, "fr_prep_b")
    index = paradigm_index(tmp_path)
    assert set(index) == {"fr_prep_a", "fr_prep_b", "fr/fr_prep_a", "fr/fr_prep_b"}
    vocab = read_vocabulary(FIX / "fr_tiny.csv", "fr")
    _, ps = select_paradigms("fr/all", grammar_dir=tmp_path, vocab=vocab)
    assert [p.uid for p in ps] == ["fr_prep_a", "fr_prep_b"]
    _, ps = select_paradigms("fr/fr_prep_b,fr_prep_a", grammar_dir=tmp_path, vocab=vocab)
    assert [p.uid for p in ps] == ["fr_prep_b", "fr_prep_a"]
    with pytest.raises(UsageError, match=r"paradigms: fr_prep_a named twice"):
        select_paradigms("fr/all,fr_prep_a", grammar_dir=tmp_path, vocab=vocab)
    with pytest.raises(UsageError, match=r"paradigms: unknown paradigm\(s\) de/all .*language folders: fr/all"):
        select_paradigms("de/all", grammar_dir=tmp_path, vocab=vocab)


def test_search_weighs_frequencies_in_the_paradigms_language():
    """Length control's frequency matching (fairpairs.control.search) reads wordfreq in the paradigm's
    language: French 'parle' by its French frequency, an English paradigm's words in English."""
    import numpy as np
    from wordfreq import zipf_frequency

    from fairpairs.generation.sampler import Sampler
    from fairpairs.control.search import Frequencies

    p = fp.load_paradigm("fr_simple_agrmt_n1sg")
    f = Frequencies(Sampler(p, p.vocab))
    r = int(p.vocab.rows_for("parle")[0])
    assert f.language == "fr" and f.rows(np.array([r]))[0] == zipf_frequency("parle", "fr") > 5
    en = fp.load_paradigm("determiner_noun_agreement_1")
    assert Frequencies(Sampler(en, en.vocab)).language == "en"
