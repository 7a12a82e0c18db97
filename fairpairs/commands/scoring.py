"""`fairpairs score`, `fairpairs unigrams` and `fairpairs morcela fit`."""

from __future__ import annotations

import time
from pathlib import Path

import click

from fairpairs.errors import FairpairsError
from fairpairs.registry import PLL_VARIANTS


def _model_options(f):
    """Options shared by the commands that load a model."""
    opts = [
        click.option("--model", "model", required=True,
                     help="HF name, local folder, .gguf file, or smollm2-135m."),
        click.option("--kind", type=click.Choice(["causal", "masked"]), default=None,
                     help="Override the kind read from the model config."),
        click.option("--pll", type=click.Choice(list(PLL_VARIANTS)), default="word_l2r", show_default=True,
                     help="Pseudo-log-likelihood variant for masked LMs."),
        click.option("--device", default="auto", show_default=True, help="auto, cpu, cuda or cuda:N."),
        click.option("--dtype", type=click.Choice(["float32", "bfloat16", "float16"]), default=None,
                     help="Weights/activations dtype on a GPU (always float32 on the CPU)."),
        click.option("--device-map", type=click.Choice(["auto", "balanced", "balanced_low_0", "sequential"]),
                     default=None, help="Spread one model over the visible GPUs (accelerate), for a model "
                     "larger than one GPU; see docs/scaling.md."),
        click.option("--batch-tokens", type=click.IntRange(min=1), default=None,
                     help="Padded tokens per batch (default: auto; halves on GPU out-of-memory)."),
        click.option("--progress/--no-progress", default=None,
                     help="Progress bar on stderr [default: when stderr is a terminal]."),
    ]
    import functools

    @functools.wraps(f)
    def scoped_progress(*args, progress=None, **kwargs):
        from fairpairs.io.progress import scoped

        with scoped(progress):     # --progress / --no-progress: the switch, for this command
            return f(*args, **kwargs)

    for opt in reversed(opts):
        scoped_progress = opt(scoped_progress)
    return scoped_progress


def _scorer(model, kind, pll, device, dtype, device_map, batch_tokens):
    from transformers.utils import logging as hf_logging

    from fairpairs.scoring import Scorer

    hf_logging.disable_progress_bar()
    return Scorer.from_pretrained(model, kind=kind, device=device, dtype=dtype, pll=pll,
                                  batch_tokens=batch_tokens, device_map=device_map)


@click.command()
@_model_options
@click.option("--input", "input_path", type=click.Path(path_type=Path), required=True,
              help="Text (one sentence a line) or jsonl (sentence_good/sentence_bad pairs, or 'sentence').")
@click.option("--out", type=click.Path(path_type=Path), required=True, help="Output .jsonl or .csv.")
@click.option("--normalize", default="mean_lp,pen_lp,slor", show_default=True,
              help="Comma-separated: lp, mean_lp, pen_lp, slor, morcela, and the length-robust slln_lp, tc_lp, tcf_lp, word_lp, word_mean_lp, centered_lp, entropy_lp (docs/robustness.md; '' for none).")
@click.option("--alpha", type=float, default=0.8, show_default=True, help="PenLP exponent.")
@click.option("--unigrams", default=None,
              help="Unigram table from `fairpairs unigrams` for slor/morcela (default: wordfreq).")
@click.option("--morcela-params", type=click.Path(path_type=Path), default=None,
              help="Parameters written by `fairpairs morcela fit` (needed for morcela).")
@click.option("--length-params", type=click.Path(path_type=Path), default=None,
              help="Length parameters written by `fairpairs fit-length` for slln_lp/tc_lp/tcf_lp (default: the "
                   "bundled ones, for smollm2-135m); only the entry fitted for --model is used.")
def score(model, kind, pll, device, dtype, device_map, batch_tokens, input_path, out, normalize,
          alpha, unigrams, morcela_params, length_params):
    """Score sentences (or good/bad pairs) with a causal or masked LM.

    Started by torchrun or accelerate launch, the processes share the sentences out and rank 0
    writes OUT (docs/scaling.md)."""
    from fairpairs.io.files import check_output_file
    from fairpairs.scoring.launch import is_main
    from fairpairs.scoring.tables import (
        check_score_arguments,
        check_scores_path,
        pair_accuracy,
        read_sentences,
        score_sentences,
        write_scores,
    )

    check_scores_path(out)
    check_output_file(out, "--out", inputs=[input_path, morcela_params, unigrams, length_params])
    names = check_score_arguments(normalize, unigrams, alpha, morcela_params,    # (before the model loads)
                                  length_params, model)
    rows, pairs = read_sentences(input_path)       # (a bad input fails before the model loads)
    scorer = _scorer(model, kind, pll, device, dtype, device_map, batch_tokens)
    t0 = time.perf_counter()
    df = score_sentences(scorer, rows, names, unigrams=unigrams, alpha=alpha, morcela_params=morcela_params,
                         length_params=length_params)
    secs = time.perf_counter() - t0
    if not is_main():
        return
    write_scores(df, out)
    click.echo(f"scored {len(df)} sentences in {secs:.1f} s "
               f"({len(df) / max(secs, 1e-9):.1f} sentences/s) -> {out}", err=True)
    if pairs:
        accs = [f"{m} {acc:.3f}" for m, acc in pair_accuracy(df, names).items()]
        click.echo("accuracy (good > bad): " + ", ".join(accs), err=True)


@click.command()
@click.option("--model", required=True, help="Model (or tokenizer) whose tokens are counted.")
@click.option("--corpus", "corpus", multiple=True, required=True, type=click.Path(path_type=Path),
              help="Plain-text file(s), UTF-8; repeat for several.")
