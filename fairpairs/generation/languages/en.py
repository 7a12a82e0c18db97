"""English: BLiMP's table, determiners drawn from it (`det:`), no surface rules beyond the
capitalisation every sentence gets."""

from fairpairs.generation.languages import Language

LANGUAGE = Language(code="en", name="English", vocabulary="blimp_vocabulary.csv", wordfreq="en",
                    tokenizers=("preset:modern",),
                    source="BLiMP (Warstadt et al., TACL 2020): its vocabulary and paradigms", licence="CC-BY-4.0")
