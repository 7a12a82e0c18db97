"""`fairpairs robustness`: how far each acceptability score depends on token length
(docs/robustness.md)."""

from __future__ import annotations

from pathlib import Path

import click

from fairpairs.api.settings import PLL_VARIANTS, RobustnessConfig
from fairpairs.commands.choices import RegistryChoice
from fairpairs.commands.options import option


@click.command()
@click.option("--models", "-m", required=True, help="Comma-separated models: Hub names, local folders or aliases such as smollm2-135m.")
@click.option("--data", "-d", "data", required=True, type=click.Path(path_type=Path),
              help="A run folder of `fairpairs generate` (original + debiased), or any dataset `fairpairs audit` accepts.")
@click.option("--out", "-o", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder for robustness.csv and robustness.md (default: print only).")
@option(RobustnessConfig, "cache_dir", "--cache-dir", type=click.Path(file_okay=False, path_type=Path))
@option(RobustnessConfig, "length_params", "--length-params")
@option(RobustnessConfig, "morcela_params", "--morcela-params")
@option(RobustnessConfig, "pll", "--pll", type=RegistryChoice(PLL_VARIANTS))
@option(RobustnessConfig, "device", "--device")
@option(RobustnessConfig, "batch_tokens", "--batch-tokens", type=click.IntRange(min=1))
def robustness(models, data, out, cache_dir, length_params, morcela_params, pll, device, batch_tokens):
    """For every score (lp, mean_lp, pen_lp, slor, morcela, slln_lp, tc_lp, tcf_lp, word_lp,
    word_mean_lp, centered_lp, entropy_lp): accuracy on the A=U / A>U / A<U splits by each model's own
    tokenizer, the length gap (A>U - A<U accuracy), the A=U fidelity (the score's A=U accuracy
    minus LP's) and, for a run folder, the score on the original set against LP on the matched
    debiased contexts; 95% intervals throughout (Wilson, Newcombe). A figure from fewer than 10
    pairs is printed as "too few pairs"."""
    from fairpairs.api.reports import robustness_into
    from fairpairs.commands.analysis import names_option

    _, text = robustness_into(data, names_option(models, "--models"), out=out, cache_dir=cache_dir,
                              length_params=length_params, morcela_params=morcela_params, pll=pll, device=device,
                              batch_tokens=batch_tokens)
    click.echo(text)
    if out is not None:
        click.echo(f"wrote {out}/robustness.csv and {out}/robustness.md", err=True)
