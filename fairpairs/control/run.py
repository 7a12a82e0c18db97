"""A generation run: paradigms x tokenizers -> original/ and debiased/ jsonl files + manifest.

The whole run is written into a temporary folder beside the destination and renamed into place at
the end (`fairpairs.io.files.OutputFolder`), so an interrupted or failed run never leaves a half-written
output, and a folder fairpairs did not write is never replaced.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from fairpairs import __version__
from fairpairs.control.config import RunConfig
from fairpairs.control.loop import SetResult, generate_debiased, generate_original
from fairpairs.control.result import RunResult
from fairpairs.control.workers import in_order
from fairpairs.control.statistics import (MEASURES, grammar_sha256, length_splits, pooled_splits, run_record,
                                          sha256_text, tokenizer_info, versions, vocabulary_sha256)
from fairpairs.generation.languages import wordfreq_code
from fairpairs.errors import NotComparableError, Param, UsageError
from fairpairs.generation.sampler import Sampler
from fairpairs.manifest import ParadigmStats
from fairpairs.generation.grammar import Paradigm
from fairpairs.generation.selection import one_language
from fairpairs.io.files import OutputFolder, atomic_write
from fairpairs.records import PairRecord, row_json
from fairpairs.manifest import ParadigmEntry, RunManifest, verdict_text
from fairpairs.tokenization.lengths import LengthMeter
from fairpairs.generation.vocab import Vocabulary


@dataclass
class ParadigmSets:
    """The sets generated for one paradigm, with the sampler that drew them (it renders records)."""

    paradigm: Paradigm
    sampler: Sampler
    original: SetResult | None = None
    debiased: SetResult | None = None

    def records(self, which: str) -> list[PairRecord]:
        """The typed records of set `which` ("original" or "debiased"), in output order."""
        return [self.sampler.record(k.pair, k.lengths, i, k.control) for i, k in enumerate(getattr(self, which).kept)]

    def rows(self, which: str) -> list[dict]:
        """The jsonl rows of set `which` (each `records(which)[i].to_dict()`), in output order."""
        return [self.sampler.row(k.pair, k.lengths, i, k.control) for i, k in enumerate(getattr(self, which).kept)]


def write_jsonl(path: Path, rows: list[dict]) -> str:
    """Pair rows (`PairRecord.to_dict()`) as a jsonl file (`atomic_write`: a write the OS refuses is
    an OutputError naming the file); returns the sha256 of what was written (the manifest's
    `statistics` record it)."""
    text = "".join(row_json(row) + "\n" for row in rows)
    atomic_write(path, text)
    return sha256_text(text)


def generate_paradigm(p: Paradigm, vocab: Vocabulary, cfg: RunConfig, meters: list[LengthMeter],
                      sets: tuple[str, ...] = ("original", "debiased"), on_pairs=None) -> ParadigmSets:
    """Generate the sets `sets` of one paradigm (lengths measured with `meters`). `on_pairs(n)` is
    told the pairs done so far, the original set's first. The one code path of `fairpairs generate`
    and `fairpairs.generation.sampler`: every pair has its own seeded stream, so a set is the same whether or
    not the other set is generated too."""
    out = ParadigmSets(paradigm=p, sampler=Sampler(p, vocab, cfg.seed))
    done = cfg.pairs if "original" in sets else 0
    if "original" in sets:
        out.original = generate_original(out.sampler, cfg.pairs, meters, max_draws=cfg.draws,
                                         on_pairs=on_pairs)
    if "debiased" in sets:
        out.debiased = generate_debiased(out.sampler, cfg.pairs, meters, strategy=cfg.strategy,
                                         max_retries=cfg.retries, match_frequency=cfg.match_frequency,
                                         max_draws=cfg.draws,
                                         on_pairs=(lambda n: on_pairs(done + n)) if on_pairs else None)
    return out


@dataclass
class ParadigmDone:
    """What a run keeps of one paradigm once its files are written: each set's account, the
    paradigm's manifest entry, the pairs written (both sets), whether a bar was told of them."""

    stats: dict[str, ParadigmStats]
    entry: ParadigmEntry
    pairs: int
    shown: bool
    files: dict[str, str]     # original, debiased, grammar -> sha256 (the manifest's `statistics`)
    measures: dict            # set -> its balance pair measures (the pooled ALL row is computed from them)


