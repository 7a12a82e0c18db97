"""Loading minimal-pair datasets in BLiMP format, and the token-length-bias audit.

Accepted inputs (`load_sets`):

- one file: ``.jsonl`` (one JSON object a line), ``.json`` (a list of objects), ``.csv``, ``.tsv``
  or ``.parquet``;
- a folder of such files (all of them, recursively, in sorted order);
- a run folder written by ``fairpairs generate`` (``original/`` and ``debiased/`` sub-folders);
- a Hugging Face dataset saved with ``save_to_disk`` (a ``DatasetDict`` gives one set per split).

Every pair needs a good and a bad sentence (``sentence_good`` / ``sentence_bad`` unless other
column names are given) and is grouped by ``UID`` (or ``--group-col``; without either, by the
file's name). Token length is the generator's: content tokens of the string as written, special
tokens excluded (`fairpairs.tokenization.lengths.LengthMeter`).
"""

from __future__ import annotations

import os

import pandas as pd

from fairpairs.io.files import atomic_write


ALL = "ALL"  # the uid of the rows that pool every group
SPLITS = ("A=U", "A>U", "A<U")  # the seed paper's splits of a pair by token length (`split_label`)


# ---------------------------------------------------------------------------- audit


def split_label(len_good: int, len_bad: int) -> str:
    """The seed paper's split of a pair: ``A=U``, ``A>U`` (good longer) or ``A<U``."""
    if len_good == len_bad:
        return "A=U"
    return "A>U" if len_good > len_bad else "A<U"


def token_lengths(pairs: pd.DataFrame, tokenizer: str) -> pd.DataFrame:
    """`pairs` plus `len_good`, `len_bad` and `len_diff` (= bad - good) under `tokenizer`."""
    from fairpairs.tokenization.lengths import LengthMeter

    meter = LengthMeter(tokenizer)
    out = pairs.copy()
    out["len_good"] = meter.lengths(pairs["sentence_good"].tolist())
    out["len_bad"] = meter.lengths(pairs["sentence_bad"].tolist())
    out["len_diff"] = out["len_bad"] - out["len_good"]
    return out


def _counts(diff: pd.Series) -> dict:
    return {
        "n_pairs": int(diff.size),
        "n_equal": int((diff == 0).sum()),
        "n_good_longer": int((diff < 0).sum()),
        "n_good_shorter": int((diff > 0).sum()),
    }


def pair_lengths(sets: dict[str, pd.DataFrame], tokenizers: list[str]) -> dict[str, dict[str, pd.DataFrame]]:
    """{set: {tokenizer: the set's pairs with len_good, len_bad, len_diff}}: every sentence measured
    once per tokenizer (what `length_bias`, `equal_under_all` and `select_balanced` read)."""
    from fairpairs.tokenization.sources import expand

    return {set_name: {tok: token_lengths(pairs, tok) for tok in expand(tokenizers)}
            for set_name, pairs in sets.items()}


