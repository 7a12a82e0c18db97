"""A run's preflight (issue 47, item 4): before anything is generated, how many of each paradigm's
contexts length control can keep, computed from the control lexicon and the tokenizers alone.

A context is a first draw of the pair's stream (the good sentence and the first bad one: what the
debiased set starts from, `fairpairs.control.loop`). It can be kept when some allowed bad sentence has
the good one's token count under every tokenizer. For each critical slot the sentence shows, the bad
candidates the paradigm allows (those of the control lexicon, `search.control_lexicon`) are measured
in the slot's context - the word with its neighbours up to the nearest spaces, as the search measures
them - under every tokenizer; each gives a vector of length changes (one entry per tokenizer). The
context can be kept iff the good and bad sentences' length difference is a sum of one change per
slot (keeping a slot's first-drawn bad word is the zero change). This is what `search` looks for
(its pick, its combinations of slots and its redraws of the other slots all stay within these
candidates), so the share of contexts that pass is the run's `yield`: exact for tokenizers that never
merge across a space, ignoring that one slot's allowed bad words may depend on another's (rare).

The share is measured on the first `PREFLIGHT_DRAWS` draws of each paradigm (the contexts the run
itself starts from), `PREFLIGHT_MORE` more when none of them passes, so that a paradigm named as one
that keeps nothing has failed on 128 contexts. A paradigm whose share is 0 ends with an empty
debiased set; a run in which every paradigm's share is 0 is refused before it starts
(`check_preflight`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fairpairs.generation.grammar import Paradigm
from fairpairs.generation.sampler import Pair, Sampler
from fairpairs.generation.templates import finish_sentence
from fairpairs.generation.vocab import Vocabulary
from fairpairs.tokenization.lengths import LengthMeter
from fairpairs.control.search import Searcher

PREFLIGHT_DRAWS = 64       # first draws of a paradigm whose contexts are tested
PREFLIGHT_MORE = 64        # further draws when none of the first can be kept (a 0 is then a firm 0)
MAX_SUMS = 20_000          # length-change vectors kept while summing slots (a bound on the work)
SHOWN_BELOW = 0.95         # the per-paradigm lines printed: shares below this
LOW_SHARE = 0.25           # a share below this is marked: the set may end short of its pairs or out of balance


@dataclass(frozen=True)
class CellForecast:
    """One paradigm's prediction: `contexts` first draws tested (valid ones), `keepable` of them can
    be given equal token counts; `share` = keepable / contexts (None when no draw was valid)."""

    uid: str
    contexts: int
    keepable: int

    @property
    def share(self) -> float | None:
        return self.keepable / self.contexts if self.contexts else None


def forecast_paradigm(p: Paradigm, vocab: Vocabulary, meters: list[LengthMeter], seed: int,
                      draws: int = PREFLIGHT_DRAWS, more: int = PREFLIGHT_MORE,
                      control_rows: np.ndarray | None = None) -> CellForecast:
    """How many of paradigm p's first `draws` contexts (seed `seed`; `more` further ones when none
    passes) can be kept with their own context under `meters` (see the module doc). Draws from a
    sampler of its own: the run's draws are not touched."""
    sampler = Sampler(p, vocab, seed)
    searcher = Searcher(sampler, meters, control_rows=control_rows)
    contexts = keepable = 0
    k = 0
    while k < draws or (keepable == 0 and k < draws + more):
        q = sampler.draw_from(k, sampler.rng(k), sampler.first_pools)   # (the run's first draw: the source lexicon)
        k += 1
        if q is None:
            continue
        contexts += 1
        keepable += can_keep(searcher, q)
    return CellForecast(p.uid, contexts, keepable)


def can_keep(searcher: Searcher, q: Pair) -> bool:
    """Whether some allowed bad sentence of q's context has the good sentence's token count under
    every tokenizer: the gap between the good and the first bad sentence is a sum of one length change
    per shown critical slot (each slot's candidates measured in its context)."""
    meters = searcher.meters
    if not meters:
        return True
    gap = tuple(m.length(q.sentence_good) - m.length(q.sentence_bad) for m in meters)
    if not any(gap):
        return True
    sums = {tuple(0 for _ in meters)}
    for name in searcher.sampler.shown_critical(q):
        changes = slot_changes(searcher, q, name)
        if not changes:
            continue
        sums = {tuple(a + b for a, b in zip(s, c)) for s in sums for c in changes}
        if gap in sums:
            return True
        if len(sums) > MAX_SUMS:     # (keep the changes nearest to the gap)
            sums = set(sorted(sums, key=lambda s: sum(abs(a - b) for a, b in zip(s, gap)))[:MAX_SUMS])
    return gap in sums


