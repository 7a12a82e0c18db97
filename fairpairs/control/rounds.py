"""The `search` strategy's steps on a batch of pairs (registered as `fairpairs.control.loop.SEARCH`):
pick, combinations, redraws of the other slots, and - last, in draw order - replacements.

Each round measures the pending pairs in one batch; a pair that does not match gets its next step on
its current context - pick a candidate that equalises (`Searcher.pick`); else a combination of
critical slots (`Searcher.joint_pick`); else redraw the other critical slots and pick again (up to
`other_tries` times); else replace the context by a matched one (`Searcher.replace`) - each step one
attempt, verified in the next round. Replacements wait until every pair of the batch has its own
context kept or is waiting too, and are then made pair by pair in draw order, each pair to its end
(`Searcher.settle`): a replacement aims at the frequency balance of the replacements of the draws
before it (docs/length_control.md), which is the same whatever the chunk size, and every pair's
steps draw from its own stream only, so the output is too.
"""

from __future__ import annotations

from fairpairs.generation.sampler import Pair, Sampler
from fairpairs.tokenization.lengths import LengthMeter
from fairpairs.control.search import Searcher

VERIFY, RENEWED, DEFER, DONE = "verify", "renewed", "defer", "done"    # what a pair's steps end with
REPLACE = -1                 # (steps taken: the pair's next step is the replacement of its context)


def search_batch(sampler: Sampler, searcher: Searcher, live: list[Pair], meters: list[LengthMeter], max_retries: int,
                 budget) -> set[int]:
    """The draw indices of `live` whose bad sentence now has the good one's length under every
    tokenizer (module doc); `budget`: the loop's `Budget` (an attempt takes one unit)."""
    matched: set[int] = set()
    state = (matched, {}, {})            # matched, good lengths, steps taken on the current context
    for p in live:
        searcher.remember(p)
    deferred = {p.k for p in _rounds(searcher, live, meters, max_retries, budget, state, defer=True)}
    for p in sorted(live, key=lambda q: q.k):
        if p.k in deferred:
            _rounds(searcher, [p], meters, max_retries, budget, state, defer=False)
        searcher.settle(p, p.k in matched)
    return matched


def _lengths(meters: list[LengthMeter], sentences: list[str]) -> list[tuple[int, ...]]:
    """One tuple of lengths (one per tokenizer) per sentence."""
    return list(zip(*[m.lengths(sentences) for m in meters])) if meters else [()] * len(sentences)


def _rounds(searcher: Searcher, pending: list[Pair], meters: list[LengthMeter], max_retries: int, budget,
            state: tuple, defer: bool) -> list[Pair]:
    """Rounds of steps until no pair is pending; returns the pairs whose next step is a replacement
    (with `defer`; without, a pair deferred before is replaced at once, and so is any other)."""
    matched, good_len, steps = state
    deferred = []
    while pending:
        fresh = [p for p in pending if p.k not in good_len]
        good_len.update(zip((p.k for p in fresh), _lengths(meters, [p.sentence_good for p in fresh])))
        bad_len = _lengths(meters, [p.sentence_bad for p in pending])
        nxt = []
        for p, bl in zip(pending, bad_len):
            gl = good_len[p.k]
            if steps.get(p.k) != REPLACE and bl == gl and searcher.frequency_ok(p):
                matched.add(p.k)
                continue
            got = _steps(searcher, p, gl, bl, meters, max_retries, budget, steps, defer)
            if got == DEFER:
                deferred.append(p)
            elif got != DONE:
                if got == RENEWED:           # a new context: its good sentence is measured again
                    del good_len[p.k]
                nxt.append(p)
        pending = nxt
    return deferred


def _steps(searcher: Searcher, p: Pair, gl: tuple, bl: tuple, meters: list[LengthMeter], max_retries: int,
           budget, steps: dict[int, int], defer: bool) -> str:
    """The next steps on pair p until one changes its bad sentence (VERIFY) or its context (RENEWED),
    its attempts end (DONE), or its next step is a replacement and `defer` (DEFER)."""
    if steps.get(p.k) == REPLACE:          # deferred before: its attempt was counted then
        steps[p.k] = 0
        if searcher.replace(p):
            return RENEWED
    while p.redraws < max_retries and budget.take():
        p.redraws += 1
        step = steps.get(p.k, 0)
        steps[p.k] = step + 1
        if step == 0:
            if searcher.pick(p, gl, bl):
                return VERIFY
            continue
        if step == 1:
            if searcher.joint_pick(p, gl):
                return VERIFY
            continue
        if step <= 1 + searcher.options.other_tries and searcher.redraw_others(p):
            bl = tuple(m.length(p.sentence_bad) for m in meters)
            if (bl == gl and searcher.frequency_ok(p)) or searcher.pick(p, gl, bl):
                return VERIFY
            continue
        if defer:
            steps[p.k] = REPLACE
            return DEFER
        steps[p.k] = 0
        if searcher.replace(p):
            return RENEWED
    return DONE
