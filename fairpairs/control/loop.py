"""Token-length control over many pairs at once, with two strategies.

`resample` is Algorithm 1 of Ueda et al. (2024), the faithful baseline: for each drawn pair, keep
the good sentence; while the bad sentence's token length differs from the good one's under any
selected tokenizer, redraw the critical slots of the bad sentence, at most `max_retries` (N=10)
times; a pair still unequal is dropped and a fresh pair is drawn.

`search` (the default, fairpairs.control.search) draws the bad filler among the candidates that equalise
every length at once, and otherwise redraws the other critical slots or the whole pair, at most
`max_retries` (default 100) attempts per pair.

Either strategy can also require the good and bad critical words' Zipf frequencies to differ by at
most `match_frequency`. Pairs are processed in chunks (lengths are measured in batches), but every
pair has its own random stream and pairs are accepted in draw order, so the output does not depend
on the chunk size.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from fairpairs.errors import Param, GrammarError, ShortSetError
from fairpairs.generation.sampler import Pair, Sampler
from fairpairs.manifest import ParadigmStats
from fairpairs.control.config import RunConfig, draws_for, retries_for
from fairpairs.control.rounds import search_batch
from fairpairs.control.search import Searcher, SearchOptions
from fairpairs.tokenization.lengths import LengthMeter

from fairpairs.registry import STRATEGIES   # name -> Strategy (SEARCH, RESAMPLE below)


@dataclass(frozen=True)
class Strategy:
    """A length-control strategy (registered in `fairpairs.registry.STRATEGIES`).

    `control(sampler, searcher, live, meters, retries, budget)` gets a batch of drawn pairs whose
    good sentences are final and returns the draw indices whose bad sentence now matches the good
    one's length under every tokenizer; it may redraw bad sentences (`Sampler.redraw_bad`, counted
    in `pair.redraws`, at most `retries` times a pair) while `budget.take()` allows. The loop around
    it (`_collect`) keeps the matched pairs, replaces the others and fills the one statistics
    account every strategy reports (`manifest.ParadigmStats`: kept as drawn, redrawn, replaced,
    dropped). `default_retries`: `max_retries` when none is given."""

    control: Callable[..., set]
    default_retries: int
    doc: str = ""


@dataclass
class KeptPair:
    """A pair a set keeps, as it crosses from control to the records: the drawn pair, what length
    control did to it (records.CONTROL_STATES) and its token lengths, tokenizer -> (good, bad)."""

    pair: Pair
    control: str
    lengths: dict[str, tuple[int, int]] = field(default_factory=dict)


@dataclass
class SetResult:
    """One set of one paradigm: the pairs kept, in output order, with length control's account."""

    kept: list[KeptPair] = field(default_factory=list)
    stats: ParadigmStats = field(default_factory=ParadigmStats)
    short: ShortSetError | None = None     # the set ended short of its pairs (the budget is spent): why

    @property
    def pairs(self) -> list[Pair]:
        """The kept pairs alone."""
        return [k.pair for k in self.kept]


