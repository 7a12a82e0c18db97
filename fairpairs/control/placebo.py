"""The placebo of length control: what changing the bad word does when the lengths do not change.

Length control changes two things in a formerly-A>U or formerly-A<U context: the bad sentence's token
lengths (made equal) and its bad word (another candidate, picked because it equalises). The effects
by direction (`fairpairs.analysis.directions`) measure both at once. The placebo measures the second
alone: for a seeded sample of the original set's contexts whose pair is A=U under every tokenizer
given (the scoring models'), the bad sentence's differing word is redrawn among the candidates that
keep every token length equal, except the original bad word, with the search strategy's own pick
(`Searcher.pick`: the paradigm's candidates, their lengths in context, the run's frequency tolerance,
the pick nearest in frequency to the first-drawn bad word as control aims it). The context and the
good sentence stay; the lengths stay equal; only the bad word changes. `fairpairs.analysis.placebo`
scores the difference.

One critical slot's bad word is redrawn, as control's first step does (slots in the search's order;
the first slot with another equal-length candidate is taken). A context whose bad word has no other
candidate of equal lengths (a derived form such as the other number of the same noun, a reordering)
is skipped and counted (`PlaceboCounts.no_candidate`); so is one whose picks (at most `MAX_PICKS`,
each verified on the whole sentence, as control verifies them) all fail.

Rebuilding a context: an original pair is draw `draw` of its paradigm, taken from the draw's own
seeded stream, so the run's paradigm file, vocabulary table and seed give it back exactly, with its
fillers as vocabulary rows (what a pick needs; a row's recorded `fillers` are words, which several
rows of the table can share, and do not say which row a word was drawn as). Every rebuilt pair is
compared with the row it rebuilds: a paradigm file or table other than the run's is an error, never
a silently different pair. A run restricted to a corpus lexicon (`--lexicon-from`) cannot be rebuilt
(its manifest names the corpus, not where it is) and is refused.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable

import numpy as np

from fairpairs.control.search import Searcher
from fairpairs.errors import DatasetError, GrammarNotFoundError, Param, VocabularyError
from fairpairs.generation.pairs import Pair, uid_seed
from fairpairs.generation.sampler import Sampler
from fairpairs.pairsets import PairSet
from fairpairs.tokenization.lengths import LengthMeter

if TYPE_CHECKING:
    import pandas as pd

    from fairpairs.generation.grammar import Paradigm
    from fairpairs.generation.vocab import Vocabulary
    from fairpairs.manifest import RunManifest

PLACEBO_STREAM = 0x504C4342      # the placebo's random streams, apart from the run's draws ("PLCB")
MAX_PICKS = 8                    # picks per slot verified on whole sentences before the slot is given up
SET_NAME = "placebo"
ALL = "ALL"


@dataclass
class PlaceboCounts:
    """One paradigm's account: its original pairs, those A=U under every tokenizer (the population
    sampled), those sampled, those given a placebo pair and those skipped (no other bad word keeps
    the lengths equal); sampled = redrawn + no_candidate."""

    original: int = 0
    equal: int = 0
    sampled: int = 0
    redrawn: int = 0
    no_candidate: int = 0


@dataclass(frozen=True)
class PlaceboSet:
    """The placebo pairs of a run (`pairs`, the set "placebo": rows in the pair schema, each the
    original pair of its draw with another bad sentence; `control` is "bad_redrawn", `token_lengths`
    are under `tokenizers`), and per paradigm what the sampling found (`counts`)."""

    pairs: PairSet
    counts: dict[str, PlaceboCounts] = field(default_factory=dict)
    tokenizers: tuple[str, ...] = ()
    seed: int = 0
    per_paradigm: int = 0

    def table(self) -> "pd.DataFrame":
        """The counts as a DataFrame: one row per paradigm (uid, original, equal, sampled, redrawn,
        no_candidate) and the summed ALL row."""
        import pandas as pd

        names = list(PlaceboCounts.__dataclass_fields__)
        rows = [{"uid": uid, **vars(c)} for uid, c in self.counts.items()]
        rows.append({"uid": ALL, **{n: sum(getattr(c, n) for c in self.counts.values()) for n in names}})
        return pd.DataFrame(rows, columns=["uid", *names])


class ExcludingSampler(Sampler):
    """A sampler whose bad candidates for one critical slot leave out given words (`excluded`:
    (slot, words), None for none): the placebo's exclusion of the original bad word (and of picks
    that failed the whole-sentence check) from the candidates the search picks among. Everything
    else, drawing included, is the run's sampler."""

    excluded: tuple[str, frozenset[str]] | None = None

    def bad_candidates(self, name: str, good, bad):
        cands = super().bad_candidates(name, good, bad)
        if self.excluded is None or self.excluded[0] != name:
            return cands
        words = self.excluded[1]
        if isinstance(cands, list):
            return [c for c in cands if c not in words]
        keep = np.fromiter((self.vocab.expressions[r] not in words for r in cands.tolist()), dtype=bool,
                           count=len(cands))
        return cands[keep]


