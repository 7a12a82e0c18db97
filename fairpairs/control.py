"""Token-length control: Algorithm 1 of Ueda et al. (2024), run over many pairs at once.

For each drawn pair, keep the good sentence; while the bad sentence's token length differs from
the good one's under any selected tokenizer, redraw the critical slots of the bad sentence, at
most `max_retries` times; a pair still unequal is dropped and a fresh pair is drawn. Pairs are
processed in chunks (lengths are measured in batches), but every pair has its own random stream
and pairs are accepted in draw order, so the output does not depend on the chunk size.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .errors import GrammarError
from .generate import Pair, Sampler
from .tokenization import LengthMeter


@dataclass
class ParadigmStats:
    drawn: int = 0          # pairs drawn (good sentence + first bad) up to the last kept one
    invalid: int = 0        # draws that dead-ended or gave identical sentences
    duplicates: int = 0     # valid pairs skipped because an equal pair was already kept
    kept: int = 0
    dropped: int = 0        # pairs whose bad sentence never matched within max_retries
    redraws: int = 0        # redraws of the bad sentence, over kept and dropped pairs
    first_try: int = 0      # kept pairs equal in length with no redraw

    def as_dict(self) -> dict:
        d = dict(self.__dict__)
        d["yield"] = round(self.kept / self.drawn, 4) if self.drawn else 0.0
        return d


@dataclass
class SetResult:
    pairs: list[Pair] = field(default_factory=list)
    lengths: list[dict[str, tuple[int, int]]] = field(default_factory=list)
    stats: ParadigmStats = field(default_factory=ParadigmStats)


class Budget:
    """Bounds the number of draws for one paradigm; fails with a clear error when spent."""

    def __init__(self, sampler: Sampler, n_pairs: int, max_draws: int | None):
        self.sampler = sampler
        self.limit = max_draws if max_draws is not None else max(2000, 50 * n_pairs)
        self.probe = min(self.limit, 500)

    def check(self, k: int, valid_so_far: int, kept: int, n_pairs: int, what: str) -> None:
        p = self.sampler.p
        if valid_so_far == 0 and k >= self.probe:
            worst = max(self.sampler.dead_ends.items(), key=lambda kv: kv[1], default=("slots", 0))
            raise GrammarError(
                f"{p.path}: {worst[0]}: unsatisfiable: {k} draws gave no valid pair "
                f"(this slot had no candidate {worst[1]} times)")
        if k >= self.limit:
            raise GrammarError(
                f"{p.path}: {what}: only {kept} of {n_pairs} pairs after {k} draws (the draw budget); "
                f"the paradigm has too few distinct pairs, or length control rarely succeeds - "
                f"ask for fewer pairs or raise --max-draws")


def generate_original(sampler: Sampler, n_pairs: int, meters: list[LengthMeter], *,
                      max_draws: int | None = None, chunk: int = 256, progress=None) -> SetResult:
    """The first n_pairs valid, distinct pairs, with no length control."""
    return _collect(sampler, n_pairs, meters, control=False, max_retries=0, max_draws=max_draws,
                    chunk=chunk, progress=progress, what="original")


def generate_debiased(sampler: Sampler, n_pairs: int, meters: list[LengthMeter], *, max_retries: int = 10,
                      max_draws: int | None = None, chunk: int = 256, progress=None) -> SetResult:
    """Algorithm 1 over chunks of draws: keep pairs whose lengths match under every tokenizer."""
    return _collect(sampler, n_pairs, meters, control=True, max_retries=max_retries, max_draws=max_draws,
                    chunk=chunk, progress=progress, what="debiased")


def _lengths(meters: list[LengthMeter], sentences: list[str]) -> list[list[int]]:
    return [m.lengths(sentences) for m in meters]


def _attach_lengths(res: SetResult, meters: list[LengthMeter]) -> None:
    goods = _lengths(meters, [p.sentence_good for p in res.pairs])
    bads = _lengths(meters, [p.sentence_bad for p in res.pairs])
    res.lengths = [{m.name: (goods[j][i], bads[j][i]) for j, m in enumerate(meters)} for i in range(len(res.pairs))]


def _length_control(sampler: Sampler, live: list[Pair], meters: list[LengthMeter], max_retries: int) -> set[int]:
    """Algorithm 1 on a batch of pairs; returns the draw indices whose bad sentence matched the good
    one's length under every tokenizer. Lengths are measured in one batch per round."""
    good_len = {p.k: gl for p, gl in zip(live, zip(*_lengths(meters, [p.sentence_good for p in live])))}
    matched: set[int] = set()
    pending = live
    while pending:
        bad_len = zip(*_lengths(meters, [p.sentence_bad for p in pending]))
        nxt = []
        for p, bl in zip(pending, bad_len):
            if bl == good_len[p.k]:
                matched.add(p.k)
                continue
            # redraw only the critical slots of the bad sentence, at most max_retries times
            ok = False
            while not ok and p.redraws < max_retries:
                ok = sampler.redraw_bad(p)
            if ok:
                nxt.append(p)
        pending = nxt
    return matched


def _collect(sampler: Sampler, n_pairs: int, meters: list[LengthMeter], *, control: bool, max_retries: int,
             max_draws: int | None, chunk: int, progress, what: str) -> SetResult:
    """Draw pairs chunk by chunk, (length-control them,) and accept them in draw order, skipping
    duplicates, until n_pairs are kept; accepting in draw order keeps the output independent of
    the chunk size."""
    res = SetResult()
    st = res.stats
    budget = Budget(sampler, n_pairs, max_draws)
    seen: set[tuple[str, str]] = set()
    k = 0
    valid = 0
    while len(res.pairs) < n_pairs:
        budget.check(k, valid, len(res.pairs), n_pairs, what)
        drawn = [(kk, sampler.draw(kk)) for kk in range(k, k + chunk)]
        live = [p for _, p in drawn if p is not None]
        valid += len(live)
        matched = _length_control(sampler, live, meters, max_retries) if control else {p.k for p in live}
        for kk, p in drawn:
            st.drawn = kk + 1
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
            if control and p.redraws == 0:
                st.first_try += 1
            res.pairs.append(p)
            if len(res.pairs) == n_pairs:
                break
        k += chunk
        if progress is not None:
            progress(len(res.pairs))
    st.kept = len(res.pairs)
    _attach_lengths(res, meters)
    return res
