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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if the table differs from what would be written")
    ap.add_argument("--table", type=Path, default=TABLE, help="the Russian table (default: vocab/ru.csv, as "
                                                                "tools/clams_convert.py writes it or as committed)")
    args = ap.parse_args(argv)
    import pymorphy3

    table = args.table
    text = table_text(pymorphy3.MorphAnalyzer(lang="ru"), table)
    if args.check:
        same = table.read_text(encoding="utf-8") == text
        print(f"{table}: {'as written by this script' if same else 'differs from what this script writes'}")
        return 0 if same else 1
    tmp = table.with_suffix(".csv.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(table)
    print(f"{table}: {sum(1 for _ in csv.DictReader(io.StringIO(text)))} rows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