def draw_placebo_pairs(run_dir, tokenizers: list[str] | None, *, per_paradigm: int, seed: int, grammars=None,
                  vocab: "Vocabulary | None" = None, on_paradigm: Callable[[str], None] | None = None) -> PlaceboSet:
    """The placebo pairs of run folder `run_dir` (module doc): per paradigm, a sample (seeded by
    `seed`) of up to `per_paradigm` original contexts whose pair has equal token lengths under every
    tokenizer of `tokenizers` (None: the run's, its manifest's `models`), each with its bad word
    redrawn among the other candidates that keep those lengths equal. `grammars` / `vocab`: the
    run's paradigm folder (default: the bundled one) and vocabulary (default: its language's bundled
    table; checked against the manifest's sha256). `on_paradigm(uid)` is told each paradigm done.
    Same arguments, same rows, byte for byte."""
    from fairpairs.manifest import read_manifest
    from fairpairs.pairsets import read_pair_sets, read_run_file

    run = Path(run_dir)
    if not (run / "original").is_dir():
        raise DatasetError(Param("run_dir"), f": {run}: not a run folder of `fairpairs generate` (no original/)")
    manifest = read_manifest(run)
    if manifest.lexicon:
        raise DatasetError(Param("run_dir"), f": {run}: a run restricted to a corpus lexicon (--lexicon-from "
                           f"{manifest.lexicon.get('corpus')}): its draws cannot be rebuilt from the manifest")
    if not isinstance(manifest.seed, int):
        raise DatasetError(f"{run / 'manifest.json'}: field 'seed' missing: the run's draws cannot be rebuilt")
    if tokenizers is None:
        from fairpairs.control.config import model_names

        tokenizers = model_names(manifest.models or [], required=True)
    originals = {f.stem: read_run_file(f) for f in sorted((run / "original").glob("*.jsonl"))}
    meters = [LengthMeter(t) for t in tokenizers]
    voc, paradigms = run_paradigms(manifest, list(originals), grammars, vocab)
    rows, counts = [], {}
    for uid in originals:
        got, counts[uid] = paradigm_placebo(paradigms[uid], voc, originals[uid], meters, run_seed=manifest.seed,
                                            match_frequency=manifest.match_frequency, per_paradigm=per_paradigm,
                                            seed=seed)
        rows += got
        if on_paradigm is not None:
            on_paradigm(uid)
    pairs = read_pair_sets(rows, name=SET_NAME, empty=True)[SET_NAME]
    return PlaceboSet(pairs, counts, tuple(tokenizers), seed, per_paradigm)


def run_paradigms(manifest: "RunManifest", uids: list[str], grammars, vocab) -> tuple["Vocabulary", dict]:
    """The vocabulary and the paradigms (uid -> Paradigm) of a run: each paradigm's file found by the
    name the manifest gives it (else its uid) in `grammars` (default: the bundled folder, with its
    language sub-folder first), the table the run's language's (or `vocab`) and the one the
    manifest's sha256 names."""
    from fairpairs.generation.selection import paradigm_index, run_language, select_paradigms

    code = run_language(manifest, grammars)
    index = paradigm_index(grammars)
    entries = manifest.paradigms or {}
    names = []
    for uid in uids:
        entry = entries.get(uid)
        stem = Path(entry.grammar_file).stem if entry is not None and entry.grammar_file else uid
        name = next((n for n in (f"{code}/{stem}", stem) if n in index), None)
        if name is None:
            folder = grammars if grammars is not None else "the bundled grammars folder"
            raise GrammarNotFoundError(Param("grammars"), f": {folder} has no paradigm file {stem}.yaml (the run's "
                                       f"paradigm {uid}); give the folder of the run's paradigm files")
        names.append(name)
    voc, loaded = select_paradigms(names, None, grammars, vocab=vocab)
    want = (manifest.vocabulary or {}).get("sha256")
    if want and voc.sha256 and want != voc.sha256:
        raise VocabularyError(Param("vocab"), f": {voc.source} is not the run's vocabulary table (sha256 "
                              f"{voc.sha256[:12]}..., the manifest's {want[:12]}...); give the run's table")
    return voc, dict(zip(uids, loaded))


