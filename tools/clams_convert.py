"""Convert CLAMS' French, German, Russian and Hebrew agreement grammars into fairpairs paradigm files and language tables.

Source: CLAMS (Cross-Linguistic Assessment of Models on Syntax; Mueller, Nicolai, Petrou-Zeniou,
Talmina & Linzen, ACL 2020), github aaronmueller/clams at commit 36b5c9a (2021-12-15), licence
Apache-2.0: the attribute-varying grammars <lang>_replication/*.avg (fr, de, ru, he) with their
shared common.avg. The word lists and sentence templates below are read from those files; what this
script adds is written out here: the articles split off the nouns (the language's article rule
puts them back; Hebrew's prefixes are attached by the rule `prefixes`), German case forms, Russian
case forms aligned with their lemmas, the fixes of known defects (`FIXES`, listed in
grammars/<lang>/README.md) and the words added so that length control keeps every cell (`EXTRA`).

    python tools/clams_convert.py --clams ../shared/reference/clams     # writes grammars/<lang>,
                                                                          # vocab/<lang>.csv (fr, de, ru, he)

A grammar file: `vary: X[]` names the nonterminal whose number flips in the bad sentence; a rule
`LHS[attrs] a | b | c`; `S[] ...` lines are the sentence templates (one paradigm file each here, a
"cell"); option i of `V[3,s]` pairs with option i of `V[3,p]` (the lemma is the position).
"""

from __future__ import annotations

import argparse
import csv
import io
import re
import sys
from pathlib import Path

SOURCE = "aaronmueller/clams"
COMMIT = "36b5c9a"
LANGS = ("fr", "de", "ru", "he")
CONSTRUCTIONS = ("simple_agrmt", "vp_coord", "long_vp_coord", "subj_rel", "obj_rel_within_anim",
                 "obj_rel_across_anim", "prep_anim")
COLUMNS = ["expression", "lemma", "category", "person", "number", "gender", "case", "animate",
           "N1", "N2", "N3", "V1", "VP", "LVP", "possessor", "scale", "source"]
# predicates on one scale: "l'auteur est vieux et est jeune" is a contradiction, not a coordination
SCALES = {"est vieux": "age", "est jeune": "age", "est petit": "size", "est grand": "size",
          "est là": "place", "est ici": "place",
          "ist alt": "age", "ist jung": "age", "ist klein": "size", "ist groß": "size"}
FR_ARTICLES = ("le", "la", "l'", "les", "du", "des", "de l'")
DE_ARTICLES = ("der", "die", "das", "den", "dem")
# Russian predicates: present verbs, the past ждал and predicative adjectives coordinate only with
# their own kind ("автор говорит и старый", "автор читает и ждал" are not coordinations of two predicates)
RU_KIND = {**dict.fromkeys(("ждал", "был здесь", "спал", "молчал", "читал", "сидел", "смеялся"), "past"),
           **dict.fromkeys(("старый", "маленький", "молодой", "большой", "умный", "весёлый", "богатый",
                            "сильный", "известный", "хороший"), "adj")}
RU_SCALES = {"старый": "age", "молодой": "age", "маленький": "size", "большой": "size"}
LANG_NAMES = {"fr": "French", "de": "German", "ru": "Russian", "he": "Hebrew"}
LANG_RULES = {"fr": ["elision", "contraction"], "de": ["contraction"], "ru": [], "he": ["prefixes"]}

