"""Balance: is the debiased set drawn like the original set in everything but token length?

A debiased set answers "how much of a model's accuracy is token-length bias?" only if it differs
from the original set in length balance and nothing else. This module measures the rest, from the
*written pairs* and the vocabulary (it does not use the control code that made them):

- standardised mean differences (SMD, debiased minus original, `fairpairs.stats.smd`) of the good
  sentence's critical-word Zipf frequency, word count and character count, of the bad sentence's
  critical-word Zipf (shown, not a target: equalising lengths changes the bad word by design) and
  of the within-pair |ΔZipf|;
- total-variation distances (TVD) of each slot's filler distribution over the vocabulary features
  the grammar file names for it (plus number, proper noun, animacy and mass where they vary among
  the slot's candidates, and the determiner of a determiner phrase), and of the template variants
  (the values of the literal slots);
- the distinct-word ratio (distinct critical words, good and bad, of the debiased set / the
  original set's) and context retention (the share of debiased pairs that kept the context first
  drawn for their draw);
- a flag where |SMD| > 0.1 or TVD > 0.1 (the matching literature's convention) or the distinct-word
  ratio is below 0.7, with the cause where the run recorded one.

`balance_table(original_rows, debiased_rows, ...)` works on jsonl rows (dicts); `fp.balance` reads a
run folder or any two sets. Rows without `critical_good` (data of other tools) take the words in
which the two sentences differ as their critical words.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from typing import Any

import numpy as np

from fairpairs import stats
from fairpairs.manifest import RunManifest
from fairpairs.control.balance_measures import ALL, LOW_DIVERSITY, SMD_LIMIT, SlotFeatures, TVD_LIMIT, pair_measures, retention


# ---------------------------------------------------------------------------- the table
def _r(x, nd: int = 4):
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else round(float(x), nd)


def differences(a: dict, b: dict) -> dict[str, Any]:
    """The SMDs (and mean |ΔZipf|) of an entry, from the pair_measures of its two sets."""
    return {
        "smd_zipf_good": _r(stats.smd(a["zipf_good"], b["zipf_good"])),
        "smd_words_good": _r(stats.smd(a["words_good"], b["words_good"])),
        "smd_chars_good": _r(stats.smd(a["chars_good"], b["chars_good"])),
        "smd_zipf_bad": _r(stats.smd(a["zipf_bad"], b["zipf_bad"])),
        "smd_dzipf": _r(stats.smd(a["dzipf"], b["dzipf"])),
        "mean_dzipf_original": _r(_mean(a["dzipf"])), "mean_dzipf_debiased": _r(_mean(b["dzipf"])),
    }


def paradigm_balance(original: list[Mapping], debiased: list[Mapping], *, features: SlotFeatures | None = None,
                     language: str = "en", keep: dict | None = None) -> dict[str, Any]:
    """One paradigm's balance entry (records.BalanceEntry) from its two sets' rows; `keep`: a dict
    that receives the two sets' pair measures (original, debiased), for a pooled row."""
    vs = features.vocab_slots if features is not None else None
    a, b = pair_measures(original, language, vs), pair_measures(debiased, language, vs)
    if keep is not None:
        keep.update(original=a, debiased=b)
    tvd_max, tvd_where, tvd_var = None, "", None
    notes: list[str] = []
    if features is not None:
        ca, cb = features.counts(original), features.counts(debiased)
        for key in sorted(set(ca) | set(cb)):
            t = stats.tvd(ca.get(key, Counter()), cb.get(key, Counter()))
            if not math.isnan(t) and (tvd_max is None or t > tvd_max):
                tvd_max, tvd_where = t, key
            if not math.isnan(t) and t > TVD_LIMIT:
                notes.append(f"{key}: TVD {t:.2f} ({_share(ca.get(key))} -> {_share(cb.get(key))})")
        if features.literal:
            tvd_var = stats.tvd(features.variants(original), features.variants(debiased))
            if not math.isnan(tvd_var) and tvd_var > TVD_LIMIT:
                notes.append(f"template variants: TVD {tvd_var:.2f}")
    entry = {
        "n_original": len(original), "n_debiased": len(debiased),
        **differences(a, b),
        "tvd_slots": _r(tvd_max), "tvd_slots_feature": tvd_where, "tvd_variant": _r(tvd_var),
        "distinct_original": len(a["distinct"]), "distinct_debiased": len(b["distinct"]),
        "distinct_ratio": _r(len(b["distinct"]) / len(a["distinct"])) if a["distinct"] else None,
        "retention": _r(retention(original, debiased)),
        "extension_share": _r(features.extension_share(debiased)) if features is not None else None,
    }
    flags = []
    for key, what in (("smd_zipf_good", "critical-word frequency"), ("smd_words_good", "word count"),
                      ("smd_chars_good", "character count")):
        v = entry[key]
        if v is not None and abs(v) > SMD_LIMIT:
            flags.append(f"{what}: SMD {v:+.2f}")
    flags += notes
    if entry["distinct_ratio"] is not None and entry["distinct_ratio"] < LOW_DIVERSITY:
        flags.append(f"vocabulary: {entry['distinct_debiased']} distinct critical words "
                     f"(original {entry['distinct_original']})")
        flags.append(_missing_words(a["distinct"], b["distinct"]))
    empty = [name for name, rows in (("original", original), ("debiased", debiased)) if not rows]
    if empty:    # nothing to compare: not balanced, whatever the (undefined) differences say
        flags.insert(0, f"empty: no pairs in the {' and '.join(empty)} set")
    entry["balanced"] = not empty and not any(
        v is not None and abs(v) > SMD_LIMIT for v in (entry["smd_zipf_good"], entry["smd_words_good"])
    ) and not any(v is not None and v > TVD_LIMIT for v in (entry["tvd_slots"], entry["tvd_variant"]))
    entry["flags"] = flags
    entry["causes"] = _frequency_cause(entry, a, debiased, language)
    return entry


