"""Russian: no articles and no surface rules; nouns carry their case in the table (a row per
form: nominative, accusative, instrumental), chosen by the paradigm's `where: {case: ...}`."""

from fairpairs.generation.languages import Language

LANGUAGE = Language(code="ru", name="Russian", vocabulary="ru.csv", wordfreq="ru",
                    tokenizers=("preset:multilingual",),
                    source="CLAMS (Mueller et al., ACL 2020), aaronmueller/clams @ 36b5c9a", licence="Apache-2.0")