class Budget:
    """Bounds the work for one paradigm and set - pairs drawn plus redraws of any kind, counted one
    by one (`take`), a hard limit - and fails with a clear error when it is spent."""

    def __init__(self, sampler: Sampler, n_pairs: int, max_draws: int | None):
        self.sampler = sampler
        self.limit = draws_for(n_pairs, max_draws)     # (checked with the run's settings: RunConfig)
        self.probe = min(self.limit, 500)
        self.used = 0

    def take(self, n: int = 1) -> bool:
        """Spend n units of work if that many are left."""
        if self.used + n > self.limit:
            return False
        self.used += n
        return True

    def left(self) -> int:
        return self.limit - self.used

    def check(self, k: int, valid_so_far: int, kept: int, n_pairs: int, what: str, redraws: int = 0) -> None:
        p = self.sampler.p
        if valid_so_far == 0 and k >= self.probe:
            worst = max(self.sampler.dead_ends.items(), key=lambda kv: kv[1], default=("slots", 0))
            raise GrammarError(
                f"{p.path}: {worst[0]}: unsatisfiable: {k} draws gave no valid pair "
                f"(this slot had no candidate {worst[1]} times)")
        if kept == 0 and valid_so_far and k + redraws >= min(self.limit, 5 * self.probe):
            raise ShortSetError(
                f"{p.path}: {what}: length control kept no pair in {k} draws and {redraws} redraws; "
                f"the selected tokenizers may make this contrast impossible to equalise (the good and "
                f"bad words never have equal token counts under all of them)",
                short=f"0 of {n_pairs} pairs: length control kept none in {k} draws and {redraws} redraws (the good "
                      f"and bad words may never have equal token counts under these tokenizers)")
        if self.used >= self.limit:
            raise ShortSetError(
                f"{p.path}: {what}: only {kept} of {n_pairs} pairs after {k} draws and {redraws} redraws "
                f"(the draw budget); "
                f"the paradigm has too few distinct pairs, or length control rarely succeeds - "
                "ask for fewer pairs or raise ", Param("max_draws", quoted=True),
                short=f"{kept} of {n_pairs} pairs: the draw budget ended after {k} draws and {redraws} redraws (too "
                      f"few distinct pairs, or length control rarely succeeds)")


def generate_original(sampler: Sampler, n_pairs: int, meters: list[LengthMeter], *,
                      max_draws: int | None = None, chunk: int = 256, on_pairs=None) -> SetResult:
    """The first n_pairs valid, distinct pairs, with no length control."""
    return _collect(sampler, n_pairs, meters, control=None, max_draws=max_draws, chunk=chunk,
                    on_pairs=on_pairs, what="original")


def generate_debiased(sampler: Sampler, n_pairs: int, meters: list[LengthMeter], *, strategy: str = RunConfig.strategy,
                      max_retries: int | None = None, match_frequency: float | None = None,
                      max_draws: int | None = None, chunk: int = 256, on_pairs=None,
                      search_options: SearchOptions | None = None) -> SetResult:
    """n_pairs distinct pairs whose lengths match under every tokenizer (see the module doc);
    `search_options`: the search's balance-keeping choices (default: all on)."""
    chosen = STRATEGIES.get(strategy)
    retries = retries_for(strategy, max_retries)
    searcher = Searcher(sampler, meters, match_frequency, options=search_options)

    def control(live, budget):
        return chosen.control(sampler, searcher, live, meters, retries, budget)
    return _collect(sampler, n_pairs, meters, control=control, max_draws=max_draws, chunk=chunk,
                    on_pairs=on_pairs, what="debiased")


def _lengths(meters: list[LengthMeter], sentences: list[str]) -> list[list[int]]:
    return [m.lengths(sentences) for m in meters]


def _per_pair(meters: list[LengthMeter], sentences: list[str]) -> list[tuple[int, ...]]:
    """One tuple of lengths (one per tokenizer) per sentence."""
    return list(zip(*_lengths(meters, sentences))) if meters else [()] * len(sentences)


def _attach_lengths(res: SetResult, meters: list[LengthMeter]) -> None:
    goods = _lengths(meters, [k.pair.sentence_good for k in res.kept])
    bads = _lengths(meters, [k.pair.sentence_bad for k in res.kept])
    for i, k in enumerate(res.kept):
        k.lengths = {m.name: (goods[j][i], bads[j][i]) for j, m in enumerate(meters)}


def _resample(sampler: Sampler, searcher: Searcher, live: list[Pair], meters: list[LengthMeter],
              max_retries: int, budget: Budget) -> set[int]:
    """Algorithm 1 on a batch of pairs; returns the draw indices whose bad sentence matched the good
    one's length under every tokenizer (and the frequency tolerance, if any). Lengths are measured
    in one batch per round."""
    good_len = {p.k: gl for p, gl in zip(live, _per_pair(meters, [p.sentence_good for p in live]))}
    matched: set[int] = set()
    pending = live
    while pending:
        bad_len = _per_pair(meters, [p.sentence_bad for p in pending])
        nxt = []
        for p, bl in zip(pending, bad_len):
            if bl == good_len[p.k] and searcher.frequency_ok(p):
                matched.add(p.k)
                continue
            # redraw only the critical slots of the bad sentence, at most max_retries times
            ok = False
            while not ok and p.redraws < max_retries and budget.take():
                ok = sampler.redraw_bad(p)
            if ok:
                nxt.append(p)
        pending = nxt
    return matched


