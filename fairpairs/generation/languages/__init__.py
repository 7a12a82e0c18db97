"""Languages: the surface rules a paradigm file can name, keyed by language code.

A paradigm file says `language: fr` (default `en`) and may name surface rules of that language
(`rules: [elision, contraction]`); the rules are applied, in the order named, to every sentence
after the template is rendered and finished (spaces collapsed, first letter capitalised). A slot
may also ask for the language's article (`article: definite`), chosen from the noun's gender,
number and case. Each language lives in its own module, imported on first use:

    from fairpairs.generation.languages import get_language
    fr = get_language("fr")
    fr.apply(["elision", "contraction"], "Le auteur près de le garde parle.")
    # "L'auteur près du garde parle."

Adding a language: a module `fairpairs/generation/languages/<code>.py` defining `LANGUAGE` (a `Language`)
and its code in `fairpairs.registry.LANGUAGES`, or `register(language)` from one's own code, or an
entry point of group `fairpairs.languages` in a plugin package (docs/multilingual.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping

from fairpairs.errors import Param, GrammarError

ARTICLE_KINDS = ("definite", "indefinite")

Rule = Callable[[str], str]
# (kind, features of the noun row: gender, number, case ...) -> the article, "" for none
Articles = Callable[[str, Mapping[str, str]], str]


@dataclass(frozen=True)
class Language:
    """What fairpairs knows of one language.

    code: ISO 639-1 code; name: English name; rules: surface rules by name, each a function from
    a finished sentence to a sentence; articles: the article of a noun (None: the language's
    paradigms draw determiners from the table with `det:`); vocabulary: the bundled table the
    paradigms of this language draw from by default (a file in vocab/); wordfreq: the language
    code wordfreq knows it by (for the balance report's frequencies); tokenizers: tokenizers under
    which its paradigms' contrasts can be equalised (suggested when a run's are not; `fairpairs
    languages`); source, licence: where its bundled paradigms and table come from."""

    code: str
    name: str
    vocabulary: str
    rules: Mapping[str, Rule] = field(default_factory=dict)
    articles: Articles | None = None
    wordfreq: str = ""
    tokenizers: tuple[str, ...] = ()
    source: str = ""
    licence: str = ""

    def rule(self, name: str) -> Rule:
        if name not in self.rules:
            known = ", ".join(sorted(self.rules)) or "none"
            raise GrammarError(f"rules: {name!r} is not a surface rule of {self.name} ({self.code}) "
                               f"(its rules: {known})")
        return self.rules[name]

    def apply(self, rules, sentence: str) -> str:
        """`sentence` with the named rules applied in order."""
        for name in rules:
            sentence = self.rule(name)(sentence)
        return sentence

    def article(self, kind: str, features: Mapping[str, str]) -> str:
        """The article of kind `kind` for a noun with these features ("" for none)."""
        if self.articles is None:
            raise GrammarError("article", reason=f"{self.name} ({self.code}) has no article rule; draw determiners "
                                                 "from the vocabulary with det: instead")
        if kind not in ARTICLE_KINDS:
            raise GrammarError("article", reason=f"{kind!r} is not an article kind (one of {', '.join(ARTICLE_KINDS)})")
        return self.articles(kind, features)


def get_language(code: str) -> Language:
    """The `Language` of a code (GrammarError naming `language` for an unknown one)."""
    from fairpairs.registry import LANGUAGES

    if not isinstance(code, str) or not code.strip():
        raise GrammarError(Param("language"), reason=f"expected a language code such as 'fr', not {code!r}", value=code)
    return LANGUAGES.get(code)


def wordfreq_code(code: str) -> str:
    """The wordfreq code of a language's word frequencies (the balance report's), English for a
    language that names none."""
    return get_language(code).wordfreq or "en"


def register(language: Language, *, replace: bool = False) -> None:
    """Make a language known under its code (a module of one's own, without editing the registry);
    a code already known is an error unless `replace`."""
    from fairpairs.registry import LANGUAGES

    if not isinstance(language, Language):
        raise TypeError(f"register: expected a Language, not {type(language).__name__}")
    LANGUAGES.register(language.code, language, replace=replace)