def slot_changes(searcher: Searcher, q: Pair, name: str) -> set[tuple[int, ...]]:
    """The length changes (one per tokenizer) that replacing slot `name`'s first bad filler by any
    allowed bad candidate makes to q's bad sentence, measured in context (zero included)."""
    s = searcher.sampler
    ctx = searcher.context(q, name)
    if ctx is None:
        return set()
    prefix, suffix, left, right, cap = ctx
    cands = s.bad_candidates(name, q.good, {n: f for n, f in q.bad.items() if n != name})
    if not len(cands):
        return set()
    zero = np.zeros(len(searcher.meters), dtype=np.int64)
    cur = q.bad[name]
    if isinstance(cands, list):    # literal alternatives: whole sentences (few)
        sents = [finish_sentence(f"{prefix}{searcher.surface(c, cap)}{suffix}") for c in cands]
        now = np.array([m.length(q.sentence_bad) for m in searcher.meters])[:, None]
        table = searcher.text_lengths(sents) - now
    else:
        cands = searcher.allowed(cands)
        if cur.row >= 0:
            cur_mid = searcher.row_lengths(left, right, cap, np.array([cur.row]))[:, 0]
        else:
            cur_mid = searcher.text_lengths([f"{left}{searcher.surface(cur.word, cap)}{right}"])[:, 0]
        table = searcher.row_lengths(left, right, cap, cands) - cur_mid[:, None]
    return set(map(tuple, table.T.tolist())) | {tuple(zero.tolist())}


def forecast(paradigms: list[Paradigm], vocab: Vocabulary, meters: list[LengthMeter], seed: int,
             control_rows: np.ndarray | None = None) -> list[CellForecast]:
    """The prediction of every paradigm of a run (`forecast_paradigm`), in the run's order."""
    return [forecast_paradigm(p, vocab, meters, seed, control_rows=control_rows) for p in paradigms]


def forecast_lines(cells: list[CellForecast], models: list[str], suits: str = "") -> list[str]:
    """The prediction as printed before a run: a summary line, then one line per paradigm whose
    share of keepable contexts is below SHOWN_BELOW (the others keep nearly every context). A share
    below LOW_SHARE is marked: replacements are themselves contexts that must be equalised, so such
    a set may end short of its pairs or out of balance; the summary then names `suits` (the
    tokenizers that suit the language, when the run's are not among them)."""
    low = [c for c in cells if c.share is not None and c.share < SHOWN_BELOW]
    none = [c for c in low if c.keepable == 0]
    few = [c for c in low if 0 < c.share < LOW_SHARE]
    head = (f"preflight ({', '.join(models)}): {len(cells) - len(low)} of {len(cells)} paradigm(s) can keep at least "
            f"{SHOWN_BELOW:.0%} of their first contexts with equal token counts")
    if few:
        head += f"; {len(few)} under {LOW_SHARE:.0%} (they may end short of their pairs or out of balance)"
    if none:
        head += f"; {len(none)} can keep none (their debiased sets will be empty)"
    if (few or none) and suits:
        head += f"; the tokenizers that suit the language: {suits}"
    lines = [head]
    for c in low:
        what = ("no context can be equalised: empty debiased set" if c.keepable == 0 else
                "few: may end short or out of balance" if c.share < LOW_SHARE else
                "the others are replaced by matched contexts")
        lines.append(f"  {c.uid}: {c.keepable} of {c.contexts} contexts can be kept ({c.share:.0%}; {what})")
    return lines


def keeps_nothing(cells: list[CellForecast]) -> bool:
    """Whether no paradigm of the run can keep a pair (every share 0, none unknown)."""
    return bool(cells) and all(c.contexts and c.keepable == 0 for c in cells)


def preflight(paradigms: list[Paradigm], vocab: Vocabulary, models: list[str], seed: int,
              meters: list[LengthMeter] | None = None) -> list[CellForecast]:
    """The preflight of a run, before anything is generated: every paradigm's prediction, printed
    (`forecast_lines`, on the channel that says what long work does: `fairpairs.io.progress.announce`);
    a run in which no paradigm can keep a pair is refused (NotComparableError, one line naming the
    paradigms and the tokenizers that suit the language). `meters`: the run's own length meters
    (so a run builds each tokenizer's meter once; default: built here). Returns the predictions."""
    from fairpairs.errors import NotComparableError, Param
    from fairpairs.generation.languages import get_language
    from fairpairs.io.progress import announce
    from fairpairs.tokenization.sources import expand

    meters = meters if meters is not None else [LengthMeter(m) for m in models]
    cells = forecast(paradigms, vocab, meters, seed)
    lang = get_language(paradigms[0].language)
    if keeps_nothing(cells):
        tested = sorted({c.contexts for c in cells})
        raise NotComparableError(Param("models"), f" {','.join(models)}", value=models, reason=(
            f"length control can keep no pair under these tokenizers: in none of the {len(cells)} paradigm(s) "
            f"({', '.join(c.uid for c in cells)}) can any of the first {'/'.join(map(str, tested))} contexts drawn "
            f"be given good and bad sentences of equal token counts under all of them; the tokenizers that suit "
            f"{lang.name} ({lang.code}; `fairpairs languages`): {', '.join(lang.tokenizers)}; nothing was generated"))
    suits = "" if set(models) <= set(expand(list(lang.tokenizers))) else \
        f"{', '.join(lang.tokenizers)} ({lang.name}; `fairpairs languages`)"
    for line in forecast_lines(cells, models, suits):
        announce(line)
    return cells
