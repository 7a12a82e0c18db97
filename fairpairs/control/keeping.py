"""What keeps a debiased set's distributions the original set's where length control replaces contexts
(docs/length_control.md, "What is matched in frequency, and how"): a running balance of the
critical words' frequency (`drift`, `aim_zipf`) and of the other slots' features (`imbalance`,
`context_features`), updated as replaced pairs are settled in draw order (`settle`).

`Keeping` is a base of `fairpairs.control.replacement.Replacement` (and so of the searcher): it reads
the searcher's `sampler`, `freqs`, `options` and first-drawn contexts (`_first`); `start_keeping` sets
its state (called by the searcher's constructor).
"""

from __future__ import annotations

import numpy as np

from fairpairs.generation.sampler import Pair, words

STRATA_COLUMNS = ("properNoun", "sg", "pl", "mass", "animate")     # the features a stratum holds
ZIPF_REACH = 1.0                 # the furthest (Zipf units) a replacement's aim moves from the word it replaces
FEATURE_SLACK = 0.04             # a feature value may drift by this share of the pairs kept before refills avoid it
REUSE_SMD = 0.07                 # ... while the set's running frequency SMD is within this (the balance allows)
REUSE_ZIPF = 1.0                 # a word the set already has counts as this much (Zipf units) further from the aim


