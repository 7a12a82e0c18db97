"""German: the articles by gender, number and case, and the contraction of a preposition with
the dative article.

- articles: definite der/die/das/den/dem/des and indefinite ein/eine/einen/einem/einer/eines by
  gender (m, f, n), number (sg, pl) and case (nom, acc, dat, gen); the indefinite plural has no
  article ("").
- contraction: von dem -> vom, zu dem -> zum, zu der -> zur, in dem -> im, an dem -> am,
  bei dem -> beim, before a capitalised word (a noun: "von dem Wächter" -> "vom Wächter"); a
  relative pronoun ("von dem ich spreche") is left alone, and so is an article before an
  adjective ("von dem alten Wächter"), where contraction is usual but not required.

Capitalisation of the first word is every language's (nouns are capitalised in the table).
"""

from __future__ import annotations

import re
from typing import Mapping

from fairpairs.generation.languages import Language

CASES = ("nom", "acc", "dat", "gen")
DEFINITE = {
    ("sg", "m"): ("der", "den", "dem", "des"),
    ("sg", "f"): ("die", "die", "der", "der"),
    ("sg", "n"): ("das", "das", "dem", "des"),
    ("pl", ""): ("die", "die", "den", "der"),
}
INDEFINITE = {
    ("sg", "m"): ("ein", "einen", "einem", "eines"),
    ("sg", "f"): ("eine", "eine", "einer", "einer"),
    ("sg", "n"): ("ein", "ein", "einem", "eines"),
    ("pl", ""): ("", "", "", ""),
}
CONTRACTED = {("von", "dem"): "vom", ("zu", "dem"): "zum", ("zu", "der"): "zur", ("in", "dem"): "im",
              ("an", "dem"): "am", ("bei", "dem"): "beim"}
_CONTRACTION = re.compile(r"(?<![\w'])(von|zu|in|an|bei) +(dem|der)(?= +(?-i:[A-ZÄÖÜ]))", re.IGNORECASE)


def articles(kind: str, features: Mapping[str, str]) -> str:
    number, gender, case = (features.get(k, "") for k in ("number", "gender", "case"))
    if number not in ("sg", "pl"):
        raise ValueError(f"number {number!r} (German articles need sg or pl)")
    if case not in CASES:
        raise ValueError(f"case {case!r} (German articles need one of {', '.join(CASES)})")
    if number == "sg" and gender not in ("m", "f", "n"):
        raise ValueError(f"gender {gender!r} (a German singular article needs m, f or n)")
    table = DEFINITE if kind == "definite" else INDEFINITE
    return table[(number, gender if number == "sg" else "")][CASES.index(case)]


def contraction(sentence: str) -> str:
    def sub(m: re.Match) -> str:
        key = (m.group(1).lower(), m.group(2).lower())
        if key not in CONTRACTED:
            return m.group(0)
        word = CONTRACTED[key]
        return word[:1].upper() + word[1:] if m.group(1)[:1].isupper() else word
    return _CONTRACTION.sub(sub, sentence)


LANGUAGE = Language(code="de", name="German", vocabulary="de.csv", rules={"contraction": contraction},
                    articles=articles, wordfreq="de",
                    tokenizers=("preset:multilingual",),
                    source="CLAMS (Mueller et al., ACL 2020), aaronmueller/clams @ 36b5c9a", licence="Apache-2.0")