# Known defects of the source, fixed here: (language, what CLAMS has, what is written, why)
FIXES = [
    ("de", "NP_1[3,s,m,inanim] der Spiele", "das Spiel (n)", "singular of Spiele is das Spiel, a neuter noun"),
    ("de", "N_1[3,p,m,inanim] Romanen", "Romane", "the plural of Roman is Romane (Romanen is its dative)"),
    ("de", "NP_2[3,s,f] Die Tänzerin", "die Tänzerin", "an article capitalised mid-sentence"),
    ("de", "N_3[3,p,m,d] Wächter, Taxifahrer, Köche", "Wächtern, Taxifahrern, Köchen",
     "the dative plural after vor/nach/neben/von den takes -n"),
    ("de", "NP_2[3,s,m,a] den Architekt; Prep[3,s] ... dem Architekt", "den/dem Architekten",
     "Architekt is a weak noun: accusative and dative singular Architekten"),
    ("de", "Prep gegenüber vom / gegenüber von den", "gegenüber dem / gegenüber den",
     "gegenüber takes the dative directly; 'gegenüber von' is colloquial"),
    ("de", "V[3,p] mögen lieber Tennis mit seinen Kollegen spielen; schreiben ... in seinem Journal",
     "... mit ihren Kollegen ...; ... in ihrem Journal after a plural subject (column possessor)",
     "a plural subject's possessive is ihr-; the bad sentence keeps the good sentence's possessive"),
    ("de", "N_2[3,p,m] Leiter (as an attractor)", "not an N2 attractor (kept in N3, after a preposition)",
     "the plural 'die Leiter' is also the feminine singular 'die Leiter' (ladder): the bad sentence of an "
     "object relative, 'der Kunde, den die Leiter fragt', is then grammatical (found reading 50 pairs)"),
    ("fr", "NP_1 l' auteur, NP_2 l' adjoint, de l' adjoint ...", "l'auteur, l'adjoint, de l'adjoint",
     "elision written with a space; here the article is the rule's (le + auteur -> l'auteur)"),
    ("fr", "V[3,s] a vingt trois ans", "a vingt-trois ans", "compound numerals below 100 take a hyphen"),
    ("fr+de", "V_2 et V_3 / V_2 und V_3 with the same verb phrase twice, or two on one scale",
     "two different verb phrases, not opposites (column scale)",
     "'l'auteur parle et parle' and 'der Pilot ist alt und ist jung' are not coordinations of two predicates"),
    ("fr+de+ru", "all lower case, no final punctuation", "first word capitalised, final full stop",
     "fairpairs writes sentences as BLiMP does"),
    ("ru", "V_2 и V_3 with the same predicate twice (говорит и говорит), two on one scale (старый и молодой), "
           "a verb with an adjective (говорит и старый) or a present with the past (читает и ждал)",
     "two different predicates of one kind (columns kind: present, past, adj; scale)",
     "these are not coordinations of two predicates; ждал coordinates with the added past verbs"),
    ("ru", "V_2 и V_3 in long_vp_coord from one list", "two different verb phrases (column scale)",
     "'знает много иностранных языков и знает много иностранных языков' repeats one phrase"),
    ("ru", "the accusative (subj_rel N_2) and instrumental (prep_anim NP_2) lists are shorter than the "
           "nominative one (no танцор; no архитектор, танцор, отец after prepositions)",
     "kept: a row per case form (column case), each list as CLAMS has it",
     "a noun is drawn only in the cases CLAMS gives it"),
    ("ru", "V_1 хочет / хотят with an animate object (автор, которого хотят агенты; врач, который хочет министра)",
     "left out (V1 keeps любит, понимает, ищет and the added видит)",
     "'to want' a person reads as desire, or as a sentence cut short ('wants the minister to ...')"),
    ("he", "ה מלצר, ש ה שומר, ו נוסע, ב מרכז ה עיר (prefixes as separate tokens)",
     "המלצר, שהשומר, ונוסע, במרכז העיר (the rule prefixes of fairpairs.generation.languages.he)",
     "written Hebrew attaches the article, the conjunction, the relativiser and one-letter prepositions "
     "to the next word, and ב + ה is written ב"),
    ("he", "נהג (driver) in both N_1 and N_2", "the attractor is another noun than the subject (distinct_from)",
     "'הנהג שהנהג אוהב' repeats the subject as its own attractor"),
    ("he", "vp_coord: V_intr ו V_3 share נוסע, שוחה, חי, צוחק; long_vp_coord: V_2 and V_3 one list",
     "two different predicates (column scale)", "'נוסע ונוסע' repeats one predicate"),
    ("he", "no final punctuation", "final full stop", "fairpairs writes sentences as BLiMP does"),
]