def _missing_words(original: Counter, debiased: Counter, shown: int = 8) -> str:
    """The original set's critical words that the debiased set never uses, the most used first: the
    words length control could not keep (no equal-length alternative under these tokenizers)."""
    missing = sorted((w for w in original if w not in debiased), key=lambda w: (-original[w], w))
    more = f" (+{len(missing) - shown} more)" if len(missing) > shown else ""
    return f"not in the debiased set: {', '.join(missing[:shown])}{more}"


def _frequency_cause(entry: dict, original: dict, debiased: list[Mapping], language: str) -> list[str]:
    """Where the critical-word frequency is out of balance and rows say which contexts were
    replaced: how the replaced contexts' words compare with the original set's."""
    v = entry["smd_zipf_good"]
    if v is None or abs(v) <= SMD_LIMIT or not all("control" in r for r in debiased):
        return []
    replaced = [r for r in debiased if r["control"] == "replaced"]
    z = pair_measures(replaced, language)["zipf_good"] if replaced else np.array([])
    z0 = original["zipf_good"]
    if not len(z) or np.isnan(z).all():
        return []
    return [f"the {len(replaced) / len(debiased):.0%} replaced contexts have critical words of mean Zipf "
            f"{_mean(z):.2f} (original set {_mean(z0):.2f}): the words their contexts could be equalised "
            f"with are {'rarer' if _mean(z) < _mean(z0) else 'more frequent'}"]


def balance_summary(entries) -> str:
    """One sentence on a run's balance from its paradigms' entries (BalanceEntry dicts)."""
    entries = list(entries)
    n_bal = sum(bool(e.get("balanced")) for e in entries)
    low = sum(e.get("distinct_ratio") is not None and e["distinct_ratio"] < LOW_DIVERSITY for e in entries)
    return (f"{n_bal} of {len(entries)} paradigm(s) balanced (|SMD| <= {SMD_LIMIT} on the good sentences' "
            f"critical-word Zipf and word count, TVD <= {TVD_LIMIT})"
            + (f"; {low} with a distinct-word ratio below {LOW_DIVERSITY:.0%}" if low else "") + ".")


