"""`fairpairs score`, `fairpairs unigrams` and `fairpairs morcela fit`."""

from __future__ import annotations

import hashlib
import json
import math
import time
from pathlib import Path

import click

from ..errors import DatasetError, FairpairsError
from ..scoring import PLL_VARIANTS



def _model_options(f):
    """Options shared by the commands that load a model."""
    opts = [
        click.option("--model", "model", required=True,
                     help="HF name, local folder, .gguf file, or smollm2-135m."),
        click.option("--kind", type=click.Choice(["causal", "masked"]), default=None,
                     help="Override the kind read from the model config."),
        click.option("--pll", type=click.Choice(PLL_VARIANTS), default="word_l2r", show_default=True,
                     help="Pseudo-log-likelihood variant for masked LMs."),
        click.option("--device", default="auto", show_default=True, help="auto, cpu, cuda or cuda:N."),
        click.option("--dtype", type=click.Choice(["float32", "bfloat16", "float16"]), default=None,
                     help="Weights/activations dtype on a GPU (always float32 on the CPU)."),
        click.option("--device-map", type=click.Choice(["auto", "balanced", "balanced_low_0", "sequential"]),
                     default=None, help="Spread one model over the visible GPUs (accelerate), for a model "
                     "larger than one GPU; see docs/scaling.md."),
        click.option("--batch-tokens", type=click.IntRange(min=1), default=None,
                     help="Padded tokens per batch (default: auto; halves on GPU out-of-memory)."),
        click.option("--progress/--no-progress", default=True, show_default=True,
                     help="Progress bar on stderr."),
    ]
    for opt in reversed(opts):
        f = opt(f)
    return f


def _scorer(model, kind, pll, device, dtype, device_map, batch_tokens, progress):
    from transformers.utils import logging as hf_logging

    from ..scoring import Scorer

    hf_logging.disable_progress_bar()
    return Scorer.from_pretrained(model, kind=kind, device=device, dtype=dtype, pll=pll,
                                  batch_tokens=batch_tokens, progress=progress, device_map=device_map)


def read_input(path: Path):
    """Rows to score from a text file (one sentence a line) or jsonl (pairs or 'sentence')."""
    try:
        if path.is_dir():
            raise DatasetError(f"--input {path}: is a folder, not a file")
        text = path.read_text(encoding="utf-8-sig")   # a byte-order mark is not part of sentence 1
    except FileNotFoundError:
        raise DatasetError(f"--input {path}: no such file") from None
    except OSError as exc:
        raise DatasetError(f"--input {path}: cannot read ({exc.strerror})") from None
    except UnicodeDecodeError as exc:
        raise DatasetError(f"--input {path}: not UTF-8 (byte {exc.start})") from None
    if path.suffix.lower() != ".jsonl":
        rows = [{"sentence": ln.strip()} for ln in text.splitlines() if ln.strip()]
        if not rows:
            raise DatasetError(f"--input {path}: no sentences")
        return rows, False
    from ..jsonl import iter_objects

    rows, pairs = [], None
    for no, obj in iter_objects(path):
        is_pair = "sentence_good" in obj or "sentence_bad" in obj
        pairs = is_pair if pairs is None else pairs
        if is_pair != pairs:
            raise DatasetError(f"--input {path}:{no}: mixes pairs and single sentences")
        fields = ("sentence_good", "sentence_bad") if pairs else ("sentence",)
        for key in fields:
            if not isinstance(obj.get(key), str) or not obj[key].strip():
                raise DatasetError(f"--input {path}:{no}: field {key!r} is missing or not a non-empty string")
        rows.append(obj)
    if not rows:
        raise DatasetError(f"--input {path}: no rows")
    return rows, bool(pairs)


def write_table(df, out: Path) -> None:
    """jsonl or csv by extension, atomically."""
    from ..io import atomic_write

    suffix = out.suffix.lower()
    if suffix == ".jsonl":
        # JSON has no NaN or infinity: an undefined score is written as null
        lines = [json.dumps({k: _finite_or_none(v) for k, v in rec.items()}, ensure_ascii=False, allow_nan=False)
                 for rec in df.to_dict(orient="records")]
        atomic_write(out, "\n".join(lines) + "\n")
    elif suffix == ".csv":
        atomic_write(out, df.to_csv(index=False, lineterminator="\n"))
    else:
        raise FairpairsError(f"--out {out}: extension must be .jsonl or .csv")


def _finite_or_none(value):
    return None if isinstance(value, float) and not math.isfinite(value) else value


@click.command()
@_model_options
@click.option("--input", "input_path", type=click.Path(path_type=Path), required=True,
              help="Text (one sentence a line) or jsonl (sentence_good/sentence_bad pairs, or 'sentence').")
@click.option("--out", type=click.Path(path_type=Path), required=True, help="Output .jsonl or .csv.")
@click.option("--normalize", default="mean_lp,pen_lp,slor", show_default=True,
              help="Comma-separated: lp, mean_lp, pen_lp, slor, morcela ('' for none).")
@click.option("--alpha", type=float, default=0.8, show_default=True, help="PenLP exponent.")
@click.option("--unigrams", default=None,
              help="Unigram table from `fairpairs unigrams` for slor/morcela (default: wordfreq).")
@click.option("--morcela-params", type=click.Path(path_type=Path), default=None,
              help="Parameters written by `fairpairs morcela fit` (needed for morcela).")