# Words added so that length control keeps every cell (see grammars/<lang>/README.md): each a
# (list, singular, plural) with a gender for nouns; marked source=fairpairs in the table.
# Chosen among candidates whose two forms have equal token counts in context under Llama-3,
# Llama-4, Mistral Tekken and Qwen (French third-person plurals in -ent mostly take one token more:
# none of CLAMS' four transitive verbs aime, déteste, admire, évite is equal under all four, which
# empties obj_rel_within). Verbs only: the noun lists are CLAMS'. Besides filling the cells, the added
# words are chosen so that the debiased set keeps the original set's profile (benchmarks/multilingual.py):
# frequent ones where a frequent CLAMS word is never equal (parle, mag), long verb phrases where
# CLAMS' long ones are never equal (préfère jouer au tennis avec des collègues).
EXTRA: dict[str, list[tuple]] = {
    "fr": [
        *[("V1", s, p, "") for s, p in (
            ("salue", "saluent"), ("insulte", "insultent"), ("paie", "paient"), ("oublie", "oublient"),
            ("punit", "punissent"), ("félicite", "félicitent"), ("rassure", "rassurent"), ("agace", "agacent"),
            ("ennuie", "ennuient"), ("défie", "défient"), ("trompe", "trompent"), ("contacte", "contactent"))],
        *[("VP", s, p, "") for s, p in (
            ("est content", "sont contents"), ("est fatigué", "sont fatigués"), ("est heureux", "sont heureux"),
            ("est fort", "sont forts"), ("est timide", "sont timides"), ("est sérieux", "sont sérieux"),
            ("est nerveux", "sont nerveux"), ("pleure", "pleurent"), ("crie", "crient"), ("joue", "jouent"),
            ("est là", "sont là"), ("est ici", "sont ici"))],
        *[("LVP", s, p, "") for s, p in (
            ("joue au football le dimanche", "jouent au football le dimanche"),
            ("habite depuis longtemps dans une grande ville", "habitent depuis longtemps dans une grande ville"),
            ("va au cinéma avec des amis le samedi", "vont au cinéma avec des amis le samedi"),
            ("fait la cuisine pour toute la famille", "font la cuisine pour toute la famille"),
            ("boit un café noir tous les matins", "boivent un café noir tous les matins"),
            ("joue du piano tous les soirs", "jouent du piano tous les soirs"))],
    ],
    "de": [
        *[("V1", s, p, "") for s, p in (
            ("sieht", "sehen"), ("liebt", "lieben"), ("fragt", "fragen"), ("besucht", "besuchen"),
            ("unterstützt", "unterstützen"), ("braucht", "brauchen"), ("lobt", "loben"),
            ("respektiert", "respektieren"))],
        *[("VP", s, p, "") for s, p in (
            ("ist müde", "sind müde"), ("ist krank", "sind krank"), ("ist reich", "sind reich"),
            ("ist berühmt", "sind berühmt"), ("singt", "singen"), ("tanzt", "tanzen"), ("lächelt", "lächeln"),
            ("weint", "weinen"))],
        *[("LVP", s, p, "") for s, p in (
            ("geht jeden Samstag mit Freunden ins Kino", "gehen jeden Samstag mit Freunden ins Kino"),
            ("kocht am Sonntag gern für die ganze Familie", "kochen am Sonntag gern für die ganze Familie"),
            ("trinkt jeden Morgen einen starken schwarzen Kaffee",
             "trinken jeden Morgen einen starken schwarzen Kaffee"),
            ("reist jeden Sommer mit der Familie ans Meer", "reisen jeden Sommer mit der Familie ans Meer"))],
    ],
    "ru": [
        # present verbs, predicative adjectives and past verbs (so that CLAMS' ждал has predicates of
        # its kind to coordinate with) whose two numbers are equal under the preset, and long verb
        # phrases: of CLAMS' predicates only маленький and молодой are equal under all four
        *[("VP", s, p, "") for s, p in (
            ("думает", "думают"), ("хороший", "хорошие"), ("был здесь", "были здесь"),
            ("играет", "играют"), ("отдыхает", "отдыхают"), ("танцует", "танцуют"), ("поёт", "поют"),
            ("спит", "спят"), ("молчит", "молчат"),
            ("умный", "умные"), ("весёлый", "весёлые"), ("богатый", "богатые"), ("сильный", "сильные"),
            ("известный", "известные"),
            ("спал", "спали"), ("молчал", "молчали"), ("читал", "читали"), ("сидел", "сидели"),
            ("смеялся", "смеялись"))],
        ("V1", "видит", "видят", ""),
        *[("LVP", s, p, "") for s, p in (
            ("любит читать книги по вечерам", "любят читать книги по вечерам"),
            ("играет в футбол по выходным", "играют в футбол по выходным"),
            ("играет на пианино по вечерам", "играют на пианино по вечерам"),
            ("любит гулять в парке", "любят гулять в парке"),
            ("любит смотреть старые фильмы", "любят смотреть старые фильмы"))],
    ],
    "he": [
        # predicates whose two numbers are equal under Llama-4, Tekken and Qwen (under Llama-3 none is:
        # grammars/he/README.md), so that the simple and long-coordination cells reach their pairs;
        # prefixes written as CLAMS writes them (the rule attaches them)
        *[("VP", s, p, "") for s, p in (("כותב", "כותבים"), ("יושב", "יושבים"), ("צועק", "צועקים"), ("קם", "קמים"),
                                         ("עוזר", "עוזרים"), ("שותק", "שותקים"), ("נעלם", "נעלמים"),
                                         ("נופל", "נופלים"), ("שוכב", "שוכבים"))],
        *[("LVP", s, p, "") for s, p in (
            ("יושב ב בית קפה כל בוקר", "יושבים ב בית קפה כל בוקר"),
            ("כותב מכתבים ל חברים", "כותבים מכתבים ל חברים"),
            ("יודע לנגן על גיטרה", "יודעים לנגן על גיטרה"),
            ("ישן עד מאוחר ב שבת", "ישנים עד מאוחר ב שבת"),
            ("שוחה ב בריכה כל בוקר", "שוחים ב בריכה כל בוקר"),
            ("צוחק מ כל בדיחה", "צוחקים מ כל בדיחה"),
            ("רוקד עם חברים כל ערב", "רוקדים עם חברים כל ערב"))],
    ],
}


# ---------------------------------------------------------------------------- reading .avg files
def parse_avg(text: str) -> tuple[str | None, list[list[str]], dict[tuple[str, tuple[str, ...]], list[str]]]:
    """(vary, templates, rules): templates as token lists; rules[(name, attrs)] = options."""
    vary, templates, rules = None, [], {}
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        if line.startswith("vary:"):
            vary = line.split(":", 1)[1].strip().split("[")[0]
            continue
        head, _, body = line.partition(" ")
        m = re.match(r"^(\w+)\[([^\]]*)\]$", head)
        if not m:
            raise SystemExit(f"cannot parse rule {line!r}")
        name, attrs = m.group(1), tuple(a for a in m.group(2).split(",") if a)
        if name == "S":
            templates.append(body.split())
        else:
            rules[(name, attrs)] = [o.strip() for o in body.split("|") if o.strip()]
    return vary, templates, rules


def read_grammars(clams: Path, lang: str):
    folder = clams / f"{lang}_replication"
    common = parse_avg((folder / "common.avg").read_text(encoding="utf-8"))[2]
    out = {}
    for c in CONSTRUCTIONS:
        vary, templates, rules = parse_avg((folder / f"{c}.avg").read_text(encoding="utf-8"))
        out[c] = (vary, templates, {**common, **rules})
    return common, out


