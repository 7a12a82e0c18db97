"""The calls behind the commands that load a model and write one file: `fairpairs score`
(`score_file`), `unigrams` (`unigrams_file`), `morcela fit` (`morcela_file`) and `fit-length`
(`fit_length_file`). Each checks its output file and every input before a model is loaded, and
writes atomically; under a multi-process launch only rank 0 writes (the others get None)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from fairpairs.errors import FairpairsError, Param, UsageError
from fairpairs.scoring.settings import SCORING


@dataclass
class Scored:
    """What `score_file` wrote: per model, its table and the seconds it took; whether the input
    held pairs; the normalisations."""

    tables: dict = field(default_factory=dict)      # model -> DataFrame
    seconds: dict = field(default_factory=dict)     # model -> seconds scoring
    pairs: bool = False
    names: tuple = ()


def load_scorer(model, *, kind=None, pll=SCORING.pll, device=SCORING.device, dtype=None, device_map=None,
                batch_tokens=None):
    """`Scorer.from_pretrained(model, ...)`, with transformers' own progress bars off (ours show)."""
    from transformers.utils import logging as hf_logging

    from fairpairs.scoring import Scorer

    hf_logging.disable_progress_bar()
    return Scorer.from_pretrained(model, kind=kind, device=device, dtype=dtype, pll=pll,
                                  batch_tokens=batch_tokens, device_map=device_map)


def one_model(models: list[str], what: str) -> str:
    """The one model of a call that fits or counts for one model (`what`)."""
    if len(models) != 1:
        raise UsageError(Param("models"), f": {what} is for one model; give one, not {len(models)}")
    return models[0]


def score_file(sentences, out, models: list[str], *, normalize=SCORING.score_normalize, alpha: float = SCORING.alpha,
               unigrams=None, morcela_params=None, length_params=None, **load) -> Scored | None:
    """Score the sentences (or pairs) of the file `sentences` with each of `models` and write the
    table `out` (.jsonl or .csv; several models: one block of rows per model, led by a `model`
    column). Everything is checked before the first model loads."""
    import pandas as pd

    from fairpairs.io.files import check_output_file
    from fairpairs.scoring.launch import is_main
    from fairpairs.scoring.tables import (check_score_arguments, check_scores_path, read_sentences,
                                          score_sentences, write_scores)

    check_scores_path(out)
    check_output_file(out, "out", inputs=[sentences, morcela_params, unigrams, length_params])
    result = Scored()
    for model in models:         # (before any model loads)
        result.names = check_score_arguments(normalize, unigrams, alpha, morcela_params, length_params, model)
    rows, result.pairs = read_sentences(sentences)       # (a bad input fails before the model loads)
    for model in models:
        scorer = load_scorer(model, **load)
        t0 = time.perf_counter()
        result.tables[model] = score_sentences(scorer, rows, result.names, unigrams=unigrams, alpha=alpha,
                                               morcela_params=morcela_params, length_params=length_params)
        result.seconds[model] = time.perf_counter() - t0
    if not is_main():
        return None
    tables = result.tables
    write_scores(next(iter(tables.values())) if len(tables) == 1 else
                 pd.concat([t.assign(model=m)[["model", *t.columns]] for m, t in tables.items()], ignore_index=True), out)
    return result


def unigrams_file(corpus, out, models: list[str]):
    """Count the one model's tokens in the text files `corpus` and write the unigram table `out`
    (.json). Returns the table."""
    from fairpairs.io.files import check_output_file
    from fairpairs.scoring.unigrams import count_unigrams

    model = one_model(models, "a unigram table")
    if Path(out).suffix.lower() != ".json":
        raise FairpairsError(Param("out"), f" {out}: the table is JSON; give a file name ending in .json")
    check_output_file(out, "out", inputs=corpus)
    table = count_unigrams(model, corpus)
    table.save(out)
    return table


def morcela_file(judgments, out, models: list[str], *, measure: str, unigrams=None, folds: int, seed: int,
                 on_dropped=None, **load):
    """Fit MORCELA for the one model on the judgments file and write its parameters `out` (.json);
    `on_dropped(data)` is told of the rows left out before the model loads. Returns the fit."""
    from fairpairs.io.files import atomic_write, check_output_file
    from fairpairs.scoring import morcela as mc
    from fairpairs.scoring.unigrams import load_unigrams

    model = one_model(models, "a MORCELA fit")
    check_output_file(out, "out", inputs=[judgments])
    data = mc.load_judgments(judgments, measure)     # (a bad file fails before the model loads)
    load_unigrams(unigrams)
    if data.dropped and on_dropped is not None:
        on_dropped(data)
    result = mc.fit_morcela(load_scorer(model, **load), data, unigrams=unigrams, folds=folds, seed=seed)
    if result is not None:  # (under torchrun / accelerate launch the ranks share the scoring; rank 0 writes)
        atomic_write(out, result.to_json())
    return result


def fit_length_file(corpus, out, models: list[str], *, n: int, seed: int, name: str | None = None,
                    replace: bool = False, **load):
    """Fit the length parameters of the one model on `corpus` (default: the bundled excerpt) and
    add its entry `name` (default: the model) to the file `out`, under the file's lock; an entry
    `name` of another model is replaced only when `replace` (`scoring.length.add_entry`). Returns
    (entry, replaced), or None on the ranks but the first."""
    import warnings

    from fairpairs.io.files import check_output_file
    from fairpairs.scoring.fingerprint import model_fingerprint
    from fairpairs.scoring.launch import is_main
    from fairpairs.scoring.length import add_entry, check_params_out, check_replacement, corpus_sentences, fit_length_params

    model = one_model(models, "a length fit")
    check_output_file(out, "out", inputs=corpus)
    kept = check_params_out(out)       # (an existing file is one of ours, before the model loads)
    if (name or model) in kept and not replace:     # another model's entry: refused before the fit (its files
        try:                                        # hashed, once a process), and again under the lock
            fingerprint = model_fingerprint(model)
        except FairpairsError:      # (loading the model says what is wrong with it)
            fingerprint = None
        if fingerprint is not None:
            check_replacement(kept, out, name or model, fingerprint)
    with warnings.catch_warnings():     # (the corpus too; its warning comes with the fit)
        warnings.simplefilter("ignore")
        corpus_sentences(list(corpus) or None, n, seed)
    entry = fit_length_params(load_scorer(model, **load), list(corpus) or None, n=n, seed=seed, model=name or model)
    if not is_main():      # (under torchrun the ranks share the scoring; rank 0 writes OUT)
        return None
    return entry, add_entry(out, name or model, entry, replace=replace)
