"""French: elision and contraction of articles and short function words, and the definite and
indefinite articles by gender and number.

- elision: le, la, de, que, ne, je, me, te, se become l', d', qu', n', j', m', t', s' before a
  word that starts with a vowel or a mute h ("le auteur" -> "l'auteur", "que il" -> "qu'il"); not
  before an aspirated h ("le héros") or a y ("le yaourt"). The words with an aspirated h are those
  of `ASPIRATED_H` (a word of one's own that is missing there is elided).
- contraction: de + le -> du, de + les -> des, à + le -> au, à + les -> aux ("près de le garde"
  -> "près du garde"; "de l'adjoint" and "de la" stay). Applied after elision, so "de le adjoint"
  becomes "de l'adjoint". Both rules read "le"/"les" after de/à as the article: a paradigm whose
  template puts the object pronoun le after de or à ("de le voir") must not name the rule.

Capitalisation is kept: "Le auteur" -> "L'auteur", "De le garde" -> "Du garde".
"""

from __future__ import annotations

import re
from typing import Mapping

from fairpairs.generation.languages import Language

VOWELS = "aeiouàâäéèêëîïôöùûüœæ"
# common words with an aspirated h (no elision, no liaison)
ASPIRATED_H = frozenset("""
hache haie haine haïr hall halte hamac hameau hamster hanche handicap hangar hanter harceler hardi
hareng haricot harpe hasard hâte hausse haut hauteur havre hérisson héron héros hêtre hibou hiérarchie
hockey hollandais homard honte hoquet horde hors hotte houx huit huitième hurler hutte
""".split())

ELIDED = {"le": "l'", "la": "l'", "de": "d'", "que": "qu'", "ne": "n'", "je": "j'", "me": "m'",
          "te": "t'", "se": "s'"}
_ELISION = re.compile(r"(?<![\w'’])(le|la|de|que|ne|je|me|te|se) +(?=([^\W\d_][\w-]*))", re.IGNORECASE)
_CONTRACTION = re.compile(r"(?<![\w'’])(de|à) +(les|le)(?= )", re.IGNORECASE)
CONTRACTED = {("de", "le"): "du", ("de", "les"): "des", ("à", "le"): "au", ("à", "les"): "aux"}


def _same_case(model: str, word: str) -> str:
    return word[:1].upper() + word[1:] if model[:1].isupper() else word


def starts_with_vowel_sound(word: str) -> bool:
    """Whether elision applies before `word`: a vowel, or an h that is not aspirated."""
    w = word.lower()
    if not w:
        return False
    if w[0] in VOWELS:
        return True
    return w[0] == "h" and w.split("-")[0] not in ASPIRATED_H


def elision(sentence: str) -> str:
    def sub(m: re.Match) -> str:
        if not starts_with_vowel_sound(m.group(2)):
            return m.group(0)
        return _same_case(m.group(1), ELIDED[m.group(1).lower()])
    return _ELISION.sub(sub, sentence)


def contraction(sentence: str) -> str:
    def sub(m: re.Match) -> str:
        return _same_case(m.group(1), CONTRACTED[(m.group(1).lower(), m.group(2).lower())])
    return _CONTRACTION.sub(sub, sentence)


def articles(kind: str, features: Mapping[str, str]) -> str:
    number, gender = features.get("number", ""), features.get("gender", "")
    if number not in ("sg", "pl"):
        raise ValueError(f"number {number!r} (French articles need sg or pl)")
    if number == "pl":
        return "les" if kind == "definite" else "des"
    if gender not in ("m", "f"):
        raise ValueError(f"gender {gender!r} (a French singular article needs m or f)")
    if kind == "definite":
        return "le" if gender == "m" else "la"
    return "un" if gender == "m" else "une"


LANGUAGE = Language(code="fr", name="French", vocabulary="fr.csv",
                    rules={"elision": elision, "contraction": contraction}, articles=articles, wordfreq="fr",
                    tokenizers=("preset:multilingual",),
                    source="CLAMS (Mueller et al., ACL 2020), aaronmueller/clams @ 36b5c9a", licence="Apache-2.0")