# ---------------------------------------------------------------------------- words
def strip_article(np_text: str, lang: str) -> str:
    for art in sorted(FR_ARTICLES if lang == "fr" else DE_ARTICLES, key=len, reverse=True):
        if np_text.lower().startswith(art + " ") or (art.endswith("'") and np_text.lower().startswith(art)):
            return np_text[len(art):].strip()
    raise SystemExit(f"{lang}: no article in {np_text!r}")


WEAK = {"Bauer", "Chirurg", "Kunde", "Polizist", "Pilot", "Architekt"}   # German weak masculine nouns


def german_forms(sg: str, pl: str, gender: str) -> dict[tuple[str, str], str]:
    """{(number, case): form} for nominative, accusative and dative."""
    oblique = sg + ("n" if sg.endswith(("e", "er")) else "en") if sg in WEAK else sg
    dat_pl = pl if pl.endswith(("n", "s")) else pl + "n"
    return {("sg", "nom"): sg, ("sg", "acc"): oblique if gender == "m" else sg,
            ("sg", "dat"): oblique if gender != "f" else sg,
            ("pl", "nom"): pl, ("pl", "acc"): pl, ("pl", "dat"): dat_pl}


def noun_lists(common: dict, lang: str) -> list[tuple[str, str, str, str, bool]]:
    """(list, singular, plural, gender, animate) for every CLAMS noun list, fixes applied."""
    out = []
    for (name, attrs), options in common.items():
        if name not in ("N_1", "N_2") or "p" not in attrs:
            continue
        sg_key = ("NP_" + name[2:], tuple("s" if a == "p" else a for a in attrs))
        singulars = [strip_article(o, lang) for o in common[sg_key]]
        gender = next(a for a in attrs if a in ("m", "f", "n"))
        for sg, pl in zip(singulars, options):
            g = gender
            if lang == "de" and sg == "Spiele":
                sg, g = "Spiel", "n"
            if lang == "de" and pl == "Romanen":
                pl = "Romane"
            tag = "N1" if name == "N_1" and "anim" in attrs else "N2" if name == "N_2" and g == "m" else ""
            if lang == "de" and tag == "N2" and sg == "Leiter":   # die Leiter: the leaders, or the ladder
                tag = ""
            out.append((tag, sg, pl, g, "inanim" not in attrs))
    return out


def verb_pairs(rules: dict, name: str) -> list[tuple[str, str]]:
    sg = rules[(name, ("3", "s"))]
    pl = rules[(name, ("3", "p"))]
    assert len(sg) == len(pl), name
    return [(s.replace("vingt trois", "vingt-trois"), p.replace("vingt trois", "vingt-trois")) for s, p in zip(sg, pl)]


POSSESSIVE = re.compile(r"\b(sein|ihr)(en|em|e|er|es)?\b")


def possessor_variants(s: str, p: str) -> list[tuple[str, str, str]]:
    """German verb phrases with a possessive (mit seinen Kollegen): one lemma whose possessive
    agrees with a singular (masculine) subject, one with a plural subject: (sg, pl, possessor)."""
    if not POSSESSIVE.search(s):
        return [(s, p, "")]
    mine = {"sg": "sein", "pl": "ihr"}
    return [(POSSESSIVE.sub(lambda m: mine[who] + (m.group(2) or ""), s),
             POSSESSIVE.sub(lambda m: mine[who] + (m.group(2) or ""), p), who) for who in ("sg", "pl")]


def vp_list(options: list[str]) -> str:
    return "LVP" if any(len(o.split()) > 2 for o in options) else "VP"


def columns(lang: str) -> list[str]:
    return COLUMNS + (["kind"] if lang == "ru" else [])


def ru_lemma(form: str, lemmas: list[str]) -> str:
    """The nominative singular among `lemmas` of which `form` is a case form (агентом -> агент,
    рабочих -> рабочий, отцов -> отец)."""
    found = [n for n in lemmas if form.startswith(n) or form.startswith(n[:-2]) and n.endswith("ий")
             or n.endswith("ец") and form.startswith(n[:-2] + "ц")]
    if len(found) != 1:
        raise SystemExit(f"ru: cannot tell the lemma of {form!r} (candidates {found})")
    return found[0]


def row_adder(rows: list[dict], cols: list[str]):
    """add(**columns): a table row (every column, "" where not given) appended unless already there."""
    def add(**kw):
        row = {c: "" for c in cols}
        row.update({k: str(v) for k, v in kw.items()})
        if row not in rows:
            rows.append(row)
    return add


