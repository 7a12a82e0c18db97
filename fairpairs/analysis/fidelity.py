"""Fidelity of generated paradigms to the public BLiMP data (issue 5).

For one paradigm, compares our generated pairs (the original, uncontrolled set: BLiMP is
uncontrolled too) with BLiMP's pairs of the same UID:

- **words per sentence**, mean and standard deviation, over good and bad sentences together and
  separately. A word is a maximal run of letters, digits, underscores or apostrophes (the regular
  expression ``[\\w']+``, the same words that ``same_words`` compares): punctuation is
  not a word, "didn't" and "Derek's" are one word each, "well-known" is two.
- **vocabulary**: the distinct lower-cased word types of each file (good and bad sentences), both
  files cut to the same number of pairs. ``share_of_blimp`` = types of the BLiMP file that also
  occur in ours / types of the BLiMP file; ``share_of_ours`` is the reverse; ``jaccard`` = shared /
  union.
- **same-words pairs**: share of pairs whose two sentences have the same multiset of words
  (computed from the words for both files; not BLiMP's `lexically_identical`, a per-paradigm flag
  with another meaning: docs/outputs.md).
- **good - bad word count**: mean over pairs of words(good) - words(bad).
- **accuracy** (with a scorer): share of pairs whose good sentence has a strictly higher summed
  log-probability than the bad one, on the first N pairs of each file; ``diff`` = ours - BLiMP in
  percentage points, flagged when ``|diff| > threshold``.

Nothing here imports torch; scoring takes an already built `fairpairs.scoring.Scorer`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

from fairpairs.errors import DatasetError
from fairpairs.generation.sampler import same_words, words

Pair = tuple[str, str]

DEFAULT_THRESHOLD = 10.0   # accuracy points


# ------------------------------------------------------------------------------------- reading


def sentence_pairs(path: str | Path, limit: int | None = None) -> list[Pair]:
    """(sentence_good, sentence_bad) of a jsonl file of pairs, in file order; the first `limit`.
    Read and checked by the one pair reader (`fairpairs.pairsets.read_pair_sets`)."""
    from fairpairs.pairsets import read_pair_sets

    path = Path(path)
    if not path.is_file():
        raise DatasetError(f"{path}: no such file")
    rows = read_pair_sets(path, empty=True)[path.stem].rows
    if not rows:
        raise DatasetError(f"{path}: no pairs")
    return [(r["sentence_good"], r["sentence_bad"]) for r in rows[:limit]]


# ---------------------------------------------------------------------------------- statistics


def mean_sd(values: list[float]) -> tuple[float, float]:
    """Mean and population standard deviation (ddof=0)."""
    if not values:
        raise ValueError("mean_sd of no values")
    m = math.fsum(values) / len(values)
    var = math.fsum((v - m) ** 2 for v in values) / len(values)
    return m, math.sqrt(var)


@dataclass(frozen=True)
class TextStats:
    pairs: int
    words_mean: float          # over good and bad sentences together
    words_sd: float
    good_mean: float
    good_sd: float
    bad_mean: float
    bad_sd: float
    good_minus_bad: float      # mean of words(good) - words(bad) over pairs
    same_words: float          # share of pairs whose sentences have the same multiset of words


def text_stats(pairs: list[Pair]) -> TextStats:
    if not pairs:
        raise DatasetError("text statistics of no pairs")
    good = [len(words(g)) for g, _ in pairs]
    bad = [len(words(b)) for _, b in pairs]
    wm, ws = mean_sd(good + bad)
    gm, gs = mean_sd(good)
    bm, bs = mean_sd(bad)
    diff = math.fsum(g - b for g, b in zip(good, bad)) / len(pairs)
    lex = sum(same_words(g, b) for g, b in pairs) / len(pairs)
    return TextStats(len(pairs), wm, ws, gm, gs, bm, bs, diff, lex)


def pair_vocabulary(pairs: list[Pair]) -> set[str]:
    """Distinct lower-cased word types of the good and bad sentences."""
    out: set[str] = set()
    for g, b in pairs:
        out.update(words(g))
        out.update(words(b))
    return out


@dataclass(frozen=True)
class VocabOverlap:
    blimp_types: int
    our_types: int
    shared: int
    share_of_blimp: float      # shared / BLiMP types
    share_of_ours: float       # shared / our types
    jaccard: float             # shared / union


def vocab_overlap(ours: list[Pair], blimp: list[Pair]) -> VocabOverlap:
    """Overlap of the two files' word types; cut both to the same number of pairs first
    (`compare` does)."""
    vo, vb = pair_vocabulary(ours), pair_vocabulary(blimp)
    shared = len(vo & vb)
    union = len(vo | vb)
    return VocabOverlap(len(vb), len(vo), shared, shared / len(vb) if vb else 0.0,
                        shared / len(vo) if vo else 0.0, shared / union if union else 0.0)


@dataclass
class ParadigmFidelity:
    uid: str
    ours: TextStats
    blimp: TextStats
    vocab: VocabOverlap
    acc_ours: float | None = None      # share in [0, 1]
    acc_blimp: float | None = None
    scored_pairs: tuple[int, int] | None = None   # (ours, BLiMP)
    notes: list[str] = field(default_factory=list)

    @property
    def diff(self) -> float | None:
        """Accuracy ours - BLiMP, in percentage points."""
        if self.acc_ours is None or self.acc_blimp is None:
            return None
        return 100.0 * (self.acc_ours - self.acc_blimp)

    def flagged(self, threshold: float = DEFAULT_THRESHOLD) -> bool:
        d = self.diff
        return d is not None and abs(d) > threshold + 1e-9


def compare(uid: str, ours: list[Pair], blimp: list[Pair], n_pairs: int | None = None) -> ParadigmFidelity:
    """Text statistics of both files, each cut to the same number of pairs: n_pairs, or fewer
    when either file is shorter."""
    n = min(len(ours), len(blimp)) if n_pairs is None else min(n_pairs, len(ours), len(blimp))
    if n == 0:
        raise DatasetError(f"{uid}: no pairs to compare")
    notes = []
    if n_pairs is not None and n < n_pairs:
        notes.append(f"compared at {n} pairs (ours {len(ours)}, BLiMP {len(blimp)})")
    o, b = ours[:n], blimp[:n]
    return ParadigmFidelity(uid, text_stats(o), text_stats(b), vocab_overlap(o, b), notes=notes)


# ------------------------------------------------------------------------------------ scoring


def share_correct(good_scores, bad_scores) -> float:
    """Share of pairs with good > bad (strictly: a tie counts as wrong)."""
    good_scores, bad_scores = list(good_scores), list(bad_scores)
    if len(good_scores) != len(bad_scores):
        raise ValueError(f"{len(good_scores)} good scores but {len(bad_scores)} bad scores")
    if not good_scores:
        raise ValueError("accuracy of no pairs")
    return sum(g > b for g, b in zip(good_scores, bad_scores)) / len(good_scores)


def score_fidelity_pairs(scorer, sets: dict, n_pairs: int) -> dict:
    """Summed log-probabilities of the first n_pairs of every pair list in `sets` (key -> pairs)
    under `scorer` (a `fairpairs.scoring.Scorer`, or anything whose ``score(sentences,
    normalize=())`` returns a frame with ``sum_logprob``). All sentences go to the scorer in one
    call, so it batches them by length across sets. Returns key -> [(lp_good, lp_bad), ...]."""
    sentences: list[str] = []
    spans = {}
    for key, pairs in sets.items():
        cut = pairs[:n_pairs]
        spans[key] = (len(sentences), len(cut))
        for g, b in cut:
            sentences.extend((g, b))
    if not sentences:
        return {key: [] for key in sets}
    lp = [float(x) for x in scorer.score(sentences, normalize=())["sum_logprob"].tolist()]
    if len(lp) != len(sentences):
        raise ValueError(f"scorer returned {len(lp)} scores for {len(sentences)} sentences")
    return {key: list(zip(lp[start:start + 2 * n:2], lp[start + 1:start + 2 * n:2]))
            for key, (start, n) in spans.items()}


def score_accuracies(scorer, sets: dict, n_pairs: int) -> dict:
    """key -> accuracy (good > bad) of `scorer` on the first n_pairs of each pair list."""
    return {key: share_correct([g for g, _ in s], [b for _, b in s])
            for key, s in score_fidelity_pairs(scorer, sets, n_pairs).items()}


# ------------------------------------------------------------------------------------ report


def _pct(x: float | None, digits: int = 1) -> str:
    return "–" if x is None else f"{100 * x:.{digits}f}"


def _ms(m: float, s: float) -> str:
    return f"{m:.2f} ± {s:.2f}"


def fidelity_summary(rows: list[ParadigmFidelity], threshold: float = DEFAULT_THRESHOLD) -> dict:
    n = len(rows)
    out = {
        "paradigms": n,
        "words_ours": math.fsum(r.ours.words_mean for r in rows) / n if n else float("nan"),
        "words_blimp": math.fsum(r.blimp.words_mean for r in rows) / n if n else float("nan"),
        "vocab_share": math.fsum(r.vocab.share_of_blimp for r in rows) / n if n else float("nan"),
    }
    scored = [r for r in rows if r.diff is not None]
    if scored:
        out["scored"] = len(scored)
        out["acc_ours"] = math.fsum(r.acc_ours for r in scored) / len(scored)
        out["acc_blimp"] = math.fsum(r.acc_blimp for r in scored) / len(scored)
        out["mean_abs_diff"] = math.fsum(abs(r.diff) for r in scored) / len(scored)
        out["flagged"] = [r.uid for r in scored if r.flagged(threshold)]
    return out


def summary_line(rows: list[ParadigmFidelity], threshold: float = DEFAULT_THRESHOLD) -> str:
    s = fidelity_summary(rows, threshold)
    text = (f"{s['paradigms']} paradigms: words/sentence {s['words_ours']:.2f} (ours) vs "
            f"{s['words_blimp']:.2f} (BLiMP), mean BLiMP vocabulary share {100 * s['vocab_share']:.1f}%")
    if "scored" in s:
        text += (f"; accuracy {100 * s['acc_ours']:.1f}% (ours) vs {100 * s['acc_blimp']:.1f}% (BLiMP), "
                 f"mean |diff| {s['mean_abs_diff']:.1f} points, {len(s['flagged'])} flagged "
                 f"(|diff| > {threshold:g} points)")
        if s["flagged"]:
            text += ": " + ", ".join(s["flagged"])
    return text + "."


def fidelity_table(rows: list[ParadigmFidelity], threshold: float = DEFAULT_THRESHOLD) -> str:
    """The main table: uid | words/sent ours | BLiMP | vocab share | acc ours | acc BLiMP | diff | flag."""
    from fairpairs.analysis.markdown import markdown_table as table

    header = ["uid", "words/sent ours (mean ± sd)", "words/sent BLiMP", "vocab share", "acc ours", "acc BLiMP",
              "diff", "flag"]
    body = [[r.uid, _ms(r.ours.words_mean, r.ours.words_sd), _ms(r.blimp.words_mean, r.blimp.words_sd),
             f"{_pct(r.vocab.share_of_blimp)}%", _pct(r.acc_ours, 0), _pct(r.acc_blimp, 0),
             "–" if r.diff is None else f"{r.diff:+.0f}", "FLAG" if r.flagged(threshold) else ""] for r in rows]
    return table(header, body, "lllrrrrl").rstrip("\n")


def markdown_details(rows: list[ParadigmFidelity]) -> str:
    """The secondary table: words of good and bad sentences, good-bad difference, same-words
    pairs, word types."""
    from fairpairs.analysis.markdown import markdown_table as table

    header = ["uid", "pairs", "words good ours / BLiMP", "words bad ours / BLiMP", "good−bad ours / BLiMP",
              "same words ours / BLiMP", "types ours / BLiMP", "shared", "share of ours", "Jaccard"]
    body = []
    for r in rows:
        o, b, v = r.ours, r.blimp, r.vocab
        body.append([r.uid, o.pairs, f"{o.good_mean:.2f} / {b.good_mean:.2f}", f"{o.bad_mean:.2f} / {b.bad_mean:.2f}",
                     f"{o.good_minus_bad:+.2f} / {b.good_minus_bad:+.2f}",
                     f"{_pct(o.same_words, 0)}% / {_pct(b.same_words, 0)}%",
                     f"{v.our_types} / {v.blimp_types}", v.shared, f"{_pct(v.share_of_ours)}%", f"{v.jaccard:.2f}"])
    return table(header, body, "lrlllllrrr").rstrip("\n")


# --------------------------------------------------------------------------------- generation


def generate_original_pairs(paradigm, vocab, n_pairs: int, seed: int = 0) -> list[Pair]:
    """The first n_pairs of the paradigm's original (uncontrolled) set: the same sentences that
    `fairpairs generate` writes to original/<uid>.jsonl with this seed (token lengths are not
    needed, so no tokenizer is loaded)."""
    from fairpairs.control.loop import generate_original
    from fairpairs.generation.sampler import Sampler

    res = generate_original(Sampler(paradigm, vocab, seed), n_pairs, [])
    return [(p.sentence_good, p.sentence_bad) for p in res.pairs]