class BalanceReport:
    """A balance table (`fp.balance`'s DataFrame, as `table`) and how it shows itself: `fairpairs
    balance` prints `show`."""

    COLUMNS = ("paradigm", "n orig", "n deb", "SMD Zipf", "SMD words", "SMD chars", "SMD Zipf bad", "SMD |dZipf|",
               "TVD slots", "TVD variants", "distinct", "retention")

    def __init__(self, table):
        self.table = table

    def summary(self) -> str:
        """One sentence on the paradigms' balance (`balance_summary`; the pooled ALL row left out)."""
        return balance_summary(r for r in self.table.to_dict("records") if r["uid"] != ALL)

    def show(self, console, title) -> None:
        """Print on the rich `console` the table (|SMD| and TVD above 0.1 and a distinct-word ratio
        below 0.7 marked *), the summary and each flagged paradigm's flags and causes."""
        from rich.table import Table

        t = Table(title=f"Balance of the debiased set against the original set: {title}")
        for col in self.COLUMNS:
            t.add_column(col, justify="left" if col == "paradigm" else "right", no_wrap=True)
        for r in self.table.itertuples(index=False):
            t.add_row(r.uid, str(r.n_original), str(r.n_debiased), _smd(r.smd_zipf_good), _smd(r.smd_words_good),
                      _smd(r.smd_chars_good), _signed(r.smd_zipf_bad), _signed(r.smd_dzipf),
                      _tvd(r.tvd_slots, r.tvd_slots_feature), _tvd(r.tvd_variant),
                      "-" if _absent(r.distinct_ratio) else f"{r.distinct_ratio:.0%}" + (
                          "*" if r.distinct_ratio < LOW_DIVERSITY else ""),
                      "-" if _absent(r.retention) else f"{r.retention:.1%}", style="bold" if r.uid == ALL else None)
        console.width = max(console.width, 200)
        console.print(t)
        rows = [r for r in self.table.to_dict("records") if r["uid"] != ALL]
        flagged = [(r["uid"], "; ".join(x for x in (r["flags"], r["causes"]) if x)) for r in rows if r["flags"]]
        console.print(self.summary() + (" Flagged:" if flagged else ""))
        for uid, flags in flagged:
            console.print(f"  {uid}: {flags}", highlight=False)


def _absent(v) -> bool:
    return v is None or v != v


def _smd(v) -> str:
    return "-" if _absent(v) else f"{v:+.2f}" + ("*" if abs(v) > SMD_LIMIT else "")


def _signed(v) -> str:     # (moved by design, not a target: never flagged)
    return "-" if _absent(v) else f"{v:+.2f}"


def _tvd(v, where="") -> str:
    return "-" if _absent(v) else f"{v:.2f}" + ("*" if v > TVD_LIMIT else "") + (f" {where}" if where else "")


def _mean(x: np.ndarray) -> float:
    x = x[~np.isnan(x)]
    return float(x.mean()) if len(x) else math.nan


def _share(c: Counter | None) -> str:
    if not c:
        return "none"
    n = sum(c.values())
    return ", ".join(f"{k} {v / n:.0%}" for k, v in c.most_common(3))


def overall(original: dict[str, list[Mapping]], debiased: dict[str, list[Mapping]],
            entries: dict[str, dict[str, Any]], language: str = "en", pooled: dict | None = None) -> dict[str, Any]:
    """The ALL row: SMDs over the pooled pairs of every paradigm (`pooled`: those SMDs as a run
    recorded them, `differences` of the pooled measures); distinct-word ratio and retention as the
    mean over paradigms; `balanced` when every paradigm is."""
    if pooled is None:
        pooled = differences(pair_measures([r for rows in original.values() for r in rows], language),
                             pair_measures([r for rows in debiased.values() for r in rows], language))
    vals = list(entries.values())
    ratios = [e["distinct_ratio"] for e in vals if e["distinct_ratio"] is not None]
    rets = [e["retention"] for e in vals if e["retention"] is not None]
    tv = [e["tvd_slots"] for e in vals if e["tvd_slots"] is not None]
    tvv = [e["tvd_variant"] for e in vals if e["tvd_variant"] is not None]
    n_bal = sum(e["balanced"] for e in vals)
    ext = [e for e in vals if e.get("extension_share") is not None]     # (pooled over the debiased pairs)
    n_ext = sum(e["n_debiased"] for e in ext)
    return {
        "n_original": sum(e["n_original"] for e in vals), "n_debiased": sum(e["n_debiased"] for e in vals),
        **pooled,
        "tvd_slots": _r(max(tv)) if tv else None, "tvd_slots_feature": "",
        "tvd_variant": _r(max(tvv)) if tvv else None,
        "distinct_original": sum(e["distinct_original"] for e in vals),
        "distinct_debiased": sum(e["distinct_debiased"] for e in vals),
        "distinct_ratio": _r(float(np.mean(ratios))) if ratios else None,
        "retention": _r(float(np.mean(rets))) if rets else None,
        "extension_share": _r(sum(e["extension_share"] * e["n_debiased"] for e in ext) / n_ext) if n_ext else None,
        "balanced": n_bal == len(vals),
        "flags": [f"{n_bal} of {len(vals)} paradigms balanced"],
        "causes": [],
    }