def build_table_ru_he(lang: str, common: dict, grammars: dict) -> list[dict]:
    """The Russian or Hebrew table: nouns (Russian: a row per case form CLAMS gives), the Hebrew
    article, and the verb lists V1 (transitive), VP (intransitive predicates), LVP (long)."""
    rows: list[dict] = []
    add = row_adder(rows, columns(lang))

    np_ = "NP" if lang == "ru" else "N"
    if lang == "he":
        add(expression="ה", lemma="ה", category="D", source="clams")
    nouns: dict[str, dict] = {}      # lemma -> {gender, animate, tags, forms {(number, case): form}}
    for (name, attrs), options in common.items():
        if name not in (f"{np_}_1", f"{np_}_2") or "s" not in attrs:
            continue
        plurals = common[(name, tuple("p" if a == "s" else a for a in attrs))]
        gender = next(a for a in attrs if a in ("m", "f", "n"))
        tag = "N1" if name.endswith("_1") and "anim" in attrs else "N2" if name.endswith("_2") else ""
        for sg, pl in zip(options, plurals):
            n = nouns.setdefault(sg, {"gender": gender, "animate": "inanim" not in attrs, "tags": set(), "forms": {}})
            n["tags"] |= {tag} - {""}
            case = "nom" if lang == "ru" else ""
            n["forms"][("sg", case)], n["forms"][("pl", case)] = sg, pl
    if lang == "ru":   # the attractor's other cases: accusative (subj_rel N_2), instrumental (prep_anim NP_2[pa])
        for c, name, case in (("subj_rel", "N_2", "acc"), ("prep_anim", "NP_2", "ins")):
            rules = grammars[c][2]
            sg_key = next(k for k in rules if k[0] == name and "s" in k[1] and (case != "ins" or "pa" in k[1]))
            pl_key = (name, tuple("p" if a == "s" else a for a in sg_key[1]))
            lemmas = [n for n, f in nouns.items() if "N2" in f["tags"]]
            for sg, pl in zip(rules[sg_key], rules[pl_key]):
                n = nouns[ru_lemma(sg, lemmas)]
                n["forms"][("sg", case)], n["forms"][("pl", case)] = sg, pl
    for lemma, n in nouns.items():
        for (number, case), form in n["forms"].items():
            add(expression=form, lemma=lemma, category="N", person=3, number=number, gender=n["gender"], case=case,
                animate=int(n["animate"]), source="clams", **{t: "1" for t in sorted(n["tags"])})
    verbs: dict[str, list[tuple[str, str]]] = {}
    transitive = "V_1" if lang == "ru" else "V_tr"
    for c in CONSTRUCTIONS:
        rules = grammars[c][2]
        names = [t.split("[")[0] for tokens in grammars[c][1] for t in tokens if t.startswith(("V", "VP"))]
        for name in dict.fromkeys(names):
            lst = "V1" if name == transitive else vp_list(rules[(name, ("3", "s"))])
            for pair in verb_pairs(rules, name):
                if pair not in verbs.setdefault(lst, []) and not (lang == "ru" and pair[0] == "хочет"):
                    verbs[lst].append(pair)
    clams_verbs = {(lst, sg) for lst, pairs in verbs.items() for sg, _ in pairs}
    for t, sg, pl, _ in EXTRA[lang]:
        if (sg, pl) not in verbs.setdefault(t, []):
            verbs[t].append((sg, pl))
    for lst in ("V1", "VP", "LVP"):
        for sg, pl in verbs.get(lst, []):
            kind = {"kind": RU_KIND.get(sg, "present")} if lang == "ru" and lst != "V1" else {}
            for number, form in (("sg", sg), ("pl", pl)):
                add(expression=form, lemma=sg, category="V" if lst == "V1" else lst, person=3, number=number,
                    scale="" if lst == "V1" else RU_SCALES.get(sg, sg),
                    source="clams" if (lst, sg) in clams_verbs else "fairpairs", **{lst: "1"}, **kind)
    return rows


def build_table(lang: str, common: dict, grammars: dict) -> list[dict]:
    if lang in ("ru", "he"):
        return build_table_ru_he(lang, common, grammars)
    rows: list[dict] = []
    add = row_adder(rows, COLUMNS)

    for art, number, gender, case in (
            [("le", "sg", "m", ""), ("la", "sg", "f", ""), ("les", "pl", "", "")] if lang == "fr" else
            [(a, "", "", "") for a in ("der", "die", "das", "den", "dem", "des")]):
        add(expression=art, lemma="le" if lang == "fr" else "der", category="D", number=number, gender=gender,
            source="clams")
    nouns = noun_lists(common, lang)
    # German N_3 (prep_anim, dative): the same masculine nouns as N_2 and Vater
    n3 = []
    if lang == "de":
        prep = grammars["prep_anim"][2]
        n3 = [o for o in prep[("N_3", ("3", "s", "m", "d"))]]
    extra = [(t, s, p, g, True) for t, s, p, g in EXTRA[lang] if t.startswith("N")]
    n3_extra = {s for t, s, p, g in EXTRA[lang] if t == "N3"}
    seen_lemmas = {}
    for tag, sg, pl, g, anim in nouns + extra + ([("N3", "Vater", "Väter", "m", True)] if lang == "de" else []):
        key = (sg, g)
        flags = seen_lemmas.setdefault(key, {"sg": sg, "pl": pl, "g": g, "anim": anim, "tags": set()})
        if tag:
            flags["tags"].add(tag)
        if lang == "de" and (sg in n3 or sg in n3_extra) and g == "m":
            flags["tags"].add("N3")
    src = {(s, g) for _, s, _, g, _ in nouns} | ({("Vater", "m")} if lang == "de" else set())
    for (sg, g), f in seen_lemmas.items():
        tags = {t: "1" for t in f["tags"]}
        source = "clams" if (sg, g) in src else "fairpairs"
        if lang == "fr":
            for number, form in (("sg", sg), ("pl", f["pl"])):
                add(expression=form, lemma=sg, category="N", person=3, number=number, gender=g,
                    animate=int(f["anim"]), source=source, **tags)
        else:
            for (number, case), form in german_forms(sg, f["pl"], g).items():
                add(expression=form, lemma=sg, category="N", person=3, number=number, gender=g, case=case,
                    animate=int(f["anim"]), source=source, **tags)
    verbs: dict[str, list[tuple[str, str]]] = {"V1": verb_pairs(common, "V_1")}
    for c, (_, _, rules) in grammars.items():
        for name in ("VP", "V_2", "V_3"):
            if (name, ("3", "s")) in rules and not (c in ("subj_rel", "obj_rel_within_anim", "obj_rel_across_anim")
                                                   and name == "V_1"):
                lst = vp_list(rules[(name, ("3", "s"))])
                for pair in verb_pairs(rules, name):
                    if pair not in verbs.setdefault(lst, []):
                        verbs[lst].append(pair)
    clams_verbs = {(lst, s) for lst, pairs in verbs.items() for s, _ in pairs}
    for t, s, p, _ in EXTRA[lang]:
        if t in ("V1", "VP", "LVP") and (s, p) not in verbs.setdefault(t, []):
            verbs[t].append((s, p))
    for lst, pairs in verbs.items():
        for s0, p0 in pairs:
            for s, p, who in possessor_variants(s0, p0):
                for number, form in (("sg", s), ("pl", p)):
                    add(expression=form, lemma=s, category="V" if lst == "V1" else lst, person=3, number=number,
                        possessor=who, scale="" if lst == "V1" else SCALES.get(s0, s0), source="clams" if (lst, s0) in clams_verbs else "fairpairs", **{lst: "1"})
    return rows


