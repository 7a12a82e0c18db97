"""The public calls that read datasets into frames, audit their token lengths and compare a run's
two sets: `read_pairs`, `load_sets`, `to_frame`, `audit`, `audit_report`, `balance`."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Iterable

from fairpairs import arguments as check
from fairpairs.errors import Param, DatasetError, UsageError, UsageTypeError
from fairpairs.api.common import DEFAULT_MODELS, read_sets, with_language, with_run_language

if TYPE_CHECKING:   # (for readers and type checkers only: nothing heavy is imported at run time)
    import pandas as pd

    from fairpairs.analysis.length_audit import AuditReport
    from fairpairs.pairsets import PairSets


def read_pairs(source, columns=None, name: str = "pairs") -> "PairSets":
    """The one pair reader: `source` (anything `load_sets` accepts) as named `PairSet`s, every row
    checked once (`fairpairs.records.check_row`). Each set has `.frame` (uid, pair_id, sentence_good,
    sentence_bad, then every other field), `.pairs` (the four), `.origin` (each row's file and line)
    and `.records()` (PairRecords, for a run folder's sets); a run folder's sets also carry its typed
    `.manifest` (`fairpairs.manifest.RunManifest`). In-memory data is one set named `name`."""
    return read_sets(source, columns, name, "source")


def load_sets(data, columns=None, name: str = "pairs") -> dict[str, "pd.DataFrame"]:
    """Named sets of pairs from anything the API accepts as a dataset: a list of `PairRecord`s (or
    dicts with the same keys), a DataFrame (BLiMP columns), a path `fairpairs audit` accepts (a
    file, folder, run folder - its original and debiased sets - or saved HF dataset), or a dict
    of set name -> any of these. Each set is a DataFrame with uid, pair_id, sentence_good and
    sentence_bad first, then every other column of the input as read (field, linguistics_term,
    critical_good, token_lengths, draw, control, ... for fairpairs' pairs)."""
    return {k: s.frame for k, s in read_sets(data, columns, name, "data").items()}


def to_frame(data, columns=None) -> "pd.DataFrame":
    """One DataFrame of pairs, one row per pair: anything `load_sets` accepts (`fp.generate`'s
    PairRecords, a run folder, ...), with every column `load_sets` keeps, a `set` column first
    when `data` holds several sets (a run folder: original and debiased), and the nested
    `token_lengths` as `len_<tokenizer>_good` / `len_<tokenizer>_bad` integer columns."""
    from fairpairs.analysis.frames import sets_frame as one_frame

    return one_frame(load_sets(data, columns))


@check.old_names
def audit(data, models: Iterable[str] | str = DEFAULT_MODELS, *, columns=None,
          distribution: bool = False, format: str = "auto", **deprecated):
    """Token-length bias of a dataset (no LM needed): per set, paradigm (uid; ``ALL`` pools them)
    and tokenizer, n_pairs, n_equal (A=U), n_good_longer (A>U), n_good_shorter (A<U),
    share_unequal and the len(bad) - len(good) range. With `distribution`, returns (summary,
    distribution of len(bad) - len(good) per paradigm). `format`: the dataset's format for a
    path (auto, blimp, clams, multiblimp, zhoblimp; `fairpairs.analysis.readers`). `models`: the models
    whose tokenizers measure the lengths (`tokenizers`: its old name, deprecated)."""
    models = check.renamed("audit", deprecated, models=(models, DEFAULT_MODELS))["models"]
    report = audit_report(data, models, columns=columns, format=format)
    return (report["summary"], report["distribution"]) if distribution else report["summary"]


@check.old_names
def audit_report(data, models: Iterable[str] | str = DEFAULT_MODELS, *, columns=None,
                 format: str = "auto", select: bool = False, language: str | None = None,
                 **deprecated) -> "AuditReport":
    """Everything `fairpairs audit` reports, each sentence measured once per tokenizer: "summary"
    and "distribution" (as `audit`), "equal_all" (per set and group, the pairs with equal token
    counts under every tokenizer at once); with `select`, "selected" (the length-balanced subset as
    row ids: set, uid, pair_id) and "balance" (the balance report of that subset against the whole
    set, word frequencies by wordfreq in `language`: default the run's language for a run folder of
    `fairpairs generate`, else en). A dict of these tables (`analysis.length_audit.AuditReport`,
    whose methods render its summary as `fairpairs audit` prints it). (`tokenizers`: the old name
    of `models`.)"""
    models = check.renamed("audit_report", deprecated, models=(models, DEFAULT_MODELS))["models"]
    from fairpairs.analysis.length_audit import AuditReport, equal_under_all, length_bias, pair_lengths, select_balanced
    from fairpairs.registry import READERS

    check.text(format, "format")
    READERS.check(format, also=("auto",))
    if language is not None:
        check.text(language, "language")
    from fairpairs.control.balance_measures import check_frequency_language
    from fairpairs.pairsets import Columns

    if select and language is not None:    # (before any work)
        check_frequency_language(language)

    if columns is not None and not isinstance(columns, Columns):
        raise UsageTypeError(Param("columns"), f": expected a fairpairs.pairsets.Columns, not {type(columns).__name__}", value=columns)
    from fairpairs.control.config import model_names

    names = model_names(models, required=True)
    if isinstance(data, (str, os.PathLike)):
        from fairpairs.analysis.readers import read

        pair_sets = with_run_language(read(check.path(data, "data", error=DatasetError, what="file or folder"), format,
                                           columns))
        sets = pair_sets.frames()
    elif format not in ("auto", "blimp"):
        raise UsageError(Param("format"), f": {format} is read from a path; give the dataset's file or folder")
    else:
        pair_sets = read_sets(data, columns, "pairs", "data")
        sets = {k: s.frame for k, s in pair_sets.items()}
    if select:     # (the run's language, as its manifest resolved it; else en)
        language = check_frequency_language(language if language is not None else _run_language(pair_sets))
    lengths = pair_lengths(sets, names)
    summary, dist = length_bias(sets, names, lengths)
    out = AuditReport(summary=summary, distribution=dist, equal_all=equal_under_all(sets, lengths))
    if select:
        out["selected"], out["balance"] = select_balanced(sets, lengths, language)
    return out


def balance(data, *, grammars=None, vocab=None):
    """The balance report of a debiased set against its original set (`fairpairs balance`;
    `fairpairs.control.balance_report`), as a DataFrame.

    `data`: a run folder of `fairpairs generate` (its paradigms' slot features are read from the
    paradigm files it names, in `grammars` - default the bundled folder - with `vocab`, default the
    bundled table of the run's language, whose word frequencies it takes: the run's manifest is
    read here once, its language resolved), or a mapping {"original": ..., "debiased": ...} of two
    sets of PairRecords, dicts or DataFrames (grouped by UID; slot features only where the rows have
    `fillers` and their paradigm file is found)."""
    from fairpairs.control.balance_report import measure_balance as measure

    manifest = None
    if isinstance(data, (str, os.PathLike)):
        from fairpairs.control.balance_run import listed_run

        manifest = with_language(listed_run(data)[1], grammars)    # (the folder's checks first)
    return measure(data, grammars=grammars, vocab=vocab, manifest=manifest)


def _run_language(sets: "PairSets") -> str:
    """The wordfreq code of a run folder's language (its manifest carries it resolved); en for any
    other data."""
    manifest = sets.manifest
    if manifest is None:
        return "en"
    if manifest.run_language is None:     # (a language this installation does not know: its error)
        manifest = with_language(manifest)
    return manifest.run_language.wordfreq
