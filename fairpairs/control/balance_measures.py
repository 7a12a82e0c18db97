"""What the balance check measures in a set of pairs: per pair (critical words' Zipf frequency, word
and character counts, the within-pair frequency gap), slot features (SlotFeatures: the strata a
paradigm's slots draw from) and context retention; the limits a balanced set keeps (SMD_LIMIT,
TVD_LIMIT, LOW_DIVERSITY)."""

from __future__ import annotations

import math
import sys
from collections import Counter
from collections.abc import Mapping
from functools import lru_cache
from typing import Any
import numpy as np

from fairpairs.generation.pairs import words     # (the balance report counts words as the generator does)


SMD_LIMIT = 0.1
TVD_LIMIT = 0.1
LOW_DIVERSITY = 0.7    # distinct-word ratio (debiased / original) below which runs and cards warn
MAX_LEVELS = 12        # a feature with more values than this is a word list, not a stratum
# features compared for every vocabulary slot where they vary among its candidates
DESCRIPTIVE = ("properNoun", "sg", "pl", "mass", "animate")
ALL = "ALL"

@lru_cache(maxsize=200_000)
def zipf(word: str, language: str = "en") -> float:
    """wordfreq's Zipf frequency of a word or phrase (NaN for an empty word; 0 for unknown words)."""
    if not word.strip():
        return math.nan
    from wordfreq import zipf_frequency

    return float(zipf_frequency(word, language))


def forget_frequencies() -> None:
    """Drop the word frequencies kept for balance reports: `zipf`'s cache and wordfreq's own tables
    (its lru-cached readers; about 30 MB for English), read again when next asked for."""
    zipf.cache_clear()
    wordfreq = sys.modules.get("wordfreq")      # (not imported: it holds nothing)
    if wordfreq is None:
        return
    for name in ("get_frequency_dict", "get_frequency_list", "top_n_list"):
        clear = getattr(getattr(wordfreq, name, None), "cache_clear", None)
        if clear is not None:
            clear()


def check_frequency_language(code: str, param: str = "language") -> str:
    """`code` if wordfreq has word frequencies for it; else a UsageError naming `param`."""
    from wordfreq import available_languages

    known = available_languages()
    if code not in known:
        from fairpairs.errors import Param, UsageError

        raise UsageError(Param(param), f": wordfreq has no word frequencies for {code!r} (known: "
                         f"{', '.join(sorted(known))})", value=code)
    return code


# ---------------------------------------------------------------------------- per pair
def _critical(row: Mapping) -> tuple[list[str], list[str], list[tuple[str, str]]]:
    """(good words, bad words, slot pairs (good, bad)) of a pair's critical slots; for rows without
    `critical_good`, the words in which the two sentences differ."""
    cg, cb = row.get("critical_good"), row.get("critical_bad")
    if isinstance(cg, Mapping) and isinstance(cb, Mapping):
        good = [w for w in cg.values() if str(w).strip()]
        bad = [w for w in cb.values() if str(w).strip()]
        slots = [(str(cg[s]), str(cb.get(s, ""))) for s in cg if str(cg[s]).strip() and str(cb.get(s, "")).strip()]
        return good, bad, slots
    g, b = Counter(words(row["sentence_good"])), Counter(words(row["sentence_bad"]))
    good, bad = list((g - b).elements()), list((b - g).elements())
    return good, bad, ([(" ".join(good), " ".join(bad))] if good and bad else [])


def pair_measures(rows: list[Mapping], language: str = "en", vocab_slots: set[str] | None = None) -> dict[str, Any]:
    """Per-pair arrays of the measures the SMDs compare, and the set's distinct words: its critical
    words, good and bad; for a reordering (no critical slot), the words of its vocabulary slots (or of
    its sentences)."""
    zg, zb, dz, nw, nc = [], [], [], [], []
    distinct: Counter = Counter()   # word -> pairs it occurs in (its keys are the distinct words)
    known: dict[tuple, tuple] = {}   # the same critical words measure the same (most pairs repeat some)
    for row in rows:
        good, bad, slots = _critical(row)
        key = (tuple(map(str, good)), tuple(map(str, bad)), tuple(slots))
        hit = known.get(key)
        if hit is None:
            d = [abs(zipf(g, language) - zipf(b, language)) for g, b in slots]
            hit = known[key] = (_mean_of(zipf(str(w), language) for w in good),
                                _mean_of(zipf(str(w), language) for w in bad), max(d) if d else math.nan)
        zg.append(hit[0])
        zb.append(hit[1])
        dz.append(hit[2])
        sentence = row["sentence_good"]
        nw.append(len(words(sentence)))
        nc.append(len(sentence))
        if good or bad:
            distinct.update(set(map(str, good)) | set(map(str, bad)))
        elif isinstance(row.get("fillers"), Mapping) and vocab_slots is not None:
            distinct.update({str(w) for k, w in row["fillers"].items() if k in vocab_slots and str(w).strip()})
        else:
            distinct.update(set(words(sentence)))
    return {"zipf_good": np.array(zg, dtype=float), "zipf_bad": np.array(zb, dtype=float),
            "dzipf": np.array(dz, dtype=float), "words_good": np.array(nw, dtype=float),
            "chars_good": np.array(nc, dtype=float), "distinct": distinct}