# ---------------------------------------------------------------------------- reading sets
def _rows_of(value, where: str) -> list[dict]:
    """Pair rows (the pair schema, fairpairs.records.check_row) from PairRecords, dicts or a
    DataFrame, read and checked by the one pair reader (messages name `where` and the item)."""
    from fairpairs.errors import UsageTypeError
    from fairpairs.pairsets import read_pair_sets

    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise UsageTypeError(f"{where}: expected PairRecords, dicts or a DataFrame, not {type(value).__name__}")
    if hasattr(value, "__len__") and len(value) == 0:
        return []        # a set of no pairs (a paradigm that kept none; an empty DataFrame may have no columns)
    return list(read_pair_sets(value, name=where, empty=True)[where].rows)


def _by_uid(rows: list[dict]) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for r in rows:
        out.setdefault(str(r.get("uid", "pairs")), []).append(r)
    return out


def read_run_rows(run_dir) -> tuple[dict[str, list[dict]], dict[str, list[dict]], RunManifest]:
    """A run folder's original and debiased rows by paradigm, and its manifest."""
    from fairpairs.control.balance_run import listed_run
    from fairpairs.errors import DatasetError
    from fairpairs.pairsets import read_run_file

    run, manifest, _ = listed_run(run_dir)     # (the folder's checks, one place)
    sets = {}
    for which in ("original", "debiased"):
        sets[which] = {f.stem: list(read_run_file(f).rows) for f in sorted((run / which).glob("*.jsonl"))}   # checked once
    missing = sorted(set(sets["original"]) ^ set(sets["debiased"]))
    if missing:
        raise DatasetError(f"{run}: paradigm(s) {', '.join(missing)} in only one of original/ and debiased/")
    return sets["original"], sets["debiased"], manifest


def balance_table(original: dict[str, list[Mapping]], debiased: dict[str, list[Mapping]], *,
                  features: dict[str, SlotFeatures] | None = None, language: str = "en",
                  causes: dict[str, list[str]] | None = None, known: dict[str, dict] | None = None,
                  pooled: dict | None = None):
    """The balance report as a DataFrame: one row per paradigm (uid) and the pooled ALL row, with
    the columns of records.BalanceEntry (flags and causes joined by "; "). `causes`: per paradigm,
    what the run recorded about why it is out of balance; `known`: the entries of paradigms a run
    recorded and that still hold (fairpairs.control.statistics), `pooled` the ALL row's SMDs."""
    import pandas as pd

    features, known = features or {}, known or {}
    entries = {uid: dict(known[uid]) if uid in known else paradigm_balance(
        original[uid], debiased.get(uid, []), features=features.get(uid), language=language) for uid in original}
    for uid, why in (causes or {}).items():
        if uid in entries:
            entries[uid]["causes"] = list(dict.fromkeys([*entries[uid]["causes"], *why]))
    rows = [{"uid": uid, **e} for uid, e in entries.items()]
    rows.append({"uid": ALL, **overall(original, debiased, entries, language, pooled)})
    df = pd.DataFrame(rows)
    df["flags"] = df["flags"].map("; ".join)
    df["causes"] = df["causes"].map("; ".join)
    return df


def measure_balance(data, *, grammars=None, vocab=None, manifest=None):
    """The balance report (module doc) of a debiased set against its original set, as a DataFrame.

    `data`: a run folder of `fairpairs generate` (its paradigms' slot features are read from the
    paradigm files it names, in `grammars` - default the bundled folder - with `vocab`, default the
    bundled table of the run's language, whose word frequencies it takes), or a mapping
    {"original": ..., "debiased": ...} of two sets of PairRecords, dicts or DataFrames (grouped by
    UID; slot features only where the rows have `fillers` and their paradigm file is found).
    `manifest`: a run folder's, as the API's reader gave it (its language resolved)."""
    import os

    from fairpairs.control.balance_run import run_balance, slot_features
    from fairpairs.errors import Param, UsageError, UsageTypeError

    if isinstance(data, (str, os.PathLike)):     # (what the run recorded is read, not recomputed, where it holds)
        return run_balance(data, grammars=grammars, vocab=vocab, manifest=manifest)
    if isinstance(data, Mapping):
        if set(data) != {"original", "debiased"}:
            raise UsageError(Param("data"), f": expected the keys original and debiased, not {sorted(map(str, data))}")
        original = _by_uid(_rows_of(data["original"], "data['original']"))
        debiased = _by_uid(_rows_of(data["debiased"], "data['debiased']"))
        files, causes, code = {}, {}, None
    else:
        raise UsageTypeError(Param("data"), f": expected a run folder or a mapping of two sets, not {type(data).__name__}")
    features, language = slot_features(original, files, grammars, vocab, code)
    return balance_table(original, debiased, features=features, causes=causes, language=language)
