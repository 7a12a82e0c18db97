"""`fairpairs generate` and `fairpairs paradigms`."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import click

from fairpairs.api.commandline import LANGUAGES, STRATEGIES, RunConfig
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
    from fairpairs.api.commandline import saying, scoped

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
    if not quiet:
        print_table(result, out)
    elif result.verdict:     # (a short or non-comparable set is never silent)
        from fairpairs.api.commandline import verdict_text

        click.echo(f"fairpairs: warning: {verdict_text(result.verdict)}", err=True)


def print_lexicon(lexicon: dict) -> None:
    from rich.console import Console
    from rich.table import Table

    t = Table(title=f"Candidates seen >= {lexicon['min_count']} times in {lexicon['corpus']} "
                    f"({lexicon['words_kept']} words) / all candidates")
    t.add_column("paradigm", no_wrap=True)
    t.add_column("slots: kept/candidates")
    for uid, slots in lexicon["paradigms"].items():
        t.add_row(uid, ", ".join(f"{k.removeprefix('slots.')} {c['kept']}/{c['candidates']}" for k, c in slots.items()))
    console = Console()      # (a table: on stdout, as every command's)
    console.width = max(console.width, 160)
    console.print(t)


def print_table(result, out: Path) -> None:
    """The end-of-run table: how length control treated each paradigm's draws (the manifest's
    `debiased_stats`, same names), the original set's A=U / A>U / A<U counts per tokenizer (the
    manifest's `original_bias`) and the debiased set's balance against the original set."""
    from rich.console import Console
    from rich.table import Table

    from fairpairs.api.commandline import LOW_DIVERSITY, SMD_LIMIT, TVD_LIMIT, ParadigmStats, balance_summary as summary

    tokenizers = list(result.original_bias)
    # yield = own / drawn and retention = own / kept differ only where contexts were dropped (drawn = kept + dropped)
    dropped = any(sets["debiased"].dropped for sets in result.stats.values())
    t = Table(title=f"Length control per paradigm ({result.strategy}) -> {out}")
    cols = ("paradigm", *(f"{tok} orig =/>/<" for tok in tokenizers), "kept", "as drawn", "bad redrawn", "replaced",
            "dropped", *(("yield",) if dropped else ()), "retention", "SMD Zipf", "SMD words", "TVD", "distinct")
    for col in cols:
        t.add_column(col, justify="left" if col == "paradigm" else "right", no_wrap=True)

    def smd(v):
        return "-" if v is None else f"{v:+.2f}" + ("*" if abs(v) > SMD_LIMIT else "")

    def share(v):
        return "-" if v is None else f"{v:.1%}"

    def splits(counts):
        return "-" if counts is None else f"{counts['A=U']:,}/{counts['A>U']:,}/{counts['A<U']:,}"

    flagged = []
    for uid, sets in result.stats.items():
        d, b = sets["debiased"], result.balance.get(uid, {})
        ratio = b.get("distinct_ratio")
        tvd = b.get("tvd_slots")
        kept = f"{d.kept}!" if uid in ((result.verdict or {}).get("short") or ()) else str(d.kept)
        t.add_row(uid, *(splits((result.splits.get(uid) or {}).get(tok)) for tok in tokenizers), kept,
                  str(d.kept_as_drawn), str(d.kept_redrawn), str(d.replaced), str(d.dropped),
                  *((share(d.yield_),) if dropped else ()), share(d.retention), smd(b.get("smd_zipf_good")),
                  smd(b.get("smd_words_good")), "-" if tvd is None else f"{tvd:.2f}" + ("*" if tvd > TVD_LIMIT else ""),
                  "-" if ratio is None else f"{ratio:.0%}" + ("*" if ratio < LOW_DIVERSITY else ""))
        if b.get("flags"):
            flagged.append((uid, b["flags"] + b.get("causes", [])))
    if len(result.stats) > 1:     # the same account, pooled (manifest.ParadigmStats.pooled)
        tot = ParadigmStats.pooled(sets["debiased"] for sets in result.stats.values())
        t.add_row("total", *(splits(result.original_bias[tok]["counts"]) for tok in tokenizers), str(tot.kept),
                  str(tot.kept_as_drawn), str(tot.kept_redrawn), str(tot.replaced), str(tot.dropped),
                  *((share(tot.yield_),) if dropped else ()), share(tot.retention), "", "", "", "", style="bold")
    console = Console()      # (a table: on stdout, as every command's; progress and warnings go to stderr)
    console.width = max(console.width, 180 + 22 * len(tokenizers))   # never truncate figures when stdout is not a terminal
    console.print(t)
    console.print(("! marks a paradigm short of --pairs (its budget ended; the manifest says why). " if result.verdict
                   and result.verdict["short"] else "") + legend(dropped) + f" Balance of the debiased set against "
                  f"the original set (`fairpairs balance {out}`): {summary(result.balance.values())}"
                  + (" * marks what is out:" if flagged else ""), markup=False)
    for uid, flags in flagged:
        console.print(f"  {uid}: " + "; ".join(flags))
    print_bias(console, result.original_bias)
    if result.verdict:
        from fairpairs.api.commandline import verdict_text

        console.print(f"Verdict: {verdict_text(result.verdict)}. (--strict makes this an error.)", markup=False)


def legend(dropped: bool) -> str:
    """What the table's columns mean: `yield` is shown only where it differs from `retention`."""
    return ("`<tokenizer> orig =/>/<`: pairs of the original set (no length control) whose acceptable sentence A "
            "has as many (A=U), more (A>U) or fewer (A<U) tokens than the unacceptable U; every debiased pair is "
            "A=U under every tokenizer. retention = kept with their own context / kept"
            + ("; yield = kept with their own context / contexts drawn (= kept + dropped)." if dropped else
               " (= yield, kept with their own context / contexts drawn: no context was dropped)."))


def print_bias(console, pooled: dict) -> None:
    """The original set's token-length bias over every paradigm, per tokenizer: counts and shares."""
    for tok, p in pooled.items():
        shares = p["shares"] or {}
        console.print(f"Original set under {tok}: " + ", ".join(
            f"{s} {p['counts'][s]:,}" + (f" ({shares[s]:.1%})" if s in shares else "") for s in ("A=U", "A>U", "A<U"))
            + f" of {p['pairs']:,} pairs.", markup=False, highlight=False)


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