# ---------------------------------------------------------------------------- slot features
class SlotFeatures:
    """The features a balance report compares for each slot of a paradigm, and how to read them off
    a pair's `fillers` (word -> vocabulary row among the slot's candidates)."""

    def __init__(self, paradigm, vocab):
        self.vocab = vocab
        self.literal = [n for n, s in paradigm.slots.items() if s.text]
        self.features: dict[str, list[str]] = {}
        self.rows: dict[str, dict[str, int]] = {}
        self.det: set[str] = set()
        self._cache: dict[tuple[str, str], tuple[str, ...] | None] = {}
        self.extension = vocab.extension_words() if hasattr(vocab, "extension_words") else frozenset()
        expr = vocab.expressions
        for n, spec in paradigm.slots.items():
            if spec.text:
                continue
            base = spec.base
            feats = []
            for col in dict.fromkeys([*spec.named, *DESCRIPTIVE]):
                if col not in vocab.columns:
                    continue
                values = set(vocab.column(col)[base].tolist())
                if 2 <= len(values) <= MAX_LEVELS:
                    feats.append(col)
            self.features[n] = feats
            self.rows[n] = {}
            for r in base.tolist():     # the first candidate row of each expression
                self.rows[n].setdefault(str(expr[r]), r)
            if spec.det_base is not None:
                self.det.add(n)

    @property
    def vocab_slots(self) -> set[str]:
        return set(self.features)

    def _values(self, slot: str, word: str) -> tuple[str, ...] | None:
        """The slot's feature values for a word (None: not one of the slot's candidates)."""
        key = (slot, word)
        if key not in self._cache:
            r = self.rows[slot].get(word)
            self._cache[key] = None if r is None else tuple(
                str(self.vocab.column(c)[r]) or "(empty)" for c in self.features[slot])
        return self._cache[key]

    def extension_share(self, rows: list[Mapping]) -> float | None:
        """The share of pairs that show a word of the vocabulary's extension (`Vocabulary.
        extension_words`: a word no source row has) in a slot or as a bad critical word; None
        without pairs. Original sets have none; a debiased set's are length control's picks."""
        if not rows:
            return None
        words = [{*map(str, (r.get("fillers") or {}).values()), *map(str, (r.get("critical_bad") or {}).values())}
                 for r in rows]
        return sum(bool(w & self.extension) for w in words) / len(rows)

    def counts(self, rows: list[Mapping]) -> dict[str, Counter]:
        """{"slot.feature": Counter(value -> pairs)} over the pairs that show the slot."""
        fillers = [f for f in (row.get("fillers") for row in rows) if isinstance(f, Mapping)]
        out: dict[str, Counter] = {}
        for n, feats in self.features.items():
            by_word = Counter(str(f[n]) for f in fillers if n in f)
            for word, count in by_word.items():
                values = self._values(n, word)
                if values is None:
                    continue
                for col, v in zip(feats, values):
                    out.setdefault(f"{n}.{col}", Counter())[v] += count
            if n in self.det:
                dets = Counter(str(f[f"{n}.det"]) or "(none)" for f in fillers if f"{n}.det" in f)
                if dets:
                    out[f"{n}.det"] = dets
        return out

    def variants(self, rows: list[Mapping]) -> Counter:
        """Pairs per template variant (the values of the literal slots)."""
        c: Counter = Counter()
        for row in rows:
            fillers = row.get("fillers") if isinstance(row.get("fillers"), Mapping) else {}
            c[" ".join(f"{n}={fillers.get(n, '?')}" for n in self.literal)] += 1
        return c


# ---------------------------------------------------------------------------- retention
def retention(original: list[Mapping], debiased: list[Mapping]) -> float | None:
    """Share of debiased pairs that kept the context first drawn for their draw: from the rows'
    `control` field where they have it; else, where they have `draw`, by comparing each debiased
    good sentence with the original set's of the same draw (draws the original set does not reach
    are left out); else None."""
    if not debiased:
        return None
    if all("control" in r for r in debiased):
        return sum(r["control"] != "replaced" for r in debiased) / len(debiased)
    if all("draw" in r for r in debiased) and all("draw" in r for r in original):
        first = {r["draw"]: r["sentence_good"] for r in original}
        seen = [first[r["draw"]] == r["sentence_good"] for r in debiased if r["draw"] in first]
        return sum(seen) / len(seen) if seen else None
    return None


def _mean_of(values) -> float:
    """The mean of the values that are not NaN (NaN when there are none)."""
    v = [x for x in values if not math.isnan(x)]
    return sum(v) / len(v) if v else math.nan
