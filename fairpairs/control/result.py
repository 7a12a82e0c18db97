"""What a generation run returns (`fp.generate_run`, `fairpairs generate`): `RunResult`, each
paradigm's account of length control, its balance and the original set's length bias, and how it
shows itself: the account as a DataFrame (`table`) and the end-of-run table and its summary on a
rich console (`show`; `LexiconReport.show`), which the command prints as they are."""

from __future__ import annotations

from dataclasses import dataclass, field

from fairpairs.control.balance_measures import LOW_DIVERSITY, SMD_LIMIT, TVD_LIMIT
from fairpairs.control.balance_report import balance_summary
from fairpairs.control.config import RunConfig
from fairpairs.manifest import BalanceEntry, ParadigmStats, verdict_text


@dataclass
class RunResult:
    stats: dict[str, dict[str, ParadigmStats]] = field(default_factory=dict)   # uid -> set -> stats
    strategy: str = RunConfig.strategy
    balance: dict[str, dict] = field(default_factory=dict)    # uid -> records.BalanceEntry
    verdict: dict | None = None     # the manifest's verdict (short paradigms, comparability), None: all well
    original_bias: dict[str, dict] = field(default_factory=dict)   # tokenizer -> manifest.PooledSplits
    splits: dict[str, dict] = field(default_factory=dict)   # uid -> tokenizer -> the original set's manifest.LengthSplits

    def table(self, balance: bool = False):
        """A pandas DataFrame, one row per paradigm and set (uid, set, then length control's account
        under the manifest's names: draws, ..., kept_as_drawn, ..., yield, retention, draws_per_kept).
        `balance`: add the paradigm's balance report (records.BalanceEntry, as in the manifest) to
        its debiased row."""
        import pandas as pd

        names = list(ParadigmStats().as_dict())
        rows = []
        for uid, sets in self.stats.items():
            for which, st in sets.items():
                row = {"uid": uid, "set": which, **st.as_dict()}
                if balance and which == "debiased":   # (retention is the same figure in both)
                    row.update({k: v for k, v in (self.balance.get(uid) or {}).items() if k not in row})
                rows.append(row)
        extra = [k for k in BalanceEntry.__annotations__ if k not in names] if balance else []
        return pd.DataFrame(rows, columns=["uid", "set", *names, *extra])

    def verdict_text(self) -> str:
        """The verdict in words (`manifest.verdict_text`): short paradigms, a set not comparable;
        empty when all is well."""
        return verdict_text(self.verdict)

    def show(self, console, out) -> None:
        """Print on the rich `console` the end-of-run table of the run written to `out`: how length
        control treated each paradigm's draws (the manifest's `debiased_stats`, same names), the
        original set's A=U / A>U / A<U counts per tokenizer (the manifest's `original_bias`) and the
        debiased set's balance against the original set; then the legend, the balance summary, the
        original set's bias and the verdict."""
        dropped = any(sets["debiased"].dropped for sets in self.stats.values())
        table, flagged = self._table(out, dropped)
        console.width = max(console.width, 180 + 22 * len(self.original_bias))   # never truncate when not a terminal
        console.print(table)
        console.print(("! marks a paradigm short of --pairs (its budget ended; the manifest says why). " if self.verdict
                       and self.verdict["short"] else "") + legend(dropped) + f" Balance of the debiased set against "
                      f"the original set (`fairpairs balance {out}`): {balance_summary(self.balance.values())}"
                      + (" * marks what is out:" if flagged else ""), markup=False)
        for uid, flags in flagged:
            console.print(f"  {uid}: " + "; ".join(flags))
        for tok, p in self.original_bias.items():   # the original set's bias over every paradigm, per tokenizer
            shares = p["shares"] or {}
            console.print(f"Original set under {tok}: " + ", ".join(
                f"{s} {p['counts'][s]:,}" + (f" ({shares[s]:.1%})" if s in shares else "") for s in ("A=U", "A>U", "A<U"))
                + f" of {p['pairs']:,} pairs.", markup=False, highlight=False)
        if self.verdict:
            console.print(f"Verdict: {self.verdict_text()}. (--strict makes this an error.)", markup=False)

    def _table(self, out, dropped: bool):
        """(the rich Table of `show`, the paradigms flagged out of balance with their flags)."""
        from rich.table import Table

        tokenizers = list(self.original_bias)
        # yield = own / drawn and retention = own / kept differ only where contexts were dropped (drawn = kept + dropped)
        t = Table(title=f"Length control per paradigm ({self.strategy}) -> {out}")
        cols = ("paradigm", *(f"{tok} orig =/>/<" for tok in tokenizers), "kept", "as drawn", "bad redrawn", "replaced",
                "dropped", *(("yield",) if dropped else ()), "retention", "SMD Zipf", "SMD words", "TVD", "distinct")
        for col in cols:
            t.add_column(col, justify="left" if col == "paradigm" else "right", no_wrap=True)
        flagged = []
        for uid, sets in self.stats.items():
            d, b = sets["debiased"], self.balance.get(uid, {})
            ratio, tvd = b.get("distinct_ratio"), b.get("tvd_slots")
            kept = f"{d.kept}!" if uid in ((self.verdict or {}).get("short") or ()) else str(d.kept)
            t.add_row(uid, *(_splits((self.splits.get(uid) or {}).get(tok)) for tok in tokenizers), kept,
                      str(d.kept_as_drawn), str(d.kept_redrawn), str(d.replaced), str(d.dropped),
                      *((_share(d.yield_),) if dropped else ()), _share(d.retention), _smd(b.get("smd_zipf_good")),
                      _smd(b.get("smd_words_good")), "-" if tvd is None else f"{tvd:.2f}" + ("*" if tvd > TVD_LIMIT else ""),
                      "-" if ratio is None else f"{ratio:.0%}" + ("*" if ratio < LOW_DIVERSITY else ""))
            if b.get("flags"):
                flagged.append((uid, b["flags"] + b.get("causes", [])))
        if len(self.stats) > 1:     # the same account, pooled (manifest.ParadigmStats.pooled)
            tot = ParadigmStats.pooled(sets["debiased"] for sets in self.stats.values())
            t.add_row("total", *(_splits(self.original_bias[tok]["counts"]) for tok in tokenizers), str(tot.kept),
                      str(tot.kept_as_drawn), str(tot.kept_redrawn), str(tot.replaced), str(tot.dropped),
                      *((_share(tot.yield_),) if dropped else ()), _share(tot.retention), "", "", "", "", style="bold")
        return t, flagged


