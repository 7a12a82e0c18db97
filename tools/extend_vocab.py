"""Write the checked extension of vocab/ru.csv (issue 47, item 2; docs/vocabulary.md, "The
extension"): words CLAMS lacks, with the features their slots need, inflected by pymorphy3 with its
Russian dictionaries (OpenCorpora) rather than by hand.

    pip install pymorphy3 pymorphy3-dicts-ru wordfreq
    python tools/clams_convert.py --clams PATH/TO/clams   # writes vocab/ru.csv with hand-made added rows
    python tools/extend_vocab.py            # rewrites vocab/ru.csv: its clams rows, then the extension
    python tools/extend_vocab.py --check    # exit 1 if vocab/ru.csv is not what this script writes

The rows of the source lexicon (`source: clams`) are kept as they are and in their order, so the
original sets, which draw only them, do not change. Each extension row says where it comes from
(`source: pymorphy3 <version> / pymorphy3-dicts-ru <version>`), follows the table's conventions
(one row per form, the singular form as `lemma`, person 3, `kind` present/past/adj, `scale` the
lemma: two coordinated verb phrases differ in it) and is kept only when every form of its lexeme is
found in the dictionary and has a Zipf frequency of at least MIN_ZIPF in wordfreq's Russian list.
tests/test_vocab_extension.py checks every row's number, person, tense, gender and case against
pymorphy3. What is generated is listed below, each with why a slot needs it.
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
from importlib import metadata
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
TABLE = ROOT / "vocab" / "ru.csv"
MIN_ZIPF = 2.5

# Intransitive verbs a person does (slot VP, "Автор спит." / "Авторы спят."): present (imperfective)
# and past forms. The past singular is the masculine form: CLAMS' Russian subjects (N1) are
# masculine nouns (the template NP_1[3,s,m,anim]).
VERBS = ["спать", "молчать", "играть", "отдыхать", "танцевать", "петь", "смеяться", "работать", "гулять",
         "плакать", "сидеть", "стоять", "улыбаться", "шутить", "думать", "читать", "кричать", "спорить"]
# Qualitative adjectives said of a person, predicative long form (slot VP, "Автор умный." / "Авторы умные.")
ADJECTIVES = ["хороший", "умный", "весёлый", "богатый", "сильный", "известный", "добрый", "высокий",
              "красивый", "честный", "бедный", "счастливый", "грустный", "спокойный", "смелый", "ленивый",
              "вежливый", "строгий"]
# Transitive verbs taking an animate object (slot V1, "охранник, которого видит автор")
TRANSITIVE = ["видеть", "знать", "встречать", "слушать", "уважать", "помнить", "ненавидеть", "хвалить"]
# Long verb phrases (slot LVP): a head verb, inflected, and its fixed complement
LONG = [("любить", "читать книги по вечерам"), ("играть", "в футбол по выходным"),
        ("играть", "на пианино по вечерам"), ("любить", "гулять в парке"), ("любить", "смотреть старые фильмы"),
        ("работать", "в большой больнице"), ("жить", "в маленьком городе"), ("ходить", "в театр каждую неделю"),
        ("готовить", "ужин каждый вечер"), ("учить", "английский язык")]
# Multiword verb phrases of slot VP with an inflected head ("Автор был здесь.")
PHRASES = [("быть", "здесь", "past")]

# the grammemes of each form a row stands for: (kind, number) -> pymorphy3 grammemes
FORMS = {("present", "sg"): {"VERB", "pres", "3per", "sing", "indc"},
         ("present", "pl"): {"VERB", "pres", "3per", "plur", "indc"},
         ("past", "sg"): {"VERB", "past", "masc", "sing", "indc"},
         ("past", "pl"): {"VERB", "past", "plur", "indc"},
         ("adj", "sg"): {"ADJF", "nomn", "masc", "sing"},
         ("adj", "pl"): {"ADJF", "nomn", "plur"}}


def source_label() -> str:
    return f"pymorphy3 {metadata.version('pymorphy3')} / pymorphy3-dicts-ru {metadata.version('pymorphy3-dicts-ru')}"


def inflect(morph, lemma: str, grammemes: set[str]) -> str | None:
    """The form of dictionary lemma `lemma` with these grammemes (None if the dictionary has none):
    the first parse of the lemma whose normal form it is, inflected."""
    pos = "ADJF" if "ADJF" in grammemes else "INFN"
    for p in morph.parse(lemma):
        if p.normal_form == lemma and p.tag.POS == pos:
            form = p.inflect(grammemes - {"VERB", "ADJF"})
            if form is not None:
                return form.word
    return None


def lexeme_rows(morph, lemma: str, kind: str, category: str, rest: str = "") -> list[dict] | None:
    """The sg and pl rows of one lexeme (None when a form is missing or rare)."""
    from wordfreq import zipf_frequency

    forms = {}
    for number in ("sg", "pl"):
        word = inflect(morph, lemma, FORMS[(kind, number)])
        if word is None or zipf_frequency(word, "ru") < MIN_ZIPF:
            return None
        forms[number] = f"{word} {rest}".strip()
    key = forms["sg"]
    return [{"expression": forms[n], "lemma": key, "category": category, "person": "3", "number": n,
             "scale": key if category != "V" else "", "V1": "1" if category == "V" else "",
             "VP": "1" if category == "VP" else "", "LVP": "1" if category == "LVP" else "",
             "kind": kind if category != "V" else ""} for n in ("sg", "pl")]


def extension(morph) -> dict[str, list[dict]]:
    """The extension rows by category, in a fixed order."""
    out: dict[str, list[dict]] = {"V": [], "VP": [], "LVP": []}
    for lemma in TRANSITIVE:
        out["V"] += lexeme_rows(morph, lemma, "present", "V") or []
    for lemma in VERBS:
        for kind in ("present", "past"):
            out["VP"] += lexeme_rows(morph, lemma, kind, "VP") or []
    for lemma in ADJECTIVES:
        out["VP"] += lexeme_rows(morph, lemma, "adj", "VP") or []
    for lemma, rest, kind in PHRASES:
        out["VP"] += lexeme_rows(morph, lemma, kind, "VP", rest) or []
    for lemma, rest in LONG:
        out["LVP"] += lexeme_rows(morph, lemma, "present", "LVP", rest) or []
    return out


def table_text(morph, table: Path = TABLE) -> str:
    """The table at `table` (vocab/ru.csv) as this script writes it: each category's clams rows, then
    its extension rows (those of a word the clams rows already have are left out)."""
    with open(table, encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        header, rows = reader.fieldnames, list(reader)
    own = [r for r in rows if r["source"] == "clams"]
    known = {(r["expression"], r["category"]) for r in own}
    label = source_label()
    ext = extension(morph)
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=header, lineterminator="\n")
    writer.writeheader()
    for category in dict.fromkeys(r["category"] for r in own):
        writer.writerows(r for r in own if r["category"] == category)
        for lexeme in zip(ext.get(category, [])[::2], ext.get(category, [])[1::2]):
            if any((r["expression"], category) in known for r in lexeme):
                continue
            writer.writerows({c: "" for c in header} | r | {"source": label} for r in lexeme)
    return buf.getvalue()


# ---------------------------------------------------------------- English (vocab/blimp_extension.csv)
# BLiMP's table (vocab/blimp_vocabulary.csv) is never edited: the English extension is a table of its
# own with BLiMP's columns plus `source` (the library and version that made the form) and `model`
# (the BLiMP word whose features the new word copies). fairpairs.generation.vocab appends it to the
# fixed BLiMP table when the bundled English vocabulary is loaded; original sets draw only BLiMP's rows.
#
# Each new word copies every feature of a BLiMP word of the same class (its `model`: the semantic
# classes - animate, occupation, artifact, locale ... - and the selectional restrictions arg_1/arg_2
# of a verb), so that it fills exactly the slots its model fills; only the form changes. Nouns take
# their plural from lemminflect (NNS) and are marked `irrpl` when it is not the regular suffix; verbs
# take bare, present, 3sg, past, -ing and -en forms from lemminflect (VB, VBP, VBZ, VBD, VBG, VBN) and
# are regular verbs modelled on regular verbs. A lexeme is kept when every form has a Zipf frequency
# of at least MIN_ZIPF in wordfreq's English list and no form is a word of BLiMP's table in that
# category. Why: length control can only keep a context whose critical word's forms tokenize alike;
# the paradigms that flip a noun's number (determiner_noun_agreement_*, *_subject_verb_agreement_*),
# a verb's agreement (distractor_agreement_*, regular_plural_subject_verb_agreement_1), a subject's
# animacy (animate_subject_trans: names) or swap a raising verb for a control verb
# (existential_there_object_raising, expletive_it_object_raising) run short of such words under many
# tokenizers (benchmarks/results/balance.md).
EN_TABLE = ROOT / "vocab" / "blimp_extension.csv"
EN_EXTRA = ["source", "model"]
EN_NOUNS = {   # model (a BLiMP noun) -> new nouns of its class
    "doctor": "nurse lawyer pilot farmer engineer baker banker chef clerk janitor painter singer editor scientist "
              "professor surgeon sailor tailor mechanic carpenter architect librarian pharmacist journalist "
              "photographer musician butcher barber coach manager reporter detective firefighter accountant "
              "therapist electrician gardener programmer sculptor violinist pianist novelist chemist physicist "
              "biologist economist historian translator dietitian nanny orthodontist chiropractor paramedic radiologist optometrist locksmith blacksmith cobbler paralegal lifeguard bartender chauffeur courier welder roofer pediatrician neurologist cardiologist psychiatrist hygienist housekeeper receptionist auctioneer choreographer archaeologist geologist botanist astronomer meteorologist linguist mathematician statistician philosopher sociologist anthropologist psychologist zookeeper beekeeper upholsterer veterinarian",
    "teenager": "neighbor stranger tourist visitor passenger citizen resident volunteer athlete runner swimmer "
                "traveler spectator beginner veteran orphan toddler thief freshman",
    "boy": "prince king monk gentleman",
    "girl": "princess queen nun bride",
    "child": "grandchild stepchild",
    "handyman": "fireman policeman salesman fisherman businessman policewoman businesswoman chairman congressman spokesman postman milkman doorman cameraman repairman deliveryman workman foreman craftsman midwife chairwoman congresswoman spokeswoman watchman tradesman seaman crewman middleman marksman clergyman sportsman statesman alderman lineman serviceman",
    "cup": "bowl spoon mug bottle jar kettle tray saucer teapot knife ladle spatula colander skillet platter goblet teacup pitcher carafe penknife",
    "chair": "table desk bench stool sofa shelf bookshelf armchair footstool recliner",
    "hat": "boot belt tie vest cap helmet sandal mitten cardigan necklace bracelet poncho kimono tuxedo blazer bandana beret fedora sombrero apron bonnet overcoat raincoat parka tunic sneaker slipper moccasin",
    "car": "bus taxi van tractor motorcycle scooter wagon jeep limousine minivan trolley tram sedan moped rickshaw hearse ambulance snowmobile forklift bulldozer",
    "dog": "cow pig goat duck chicken frog lion tiger monkey donkey pony puppy kitten parrot squirrel lizard "
           "spider camel zebra giraffe elephant otter hedgehog porcupine raccoon beaver ferret gerbil iguana tortoise salamander armadillo flamingo pelican peacock ostrich lobster crab owl hawk falcon sparrow pigeon walrus",
    "goose": "wolf calf",
    "movie": "novel poem letter memo diary magazine textbook biography screenplay",
    "apple": "carrot onion potato lemon peach pear plum cherry grape melon radish pumpkin turnip parsnip artichoke avocado apricot nectarine tangerine papaya mango fig cantaloupe",
    "pie": "cookie sandwich pizza cupcake biscuit pastry pancake waffle loaf croissant bagel scone brownie eclair tart dumpling omelet burrito taco pretzel",
    "picture": "portrait poster photo mural snapshot",
    "song": "hymn lullaby anthem",
    "lamp": "lantern flashlight chandelier torch",
    "door": "drawer cabinet suitcase locker",
    "company": "agency firm club charity council",
    "restaurant": "bakery pharmacy hotel airport stadium theater supermarket bookstore cafeteria laboratory "
                  "warehouse gym",
    "boat": "yacht ferry kayak sailboat",
    "brochure": "leaflet catalog booklet",
    "hill": "cliff volcano",
    "kitchen": "hallway bedroom bathroom staircase attic basement corridor porch",
    "man": "nobleman horseman countryman layman",   # men of a kind, not an occupation (unlike handyman)
    "woman": "housewife",
    "louse": "woodlouse",
    "mouse": "dormouse",
    "radius": "matrix vertex helix vortex stratum spectrum",
    "fungus": "alga bacillus",
    "analysis": "memorandum addendum",
    "cactus": "leaf bacterium larva vertebra nebula",
    "hypothesis": "criterion prognosis emphasis curriculum neurosis psychosis metamorphosis",
}
EN_VERBS = {   # model (a BLiMP verb's root) -> new regular verbs of its argument structure
    # (interest, concern, tire: psych verbs whose present forms - interest / interests ... - have equal
    # token lengths under the 13 tokenizers of issue 47; distractor_agreement_relational_noun's
    # same-frame replacements of a psych verb otherwise had astound, frighten and frustrate only)
    "disgust_(S\\NP)/NP": "amuse frighten delight puzzle bewilder terrify horrify offend surprise excite please "
                          "thrill depress frustrate intimidate fascinate trouble anger sadden startle baffle "
                          "perplex unnerve dismay infuriate exasperate discourage reassure entertain enchant charm "
                          "captivate outrage humiliate disappoint interest concern tire",
    "admire_(S\\NP)/NP": "adore envy ignore recognize mention photograph imagine trust describe",
    "hug_(S\\NP)/NP": "greet thank tickle console invite follow avoid warn kick push pinch punch scold blame visit tease scare comfort rescue attack help call",
    "hire_(S\\NP)/NP": "employ recruit interview",
    "dislike_(S\\NP)/NP": "detest loathe despise prefer",
    "explore_(S\\NP)/NP": "enter inspect search patrol tour reach approach occupy evacuate survey",
    "examine_(S\\NP)/NP": "edit review translate revise summarize analyze reject question",
    "clean_(S\\NP)/NP": "polish scrub wipe rinse wash paint dust fold heat decorate damage destroy ruin cover touch rent borrow",
    # (lift's verbs are strictly transitive; rent has a middle use - "the gyms rent quickly" - and borrow
    # an intransitive one - "they borrow heavily" - so these two copy clean, strict_trans 0: a pair read
    # by hand gave "A lot of gyms were sure to rent." as unacceptable)
    "lift_(S\\NP)/NP": "carry drag pull grab purchase locate spot fetch select",
    "repair_(S\\NP)/NP": "mend replace dismantle",
    "criticize_(S\\NP)/NP": "applaud condemn mock ridicule defend recommend praise insult oppose",
    # (strictly intransitive, as their model: not rest, wander, dance or pray, which also take an object -
    # "rest one's feet", "wander the streets" - and would make a bad sentence "Nancy rests some picture." good)
    "laugh_S\\NP": "giggle frown wink blush shiver faint snore hesitate sulk sneeze sigh sob grin yawn shudder tremble",
    "vanish_S\\NP": "disintegrate deteriorate decay expire emerge exist appear",
    # raising-to-object verbs (existential_there_object_raising, expletive_it_object_raising: "Tara
    # assumes there to be ..."), modelled on believe; not estimate ("estimates it to be noteworthy that")
    "believe_(S\\NP)/S[to]": "assume presume suspect reckon acknowledge allege imagine intend report",
    # object-control verbs, the bad verbs of those paradigms ("Tara reminds there to be ..."): persuade's
    # subject may be an event ("the accident persuaded him to leave"), urge's not; none of them takes an
    # expletive object (not instruct, allow, permit, enable: "the rules allow there to be a quorum")
    "persuade_((S\\NP)/(S[to]\\NP))/NP": "remind inspire incite provoke",
    "urge_((S\\NP)/(S[to]\\NP))/NP": "invite warn challenge bribe train",
}
# irregular verbs and verb phrases (past and participle differ, as in BLiMP's special_en_form verbs:
# irregular_past_participle_verbs draws them, "The carrots went soft." / "The carrots gone soft."),
# with a model of the same kind; a phrase's head is inflected, the rest kept. BLiMP's only irregular
# intransitives of an inanimate subject are shrink (clothing), freeze (liquid) and go bad (vegetables),
# and of those only went bad / gone bad tokenize alike under the 13 tokenizers of issue 47; the
# phrases below are go bad's siblings (a change of state of food, not causative: "*Mark went the
# carrots soft"), whose went and gone forms are one token each.
EN_IRREGULAR_VERBS = {
    "go bad_S\\NP": "go soft|go limp|go brown|go moldy|go rotten|go mushy",
}
# adjectives of the raising and tough classes (tough_vs_raising_1, _2, existential_there_subject_raising),
# each copying its model's row of that class (category_2). BLiMP has 8 raising adjectives, of which only
# "apt" has no tough adjective of its token lengths under the 13 tokenizers of issue 47 and is the rarest
# (Zipf 3.7): its contexts were replaced by frequent raising adjectives. The added raising adjectives
# (liable, destined: "There is liable to be a delay") are as rare as apt and tokenize like the added
# tough adjectives (-ing adjectives of emotion, like BLiMP's annoying, boring, exciting); not terrifying
# (lemminflect knows it as a verb only), not prone ("*There is prone to be"), not quick or nice (also
# control adjectives: "Mark is quick to leave").
EN_ADJECTIVES = {   # (model, its class) -> new adjectives of the class
    ("likely", "Adj_raising_subj"): "liable destined",
    ("boring", "Adj_tough"): "embarrassing frightening disappointing disturbing",
    # attributive adjectives (ellipsis_n_bar_2's bad sentence replaces a plural noun by an adjective of its
    # token lengths: "... four disgruntled."), for the nouns none of BLiMP's 48 adjectives matches
    # under the 13 tokenizers of issue 47 - two-token nouns (cashiers, blouses, projectors) and those
    # Mistral's 32k vocabulary splits in two (lamps, mirrors, candles): adjectives said of any person
    # (as confident) or of any physical thing (as smooth; colours as green)
    ("confident", "Adj"): "envious tearful forgetful talkative cranky indignant",
    ("smooth", "Adj"): "miniature lightweight colorful spotless smelly dusty striped gigantic muddy",
    ("green", "Adj"): "amber violet teal",
}
EN_NAMES = {   # model (a BLiMP name) -> new names of its gender (not inflected: wordfreq only)
    "Elaine": "Abigail Bridget Chloe Daisy Fiona Gloria Hannah Ingrid Joanna Lillian Miriam Olivia Priscilla "
              "Rosalind Sophia Vivian Yvonne Eleanor Harriet Agnes Beatrice Cecilia Edith Felicity Gwendolyn "
              "Louisa Marjorie Penelope Winifred Ursula",
    "Aaron": "Arthur Bernard Calvin Dominic Edgar Felix Gilbert Harold Isaac Jerome Leonard Malcolm Nathan Oscar "
             "Percy Quentin Reginald Simon Tobias Victor Wallace Xavier Ambrose Desmond Fergus Gideon Horace "
             "Lionel Mortimer",
}
# a verb row's form (its BLiMP flags) -> lemminflect's Penn tag
VERB_TAGS = (("bare", "VB"), ("en", "VBN"), ("ing", "VBG"), ("past", "VBD"), ("3sg", "VBZ"), ("pres", "VBP"))


def regular_plural(noun: str) -> set[str]:
    """The plurals the regular spelling rules give (-s; -es after a sibilant or a consonant + o;
    consonant + y -> -ies): a plural outside them is irregular (BLiMP's `irrpl`)."""
    if noun.endswith(("s", "x", "z", "ch", "sh")):
        return {noun + "es"}
    if noun.endswith("y") and noun[-2:-1] not in "aeiou":
        return {noun[:-1] + "ies"}
    if noun.endswith("o"):
        return {noun + "s", noun + "es"}
    return {noun + "s"}


def en_source_label() -> str:
    return f"lemminflect {metadata.version('lemminflect')} / wordfreq {metadata.version('wordfreq')}"


def _inflect(lemma: str, tag: str) -> str | None:
    """lemminflect's form `tag` of `lemma`; of a phrase ("go soft"), its head's form and the rest."""
    from lemminflect import getInflection

    head, _, rest = lemma.partition(" ")
    if tag in ("VB", "VBP"):
        return lemma
    forms = getInflection(head, tag=tag)
    return f"{forms[0]} {rest}".strip() if forms else None


def _common(word: str) -> bool:
    from wordfreq import zipf_frequency

    return zipf_frequency(word, "en") >= MIN_ZIPF


def noun_rows(base, model: str, lemma: str) -> list[dict]:
    """The rows of noun `lemma` and its plural (lemminflect), one pair per category its model noun
    has (common noun, relational noun), with the model's features; [] when a form is rare, missing
    or already a BLiMP noun, or the plural equals the singular."""
    plural = _inflect(lemma, "NNS")
    taken = set(base.expressions[base.select({"noun": "1"})].tolist())
    if not plural or plural == lemma or not all(map(_common, (lemma, plural))) or {lemma, plural} & taken:
        return []
    irr = "0" if plural in regular_plural(lemma) else "1"
    out = []
    for i in base.rows_for(model, sg="1"):
        j = base.other_number(int(i))
        if j is None or base.get(i, "category") not in ("N", "N\\NP[poss]"):
            continue
        for row, form, sib, key in ((base.row(i), lemma, plural, "pluralform"), (base.row(j), plural, lemma, "singularform")):
            row |= {"expression": form, key: sib, "irrpl": irr if row["irrpl"] or irr == "1" else ""}
            if row["start_with_vowel"]:
                row["start_with_vowel"] = "1" if form[0] in "aeiou" else "0"
            out.append(row | {"model": model})
    return out


def verb_rows(base, root: str, lemma: str, regular: bool = True) -> list[dict]:
    """The rows of verb `lemma`, one per row of its model lexeme `root` with the same form flags
    (lemminflect's form for them) and the model's argument structure; [] when a form is missing or
    rare, BLiMP has the verb already, or it is not of its model's kind: regular (past = participle =
    -ed), or with `regular` False irregular with a past other than its participle (a phrase's head)."""
    model = [base.row(i) for i in np.flatnonzero(base.column("root") == root)]
    category = model[0]["category"]
    if f"{lemma}_{category}" in set(base.column("root").tolist()):
        return []
    out = []
    for row in model:
        tag = next(t for flag, t in VERB_TAGS if row[flag] == "1")
        form = _inflect(lemma, tag)
        if form is None or not _common(form):
            return []
        out.append(row | {"expression": form, "root": f"{lemma}_{category}", "model": root.split("_")[0]})
    past, part = _inflect(lemma, "VBD"), _inflect(lemma, "VBN")
    if not regular:
        return out if past != part and all(r["special_en_form"] == "1" for r in model) else []
    return out if past == part and past.endswith("ed") else []


def adjective_rows(base, model: str, cls: str, word: str) -> list[dict]:
    """The row of adjective `word` in class `cls` (category_2), its model's row of that class with
    the new form; [] when rare, not an adjective lemma in lemminflect, or BLiMP has it in the class."""
    from lemminflect import getAllLemmas

    rows = [base.row(int(i)) for i in base.rows_for(model) if base.get(int(i), "category_2") == cls]
    have = {base.get(int(i), "category_2") for i in base.rows_for(word)}
    if cls in have or not _common(word) or getAllLemmas(word).get("ADJ") != (word,):
        return []
    return [rows[0] | {"expression": word, "model": model}]


def name_rows(base, model: str, name: str) -> list[dict]:
    """The row of proper name `name`, with its model name's features ([] if rare or in BLiMP)."""
    if len(base.rows_for(name)) or not _common(name):
        return []
    return [base.row(int(base.rows_for(model)[0])) | {"expression": name, "model": model}]


def en_extension(base) -> list[dict]:
    """Every English extension row, in a fixed order (nouns, verbs, irregular verbs, adjectives,
    names; as listed), each with its
    `source`."""
    rows, label = [], en_source_label()
    for model, words in EN_NOUNS.items():
        rows += [r | {"source": label} for w in words.split() for r in noun_rows(base, model, w)]
    for root, words in EN_VERBS.items():
        rows += [r | {"source": label} for w in words.split() for r in verb_rows(base, root, w)]
    for root, words in EN_IRREGULAR_VERBS.items():
        rows += [r | {"source": label} for w in words.split("|") for r in verb_rows(base, root, w, regular=False)]
    for (model, cls), words in EN_ADJECTIVES.items():
        rows += [r | {"source": label} for w in words.split() for r in adjective_rows(base, model, cls, w)]
    wf = f"wordfreq {metadata.version('wordfreq')}"
    for model, names in EN_NAMES.items():
        rows += [r | {"source": wf} for n in names.split() for r in name_rows(base, model, n)]
    # (a model listed in two of BLiMP's blocks with the same features gives a row twice: kept once)
    return list({tuple(r.items()): r for r in rows}.values())


def en_table_text() -> str:
    """vocab/blimp_extension.csv as this script writes it (BLiMP's columns, then `source`, `model`)."""
    sys.path.insert(0, str(ROOT))
    from fairpairs.generation.vocab import Vocabulary

    base = Vocabulary.load()          # BLiMP's table with fixes.yaml applied, without the extension
    header = list(base.column_names) + EN_EXTRA
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=header, lineterminator="\n")
    writer.writeheader()
    writer.writerows(en_extension(base))
    return buf.getvalue()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if the table differs from what would be written")
    ap.add_argument("--language", choices=["ru", "en"], default="ru",
                    help="ru: vocab/ru.csv (pymorphy3); en: vocab/blimp_extension.csv (lemminflect)")
    ap.add_argument("--table", type=Path, default=None, help="the Russian table (default: vocab/ru.csv, as "
                                                             "tools/clams_convert.py writes it or as committed)")
    args = ap.parse_args(argv)
    if args.language == "en":
        table, text = EN_TABLE, en_table_text()
    else:
        import pymorphy3

        table = args.table or TABLE
        text = table_text(pymorphy3.MorphAnalyzer(lang="ru"), table)
    if args.check:
        same = table.is_file() and table.read_text(encoding="utf-8") == text
        print(f"{table}: {'as written by this script' if same else 'differs from what this script writes'}")
        return 0 if same else 1
    tmp = table.with_suffix(".csv.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(table)
    print(f"{table}: {sum(1 for _ in csv.DictReader(io.StringIO(text)))} rows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
