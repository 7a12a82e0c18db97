"""Unlabelled sentences for fitting length parameters (`scoring.length`): WikiText-style text or
one sentence a line, and the bundled excerpt of WikiText-2 (fairpairs/assets/corpus, CC BY-SA 3.0)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from fairpairs.errors import Param, DatasetError, UsageTypeError
from fairpairs.scoring.settings import SCORING

CORPUS = Path(__file__).resolve().parents[1] / "assets" / "corpus" / "wikitext2-sentences.txt"

_DETOK = [(" @-@ ", "-"), (" @,@ ", ","), (" @.@ ", "."), (" n't", "n't"), (" 's", "'s"), (" 're", "'re"),
          (" 've", "'ve"), (" 'm", "'m"), (" 'd", "'d"), (" 'll", "'ll"), (" ,", ","), (" ;", ";"), (" :", ":")]


def wikitext_sentences(path, n: int = SCORING.fit_sentences, seed: int = 0, min_words: int = 4, max_words: int = 14) -> list[str]:
    """Up to `n` plain sentences from WikiText files (`path`: one or a list; word-tokenised, `= heading =` lines, `<unk>`):
    split at " . ", detokenised (" @-@ " -> "-", " , " -> ", ", " 's" -> "'s", ...), kept when they
    have no <unk>, quotes, brackets or other sentence-internal full stops, start with a capital
    letter and have `min_words` to `max_words` words; a seeded sample, in corpus order."""
    from fairpairs.io.reading import reading

    paths = [path] if isinstance(path, (str, Path)) else list(path)
    lines = []
    for p in paths:     # (a file that is not UTF-8 text: one line naming the parameter and the file)
        with reading((Param("corpus"), f" {p}"), "file", DatasetError):
            lines += Path(p).read_text(encoding="utf-8").splitlines()
    found = []
    for line in lines:
        line = line.strip()
        if not line or line.startswith("="):
            continue
        for part in line.split(" . "):
            part = part.strip().rstrip(" .").strip()
            if not part or "<unk>" in part:
                continue
            for a, b in _DETOK:
                part = part.replace(a, b)
            if re.search(r"[\"()\[\]{}?!@=|$%&]", part):
                continue
            sent = part + "."
            words = sent.split()
            if not (min_words <= len(words) <= max_words) or not sent[0].isupper() or " ." in sent[:-1] \
                    or re.search(r"\s'|'\s", sent):
                continue
            found.append(sent)
    found = list(dict.fromkeys(found))
    if len(found) > n:
        keep = np.sort(np.random.default_rng(seed).choice(len(found), size=n, replace=False))
        found = [found[i] for i in keep]
    return found




def corpus_sentences(corpus=None, n: int = SCORING.fit_sentences, seed: int = 0, min_words: int = 4,
                     max_words: int = 14) -> tuple[list, list[str]]:
    """(files, sentences) a fit uses, checked before any model is loaded: `corpus` (default the
    bundled excerpt) must be existing files, with at least 10 usable sentences; fewer than `n` is a
    FairpairsWarning."""
    import warnings

    from fairpairs.arguments import count, path
    from fairpairs.errors import FairpairsWarning

    for value, name, least in ((n, "n", 10), (seed, "seed", 0), (min_words, "min_words", 1),
                               (max_words, "max_words", 1)):
        count(value, name, least)
    corpus = CORPUS if corpus is None else corpus
    if isinstance(corpus, (bytes, int, float)) or not (isinstance(corpus, (str, Path)) or hasattr(corpus, "__iter__")):
        raise UsageTypeError(Param("corpus"), f": expected a file path or a list of them, not {type(corpus).__name__}")
    files = [corpus] if isinstance(corpus, (str, Path)) else list(corpus)
    if not files:
        raise UsageTypeError(Param("corpus"), ": give at least one file")
    for f in files:
        path(f, "corpus", what="file", error=DatasetError)
    sents = wikitext_sentences(files, n, seed, min_words, max_words)
    where = ", ".join(str(f) for f in files)
    if len(sents) < 10:
        raise DatasetError(Param("corpus"), f" {where}: {len(sents)} usable sentences ({min_words}-{max_words} words, "
                           f"WikiText-style or one sentence a line); need at least 10")
    if len(sents) < n:
        warnings.warn(FairpairsWarning(Param("corpus"), f" {where}: only {len(sents)} usable sentences of the {n} asked "
                                       f"for ({min_words}-{max_words} words, no <unk>, quotes, brackets or symbols); "
                                       f"fitting on {len(sents)}"), stacklevel=3)
    return files, sents