@dataclass
class ParadigmJob:
    """A run's paradigms, each generated, written into `folder` and summed up by `run(i)` (in this
    process or in a worker: fairpairs.control.workers)."""

    paradigms: list[Paradigm]
    vocab: Vocabulary
    cfg: RunConfig
    meters: list[LengthMeter]
    folder: Path
    strict: bool = False

    def prepare(self) -> None:
        """Load what every paradigm's balance report reads (its modules, the word frequencies of
        the run's languages), so that forked workers share it instead of each loading its own."""
        from fairpairs.control.balance_measures import zipf
        from fairpairs.control.balance_report import paradigm_balance   # noqa: F401  (imported here, once)
        from fairpairs.generation.languages import wordfreq_code

        for code in dict.fromkeys(wordfreq_code(p.language) for p in self.paradigms):
            zipf("the", code)

    def in_worker(self) -> None:
        """In a forked worker: the tokenizers' own word caches off (see `LengthMeter.drop_model_cache`)."""
        for m in self.meters:
            m.drop_model_cache()

    def run(self, i: int, on_pairs=None) -> ParadigmDone:
        """Paradigm i: its two sets generated and written (original/<uid>.jsonl, debiased/<uid>.jsonl);
        `strict`: a set short of its pairs is an error (ShortSetError), before anything is written."""
        p = self.paradigms[i]
        sets = generate_paradigm(p, self.vocab, self.cfg, self.meters, on_pairs=on_pairs)
        for which in ("original", "debiased"):
            if self.strict and getattr(sets, which).short is not None:
                raise getattr(sets, which).short
        rows, files, measures = {}, {"grammar": p.read_sha256 or grammar_sha256(p.path)}, {}
        for which in ("original", "debiased"):
            rows[which] = sets.rows(which)
            files[which] = write_jsonl(self.folder / which / f"{p.uid}.jsonl", rows[which])
        entry = paradigm_manifest(sets, rows["original"], rows["debiased"], self.meters, measures)
        for m in self.meters:     # (the paradigm's sentences are measured: their counts are not needed again)
            m.forget_sentences()
        return ParadigmDone(stats={"original": sets.original.stats, "debiased": sets.debiased.stats},
                            entry=entry, pairs=len(rows["original"]) + len(rows["debiased"]), shown=on_pairs is not None,
                            files=files, measures={s: {k: m[k] for k in MEASURES} for s, m in measures.items()})


def paradigm_manifest(sets: ParadigmSets, original: list[dict], debiased: list[dict],
                      meters: list[LengthMeter], measures: dict | None = None) -> ParadigmEntry:
    """A paradigm's entry in the run manifest: how each set was drawn, their balance (its pair
    measures kept in `measures`) and the original set's length splits, computed from the rows as
    written (`original`, `debiased`: jsonl rows)."""
    from fairpairs.control.balance_report import paradigm_balance
    from fairpairs.control.balance_measures import LOW_DIVERSITY, SlotFeatures
    from fairpairs.generation.languages import wordfreq_code

    p = sets.paradigm
    language = wordfreq_code(p.language)     # word frequencies in the paradigm's language
    entry = paradigm_balance(original, debiased, features=SlotFeatures(p, sets.sampler.vocab), language=language,
                             keep=measures)
    if entry["distinct_ratio"] is not None and entry["distinct_ratio"] < LOW_DIVERSITY:
        entry["causes"] += diversity_causes(p, sets.sampler.vocab, meters)
    return ParadigmEntry(
        phenomenon=p.phenomenon, field=p.field, linguistics_term=p.linguistics_term,
        grammar_file=p.path.name, reorder=p.reorder,
        original=len(original), debiased=len(debiased),
        original_stats=sets.original.stats, debiased_stats=sets.debiased.stats, balance=entry,
        short={w: getattr(sets, w).short.short for w in ("original", "debiased") if getattr(sets, w).short} or None,
        original_bias=length_splits(original, [m.name for m in meters]),
    )


def verdict(entries: dict[str, ParadigmEntry], pairs: int, models: list[str], language: str) -> dict | None:
    """Whether a run's debiased set can stand for its original set: the paradigms short of `pairs`
    (their budget was spent), and "comparable" false when fewer than half the paradigms are balanced
    (the balance report's rule) or a paradigm reached less than half its pairs; with the tokenizers
    that suit the language where the run's are others. None when every paradigm reached its pairs
    and the set is comparable (no key in the manifest)."""
    from fairpairs.tokenization.sources import expand
    from fairpairs.generation.languages import get_language

    n = len(entries)
    short = {uid: e.short for uid, e in entries.items() if e.short}
    n_bal = sum(bool(e.balance.get("balanced")) for e in entries.values())
    low = [uid for uid, e in entries.items() if e.debiased * 2 < pairs]
    reasons = []
    if n_bal * 2 < n:
        reasons.append(f"{n_bal} of {n} paradigm(s) balanced against the original set")
    if low:
        reasons.append(f"{len(low)} paradigm(s) below half of {pairs} pairs ({', '.join(low)})")
    if not short and not reasons:
        return None
    lang = get_language(language)
    suits = set(expand(list(lang.tokenizers)))     # (a run under tokenizers that all suit: nothing to suggest)
    suggest = list(lang.tokenizers) if not set(models) <= suits else []
    return {"comparable": not reasons, "reasons": reasons, "short": sorted(short),
            "language": lang.code, "suggested_tokenizers": suggest}


def check_kept_some(entries: dict[str, ParadigmEntry], models: list[str], language: str) -> None:
    """A debiased set empty in every paradigm is an error, strict or not (lenient runs keep short
    cells, not runs every later command refuses), naming the tokenizers that suit the language."""
    if any(e.debiased for e in entries.values()):
        return
    from fairpairs.generation.languages import get_language

    lang = get_language(language)
    raise NotComparableError(Param("models"), f" {','.join(models)}", value=models, reason=(
        f"length control kept no pair under these tokenizers: the debiased set is empty in all "
        f"{len(entries)} paradigm(s) (no pair drawn has equal token counts under them); the tokenizers that "
        f"suit {lang.name} ({lang.code}; `fairpairs languages`): {', '.join(lang.tokenizers)}; nothing was written"))


