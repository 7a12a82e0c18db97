"""`fairpairs validate`: check paradigm files without generating."""

from __future__ import annotations

from pathlib import Path

import click


@click.command()
@click.argument("files", nargs=-1, type=click.Path(path_type=Path))
@click.option("--vocab", "vocab_path", default=None, type=click.Path(dir_okay=False, path_type=Path),
              help="A vocabulary table of your own (CSV with the bundled table's columns) [default: the bundled one].")
def validate(files, vocab_path):
    """Check paradigm files (or folders of them) as generation loads them, without generating.

    With no FILES: the bundled paradigms. Prints one line per broken file (file: field: problem)
    and exits 1, or a one-line OK summary.
    """
    from fairpairs.api import validate as validate_files
    from fairpairs.api.generation import own_vocabulary

    vocab = own_vocabulary(vocab_path) if vocab_path else None   # None: each paradigm's language's table
    results = validate_files(list(files) or None, vocab)
    broken = [(f, r) for f, r in results if isinstance(r, Exception)]
    for _, err in broken:
        click.echo(str(err))
    if broken:
        click.echo(f"{len(broken)} of {len(results)} paradigm file(s) broken", err=True)
        raise SystemExit(1)
    if not results:
        raise click.UsageError("no paradigm files found in FILES")
    n_slots = sum(len(p.slots) for _, p in results)
    tables = {Path(p.vocab.source).name: len(p.vocab) for _, p in results}
    click.echo(f"OK: {len(results)} paradigm file(s), {n_slots} slots, each slot with candidates in "
               + ", ".join(f"{name} ({rows} rows)" for name, rows in tables.items()))