def _collect(sampler: Sampler, n_pairs: int, meters: list[LengthMeter], *, control, max_draws: int | None,
             chunk: int, on_pairs, what: str) -> SetResult:
    """Draw pairs chunk by chunk, (length-control them,) and accept them in draw order, skipping
    duplicates, until n_pairs are kept; accepting in draw order keeps the output independent of
    the chunk size. Each kept pair is classified against its first draw (`KeptPair.control`)."""
    res = SetResult()
    st = res.stats
    budget = Budget(sampler, n_pairs, max_draws)
    spent = 0                      # redraws made so far, kept pairs or not
    seen: set[tuple[str, str]] = set()
    k = 0
    valid = 0
    grow = min(chunk, 32)          # small first chunks: an impossible paradigm fails fast
    kept = res.kept
    while len(kept) < n_pairs:
        try:
            budget.check(k, valid, len(kept), n_pairs, what, spent)
        except ShortSetError as exc:   # the budget is spent: the set ends with what it reached
            res.short = exc
            break
        # (the size of a chunk changes the work done, never the output: pairs are accepted in draw order)
        size = max(1, min(grow, chunk, (n_pairs - len(kept)) * 5 // 4 + 8, budget.left()))
        grow *= 2
        budget.take(size)
        drawn = [(kk, sampler.draw(kk, will_change=control is not None)) for kk in range(k, k + size)]
        live = [p for _, p in drawn if p is not None]
        first = {p.k: (p.sentence_good, p.sentence_bad) for p in live}
        valid += len(live)
        matched = control(live, budget) if control else {p.k for p in live}
        spent += sum(p.redraws for p in live)
        _accept(drawn, matched, first, control is not None, res, seen, n_pairs)
        k += size
        if on_pairs is not None:
            on_pairs(len(kept))
    st.kept = len(kept)
    st.replaced = sum(x.control == "replaced" for x in kept)
    st.kept_redrawn = sum(x.control == "bad_redrawn" for x in kept)
    st.kept_as_drawn = st.kept - st.replaced - st.kept_redrawn
    st.drawn = st.kept + st.dropped
    st.finish()
    _attach_lengths(res, meters)
    return res


def _accept(drawn: list[tuple[int, Pair | None]], matched: set[int], first: dict[int, tuple[str, str]],
            controlled: bool, res: SetResult, seen: set[tuple[str, str]], n_pairs: int) -> None:
    """Keep a chunk's matched, new pairs in draw order (until n_pairs), each classified against its
    first draw (`first`: draw -> its first sentences), and count the others in `res.stats`."""
    st, kept = res.stats, res.kept
    for kk, p in drawn:
        st.draws = kk + 1
        if p is None:
            st.invalid += 1
            continue
        st.redraws += p.redraws
        if kk not in matched:
            st.dropped += 1
            continue
        key = (p.sentence_good, p.sentence_bad)
        if key in seen:
            st.duplicates += 1
            continue
        seen.add(key)
        good0, bad0 = first[kk]
        if not controlled:
            state = "none"
        elif p.sentence_good != good0:
            state = "replaced"
        else:
            state = "as_drawn" if p.sentence_bad == bad0 else "bad_redrawn"
        kept.append(KeptPair(p, state))
        if len(kept) == n_pairs:
            return


SEARCH = Strategy(search_batch, default_retries=100,
                  doc="draw the bad word among the candidates that equalise every length (else redraw the pair)")
RESAMPLE = Strategy(_resample, default_retries=10, doc="Algorithm 1 of Ueda et al. (2024): random redraws, N=10")