def paradigm_placebo(p: "Paradigm", vocab: "Vocabulary", original: PairSet, meters: list[LengthMeter], *,
                     run_seed: int, match_frequency: float | None, per_paradigm: int,
                     seed: int) -> tuple[list[dict], PlaceboCounts]:
    """One paradigm's placebo rows (the original set's order) and counts: its A=U contexts (under
    every meter), a sample of up to `per_paradigm` of them drawn by `seed`, each rebuilt from its
    draw (`run_seed`) and given another bad word of equal lengths (`redraw_bad_word`)."""
    rows = original.rows
    counts = PlaceboCounts(original=len(rows))
    good = [m.lengths([r["sentence_good"] for r in rows]) for m in meters]
    bad = [m.lengths([r["sentence_bad"] for r in rows]) for m in meters]
    equal = [i for i in range(len(rows)) if all(g[i] == b[i] for g, b in zip(good, bad))]
    counts.equal = len(equal)
    order = np.random.default_rng([seed, uid_seed(p.uid), PLACEBO_STREAM]).permutation(len(equal))
    sample = sorted(equal[int(j)] for j in order[:per_paradigm])
    counts.sampled = len(sample)
    sampler = ExcludingSampler(p, vocab, run_seed)
    searcher = Searcher(sampler, meters, match_frequency)
    out = []
    for i in sample:
        pair = rebuilt(sampler, rows[i], original.origin[i])
        pair.rng = np.random.default_rng([seed, uid_seed(p.uid), PLACEBO_STREAM, pair.k])
        good_len = tuple(g[i] for g in good)
        if not redraw_bad_word(sampler, searcher, pair, good_len):
            counts.no_candidate += 1
            continue
        counts.redrawn += 1
        lengths = {m.name: (gl, m.length(pair.sentence_bad)) for m, gl in zip(meters, good_len)}
        out.append(sampler.row(pair, lengths, rows[i]["pair_id"], "bad_redrawn"))
    return out, counts


def rebuilt(sampler: Sampler, row: dict, origin: tuple[str, int]) -> Pair:
    """The drawn pair behind an original row (its draw from the run's seeded stream), checked to be
    the row's pair; a DatasetError naming the row otherwise."""
    where = f"{origin[0]}:{origin[1]}"
    k = row.get("draw")
    if isinstance(k, bool) or not isinstance(k, int) or k < 0:
        raise DatasetError(f"{where}: field 'draw' missing or not a draw index: the pair cannot be rebuilt",
                           file=origin[0])
    pair = sampler.draw(k)
    if pair is None or (pair.sentence_good, pair.sentence_bad) != (row["sentence_good"], row["sentence_bad"]):
        got = "no pair" if pair is None else repr(pair.sentence_good)
        raise DatasetError(f"{where}: draw {k} of {sampler.p.uid} gives {got} with {sampler.p.path} and "
                           f"{sampler.vocab.source} (seed {sampler.seed}), not this pair: not the run's paradigm "
                           f"file or vocabulary", file=origin[0])
    return pair


def redraw_bad_word(sampler: ExcludingSampler, searcher: Searcher, pair: Pair, good_len: tuple[int, ...]) -> bool:
    """Give `pair` (A=U: its bad sentence has `good_len` too) another bad word of the same token
    lengths: for each critical slot in the search's order, the search's pick among the slot's
    candidates without the pair's bad word (nor earlier picks that failed), each pick verified on
    the whole sentence; True with the pair changed, False (the pair as it was) when none is found.
    `pair.redraws` counts the picks made."""
    first_bad, first_sentence = pair.bad, pair.sentence_bad
    searcher.remember(pair)      # (picks aim at the first-drawn bad word's frequency, as control's do)
    for name in searcher.slots:
        tried = {first_bad[name].word}
        for _ in range(MAX_PICKS):
            sampler.excluded = (name, frozenset(tried))
            try:
                found = searcher.pick(pair, good_len, good_len, slots=[name])
            finally:
                sampler.excluded = None
            if not found:
                break
            pair.redraws += 1
            lengths = tuple(m.length(pair.sentence_bad) for m in searcher.meters)
            if lengths == tuple(good_len) and pair.sentence_bad != first_sentence:
                return True
            tried.add(pair.bad[name].word)
            pair.bad, pair.sentence_bad = first_bad, first_sentence
    return False