@click.option("--out", type=click.Path(path_type=Path), required=True, help="Table file (.json).")
def unigrams(model, corpus, out):
    """Count a model's tokens on plain text: a unigram table (add-one smoothed) for SLOR/MORCELA."""
    from fairpairs.io.files import check_output_file
    from fairpairs.scoring.unigrams import count_unigrams

    if out.suffix.lower() != ".json":
        raise FairpairsError(f"--out {out}: the table is JSON; give a file name ending in .json")
    check_output_file(out, "--out", inputs=corpus)
    table = count_unigrams(model, corpus)
    table.save(out)
    click.echo(f"counted {table.total} tokens ({int((table.counts > 0).sum())} types of "
               f"{len(table.counts)}) -> {out}", err=True)


@click.group()
def morcela():
    """MORCELA linking function (Tjuatja et al. 2024)."""


@morcela.command("fit")
@_model_options
@click.option("--judgments", type=click.Path(path_type=Path), required=True,
              help="CSV: Sprouse et al. (2013) pairs (Good/Bad Sentence [LS]) or sentence,judgment.")
@click.option("--measure", default="LS", show_default=True, help="Judgment column suffix (LS or ME).")
@click.option("--unigrams", default=None, help="Unigram table (default: wordfreq).")
@click.option("--folds", type=click.IntRange(min=2), default=5, show_default=True)
@click.option("--seed", type=click.IntRange(0), default=0, show_default=True, help="Seed of the fold split.")
@click.option("--out", type=click.Path(path_type=Path), required=True, help="Parameters file (.json).")
def fit(model, kind, pll, device, dtype, device_map, batch_tokens, judgments, measure, unigrams,
        folds, seed, out):
    """Fit beta and gamma on z-scored judgments; report cross-validated r of MORCELA, SLOR, LP."""
    from fairpairs.io.files import atomic_write, check_output_file
    from fairpairs.scoring import morcela as mc

    from fairpairs.scoring.unigrams import load_unigrams

    check_output_file(out, "--out", inputs=[judgments])
    data = mc.load_judgments(judgments, measure)     # (a bad file fails before the model loads)
    load_unigrams(unigrams)
    if data.dropped:
        click.echo(f"fairpairs: warning: --judgments {judgments}: left out "
                   + ", ".join(f"{n} row(s) with {why}" for why, n in data.dropped.items())
                   + f"; fitting {len(data.sentences)} sentences", err=True)
    scorer = _scorer(model, kind, pll, device, dtype, device_map, batch_tokens)
    result = mc.fit_morcela(scorer, data, unigrams=unigrams, folds=folds, seed=seed)
    if result is None:  # under torchrun / accelerate launch the ranks share the scoring; rank 0 fits and writes
        return
    atomic_write(out, result.to_json())
    cv = result.cv
    click.echo(f"MORCELA on {result.n} sentences: beta = {result.beta:.4f}, gamma = {result.gamma:.4f}\n"
               f"{folds}-fold CV Pearson r: MORCELA {cv['morcela']:.3f}, SLOR {cv['slor']:.3f}, "
               f"LP {cv['lp']:.3f}\nparameters -> {out}")


@click.command("fit-length")
@_model_options
@click.option("--corpus", "corpus", multiple=True, type=click.Path(path_type=Path),
              help="Unlabelled text: WikiText-style files or one sentence a line; repeat for several "
                   "[default: the bundled WikiText-2 excerpt, 1,452 sentences, CC BY-SA 3.0].")
@click.option("--sentences", "n", type=click.IntRange(min=10), default=1000, show_default=True,
              help="Sentences to fit on (a seeded sample of the corpus's usable 4-14 word sentences).")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True, help="Seed of the sample.")
@click.option("--name", default=None, help="Name of the entry in OUT [default: --model].")
@click.option("--out", type=click.Path(path_type=Path), required=True,
              help="Parameters file (.json; an existing one written by fit-length gets this model added).")
def fit_length(model, kind, pll, device, dtype, device_map, batch_tokens, corpus, n, seed, name, out):
    """Fit the length (and frequency) terms of slln_lp, tc_lp and tcf_lp for MODEL on unlabelled
    text (docs/robustness.md); the entry records the model's content fingerprint and tokenizer and
    is used for that model only (`score`, `evaluate`, `robustness --length-params OUT`)."""
    from fairpairs.io.files import check_output_file
    from fairpairs.scoring.length import CORPUS, add_entry, check_params_out, corpus_sentences, fit_length_params

    import warnings

    check_output_file(out, "--out", inputs=corpus)
    check_params_out(out)       # (an existing file is one of ours, before the model loads)
    with warnings.catch_warnings():     # (the corpus too; its warning comes with the fit)
        warnings.simplefilter("ignore")
        corpus_sentences(list(corpus) or None, n, seed)
    scorer = _scorer(model, kind, pll, device, dtype, device_map, batch_tokens)
    entry = fit_length_params(scorer, list(corpus) or None, n=n, seed=seed, model=name or model)
    from fairpairs.scoring.launch import is_main

    if not is_main():      # (under torchrun the ranks share the scoring; rank 0 writes OUT)
        return
    replaced = add_entry(out, name or model, entry)
    used = entry["fitted_on"]["sentences"]
    click.echo(f"fitted on {used} sentence{'s' if used != 1 else ''} of {', '.join(map(str, corpus)) or CORPUS.name}: "
               f"delta_token {entry['delta_token']:+.3f} (s.e. {entry['std_errors']['delta_token']:.3f}), "
               f"delta_word {entry['delta_word']:+.3f}, beta_unigram {entry['beta_unigram']:+.3f}, slln_alpha "
               f"{entry['slln_alpha']:.3f}, R^2 {entry['r2']:.2f}\n"
               f"{'replaced' if replaced else 'wrote'} the entry {name or model!r} -> {out}", err=True)