def length_bias(sets: dict[str, pd.DataFrame], tokenizers: list[str],
                lengths: dict[str, dict[str, pd.DataFrame]] | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per set, group and tokenizer: the A=U / A>U / A<U counts, and the distribution of
    len(bad) - len(good). Returns (summary, distribution); the summary has one extra row per set
    and tokenizer with uid ``ALL`` that pools every group. `lengths`: `pair_lengths(sets,
    tokenizers)`, when already measured."""
    from fairpairs.tokenization.sources import expand

    rows, dist = [], []
    for tok in expand(tokenizers):
        for set_name, pairs in sets.items():
            lens = lengths[set_name][tok] if lengths is not None else token_lengths(pairs, tok)
            groups = [(uid, g["len_diff"]) for uid, g in lens.groupby("uid", sort=True)]
            groups.append((ALL, lens["len_diff"]))
            for uid, diff in groups:
                counts = _counts(diff)
                rows.append({
                    "uid": uid, "tokenizer": tok, **counts, "set": set_name,
                    "share_unequal": round(1 - counts["n_equal"] / counts["n_pairs"], 6),
                    "mean_diff": round(float(diff.mean()), 6),
                    "min_diff": int(diff.min()), "max_diff": int(diff.max()),
                })
                if uid != ALL:
                    for d, c in diff.value_counts().sort_index().items():
                        dist.append({"set": set_name, "uid": uid, "tokenizer": tok,
                                     "len_diff": int(d), "count": int(c)})
    return pd.DataFrame(rows), pd.DataFrame(dist, columns=["set", "uid", "tokenizer", "len_diff", "count"])


def _equal_all(lens: dict[str, pd.DataFrame]):
    """Per pair: equal token counts under every tokenizer (a boolean array)."""
    import numpy as np

    frames = list(lens.values())
    return np.logical_and.reduce([f["len_diff"].to_numpy() == 0 for f in frames])


def equal_under_all(sets: dict[str, pd.DataFrame], lengths: dict[str, dict[str, pd.DataFrame]]) -> pd.DataFrame:
    """Per set and group (``ALL`` pools them): pairs whose good and bad sentences have equal token
    counts under every tokenizer at once (n_equal_all, share_equal_all) - the pairs a length-balanced
    subset keeps."""
    rows = []
    for set_name, pairs in sets.items():
        eq = _equal_all(lengths[set_name])
        frame = pd.DataFrame({"uid": pairs["uid"].to_numpy(), "eq": eq})
        groups = [(uid, g["eq"]) for uid, g in frame.groupby("uid", sort=True)] + [(ALL, frame["eq"])]
        for uid, e in groups:
            rows.append({"set": set_name, "uid": uid, "tokenizers": len(lengths[set_name]), "n_pairs": int(e.size),
                         "n_equal_all": int(e.sum()), "share_equal_all": round(float(e.mean()), 6)})
    return pd.DataFrame(rows)


def select_balanced(sets: dict[str, pd.DataFrame], lengths: dict[str, dict[str, pd.DataFrame]],
                    language: str = "en") -> tuple[pd.DataFrame, pd.DataFrame]:
    """The length-balanced subset: the pairs with equal token counts under every tokenizer, as row
    ids (set, uid, pair_id; no sentences: several datasets' licences do not allow copying them),
    and the balance report of the subset against the whole set (`balance_report.balance_table`:
    a selected subset is a selection, so it says what the selection changed: word frequency, word
    and character counts, distinct words, per group). `language`: wordfreq's code for the
    frequencies."""
    from fairpairs.control.balance_report import balance_table

    ids, reports = [], []
    for set_name, pairs in sets.items():
        keep = _equal_all(lengths[set_name])
        ids.append(pairs.loc[keep, ["uid", "pair_id"]].assign(set=set_name)[["set", "uid", "pair_id"]])
        rows = pairs[["uid", "sentence_good", "sentence_bad"]].to_dict("records")
        original: dict[str, list] = {}
        chosen: dict[str, list] = {}
        for row, k in zip(rows, keep):
            original.setdefault(row["uid"], []).append(row)
            if k:
                chosen.setdefault(row["uid"], []).append(row)
        reports.append(balance_table(original, chosen, language=language).assign(set=set_name))
    report = pd.concat(reports, ignore_index=True)
    report = report[["set", *[c for c in report.columns if c != "set"]]]
    return pd.concat(ids, ignore_index=True), report


def summary_text(summary: pd.DataFrame) -> str:
    """A short plain-text table: the pooled counts per set and tokenizer, and how many groups
    contain any pair of unequal token length."""
    lines = []
    for (set_name, tok), g in summary.groupby(["set", "tokenizer"], sort=False):
        tot = g[g["uid"] == ALL].iloc[0]
        per = g[g["uid"] != ALL]
        affected = int((per["n_equal"] < per["n_pairs"]).sum())
        lines.append({
            "set": set_name, "tokenizer": tok, "pairs": int(tot["n_pairs"]),
            "A=U": int(tot["n_equal"]), "A>U": int(tot["n_good_longer"]), "A<U": int(tot["n_good_shorter"]),
            "groups": len(per), "groups_with_unequal": affected,
        })
    return pd.DataFrame(lines).to_string(index=False)


class AuditReport(dict):
    """What `fp.audit_report` returns: its tables by name ("summary", "distribution", "equal_all";
    with a selection "selected" and "balance"), a dict as before, and how it shows itself."""

    def summary_text(self) -> str:
        """The pooled counts per set and tokenizer as a short plain-text table (`summary_text`)."""
        return summary_text(self["summary"])

    def equal_all_lines(self) -> list[str]:
        """Per set, one line: how many pairs have equal token counts under every tokenizer at once."""
        pooled = self["equal_all"][self["equal_all"]["uid"] == ALL]
        return [f"{row.set}: {row.n_equal_all} of {row.n_pairs} pairs ({row.share_equal_all:.1%}) have equal "
                f"token counts under all {row.tokenizers} tokenizer(s)" for row in pooled.itertuples()]


# ---------------------------------------------------------------------------- writing


def write_csv(df: pd.DataFrame, path: str | os.PathLike) -> None:
    """Atomically write `df` as CSV (no index, "\\n" line ends, empty cells for missing values)."""
    atomic_write(path, df.to_csv(index=False, lineterminator="\n"))