# ---------------------------------------------------------------------------- templates
HE_WORDS = {"RelPron": "ש", "Accusative": "את"}   # (the rule prefixes attaches ש to the next word)


def slot_name(nonterminal: str) -> str:
    base = nonterminal.split("[")[0]
    return {"Prep": "prep", "PP": "pp", "VP": "vp"}.get(base, base.replace("NP_", "n").replace("N_", "n")
                                                          .replace("V_", "v").lower())


def attrs_of(token: str) -> tuple[str, ...]:
    return tuple(a for a in token.split("[", 1)[1].rstrip("]").split(",") if a)


def convert_template(lang: str, construction: str, vary: str, tokens: list[str], rules: dict) -> tuple[dict, str, str]:
    """(slots, template, cell name) for one S[] line."""
    slots: dict[str, dict] = {}
    parts: list[str] = []
    cell: list[str] = []
    subject = None         # the number of the first noun phrase (a possessive in a verb phrase agrees with it)
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if "[" not in tok:
            parts.append(tok)
            i += 1
            continue
        name, attrs = tok.split("[")[0], attrs_of(tok)
        if name == "Det":          # Det[3,p] N_k[...]: one noun phrase, article by rule
            i += 1
            continue
        if name in HE_WORDS:       # Hebrew's relativiser and accusative marker: words of the template
            parts.append(HE_WORDS[name])
            i += 1
            continue
        if name in ("N_1", "N_2", "N_3", "NP_1", "NP_2"):
            slot = slot_name(name)
            number = "sg" if "s" in attrs else "pl"
            case = "acc" if "a" in attrs else "dat" if "d" in attrs else "nom"
            if lang == "ru":       # the instrumental after a preposition, the accusative object of subj_rel
                case = "ins" if "pa" in attrs else "acc" if name == "N_2" else "nom"
            where = {f"N{slot[1]}": "1", "number": number}
            if lang in ("de", "ru"):
                where["case"] = case
            slots[slot] = {"where": where} if lang == "ru" else {"where": where, "article": "definite"}
            if lang == "he" and slot != "n1":
                slots[slot]["distinct_from"] = ["n1"]
            subject = subject or number
            if "pa" in attrs and lang == "fr":      # French "du garde" / "des gardes": de + the noun phrase
                parts.append("de")
            parts.append(f"{{{{ {slot} }}}}")
            cell.append(f"{slot}{number}")
        elif name in ("Prep", "PP"):
            slot = slot_name(name)
            options = rules[(name, attrs)]
            if lang == "de":   # "vor dem" / "in der Nähe vom": the article is the noun's
                words = []
                for o in options:
                    w = re.sub(r" (dem|den|vom|von den)$", lambda m: " von" if m.group(1) in ("vom", "von den") else "", o)
                    words.append("gegenüber" if w == "gegenüber von" else w)
                options = words
            slots[slot] = {"text": options}
            parts.append(f"{{{{ {slot} }}}}")
            if lang == "fr":
                cell.append(slot)
        else:                      # V_k[3,n] / VP[3,n] (Hebrew V_tr, V_intr)
            slot = {"V_tr": "v1", "V_intr": "vp"}.get(name) or slot_name(name)
            number = "sg" if "s" in attrs else "pl"
            lst = "V1" if name in ("V_1", "V_tr") else vp_list(rules[(name, ("3", "s"))])
            slots[slot] = {"where": {lst: "1", "number": number}}
            if lst == "LVP" and lang == "de":
                slots[slot]["where"]["possessor"] = ["", subject]
            parts.append(f"{{{{ {slot} }}}}")
        i += 1
    if construction in ("vp_coord", "long_vp_coord"):
        first = "v2" if "v2" in slots else "vp"
        slots["v3"]["differ"] = {first: ["scale"]}
        if lang == "ru" and construction == "vp_coord":
            slots["v3"]["same"] = {first: ["kind"]}
    template = " ".join(parts).replace(" ,", ",") + "."
    return slots, template, "_".join(cell)


