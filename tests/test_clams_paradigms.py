"""The French and German agreement paradigms converted from CLAMS (grammars/fr, grammars/de; issue 27).

Expected sentences are written by hand from CLAMS' word lists (aaronmueller/clams @ 36b5c9a,
Apache-2.0: fr/de_replication/common.avg and the construction files) and from French and German
grammar (elision, the weak accusative "den Architekten", the dative plural "den Wächtern"), not from
the converter's output."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import fairpairs as fp
from fairpairs.io.paths import data_dir
from fairpairs.generation.vocab import default_vocabulary

ROOT = Path(__file__).resolve().parent.parent

# CLAMS' fr NP_1[3,s,m,anim] list, its elision written without the space
FR_N1_SG = ["L'auteur", "Le directeur", "L'agriculteur", "Le chirurgien", "Le sénateur", "Le professeur",
            "Le client", "L'officier", "Le pilote", "Le consultant"]
# CLAMS' fr VP list (simple_agrmt.avg) and the twelve added predicates (grammars/fr/README.md)
FR_VP = {"est vieux": "sont vieux", "est jeune": "sont jeunes", "est petit": "sont petits",
         "est grand": "sont grands", "déménage": "déménagent", "parle": "parlent", "retourne": "retournent",
         "est content": "sont contents", "est fatigué": "sont fatigués", "est heureux": "sont heureux",
         "est fort": "sont forts", "est timide": "sont timides", "est sérieux": "sont sérieux",
         "est nerveux": "sont nerveux", "pleure": "pleurent", "crie": "crient", "joue": "jouent",
         "est là": "sont là", "est ici": "sont ici"}
DE_N1 = "Schriftsteller|Direktor|Bauer|Chirurg|Senator|Lehrer|Kunde|Polizist|Pilot|Berater"
DE_VP = ("ist alt|ist jung|ist klein|ist groß|schwimmt|spricht|lacht|ist müde|ist krank|ist reich|ist berühmt"
         "|singt|tanzt|lächelt|weint")


def test_every_converted_paradigm_validates(fairpairs_cli):
    code, out, err = fairpairs_cli("validate", str(data_dir("grammars") / "fr"), str(data_dir("grammars") / "de"))
    assert code == 0, out + err
    assert out.startswith("OK: 50 paradigm file(s)")
    assert "fr.csv" in out and "de.csv" in out
    # the seven constructions, with CLAMS' sentence templates as cells (fr 28, de 22)
    terms = {lang: sorted({fp.load_paradigm(f).linguistics_term for f in (data_dir("grammars") / lang).glob("*.yaml")})
             for lang in ("fr", "de")}
    seven = sorted(["simple_agrmt", "vp_coord", "long_vp_coord", "subj_rel", "obj_rel_within_anim",
                    "obj_rel_across_anim", "prep_anim"])
    assert terms == {"fr": seven, "de": seven}


def test_french_simple_agreement_from_the_cli(tmp_path, fairpairs_cli):
    out = tmp_path / "run"
    code, _, err = fairpairs_cli("generate", "--paradigms", "fr/fr_simple_agrmt_n1sg,fr_prep_anim_n1pl_pp_n2sg",
                              "--models", "gpt2", "--pairs", "25", "--seed", "4", "--out", str(out), "--quiet")
    assert code == 0, err
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["vocabulary"]["file"] == "fr.csv"
    expected = {f"{s} {v}.": f"{s} {FR_VP[v]}." for s in FR_N1_SG for v in FR_VP}
    for which in ("original", "debiased"):
        rows = [json.loads(x) for x in (out / which / "fr_simple_agrmt_n1sg.jsonl").read_text(encoding="utf-8").splitlines()]
        assert len(rows) == 25
        for r in rows:
            assert expected[r["sentence_good"]] == r["sentence_bad"]
    pp = re.compile(r"^Les (auteurs|directeurs|agriculteurs|chirurgiens|sénateurs|professeurs|clients|officiers"
                    r"|pilotes|consultants) (près|à côté|en face) (du (garde|ministre|cadre|chauffeur de taxi|danseur"
                    r"|chef|patineur|parent)|de l'(adjoint|architecte)) (\w+|sont \w+)\.$")
    rows = [json.loads(x) for x in (out / "debiased" / "fr_prep_anim_n1pl_pp_n2sg.jsonl").read_text(encoding="utf-8").splitlines()]
    assert rows and all(pp.match(r["sentence_good"]) for r in rows), [r["sentence_good"] for r in rows if not pp.match(r["sentence_good"])]
    assert all(r["token_lengths"]["gpt2"]["good"] == r["token_lengths"]["gpt2"]["bad"] for r in rows)


def test_german_case_forms_from_the_api():
    acc = re.compile(rf"^Der ({DE_N1}), der den (Wächter|Minister|Mitarbeiter|Taxifahrer|Tänzer|Architekten"
                     rf"|Koch|Bruder|Kellner) (mag|vermeidet|verehrt|hasst|sieht|liebt|fragt|besucht|unterstützt|braucht|lobt"
                     rf"|respektiert), ({DE_VP})\.$")
    for r in fp.generate("de_subj_rel_n1sg_n2sg", pairs=40, seed=1):
        assert acc.match(r.sentence_good), r.sentence_good
    dat = re.compile(rf"^Die (Schriftsteller|Direktoren|Bauern|Chirurgen|Senatoren|Lehrer|Kunden|Polizisten|Piloten|Berater) "
                     rf"(vor|nach|neben|in der Nähe von|gegenüber) den (Wächtern|Ministern|Leitern|Mitarbeitern"
                     rf"|Taxifahrern|Tänzern|Architekten|Köchen|Vätern) (sind \w+|\w+)\.$")
    rows = fp.generate("de/de_prep_anim_n1pl_n3pl", pairs=60, seed=2)
    assert all(dat.match(r.sentence_good) for r in rows), [r.sentence_good for r in rows if not dat.match(r.sentence_good)]
    sg = fp.generate("de_prep_anim_n1sg_n3sg", pairs=60, seed=3)
    assert any("in der Nähe vom " in r.sentence_good for r in sg)
    assert not any("von dem" in r.sentence_good or "gegenüber vom" in r.sentence_good for r in sg)
    assert any("dem Architekten " in r.sentence_good for r in sg) or not any("Architekt" in r.sentence_good for r in sg)


def test_german_possessive_agrees_with_the_subject_in_both_sentences():
    for uid, mine, other in (("de_long_vp_coord_n1sg", "sein", "ihr"), ("de_long_vp_coord_n1pl", "ihr", "sein")):
        for r in fp.generate(uid, pairs=60, seed=0):
            for s in (r.sentence_good, r.sentence_bad):
                assert not re.search(rf"\b{other}(en|em)\b", s), s


def test_source_defects_are_fixed_in_the_tables():
    de = default_vocabulary("de").df
    spiel = de[de["lemma"] == "Spiel"]
    assert set(spiel["gender"]) == {"n"} and "Spiele" in set(spiel["expression"])
    assert not ((de["expression"] == "Romanen") & (de["case"] == "nom")).any()
    assert set(de[(de["lemma"] == "Architekt") & (de["number"] == "sg")].set_index("case")["expression"].items()) == \
        {("nom", "Architekt"), ("acc", "Architekten"), ("dat", "Architekten")}
    assert not de["expression"].str.startswith("Die ").any()
    # 'die Leiter' (the leaders) is also 'die Leiter' (the ladder, feminine singular): as an attractor it
    # would make 'der Kunde, den die Leiter fragt' grammatical; it stays after prepositions (N3)
    assert not ((de["lemma"] == "Leiter") & (de["N2"] == "1")).any()
    assert ((de["lemma"] == "Leiter") & (de["N3"] == "1")).any()
    fr = default_vocabulary("fr").df
    assert not fr["expression"].str.contains("'").any()            # articles come from the rule
    assert "a vingt-trois ans" in set(fr["expression"]) and "a vingt trois ans" not in set(fr["expression"])
    for lang in ("fr", "de"):                                       # every lemma has both numbers
        t = default_vocabulary(lang).df
        t = t[t["category"] != "D"]
        assert (t.groupby(["lemma", "category", "case"])["number"].nunique() == 2).all()


def test_no_coordination_of_a_verb_phrase_with_itself():
    for uid in ("fr_vp_coord_n1sg", "de_vp_coord_n1pl"):
        rows = fp.generate(uid, pairs=80, seed=0)
        assert all(r.fillers["v2"] != r.fillers["v3"] for r in rows)
        opposites = [{"vieux", "jeune"}, {"vieux", "jeunes"}, {"petit", "grand"}, {"petits", "grands"},
                     {"alt", "jung"}, {"klein", "groß"}]
        assert not any({r.fillers["v2"].split()[-1], r.fillers["v3"].split()[-1]} in opposites for r in rows)
        assert all(f" {r.fillers['v2']} " in r.sentence_good for r in rows)


@pytest.mark.slow
def test_converter_reproduces_the_committed_files(tmp_path, shared):
    """tools/clams_convert.py on CLAMS (../shared) writes exactly the bundled files."""
    (tmp_path / "vocab").mkdir()
    subprocess.run([sys.executable, str(ROOT / "tools" / "clams_convert.py"), "--clams",
                    str(shared / "reference" / "clams"),
                    "--out", str(tmp_path)], check=True, capture_output=True)
    for lang in ("fr", "de"):
        assert (tmp_path / "vocab" / f"{lang}.csv").read_bytes() == (ROOT / "vocab" / f"{lang}.csv").read_bytes()
        mine = sorted(p.name for p in (ROOT / "grammars" / lang).iterdir())
        assert sorted(p.name for p in (tmp_path / "grammars" / lang).iterdir()) == mine
        for name in mine:
            assert (tmp_path / "grammars" / lang / name).read_bytes() == (ROOT / "grammars" / lang / name).read_bytes()
    # Russian: the converter's table, then tools/extend_vocab.py's extension, is the committed table
    subprocess.run([sys.executable, str(ROOT / "tools" / "extend_vocab.py"), "--table",
                    str(tmp_path / "vocab" / "ru.csv")], check=True, capture_output=True)
    assert (tmp_path / "vocab" / "ru.csv").read_bytes() == (ROOT / "vocab" / "ru.csv").read_bytes()
    assert (tmp_path / "grammars" / "ru" / "README.md").read_bytes() == (ROOT / "grammars" / "ru" / "README.md").read_bytes()
