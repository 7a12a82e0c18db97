"""`fairpairs generate` and `fairpairs paradigms`."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import click

from fairpairs.api.settings import LANGUAGES, STRATEGIES, RunConfig
from fairpairs.commands.choices import RegistryChoice
from fairpairs.commands.options import option


def _text(arg: str) -> str:
    """An argument as text for the manifest; bytes that are not UTF-8 are shown escaped (\\xff)."""
    return arg.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def _split(value: str) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()]


@click.command()
@option(RunConfig, "models", "--models")
@option(RunConfig, "paradigms", "--paradigms", "paradigms_spec")
@option(RunConfig, "phenomenon", "--phenomenon", show_default=False)
@option(RunConfig, "pairs", "--pairs", type=click.IntRange(1))
@option(RunConfig, "seed", "--seed", type=click.IntRange(0))
@option(RunConfig, "strategy", "--strategy", type=RegistryChoice(STRATEGIES))
@option(RunConfig, "max_retries", "--max-retries", type=click.IntRange(0), show_default=False)
@option(RunConfig, "match_frequency", "--match-frequency", "match_frequency", type=click.FloatRange(0),
        metavar="TOL", show_default=False)
@option(RunConfig, "max_draws", "--max-draws", type=click.IntRange(1), show_default=False)
@click.option("--out", "out", default=None, type=click.Path(file_okay=False, path_type=Path),
              help="Output folder [default: outputs/<models>-s<seed>].")
@option(RunConfig, "grammars", "--grammars", "grammar_dir", type=click.Path(exists=True, file_okay=False, path_type=Path),
        show_default=False)
@click.option("--vocab", "vocab_path", default=None, type=click.Path(dir_okay=False, path_type=Path),
              help="A vocabulary table of your own (CSV with the bundled table's columns; docs/vocabulary.md) "
                   "[default: the bundled, fixed BLiMP table].")
@option(RunConfig, "lexicon_from", "--lexicon-from", "lexicon_from", type=click.Path(dir_okay=False, path_type=Path),
        metavar="CORPUS", show_default=False)
@option(RunConfig, "min_count", "--min-count", type=click.IntRange(1), metavar="K", show_default=False)
@click.option("--strict", is_flag=True,
              help="A paradigm that cannot reach --pairs, or a debiased set not comparable with the original, "
                   "is an error (exit 1, nothing written) [default: the run keeps what each paradigm reached "
                   "and marks it in the table, manifest and card].")
@click.option("--quiet", is_flag=True, help="No progress bar or table.")
def generate(models, paradigms_spec, phenomenon, pairs, seed, strategy, max_retries, match_frequency, max_draws, out,
             grammar_dir, vocab_path, lexicon_from, min_count, strict, quiet):
    """Generate minimal pairs, original and token-length controlled (debiased).

    Writes OUT/original/<uid>.jsonl, OUT/debiased/<uid>.jsonl and OUT/manifest.json.
    Token length = tokens of the sentence as written, special tokens excluded.
    """
    from fairpairs.api import generate_run
    from fairpairs.api.settings import saying, scoped

    given = _split(models)
    if out is None:
        slug = "+".join(m.replace("/", "_").replace(":", "_") for m in given)
        out = Path("outputs") / f"{slug}-s{seed}"
    # the bars where someone watches; what each step does said in a log too; nothing with --quiet
    with scoped(False if quiet else None), saying(not quiet):
        result = generate_run(out, paradigms_spec, given, pairs=pairs, seed=seed, strategy=strategy,
                              max_retries=max_retries, match_frequency=match_frequency, max_draws=max_draws,
                              phenomenon=phenomenon, grammars=grammar_dir, vocab=vocab_path,
                              lexicon_from=lexicon_from, min_count=min_count, strict=strict,
                              on_lexicon=None if quiet else print_lexicon,
                              command=" ".join(["fairpairs", *(shlex.quote(_text(a)) for a in sys.argv[1:])]))
    if not quiet:     # (a table: on stdout, as every command's; progress and warnings go to stderr)
        from rich.console import Console

        result.show(Console(), out)
    elif result.verdict:     # (a short or non-comparable set is never silent)
        click.echo(f"fairpairs: warning: {result.verdict_text()}", err=True)


def print_lexicon(lexicon) -> None:
    """What the corpus restriction kept, before the pairs are drawn (a table: on stdout)."""
    from rich.console import Console

    lexicon.show(Console())


@click.command()
@click.option("--verbose", "-v", is_flag=True, help="Also show phenomenon, field and slots.")
@click.option("--phenomenon", default=None, help="Only paradigms of this phenomenon.")
@click.option("--language", default=None, type=RegistryChoice(LANGUAGES),
              help="Only paradigms of this language (`fairpairs languages` describes each) [default: en].")
@click.option("--grammars", "grammar_dir", default=None, type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="Folder of paradigm files [default: the bundled grammars/].")
def paradigms(verbose, phenomenon, language, grammar_dir):
    """List the paradigms (one UID per line); `fairpairs languages` lists the other languages'."""
    from fairpairs.api.generation import listed_paradigms

    ps = listed_paradigms(grammar_dir, phenomenon, language)
    for p in ps:
        if verbose:
            crit = ",".join(p.critical) or "(reorder)"
            std = "" if p.standard else "\t(not in standard BLiMP)"
            click.echo(f"{p.uid}\t{p.phenomenon}\t{p.field}\tslots={','.join(p.slots)}\tcritical={crit}{std}")
        else:
            click.echo(p.uid)


@click.command()
@click.option("--json", "as_json", is_flag=True, help="One JSON object per language instead of the table.")
@click.option("--grammars", "grammar_dir", default=None, type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="Folder of paradigm files [default: the bundled grammars/].")
def languages(as_json, grammar_dir):
    """List the languages that have paradigms: code, name, how many paradigms, where they come
    from and their licence, and the tokenizers under which their contrasts can be equalised
    (`fairpairs paradigms --language CODE` lists a language's paradigms; docs/multilingual.md)."""
    import json

    from fairpairs.api import languages as listing

    rows = listing(grammar_dir)
    if as_json:
        for r in rows:
            click.echo(json.dumps(r, ensure_ascii=False))
        return
    for r in rows:
        click.echo(f"{r['code']}  {r['name']:<8} {r['paradigms']:>3} paradigms  {r['source']}, {r['licence']}")
        click.echo(f"{'':14}suit: {', '.join(r['tokenizers']) or '-'}; "
                   f"paradigms: fairpairs paradigms --language {r['code']}")