def yaml_scalar(v) -> str:
    s = str(v)
    if re.match(r"^[\w.-]+$", s) and not re.match(r"^(true|false|yes|no|on|off|null|\d+)$", s, re.I):
        return s
    return "'" + s.replace("'", "''") + "'"


def yaml_value(v) -> str:
    return f"[{', '.join(yaml_scalar(x) for x in v)}]" if isinstance(v, list) else yaml_scalar(v)


def slot_yaml(spec: dict) -> str:
    items = []
    for k, v in spec.items():
        if isinstance(v, dict):
            items.append(f"{k}: {{{', '.join(f'{a}: {yaml_value(b)}' for a, b in v.items())}}}")
        elif isinstance(v, list):
            items.append(f"{k}: [{', '.join(yaml_scalar(x) for x in v)}]")
        else:
            items.append(f"{k}: {yaml_scalar(v)}")
    return "{" + ", ".join(items) + "}"


def paradigm_files(lang: str, grammars: dict) -> dict[str, str]:
    out = {}
    for c in CONSTRUCTIONS:
        vary, templates, rules = grammars[c]
        for tokens in templates:
            slots, template, cell = convert_template(lang, c, vary, tokens, rules)
            uid = f"{lang}_{c}_{cell}"
            critical = {"V_tr": "v1", "V_intr": "vp"}.get(vary) or slot_name(vary)
            assert critical in slots, (uid, vary)
            rules_line = "[" + ", ".join(LANG_RULES[lang]) + "]"
            lines = [
                f"# Converted by tools/clams_convert.py from CLAMS ({SOURCE} @ {COMMIT}, Apache-2.0),",
                f"# {lang}_replication/{c}.avg, template: S[] {' '.join(tokens)}",
                f"# (vary: {vary}[]). Fixes and added words: grammars/{lang}/README.md.",
                f"uid: {uid}",
                f"language: {lang}",
                *([f"rules: {rules_line}"] if LANG_RULES[lang] else []),
                "phenomenon: Subject-verb agreement",
                "field: morphology",
                f"linguistics_term: {c}",
                f"description: CLAMS {c} ({lang}), the cell {cell}; the bad sentence puts {critical} in the other number.",
                "slots:",
                *[f"  {n}: {slot_yaml(s)}" for n, s in slots.items()],
                f"template: {yaml_scalar(template)}",
                "critical:",
                f"  {critical}: {{form: other_number}}",
            ]
            out[uid] = "\n".join(lines) + "\n"
    return out


def readme(lang: str, files: dict[str, str], rows: list[dict]) -> str:
    name = LANG_NAMES[lang]
    cells = {}
    for uid in files:
        c = next(c for c in CONSTRUCTIONS if uid.startswith(f"{lang}_{c}_"))
        cells.setdefault(c, []).append(uid[len(f"{lang}_{c}_"):])
    added = [r for r in rows if r["source"] == "fairpairs" and r["number"] == "sg"]
    lines = [
        f"# {name} agreement paradigms from CLAMS",
        "",
        f"Written by `tools/clams_convert.py` from CLAMS (Mueller, Nicolai, Petrou-Zeniou, Talmina & Linzen,",
        f"ACL 2020), github {SOURCE} at commit {COMMIT}, {lang}_replication/*.avg and common.avg, licence",
        "Apache-2.0 (CLAMS' LICENSE). Regenerate with",
        "`python tools/clams_convert.py --clams PATH/TO/clams`; do not edit the files by hand (edit the converter).",
        "",
        f"One paradigm file per CLAMS sentence template (`S[]` line): a *cell* of a construction, named by the",
        *(["numbers of its noun phrases (n1 = the subject, n2/n3 = the attractor) and, for French prep_anim, by",
           "the preposition list (`prep`: devant, derrière; `pp`: près, à côté, en face + de). Every cell has the"]
          if lang in ("fr", "de") else
          ["numbers of its noun phrases (n1 = the subject, n2 = the attractor). Every cell has the"]),
        "same number of pairs in a run, so singular and plural subjects are balanced as in CLAMS. The bad",
        "sentence puts the `vary:` verb in the other number (`form: other_number`: the same lemma).",
        "Vocabulary: `vocab/" + lang + ".csv` (columns N1, N2, N3 = CLAMS' noun lists, V1 = transitive verbs,",
        "VP = intransitive predicates, LVP = long verb phrases; `source` = clams or fairpairs).",
        *NOTES.get(lang, []),
        "",
        "| construction | cells |",
        "|---|---|",
        *[f"| {c} | {', '.join(v)} |" for c, v in cells.items()],
        "",
        "## Defects of the source, fixed",
        "",
        "| CLAMS has | written here | why |",
        "|---|---|---|",
        *[f"| {a} | {b} | {why} |" for lg, a, b, why in FIXES if lang in lg.split("+")],
        "",
        *({"fr": INANIMATE, "de": INANIMATE, "ru": ["CLAMS' inanimate noun lists are defined but used by no template;",
                                                     "they are in the table with no list flag.", ""]}.get(lang, [])),
        "## Words added (source = fairpairs)",
        "",
        "Added so that length control keeps every cell at 100 pairs or more: chosen among candidates whose",
        *(["singular and plural have equal token counts in context under Llama-3, Llama-4, Mistral Tekken and",
           "Qwen (`preset:multilingual`), and so that the debiased set keeps the original set's profile:"]
          if lang != "he" else
          ["singular and plural have equal token counts in context under Llama-4, Mistral Tekken and Qwen",
           "(none is equal under Llama-3, above), and so that the debiased set keeps the original set's profile:"]),
        "frequent words where a frequent CLAMS word is never equal (fr parle, de mag), long verb phrases",
        "where CLAMS' long ones are never equal. CLAMS' own words are all kept, including those that are",
        "never equal (they stay in the original set; length control never keeps them).",
        "",
        "| list | singular / plural |",
        "|---|---|",
        *[f"| {lst} | " + ", ".join(f"{r['expression']} / {next(q['expression'] for q in rows if q['lemma'] == r['lemma'] and q['number'] == 'pl' and q[lst] == '1')}"
                                      for r in added if r[lst] == "1") + " |"
          for lst in ("V1", "VP", "LVP") if any(r[lst] == "1" for r in added)],
        "",
    ]
    text = "\n".join(lines)
    if lang == "ru":    # (the Russian extension is tools/extend_vocab.py's, run after this script)
        text = text[:text.index("## Words added")] + RU_EXTENSION
    return text