def score(model, kind, pll, device, dtype, device_map, batch_tokens, progress, input_path, out, normalize,
          alpha, unigrams, morcela_params):
    """Score sentences (or good/bad pairs) with a causal or masked LM.

    Started by torchrun or accelerate launch, the processes share the sentences out and rank 0
    writes OUT (docs/scaling.md)."""
    from ..io import check_output_file
    from ..scoring.distributed import is_main
    from ..scoring.normalize import parse_normalize

    if out.suffix.lower() not in {".jsonl", ".csv"}:
        raise FairpairsError(f"--out {out}: extension must be .jsonl or .csv")
    check_output_file(out, "--out", inputs=[input_path, morcela_params, unigrams])
    names = parse_normalize(normalize)
    if "morcela" in names and morcela_params is None:
        raise FairpairsError("--normalize morcela needs --morcela-params (from `fairpairs morcela fit`)")
    rows, pairs = read_input(input_path)
    scorer = _scorer(model, kind, pll, device, dtype, device_map, batch_tokens, progress)
    if pairs:
        sentences = [s for r in rows for s in (r["sentence_good"], r["sentence_bad"])]
    else:
        sentences = [r["sentence"] for r in rows]
    t0 = time.perf_counter()
    df = scorer.score(sentences, normalize=names, unigrams=unigrams, alpha=alpha,
                      morcela_params=morcela_params)
    secs = time.perf_counter() - t0
    if pairs:
        import pandas as pd

        lead = {"pair_index": [i // 2 for i in range(len(sentences))],
                "which": ["good", "bad"] * len(rows)}
        for key in ("UID", "pairID"):
            if all(key in r for r in rows):
                lead[key] = [str(r[key]) for r in rows for _ in (0, 1)]
        df = pd.concat([pd.DataFrame(lead), df], axis=1)
    if not is_main():
        return
    write_table(df, out)
    click.echo(f"scored {len(sentences)} sentences in {secs:.1f} s "
               f"({len(sentences) / max(secs, 1e-9):.1f} sentences/s) -> {out}", err=True)
    if pairs:
        metrics = ["sum_logprob"] + [n for n in names if n != "lp"]
        good, bad = df[df["which"] == "good"], df[df["which"] == "bad"]
        accs = [f"{m} {(good[m].to_numpy() > bad[m].to_numpy()).mean():.3f}" for m in metrics]
        click.echo("accuracy (good > bad): " + ", ".join(accs), err=True)


@click.command()
@click.option("--model", required=True, help="Model (or tokenizer) whose tokens are counted.")
@click.option("--corpus", "corpus", multiple=True, required=True, type=click.Path(path_type=Path),
              help="Plain-text file(s), UTF-8; repeat for several.")
@click.option("--out", type=click.Path(path_type=Path), required=True, help="Table file (.json).")
def unigrams(model, corpus, out):
    """Count a model's tokens on plain text: a unigram table (add-one smoothed) for SLOR/MORCELA."""
    from ..io import check_output_file
    from ..scoring.normalize import UnigramTable
    from ..tokenization import load_tokenizer

    if out.suffix.lower() != ".json":
        raise FairpairsError(f"--out {out}: the table is JSON; give a file name ending in .json")
    for f in corpus:
        if f.is_dir():
            raise DatasetError(f"--corpus {f}: is a folder; give plain-text files (repeat --corpus)")
        if not f.is_file():
            raise DatasetError(f"--corpus {f}: no such file")
    check_output_file(out, "--out", inputs=corpus)
    tok = load_tokenizer(model)
    table = UnigramTable.count(tok, corpus, model=model)
    if table.total == 0:
        raise DatasetError(f"--corpus {', '.join(map(str, corpus))}: no tokens counted (empty corpus)")
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
def fit(model, kind, pll, device, dtype, device_map, batch_tokens, progress, judgments, measure, unigrams,
        folds, seed, out):
    """Fit beta and gamma on z-scored judgments; report cross-validated r of MORCELA, SLOR, LP."""
    from ..io import atomic_write, check_output_file
    from ..scoring import morcela as mc
    from ..scoring.distributed import is_main

    check_output_file(out, "--out", inputs=[judgments])
    sentences, ys, dropped = mc.read_judgments_counted(judgments, measure)
    if dropped:
        click.echo(f"fairpairs: warning: --judgments {judgments}: left out "
                   + ", ".join(f"{n} row(s) with {why}" for why, n in dropped.items())
                   + f"; fitting {len(sentences)} sentences", err=True)
    scorer = _scorer(model, kind, pll, device, dtype, device_map, batch_tokens, progress)
    df = scorer.score(sentences, normalize=("slor",), unigrams=unigrams)
    if not is_main():  # under torchrun / accelerate launch the ranks share the scoring; rank 0 fits and writes
        return
    p, u, n = (df[c].to_numpy(float) for c in ("sum_logprob", "unigram_logprob", "n_tokens"))
    result = mc.fit(p, u, n, ys)
    result.cv = mc.cross_validate(p, u, n, ys, folds=folds, seed=seed)
    result.meta = {"model": model, "kind": scorer.kind, "pll": scorer.pll if scorer.kind == "masked" else None,
                   "unigrams": str(unigrams) if unigrams else "wordfreq", "measure": measure,
                   "judgments": judgments.name,
                   "judgments_sha256": hashlib.sha256(judgments.read_bytes()).hexdigest()}
    atomic_write(out, result.to_json())
    cv = result.cv
    click.echo(f"MORCELA on {result.n} sentences: beta = {result.beta:.4f}, gamma = {result.gamma:.4f}\n"
               f"{folds}-fold CV Pearson r: MORCELA {cv['morcela']:.3f}, SLOR {cv['slor']:.3f}, "
               f"LP {cv['lp']:.3f}\nparameters -> {out}")
