"""`fairpairs publish`: a generated run -> Hub dataset repository (parquet, card, lm-eval tasks)."""

from __future__ import annotations

from pathlib import Path

import click


@click.command()
@click.argument("run_dir", type=click.Path(path_type=Path))
@click.option("--repo-id", required=True, help="Hub dataset repository, owner/name.")
@click.option("--private", is_flag=True, help="Create the repository as private (if it is new).")
@click.option("--set", "set", type=click.Choice(["debiased", "original", "both"]),
              default="debiased", show_default=True,
              help="Which pairs to publish: debiased -> configs UID, original -> configs UID-original.")
@click.option("--dry-run", is_flag=True, help="Build the folder only; upload nothing.")
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="Where to build the Hub-ready folder [default: RUN_DIR/hub].")
def publish(run_dir: Path, repo_id: str, private: bool, set: str, dry_run: bool, out: Path | None):  # noqa: A002
    """Build a Hub-ready dataset folder from RUN_DIR and upload it (unless --dry-run).

    One config per paradigm, split `train`, parquet files; a dataset card (README.md); an
    lm-evaluation-harness task folder under lm_eval/. The token comes from HF_TOKEN or
    `hf auth login`. If the upload fails, the built folder is kept.
    """
    from fairpairs.api import publish as run

    def built(b):
        click.echo(f"built {b.folder}: {len(b.configs)} configs, {b.n_pairs} pairs")
        if b.checks is not None:
            click.echo(b.checks.summary())
        for name in b.skipped:
            click.echo(f"fairpairs: warning: {name} has no pairs; not published", err=True)

    result = run(run_dir, repo_id, out=out, set=set, private=private, dry_run=dry_run, on_built=built)
    if dry_run:
        click.echo("dry run: nothing uploaded")
    else:
        click.echo(f"uploaded: {result.repo_url}")
        click.echo(f"commit: {result.commit_url}")
