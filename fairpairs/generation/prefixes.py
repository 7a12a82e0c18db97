"""BLiMP's scoring-method fields of a pair, derived from its sentences and the words its slots gave.

BLiMP (Warstadt et al. 2020) marks per paradigm which of three ways of scoring a pair its contrast
allows, and for the two partial methods gives the strings to score:

- `simple_LM_method`: compare the whole sentences (every pair allows it).
- `one_prefix_method`: the sentences share a prefix and differ in one word (or phrase) right after it,
  the rest being the same: compare P(`one_prefix_word_good` | `one_prefix_prefix`) with
  P(`one_prefix_word_bad` | `one_prefix_prefix`). BLiMP: "Raymond is selling this" + sketch / sketches.
- `two_prefix_method`: the sentences differ in their beginnings and then share a word, whose
  probability after each beginning is compared: P(`two_prefix_word` | `two_prefix_prefix_good`) with
  P(`two_prefix_word` | `two_prefix_prefix_bad`). BLiMP: "Some dog stunned this" / "... these" +
  committee; "Only Bill would" / "Even Bill would" + ever.

Whether a paradigm's contrast *allows* a partial method is a linguistic fact BLiMP's authors declared
per paradigm (the ungrammaticality must be decided by the word given the prefix): "Aaron breaks /
appeared the glass" differs in one word after a shared prefix, but "Aaron appeared" is fine, so BLiMP
gives causative no one-prefix method. A paradigm file declares it (`one_prefix`, `two_prefix`,
grammars/README.md); this module derives the strings from a pair's sentences and the words its slots
gave, and says when a pair's sentences do not have the method's shape (then the pair does not get it).
"""

from __future__ import annotations

import re

_WORD = re.compile(r"[\w']+")


def one_prefix(good: str, bad: str, word_good: str, word_bad: str) -> tuple[str, str, str] | None:
    """(`one_prefix_prefix`, `one_prefix_word_good`, `one_prefix_word_bad`) of a pair whose sentences
    are `prefix word_good rest` and `prefix word_bad rest` (same prefix, same rest, character for
    character), or None when they are not. The words are located where they stand in the sentences
    (a sentence-initial word is matched whatever the case of its first letter, and given as written);
    the prefix is given without its trailing space ("" when the word opens the sentence), as BLiMP
    gives it. The first place where both sentences fit is taken."""
    if not word_good or not word_bad or word_good == word_bad:
        return None
    for i in _starts(good, word_good):
        prefix = good[:i]
        if not bad.startswith(prefix) or not _at(bad, i, word_bad):
            continue
        if good[i + len(word_good):] == bad[i + len(word_bad):]:
            return prefix.rstrip(), good[i:i + len(word_good)], bad[i:i + len(word_bad)]
    return None


def two_prefix(good: str, bad: str, word: str) -> tuple[str, str, str] | None:
    """(`two_prefix_prefix_good`, `two_prefix_prefix_bad`, `two_prefix_word`) of a pair whose sentences
    are `prefix_good word rest` and `prefix_bad word rest'` with different prefixes and rests of the
    same words (punctuation aside: BLiMP's matrix_question_npi_licensor_present ends one sentence in
    "?" and the other in "."), or None when they are not. Of the places of `word` in the good sentence,
    the first one after which both sentences go on alike is taken (the word right after the part that
    differs, as BLiMP takes it); prefixes are given without their trailing space."""
    word = word.strip()
    if not word:
        return None
    for i in _starts(good, word):
        rest = _WORD.findall(good[i + len(word):])
        for j in _starts(bad, word):
            if _WORD.findall(bad[j + len(word):]) != rest:
                continue
            pg, pb = good[:i].rstrip(), bad[:j].rstrip()
            if pg != pb:
                return pg, pb, good[i:i + len(word)]
    return None


def _starts(sentence: str, word: str) -> list[int]:
    """Where `word` stands as whole words in `sentence` (not inside a longer word), in order. Only
    the places where `word` occurs as written (`str.find`, overlaps included) and the sentence's
    start (where `_at` also takes another case of its first letter) can pass `_at`: the others are
    not tried (a record's fields were a fifth of a run's time with every place tried)."""
    if not word:
        return [i for i in range(len(sentence) + 1) if _at(sentence, i, word)]
    out = [0] if _at(sentence, 0, word) else []
    i = sentence.find(word, 1)
    while i >= 0:
        if _at(sentence, i, word):
            out.append(i)
        i = sentence.find(word, i + 1)
    return out


def _at(sentence: str, i: int, word: str) -> bool:
    """`word` stands at `sentence[i]` as whole words (its first letter in either case at the start)."""
    piece = sentence[i:i + len(word)]
    if len(piece) != len(word) or (i > 0 and sentence[i - 1] != " "):
        return False
    if piece != word and not (i == 0 and piece[:1].lower() == word[:1].lower() and piece[1:] == word[1:]):
        return False
    end = i + len(word)
    return end == len(sentence) or not (sentence[end].isalnum() or sentence[end] in "'_-")


def same_words(good: str, bad: str) -> bool:
    """Both sentences have the same multiset of words (case-insensitive; words as `[\\w']+`): the
    sentences are a reordering of each other. fairpairs' `same_words` field (before 0.3 it was
    called `lexically_identical`, which in BLiMP means something else: `lexically_identical`)."""
    return sorted(map(str.lower, _WORD.findall(good))) == sorted(map(str.lower, _WORD.findall(bad)))


ONE_PREFIX_FIELDS = ("one_prefix_prefix", "one_prefix_word_good", "one_prefix_word_bad")
TWO_PREFIX_FIELDS = ("two_prefix_prefix_good", "two_prefix_prefix_bad", "two_prefix_word")


def method_fields(paradigm, pair, critical: list[str], shown: set[str]) -> dict:
    """BLiMP's fields of a drawn pair by name, in `records.PAIR_FIELDS` order from `simple_LM_method`
    to `two_prefix_word`: the method flags, the paradigm's declared `lexically_identical`, `same_words`,
    and the prefix fields of the method the pair has (None where it has none: left out of its row).

    `paradigm` declares which methods its contrast allows (`one_prefix`, `two_prefix`); `pair` is
    a `Pair` whose sentences and fillers are set; `critical`: the critical slots its sentences show;
    `shown`: the vocabulary slots its good sentence shows. The one-prefix word is the one critical
    slot shown, its word alone or with its determiner (whichever the sentences have after a shared
    prefix); the two-prefix word the first declared slot (its phrase) or literal word that has the
    two-prefix shape in the pair. A pair whose sentences lack the shape gets the method false."""
    good, bad = pair.sentence_good, pair.sentence_bad
    one = two = None
    if paradigm.one_prefix and len(critical) == 1:
        g, b = pair.good[critical[0]], pair.bad.get(critical[0], pair.good[critical[0]])
        one = one_prefix(good, bad, g.word, b.word) or one_prefix(good, bad, g.text, b.text)
    for name in paradigm.two_prefix:
        if name in paradigm.slots:
            filler = pair.good[name]
            if not (paradigm.slots[name].text or name in shown) or not filler.text:
                continue
            word = filler.text
        else:
            word = name
        two = two_prefix(good, bad, word)
        if two is not None:
            break
    return {"simple_LM_method": True, "one_prefix_method": one is not None, "two_prefix_method": two is not None,
            "lexically_identical": paradigm.lexically_identical, "same_words": same_words(good, bad),
            **dict(zip(ONE_PREFIX_FIELDS, one or (None,) * 3)), **dict(zip(TWO_PREFIX_FIELDS, two or (None,) * 3))}
