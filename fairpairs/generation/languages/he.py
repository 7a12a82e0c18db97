"""Hebrew: the definite article and the other one-letter prefixes written as part of the word.

- prefixes: the one-letter proclitics ה (the), ו (and), ש (that), ב (in), ל (to), כ (as) and
  מ (from), written as words of their own ("ה מלצר", as CLAMS writes them), are attached to the
  word after them ("המלצר", "שהשומר", "ונוסע"), as written Hebrew spells them. After ב, ל and כ
  the article is not written ("ב ה עיר" -> "בעיר": the vowel of the article is absorbed by the
  preposition); after ו, ש and מ it stays ("ו ה שומר" -> "והשומר"). A prefix is a word made of
  one of these letters only; a longer word that ends in one (את, על) is left alone.
- articles: the definite article ה for every noun (Hebrew marks neither gender nor number on the
  article); the indefinite has no article (""). The rule `prefixes` attaches it.

Hebrew has no letter case: the capitalisation every sentence gets changes nothing.
"""

from __future__ import annotations

import re
from typing import Mapping

from fairpairs.generation.languages import Language

ARTICLE = "ה"
PREFIXES = "הושבלכמ"
ABSORBING = "בלכ"     # prepositions that absorb the article's vowel: ב + ה -> ב
_PREFIX = re.compile(rf"(?<!\S)([{PREFIXES}]) +(?=\S)")
_ABSORBED = re.compile(rf"(?<!\S)([{ABSORBING}]) +{ARTICLE} +(?=\S)")


def prefixes(sentence: str) -> str:
    sentence = _ABSORBED.sub(r"\1", sentence)
    while True:   # a run of prefixes ("ו ש ה ...") attaches from the right
        joined = _PREFIX.sub(r"\1", sentence)
        if joined == sentence:
            return sentence
        sentence = joined


def articles(kind: str, features: Mapping[str, str]) -> str:
    return ARTICLE if kind == "definite" else ""


# Llama-3's tokenizer (of preset:multilingual) is not among those that suit Hebrew: the plural
# ending of a verb (-ים, -ות) takes one or two tokens more than the singular for every verb tried
# (grammars/he/README.md), so no Hebrew agreement pair has equal counts under it.
LANGUAGE = Language(code="he", name="Hebrew", vocabulary="he.csv", rules={"prefixes": prefixes},
                    articles=articles, wordfreq="he",
                    tokenizers=("meta-llama/Llama-4-Scout-17B-16E", "mistralai/Mistral-Nemo-Base-2407", "Qwen/Qwen2.5-7B"),
                    source="CLAMS (Mueller et al., ACL 2020), aaronmueller/clams @ 36b5c9a", licence="Apache-2.0")