class Keeping:
    """The running balances replacements aim at."""

    def start_keeping(self) -> None:
        """No replacement settled yet: nothing drifted, nothing out of balance."""
        self.drift = 0.0           # sum over replaced pairs settled of (mean critical-word Zipf - the first-drawn's)
        self.imbalance: dict[tuple[int, object], int] = {}   # (feature, value) -> count replacements added less removed
        self._context_cols: dict[str, list[str]] | None = None
        self.kept = 0              # pairs settled and kept
        self._z = [0, 0.0, 0.0]    # the kept pairs' first-drawn mean critical-word Zipf: count, sum, sum of squares
        self.used = np.zeros(len(self.sampler.vocab), dtype=bool)   # rows of the kept pairs settled so far

    def context_zipf(self, pair: Pair) -> float:
        """Mean Zipf frequency of the good sentence's critical words (NaN when it has none)."""
        z = self._critical_zipf(pair)
        return float(np.mean(z)) if z else float("nan")

    def _critical_zipf(self, pair: Pair) -> list[float]:
        """The Zipf frequencies of the good sentence's shown critical words that have one."""
        z = [self.freqs.of(pair.good[n]) for n in self.sampler.shown_critical(pair) if pair.good[n].word.strip()]
        return [v for v in z if not np.isnan(v)]

    def context_features(self, pair: Pair) -> tuple:
        """The features of the good sentence's slots that are not critical (nor literal) - per slot,
        the number, proper-noun, mass and animacy values that vary among its candidates, and its
        determiner - one entry per feature (None where the slot is not shown), after the sentence's
        word count: what replacements keep in balance besides the stratum (`imbalance`; the
        subject's animacy in `intransitive`, whose replacements would otherwise fall on the animate
        subjects that equalise more often). Empty when `SearchOptions.features` is off."""
        if not self.options.features:
            return ()
        s = self.sampler
        cols = self._context_cols
        if cols is None:
            varies = lambda c, spec: c in s.vocab.columns and len(set(s.vocab.column(c)[spec.base].tolist())) > 1
            cols = self._context_cols = {n: [c for c in STRATA_COLUMNS if varies(c, spec)]
                                         for n, spec in s.p.slots.items() if not spec.text and n not in s.p.critical}
        shown = s.shown_slots(pair.good)
        out: list = [len(words(pair.sentence_good))]
        for n, cs in cols.items():
            f = pair.good.get(n)
            ok = f is not None and f.row >= 0 and n in shown
            out += [s.vocab.column(c)[f.row] if ok else None for c in cs]
            out.append((s.vocab.expressions[f.det] if f.det >= 0 else "") if ok else None)
        return tuple(out)

    def _feature_cost(self, before: tuple, after: tuple) -> int:
        """How much replacing a context of features `before` by one of `after` (`context_features`)
        would add to the imbalance of the replacements settled so far (`imbalance`: per feature
        and value, the count replacements added less the count they removed; the cost is the change
        of its sum of absolute values): 0 for the same features, +2 per feature whose value moves
        the wrong way, -2 per feature whose value undoes an earlier replacement's move."""
        cost = 0
        for i, (a, b) in enumerate(zip(before, after)):
            if a != b:
                x, y = self.imbalance.get((i, b), 0), self.imbalance.get((i, a), 0)
                cost += abs(x + 1) - abs(x) + abs(y - 1) - abs(y)
        return cost

    def features_drift(self, before: tuple, after: tuple) -> bool:
        """Whether replacing a context of features `before` by one of `after` (`context_features`)
        would push a feature value's `imbalance` (the sentence's word count is one) past
        FEATURE_SLACK of the pairs kept so far (at least 1): a same-frame replacement that does is
        tried only after those that do not (the subject a new verb does not take is redrawn, and
        in `intransitive` the verbs that equalise take animate subjects)."""
        limit = max(1.0, FEATURE_SLACK * self.kept)
        for i, (a, b) in enumerate(zip(before, after)):
            if a != b and max(self.imbalance.get((i, b), 0) + 1, 1 - self.imbalance.get((i, a), 0)) > limit:
                return True
        return False

    def reuse_allowed(self) -> bool:
        """Whether a replacement may prefer a word the set does not have yet over a nearer one: while
        the set's running standardised shift of the critical words' mean Zipf (`drift` over the
        pairs kept so far, over their first-drawn contexts' SD) is within REUSE_SMD, inside the
        balance limit of 0.1 (a paradigm whose unused words all lie on one side is not pushed past
        it: causative's SMD was +0.18 with the preference always on, +0.07 with this gate)."""
        n, s1, s2 = self._z
        if not self.options.balance or n < 2:
            return self.options.balance
        sd = max((s2 - s1 * s1 / n) / (n - 1), 0.0) ** 0.5
        return abs(self.drift) <= REUSE_SMD * sd * self.kept

    def aim_zipf(self, z: float, words: int) -> float:
        """The Zipf frequency a replacement of a word (or context) of frequency `z` aims at: `z` less
        the change that would bring the running sum of the replacements' frequency changes (`drift`,
        in the unit of a context's mean over its critical words; a context of `words` critical words
        moves by 1/`words` of its word's change) back to 0, at most ZIPF_REACH away from `z`. The
        greedy rule of a running balance: where one slot's equalising words are all more frequent
        than the word replaced (the nearest is above it), the next replacements aim lower, so the
        mean of the debiased set stays the original set's. `z` itself when `SearchOptions.balance`
        is off or nothing has drifted."""
        if not self.options.balance or np.isnan(z) or not self.drift:
            return z
        return z - float(np.clip(self.drift * max(words, 1), -ZIPF_REACH, ZIPF_REACH))

    def settle(self, pair: Pair, kept: bool) -> None:
        """Account for a finished pair: mark the words of its critical and replaceable slots `used`
        (when kept), and, when it was replaced and kept, add its change of mean critical-word Zipf
        against its first-drawn context to `drift` and its change of features to `imbalance`.
        Called for every pair in draw order (`rounds.search_batch`), so a replacement's aim depends
        on the draws before it only: same seed, same bytes, whatever the chunk size."""
        if kept:
            self.kept += 1
            z = self.context_zipf(self._first.get(pair.k, pair))
            if not np.isnan(z):
                self._z = [self._z[0] + 1, self._z[1] + z, self._z[2] + z * z]
            self.used[[f.row for n, f in pair.good.items() if n in self._keyed and f.row >= 0]] = True
        if not (kept and pair.renewed):
            return
        first = self._first[pair.k]
        if self.options.balance:
            d = self.context_zipf(pair) - self.context_zipf(first)
            if not np.isnan(d):
                self.drift += d
        before, after = self.context_features(first), self.context_features(pair)
        for i, (a, b) in enumerate(zip(before, after)):
            if a != b:
                self.imbalance[(i, b)] = self.imbalance.get((i, b), 0) + 1
                self.imbalance[(i, a)] = self.imbalance.get((i, a), 0) - 1