def diversity_causes(p: Paradigm, vocab: Vocabulary, meters: list[LengthMeter]) -> list[str]:
    """Why a paradigm's debiased set has few distinct words, where it is a matter of the vocabulary:
    for each critical slot whose bad word is a form of the good one (the other number, a participle),
    how many of its candidate words have good and bad forms of equal token length under every
    tokenizer (measured as separate words, after a space)."""
    out = []
    for name, spec in p.critical.items():
        if spec.form is None or name not in p.slots:
            continue
        good_rows = p.slots[name].base.tolist()
        pairs = []
        for r in good_rows:
            if spec.form == "other_number":
                b = vocab.other_number(r)
                bad = [b] if b is not None else []
            else:
                bad = vocab.form_of(r, spec.form).tolist()
            pairs += [(r, b) for b in bad if vocab.expressions[b] != vocab.expressions[r]]
        if not pairs:
            continue
        texts = sorted({f" {vocab.expressions[r]}" for pair in pairs for r in pair})
        lengths = [dict(zip(texts, m.lengths(texts))) for m in meters]
        ok = {vocab.expressions[g] for g, b in pairs
              if all(L[f" {vocab.expressions[g]}"] == L[f" {vocab.expressions[b]}"] for L in lengths)}
        total = {vocab.expressions[g] for g, _ in pairs}
        out.append(f"only {len(ok)} of the {len(total)} candidate words of slot {name} have good and bad "
                   f"forms of equal token length under these tokenizers (as separate words)")
    return out


def write_run(paradigms: list[Paradigm], vocab: Vocabulary, cfg: RunConfig, out: Path,
                 on_paradigm=None, strict: bool = False, workers: int | None = None, meters=None) -> RunResult:
    """Generate every paradigm and write the run folder `out` atomically. A set that ends short of
    its pairs (its budget spent) keeps what it reached and is marked (manifest `short`, `verdict`);
    `strict`: such a set, or a debiased set not comparable with the original, is an error and
    nothing is written. `workers`: processes side by side (`control.workers`; None: its default;
    the same output for any number). `meters`: a LengthMeter per `cfg.models` (the preflight's)."""
    if not paradigms:
        raise UsageError(Param("paradigms"), ": none selected")
    language = one_language(p.language for p in paradigms)    # (before any work)
    folder = OutputFolder(out, "out", kind="run")   # checked before any work
    meters = meters or [LengthMeter(m) for m in cfg.models]
    result = RunResult(strategy=cfg.strategy)
    with folder as tmp:
        (tmp / "original").mkdir()
        (tmp / "debiased").mkdir()
        manifest_paradigms, done_by_uid = {}, {}
        job = ParadigmJob(paradigms, vocab, cfg, meters, tmp, strict)

        def task(i: int, here: bool) -> ParadigmDone:
            bar = on_paradigm(paradigms[i].uid, 2 * cfg.pairs) if here and on_paradigm else None
            return job.run(i, bar)

        def take(i: int, done: ParadigmDone) -> None:
            uid = paradigms[i].uid
            if not done.shown and on_paradigm is not None:    # (made by a worker: all at once)
                on_paradigm(uid, 2 * cfg.pairs)(done.pairs)
            result.stats[uid] = done.stats
            manifest_paradigms[uid] = done.entry
            result.balance[uid] = done.entry.balance
            done_by_uid[uid] = done
            result.splits[uid] = done.entry.original_bias
        in_order(task, len(paradigms), take, workers, prepare=job.prepare, in_worker=job.in_worker)
        manifest = RunManifest(
            fairpairs_version=__version__,
            command=cfg.command,
            seed=cfg.seed,
            pairs=cfg.pairs,
            strategy=cfg.strategy,
            max_retries=cfg.retries,
            match_frequency=cfg.match_frequency,
            models=list(cfg.models),
            token_length="content tokens of the sentence as written (special tokens excluded)",
            tokenizers={m.name: tokenizer_info(m) for m in meters},
            versions=versions(),
            vocabulary=vocab.info(),
            language=language,
            paradigms=manifest_paradigms,
            lexicon=cfg.lexicon,
            verdict=verdict(manifest_paradigms, cfg.pairs, list(cfg.models), paradigms[0].language),
            original_bias=pooled_splits(manifest_paradigms, cfg.models),
            statistics=run_record(done_by_uid, wordfreq_code(language), vocabulary_sha256(vocab, cfg.lexicon)),
        )
        result.original_bias = manifest.original_bias
        result.verdict = manifest.verdict
        check_kept_some(manifest_paradigms, list(cfg.models), paradigms[0].language)
        if strict and manifest.verdict and not manifest.verdict["comparable"]:
            raise NotComparableError(Param("strict"), f": {verdict_text(manifest.verdict)}")
        atomic_write(tmp / "manifest.json", manifest.to_json())
    return result