class LexiconReport(dict):
    """What a corpus restriction kept (`fp.generate_run` gives it to `on_lexicon` before the pairs
    are drawn): the manifest's `lexicon` (a dict, `manifest.LexiconInfo`), which shows itself."""

    def show(self, console) -> None:
        """Print on the rich `console` per paradigm and slot the candidates the corpus knows / all."""
        from rich.table import Table

        t = Table(title=f"Candidates seen >= {self['min_count']} times in {self['corpus']} "
                        f"({self['words_kept']} words) / all candidates")
        t.add_column("paradigm", no_wrap=True)
        t.add_column("slots: kept/candidates")
        for uid, slots in self["paradigms"].items():
            t.add_row(uid, ", ".join(f"{k.removeprefix('slots.')} {c['kept']}/{c['candidates']}" for k, c in slots.items()))
        console.width = max(console.width, 160)
        console.print(t)


def legend(dropped: bool) -> str:
    """What the table's columns mean: `yield` is shown only where it differs from `retention`."""
    return ("`<tokenizer> orig =/>/<`: pairs of the original set (no length control) whose acceptable sentence A "
            "has as many (A=U), more (A>U) or fewer (A<U) tokens than the unacceptable U; every debiased pair is "
            "A=U under every tokenizer. retention = kept with their own context / kept"
            + ("; yield = kept with their own context / contexts drawn (= kept + dropped)." if dropped else
               " (= yield, kept with their own context / contexts drawn: no context was dropped)."))


def _smd(v) -> str:
    return "-" if v is None else f"{v:+.2f}" + ("*" if abs(v) > SMD_LIMIT else "")


def _share(v) -> str:
    return "-" if v is None else f"{v:.1%}"


def _splits(counts) -> str:
    return "-" if counts is None else f"{counts['A=U']:,}/{counts['A>U']:,}/{counts['A<U']:,}"
