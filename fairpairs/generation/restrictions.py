"""The vocabulary table's restriction language (`arg_1` ... `arg_clause`: "a=1^b=2;c=", a disjunction of
conjunctions of column conditions) and the identity of the bundled table."""

from __future__ import annotations

from fairpairs.errors import VocabularyError


RESTRICTION_COLUMNS = ("arg_1", "arg_2", "arg_3", "arg_clause")
VERB_FORM_COLUMNS = ("finite", "bare", "pres", "past", "ing", "en", "3sg")

Dnf = tuple[tuple[tuple[str, str], ...], ...]

# vocab/blimp_vocabulary.csv as fixes.yaml was written for it (a test checks the bundled file)
BUNDLED_TABLE = "blimp_vocabulary.csv"
BUNDLED_SHA256 = "02235400b2d9c8a8ae56f58318f7b93accea439189d709c766d0649845d8b182"
BUNDLED_ROWS = 4216


def parse_dnf(text: str) -> Dnf:
    """'a=1^b=2;c=' -> ((('a','1'),('b','2')), (('c',''),)). Empty text -> () (no restriction)."""
    text = text.strip()
    if not text:
        return ()
    out = []
    for conj in text.split(";"):
        conds = []
        for cond in conj.split("^"):
            col, sep, val = cond.partition("=")
            if not sep or not col.strip():
                raise VocabularyError(f"malformed restriction condition {cond!r} in {text!r}")
            conds.append((col.strip(), val.strip()))
        out.append(tuple(conds))
    return tuple(out)
