"""Sentence tables in and out of scoring (`fairpairs score` calls these; torch-free).

    rows, pairs = read_sentences("pairs.jsonl")       # or a text file, or a list
    df = score_sentences(scorer, "pairs.jsonl")       # the table `fairpairs score` writes
    write_scores(df, "scores.jsonl")                  # jsonl (NaN -> null) or csv, atomically

Input: a text file (one sentence a line), a jsonl file of pairs (`sentence_good`,
`sentence_bad`, optionally `uid` and `pair_id`, or BLiMP's `UID` and `pairID`) or of single sentences (`sentence`), or the
same as a Python list of strings or dicts. Pairs give two rows each (good, then bad) led by
`pair_index` and `which`.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

from fairpairs.errors import Param, DatasetError, UsageError, UsageTypeError
from fairpairs.io.reading import reading

SCORE_FORMATS = (".jsonl", ".csv")


def read_sentences(sentences) -> tuple[list[dict], bool]:
    """(rows, pairs): the rows to score, each a dict with `sentence` or with `sentence_good` and
    `sentence_bad` (then `pairs` is True), from a file path or a list of strings or dicts."""
    if isinstance(sentences, (str, os.PathLike)):
        return _read_file(Path(sentences))
    if isinstance(sentences, (bytes, int, float)) or sentences is None or hasattr(sentences, "columns") \
            or not hasattr(sentences, "__iter__"):
        raise UsageTypeError(Param("sentences"), f": expected a file path or a list of sentences or pairs, "
                             f"not {type(sentences).__name__}")
    return _checked((((Param("sentences"), f"[{i}]"), {"sentence": s} if isinstance(s, str) else s)
                     for i, s in enumerate(sentences)), (Param("sentences"),))


def _read_file(path: Path) -> tuple[list[dict], bool]:
    where = (Param("sentences"), f" {path}")
    with reading(where, "file of sentences", DatasetError):   # the one wording of read errors (io.reading)
        if path.suffix.lower() == ".jsonl":
            from fairpairs.io.jsonl import iter_objects

            return _checked((((*where, f":{no}"), obj) for no, obj in iter_objects(path)), where)
        text = path.read_text(encoding="utf-8-sig")   # a byte-order mark is not part of sentence 1
    rows = [{"sentence": ln.strip()} for ln in text.splitlines() if ln.strip()]
    if not rows:
        raise DatasetError(*where, ": no sentences")
    return rows, False


def _checked(items, where: tuple) -> tuple[list[dict], bool]:
    """The rows of (where, row) items (`where`: the parts of a message naming the row), all pairs or
    all single sentences; pairs are read by the one pair reader (`fairpairs.pairsets.from_rows`:
    each row checked by `fairpairs.records.check_row`, a repeated pair id refused; rows come back in
    the pair schema, with `uid` / `pair_id` only where the input gave them), a sentence must be
    non-empty text; the first bad row is an error naming it."""
    from fairpairs.records import check_text

    items = iter(items)
    first = next(items, None)
    if first is None:
        raise DatasetError(*where, ": no rows")
    pairs = _is_pair(*first)
    if pairs:
        return _pair_rows(_same_kind(first, items, True)), True
    rows = []
    for at, obj in _same_kind(first, items, False):
        if not isinstance(obj.get("sentence"), str) or not obj["sentence"].strip():
            raise DatasetError(*at, ": field 'sentence' is missing or not a non-empty string")
        rows.append({**obj, "sentence": check_text(obj["sentence"], at, "field 'sentence'")})
    return rows, False


def _is_pair(at: tuple, obj) -> bool:
    if not isinstance(obj, dict):
        raise DatasetError(*at, f": expected a sentence or a dict, not {type(obj).__name__}")
    return "sentence_good" in obj or "sentence_bad" in obj


def _same_kind(first: tuple, items, pairs: bool):
    """`first`, then the items, each a dict and, like the first, a pair (`pairs`) or a sentence."""
    yield first
    for at, obj in items:
        if _is_pair(at, obj) != pairs:
            raise DatasetError(*at, ": mixes pairs and single sentences")
        yield at, obj


def _pair_rows(items) -> list[dict]:
    """The checked rows of (where, pair) items, keeping `uid` / `pair_id` only where a row gave them
    (the one reader fills them in: the set's name, the row's place)."""
    from fairpairs.pairsets import from_rows
    from fairpairs.records import OLD_KEYS

    places: list[tuple] = []       # each row's message parts (a file's line, the list's index)
    given: list[set] = []

    def placed():
        for n, (at, obj) in enumerate(items):
            places.append(at)
            given.append({OLD_KEYS.get(k, k) for k in obj})
            yield n, obj

    pairs = from_rows("pairs", placed(), "pairs", place=places.__getitem__)
    return [{k: v for k, v in row.items() if k not in ("uid", "pair_id") or k in keys}
            for row, keys in zip(pairs.rows, given)]


def score_normalize(normalize, morcela_params=None) -> tuple[str, ...]:
    """The normalisations `normalize` names (comma-separated or a list), checked: `morcela` needs
    `morcela_params`."""
    from fairpairs.scoring.normalize import parse_normalize

    names = parse_normalize(normalize)
    if "morcela" in names and morcela_params is None:
        raise UsageError(Param("normalize"), " morcela needs ", Param("morcela_params", quoted=True), " (from `fairpairs morcela fit`)")
    return names


def score_sentences(scorer, sentences, normalize=("mean_lp", "pen_lp", "slor"), *, unigrams=None,
                    alpha: float = 0.8, morcela_params=None, length_params=None):
    """Score every sentence (or both sentences of every pair) with `scorer`: the table `fairpairs
    score` writes. One row per sentence, in input order, with the columns of `Scorer.score`; pairs
    give a good and a bad row each, led by `pair_index`, `which` and (when every row has them)
    `uid` and `pair_id`. `sentences`: a path or a list (see `read_sentences`). Every argument is
    checked before anything is scored (`check_score_arguments`); `length_params` (slln_lp, tc_lp,
    tcf_lp): a `fairpairs fit-length` file or a dict, default the bundled ones, used only for the
    model it was fitted for."""
    from fairpairs.scoring.morcela import check_scorer

    check_scorer(scorer)
    names = check_score_arguments(normalize, unigrams, alpha, morcela_params, length_params, scorer)
    rows, pairs = read_sentences(sentences)
    if pairs:
        texts = [s for r in rows for s in (r["sentence_good"], r["sentence_bad"])]
    else:
        texts = [r["sentence"] for r in rows]
    extra = {"length_params": length_params} if length_params is not None else {}
    df = scorer.score(texts, normalize=names, unigrams=unigrams, alpha=alpha, morcela_params=morcela_params, **extra)
    if not pairs:
        return df
    import pandas as pd

    lead = {"pair_index": [i // 2 for i in range(len(texts))], "which": ["good", "bad"] * len(rows)}
    for key in ("uid", "pair_id"):
        if all(key in r for r in rows):
            lead[key] = [r[key] for r in rows for _ in (0, 1)]
    return pd.concat([pd.DataFrame(lead), df], axis=1)


def check_score_arguments(normalize, unigrams=None, alpha: float = 0.8, morcela_params=None, length_params=None,
                          model=None) -> tuple[str, ...]:
    """Before a model is loaded or anything scored: the normalisations `normalize` names (see
    `score_normalize`), a finite `alpha`, and the `unigrams` table and `morcela_params` file they
    need, read and checked (a table that counts no tokens is an error); with `model` (a name or a
    Scorer), the length parameters the length-robust scores need for it (`length_params`, default
    the bundled ones: an error naming both models when they were fitted for another). Returns the
    names."""
    from fairpairs.arguments import number
    from fairpairs.scoring.morcela import load_params
    from fairpairs.scoring.normalize import needing
    from fairpairs.scoring.unigrams import load_unigrams

    names = score_normalize(normalize, morcela_params)
    number(alpha, "alpha")
    if needing(names, "unigrams"):
        load_unigrams(unigrams)
    if "morcela" in names:
        load_params(morcela_params)
    if needing(names, "length_params") and model is not None:
        from fairpairs.scoring.length import load_length_params, params_document

        load_length_params(None if length_params is None else params_document(length_params), model)
    return names


def pair_accuracy(df, normalize) -> dict[str, float]:
    """Share of pairs whose good sentence scores strictly higher, per metric: `sum_logprob` and
    each normalisation of `normalize` but lp (the same number), for a table of pairs from
    `score_sentences`."""
    from fairpairs.scoring.normalize import parse_normalize

    if not hasattr(df, "columns"):
        raise UsageTypeError(Param("df"), f": expected a DataFrame from score_sentences, not {type(df).__name__}")
    if "which" not in df.columns:
        raise UsageError("df: not a table of pairs (no 'which' column)")
    metrics = ["sum_logprob"] + [n for n in parse_normalize(normalize) if n != "lp"]
    good, bad = df[df["which"] == "good"], df[df["which"] == "bad"]
    return {m: float((good[m].to_numpy() > bad[m].to_numpy()).mean()) for m in metrics}


def check_scores_path(out) -> Path:
    """`out` as a Path, if it names a score table format (.jsonl or .csv)."""
    from fairpairs.arguments import path

    out = path(out, "out", exists=False)
    if out.suffix.lower() not in SCORE_FORMATS:
        raise UsageError(Param("out"), f" {out}", value=out, reason=f"extension must be .jsonl or .csv")
    return out


def write_scores(df, out) -> None:
    """Write a score table as jsonl (undefined scores as null: JSON has no NaN) or csv, by `out`'s
    extension, atomically."""
    from fairpairs.io.files import atomic_write

    if not hasattr(df, "to_dict"):
        raise UsageTypeError(Param("df"), f": expected a DataFrame from score_sentences, not {type(df).__name__}")
    out = check_scores_path(out)
    if out.suffix.lower() == ".jsonl":
        lines = [json.dumps({k: _finite_or_none(v) for k, v in rec.items()}, ensure_ascii=False, allow_nan=False)
                 for rec in df.to_dict(orient="records")]
        atomic_write(out, "\n".join(lines) + "\n")
    else:
        atomic_write(out, df.to_csv(index=False, lineterminator="\n"))


def _finite_or_none(value):
    return None if isinstance(value, float) and not math.isfinite(value) else value
