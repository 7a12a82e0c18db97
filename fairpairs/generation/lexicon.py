"""Restrict generation to the words of a text corpus (as BabyLM's filtered BLiMP keeps only pairs
whose words occur in the training data).

Tokenization, the same for the corpus and for every word fairpairs could write: the text is
lower-cased (so sentence-initial capitals and names match their other occurrences: "The" counts as
"the", and "Bill" as "bill"), the typographic apostrophe ’ becomes ', and a word is a maximal run of
letters or digits, with apostrophes inside it kept ("isn't", "children's"); everything else
(spaces, punctuation, hyphens) separates words, so "well-known" is the two words "well" and
"known". A vocabulary entry, a literal (`text:`) alternative or a word written in a template is
*known* when each of its words occurs at least `min_count` times in the corpus; the empty filler
(the empty auxiliary or determiner) is always known.

A vocabulary row is kept when its expression is known, so both sentences of every pair use known
words only: a critical slot's bad filler is drawn from the kept rows too (a noun whose other number
is unknown cannot give a pair).
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import numpy as np

from fairpairs.errors import Param, FairpairsError, LexiconError
from fairpairs.io.reading import reading
from fairpairs.manifest import LexiconInfo
from fairpairs.generation.grammar import Paradigm, read_paradigm_file
from fairpairs.generation.vocab import Vocabulary

WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)*")
TOKENIZATION = ("lower-cased; ’ read as '; a word is a run of letters/digits with inner apostrophes "
                "(isn't); punctuation, spaces and hyphens separate words")
_TAGS = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", re.S)


def lexicon_words(text: str) -> list[str]:
    """The words of `text`, tokenized as the module docstring says."""
    return WORD.findall(text.lower().replace("\u2019", "'"))


@dataclass
class Lexicon:
    counts: Counter
    min_count: int
    source: str = "<counts>"
    sha256: str = ""

    def known(self, text: str) -> bool:
        """Every word of `text` occurs at least min_count times ('' is known)."""
        return all(self.counts[w] >= self.min_count for w in lexicon_words(text))

    def row_mask(self, vocab: Vocabulary) -> np.ndarray:
        """Vocabulary rows whose expression is known."""
        known = {e: self.known(e) for e in set(vocab.expressions)}
        return np.array([known[e] for e in vocab.expressions], dtype=bool)

    def manifest(self, report: dict | None = None) -> LexiconInfo:
        """The run manifest's `lexicon` entry; `report` is restrict_to_lexicon's per-slot counts."""
        out = LexiconInfo(corpus=Path(self.source).name, sha256=self.sha256, min_count=self.min_count,
                          tokenization=TOKENIZATION,
                          words_kept=sum(1 for c in self.counts.values() if c >= self.min_count))
        if report is not None:
            out["paradigms"] = report
        return out


def load_lexicon(corpus: str | Path, min_count: int = 1) -> Lexicon:
    """Count the words of a UTF-8 text file (`corpus`); words seen at least `min_count` times are
    known."""
    path = Path(corpus)
    if isinstance(min_count, bool) or not isinstance(min_count, int) or min_count < 1:
        raise LexiconError(Param("min_count"), f": must be a whole number >= 1, got {min_count!r}")
    counts: Counter = Counter()
    digest = hashlib.sha256()
    with reading(path, "corpus", LexiconError), open(path, "rb") as fh:
        offset = 0
        for line in fh:     # line by line: a corpus may be larger than memory
            digest.update(line)
            try:
                counts.update(lexicon_words(line.decode("utf-8")))
            except UnicodeDecodeError as exc:
                exc.start += offset      # the byte in the file, not in the line
                raise
            offset += len(line)
    if not counts:
        raise LexiconError(f"{path}: corpus has no words")
    return Lexicon(counts, min_count, str(path), digest.hexdigest())


def template_words(p: Paradigm) -> list[str]:
    """The words written in a paradigm's templates themselves (outside {{ }}, {% %} and {# #})."""
    out: list[str] = []
    for src in dict.fromkeys([p.good_source, p.bad_source]):
        out.extend(w for w in lexicon_words(_TAGS.sub(" ", src)) if w not in out)
    return out


def rendered(p: Paradigm, slot: str) -> bool:
    """Is the slot written into a sentence ({{ slot }}), not only tested ({% if slot.word == ... %})?"""
    pattern = re.compile(r"\{\{-?\s*" + re.escape(slot) + r"\s*(?:\||-?\}\})")
    return bool(pattern.search(p.good_source) or pattern.search(p.bad_source))


def slot_counts(p: Paradigm, lexicon: Lexicon, mask: np.ndarray) -> dict[str, dict[str, int]]:
    """Per slot key (slots.X, slots.X.det, critical.X, template): candidates and how many are known."""
    out: dict[str, dict[str, int]] = {}

    def add(key, n, kept):
        out[key] = {"candidates": int(n), "kept": int(kept)}

    for part, specs in (("slots", p.slots), ("critical", p.critical)):
        for n, sp in specs.items():
            if sp.text:
                if rendered(p, n):
                    add(f"{part}.{n}", len(sp.text), sum(lexicon.known(t) for t in sp.text))
                continue
            if part == "critical" and (sp.base is p.slots[n].base or sp.form is not None):
                continue   # drawn among the good slot's candidates, or a form of the good word
            add(f"{part}.{n}", len(sp.base), mask[sp.base].sum())
            if sp.det_base is not None:
                add(f"{part}.{n}.det", len(sp.det_base), mask[sp.det_base].sum())
    tw = template_words(p)
    if tw:
        add("template", len(tw), sum(lexicon.counts[w] >= lexicon.min_count for w in tw))
    return out


def restrict_to_lexicon(paradigms: Iterable[Paradigm], vocab: Vocabulary, lexicon: Lexicon
                        ) -> tuple[Vocabulary, list[Paradigm], dict[str, dict[str, dict[str, int]]]]:
    """The vocabulary cut to the known words, the paradigms reloaded against it (literal slots keep
    their known alternatives), and per paradigm the candidates each slot keeps.

    Raises LexiconError naming every paradigm and slot left with no known candidate (or a template
    word the corpus lacks), or a relation between slots no kept pair can meet."""
    paradigms = list(paradigms)
    mask = lexicon.row_mask(vocab)
    report = {p.uid: slot_counts(p, lexicon, mask) for p in paradigms}
    empty = []
    for p in paradigms:
        for key, c in report[p.uid].items():
            if key == "template" and c["kept"] < c["candidates"]:
                missing = [w for w in template_words(p) if lexicon.counts[w] < lexicon.min_count]
                empty.append(f"{p.uid} template word(s) {', '.join(missing)}")
            elif key != "template" and c["kept"] == 0:
                empty.append(f"{p.uid} {key} (0 of {c['candidates']})")
    where = f"{Path(lexicon.source).name} with min_count {lexicon.min_count}"
    if empty:
        raise LexiconError(f"{lexicon.source}: nothing seen at least {lexicon.min_count} time(s) for: {'; '.join(empty)}")
    small = vocab.subset(mask)
    out = []
    for p in paradigms:
        try:
            q = read_paradigm_file(p.path, small)
        except FairpairsError as exc:
            raise LexiconError(f"with the words of {where}: {exc}") from None
        for spec in (*q.slots.values(), *q.critical.values()):
            if spec.text and rendered(q, spec.name):
                spec.text = tuple(t for t in spec.text if lexicon.known(t))
                spec.base = np.arange(len(spec.text))
        out.append(q)
    return small, out, report
