"""`fairpairs score`, `fairpairs unigrams` and `fairpairs morcela fit`."""

from __future__ import annotations

from pathlib import Path

import click

from fairpairs.api.settings import DEVICE_MAPS, PLL_VARIANTS, ScoringSettings
from fairpairs.commands.choices import RegistryChoice
from fairpairs.commands.options import option


def _models(ctx, param, value):
    """--models, or its old spelling --model (hidden, deprecated: a warning on stderr), as a list
    of names (comma-separated)."""
    old = ctx.params.pop("model", None) if param.name == "models" else None
    if old is not None and value is not None:
        raise click.UsageError("--model: the old name of --models; give only --models", ctx)
    if old is not None:
        click.echo("fairpairs: warning: --model is deprecated, use --models (same meaning)", err=True)
        value = old
    if value is None:
        raise click.MissingParameter(ctx=ctx, param=param)
    from fairpairs.commands.analysis import names_option

    return names_option(value, "--models")


def _model_options(f):
    """Options shared by the commands that load a model."""
    opts = [
        click.option("--model", "model", default=None, hidden=True, is_eager=True,
                     help="Deprecated: the old name of --models."),
        click.option("--models", "models", default=None, callback=_models,
                     help="HF name, local folder, .gguf file, or smollm2-135m; score takes several, "
                          "comma-separated.  [required]"),
        click.option("--kind", type=click.Choice(["causal", "masked"]), default=None,
                     help="Override the kind read from the model config."),
        option(ScoringSettings, "pll", "--pll", type=RegistryChoice(PLL_VARIANTS)),
        option(ScoringSettings, "device", "--device"),
        click.option("--dtype", type=click.Choice(["float32", "bfloat16", "float16"]), default=None,
                     help="Weights/activations dtype on a GPU (always float32 on the CPU)."),
        click.option("--device-map", type=click.Choice(list(DEVICE_MAPS)),
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
        from fairpairs.api.settings import scoped

        with scoped(progress):     # --progress / --no-progress: the switch, for this command
            return f(*args, **kwargs)

    for opt in reversed(opts):
        scoped_progress = opt(scoped_progress)
    return scoped_progress


@click.command()
@_model_options
@click.option("--input", "input_path", type=click.Path(path_type=Path), required=True,
              help="Text (one sentence a line) or jsonl (sentence_good/sentence_bad pairs, or 'sentence').")
@click.option("--out", type=click.Path(path_type=Path), required=True,
              help="Output .jsonl or .csv (several models: their rows one after the other, led by a model column).")
@option(ScoringSettings, "score_normalize", "--normalize")
@option(ScoringSettings, "alpha", "--alpha", type=float)
@click.option("--unigrams", default=None,
              help="Unigram table from `fairpairs unigrams` for slor/morcela (default: wordfreq).")
@click.option("--morcela-params", type=click.Path(path_type=Path), default=None,
              help="Parameters written by `fairpairs morcela fit` (needed for morcela).")
@click.option("--length-params", type=click.Path(path_type=Path), default=None,
              help="Length parameters written by `fairpairs fit-length` for slln_lp/tc_lp/tcf_lp (default: the "
                   "bundled ones, for smollm2-135m); only the entry fitted for each model is used.")
def score(models, kind, pll, device, dtype, device_map, batch_tokens, input_path, out, normalize,
          alpha, unigrams, morcela_params, length_params):
    """Score sentences (or good/bad pairs) with one or several causal or masked LMs.

    Started by torchrun or accelerate launch, the processes share the sentences out and rank 0
    writes OUT (docs/scaling.md)."""
    from fairpairs.api import pair_accuracy
    from fairpairs.api.model_files import score_file

    result = score_file(input_path, out, models, normalize=normalize, alpha=alpha, unigrams=unigrams,
                        morcela_params=morcela_params, length_params=length_params, kind=kind, pll=pll,
                        device=device, dtype=dtype, device_map=device_map, batch_tokens=batch_tokens)
    if result is None:
        return
    for m, df in result.tables.items():
        secs = result.seconds[m]
        who = f"{m}: " if len(result.tables) > 1 else ""
        click.echo(f"{who}scored {len(df)} sentences in {secs:.1f} s "
                   f"({len(df) / max(secs, 1e-9):.1f} sentences/s) -> {out}", err=True)
        if result.pairs:
            accs = [f"{k} {acc:.3f}" for k, acc in pair_accuracy(df, result.names).items()]
            click.echo(f"{who}accuracy (good > bad): " + ", ".join(accs), err=True)


@click.command()
@click.option("--model", "model", default=None, hidden=True, is_eager=True, help="Deprecated: the old name of --models.")
@click.option("--models", "models", default=None, callback=_models, help="Model (or tokenizer) whose tokens are counted.  [required]")
@click.option("--corpus", "corpus", multiple=True, required=True, type=click.Path(path_type=Path),
              help="Plain-text file(s), UTF-8; repeat for several.")
@click.option("--out", type=click.Path(path_type=Path), required=True, help="Table file (.json).")
def unigrams(models, corpus, out):
    """Count a model's tokens on plain text: a unigram table (add-one smoothed) for SLOR/MORCELA."""
    from fairpairs.api.model_files import unigrams_file

    table = unigrams_file(corpus, out, models)
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
def fit(models, kind, pll, device, dtype, device_map, batch_tokens, judgments, measure, unigrams,
        folds, seed, out):
    """Fit beta and gamma on z-scored judgments; report cross-validated r of MORCELA, SLOR, LP."""
    from fairpairs.api.model_files import morcela_file

    def dropped(data):
        click.echo(f"fairpairs: warning: --judgments {judgments}: left out "
                   + ", ".join(f"{n} row(s) with {why}" for why, n in data.dropped.items())
                   + f"; fitting {len(data.sentences)} sentences", err=True)

    result = morcela_file(judgments, out, models, measure=measure, unigrams=unigrams, folds=folds, seed=seed,
                          on_dropped=dropped, kind=kind, pll=pll, device=device, dtype=dtype,
                          device_map=device_map, batch_tokens=batch_tokens)
    if result is None:  # under torchrun / accelerate launch the ranks share the scoring; rank 0 fits and writes
        return
    cv = result.cv
    click.echo(f"MORCELA on {result.n} sentences: beta = {result.beta:.4f}, gamma = {result.gamma:.4f}\n"
               f"{folds}-fold CV Pearson r: MORCELA {cv['morcela']:.3f}, SLOR {cv['slor']:.3f}, "
               f"LP {cv['lp']:.3f}\nparameters -> {out}")


@click.command("fit-length")
@_model_options
@click.option("--corpus", "corpus", multiple=True, type=click.Path(path_type=Path),
              help="Unlabelled text: WikiText-style files or one sentence a line; repeat for several "
                   "[default: the bundled WikiText-2 excerpt, 1,452 sentences, CC BY-SA 3.0].")
@option(ScoringSettings, "fit_sentences", "--sentences", "n", type=click.IntRange(min=10))
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True, help="Seed of the sample.")
@click.option("--name", default=None, help="Name of the entry in OUT [default: --models].")
@click.option("--out", type=click.Path(path_type=Path), required=True,
              help="Parameters file (.json; an existing one written by fit-length gets this model added).")
@click.option("--replace", is_flag=True,
              help="Replace OUT's entry --name even when it holds another model's parameters [default: refused; "
                   "the same model's entry is always refitted].")
def fit_length(models, kind, pll, device, dtype, device_map, batch_tokens, corpus, n, seed, name, out, replace):
    """Fit the length (and frequency) terms of slln_lp, tc_lp and tcf_lp for MODEL on unlabelled
    text (docs/robustness.md); the entry records the model's content fingerprint and tokenizer and
    is used for that model only (`score`, `evaluate`, `robustness --length-params OUT`)."""
    from fairpairs.api.settings import FIT_CORPUS
    from fairpairs.api.model_files import fit_length_file

    done = fit_length_file(corpus, out, models, n=n, seed=seed, name=name, replace=replace, kind=kind, pll=pll, device=device,
                           dtype=dtype, device_map=device_map, batch_tokens=batch_tokens)
    if done is None:      # (under torchrun the ranks share the scoring; rank 0 writes OUT)
        return
    entry, replaced = done
    model = models[0]
    used = entry["fitted_on"]["sentences"]
    click.echo(f"fitted on {used} sentence{'s' if used != 1 else ''} of {', '.join(map(str, corpus)) or FIT_CORPUS.name}: "
               f"delta_token {entry['delta_token']:+.3f} (s.e. {entry['std_errors']['delta_token']:.3f}), "
               f"delta_word {entry['delta_word']:+.3f}, beta_unigram {entry['beta_unigram']:+.3f}, slln_alpha "
               f"{entry['slln_alpha']:.3f}, R^2 {entry['r2']:.2f}\n"
               f"{'replaced' if replaced else 'wrote'} the entry {name or model!r} -> {out}", err=True)