RU_EXTENSION = """## Words added: the extension (source = pymorphy3 ...)

The original sets use CLAMS' words only (`source: clams`). Length control may also draw the
extension: the rows `tools/extend_vocab.py` writes after the converter (it keeps the clams rows as
they are and replaces the converter's hand-made added rows): intransitive verbs (present and past),
predicative adjectives, transitive verbs and long verb phrases with an inflected head, every form
made by pymorphy3 from its Russian dictionaries, with Zipf frequency >= 2.5 in wordfreq, each row
naming the library and its version. tests/test_vocab_extension.py checks their features against
pymorphy3; docs/vocabulary.md ("Two lexicons") says how many generated pairs were read and what
was found.
"""

INANIMATE = ["CLAMS' inanimate noun lists (and the German feminine and neuter N_2 lists) are defined but used by no",
             "template; they are in the table (fixed) with no list flag.", ""]
NOTES = {
    "ru": ["",
           "Russian has no article; a noun has a row per case form CLAMS gives (column `case`: nom for the",
           "subject and the attractor of an object relative, acc for the object of a subject relative, ins after",
           "перед, за, рядом с). Predicates carry a column `kind` (present, past, adj): the two predicates of a",
           "VP coordination are of one kind and differ in `scale` (not two on one scale, not one twice)."],
    "he": ["",
           "CLAMS writes Hebrew's one-letter prefixes as words (ה מלצר, ש ה שומר, ו נוסע, ב מרכז ה עיר); the",
           "paradigms keep the article as the language's article (`article: definite`, the row ה) and the other",
           "prefixes as template words, and name the rule `prefixes` (fairpairs/generation/languages/he.py),",
           "which attaches them as written Hebrew does: המלצר שהשומר אוהב רוקד, גר במרכז העיר (ב + ה -> ב).",
           "What it changes: every noun phrase and every relative clause is one word shorter than in CLAMS'",
           "evalset, and token counts are those of the written words (CLAMS' spaced prefixes are tokens of",
           "their own under every tokenizer).",
           "",
           "Under Llama-3's tokenizer (in `preset:multilingual`) no Hebrew agreement pair has equal token counts:",
           "the plural ending of a present-tense verb (-ים; feminine -ות) takes one or two tokens more than the",
           "singular for every verb tried: CLAMS' 14 and 54 others (42 frequent verbs, 12 feminine forms). Length control for",
           "Hebrew therefore uses Llama-4, Mistral Tekken and Qwen (`fairpairs languages` lists them as the",
           "tokenizers that suit Hebrew); a run under `preset:multilingual` keeps no pair and says so. The words",
           "added below are equal under those three."],
}


def table_csv(rows: list[dict], lang: str = "fr") -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=columns(lang), lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    return buf.getvalue()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clams", type=Path, required=True, help="a CLAMS checkout (fr_replication/, de_replication/)")
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent.parent,
                    help="the repository root to write grammars/<lang>/ and vocab/<lang>.csv into")
    args = ap.parse_args(argv)
    for lang in LANGS:
        common, grammars = read_grammars(args.clams, lang)
        folder = args.out / "grammars" / lang
        folder.mkdir(parents=True, exist_ok=True)
        files = paradigm_files(lang, grammars)
        for old in folder.glob(f"{lang}_*.yaml"):   # (only files this script writes)
            if old.stem not in files:
                old.unlink()
        for uid, text in files.items():
            (folder / f"{uid}.yaml").write_text(text, encoding="utf-8")
        rows = build_table(lang, common, grammars)
        (args.out / "vocab" / f"{lang}.csv").write_text(table_csv(rows, lang), encoding="utf-8")
        (folder / "README.md").write_text(readme(lang, files, rows), encoding="utf-8")
        print(f"{lang}: {len(files)} paradigm files, {len(rows)} vocabulary rows", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
