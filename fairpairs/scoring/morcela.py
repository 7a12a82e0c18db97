"""MORCELA (Tjuatja et al. 2024): fit acceptability ~ a*p/l + b*u/l + c/l + d by least squares.

p = sentence log-probability (LP), u = its unigram log-probability (U), l = content-token length.
beta = -b/a and gamma = c/a turn the fit into the linking function (p - beta*u + gamma) / l;
SLOR is the special case beta = 1, gamma = 0.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import ClassVar

import numpy as np

from fairpairs.errors import Param, DatasetError, UsageError


@dataclass
class MorcelaFit:
    a: float
    b: float
    c: float
    d: float
    beta: float
    gamma: float
    n: int
    cv: dict = field(default_factory=dict)
    meta: dict = field(default_factory=dict)
    dropped: ClassVar[dict] = {}     # rows of the judgments left out, by reason (`fit_morcela`; not in the JSON)

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2, sort_keys=True) + "\n"


def _design(p, u, length):
    p, u, n = (np.asarray(x, dtype=float) for x in (p, u, length))
    return np.column_stack([p / n, u / n, 1.0 / n, np.ones_like(p)])


def fit_terms(p, u, length, y) -> MorcelaFit:
    """Least-squares fit of y on [p/l, u/l, 1/l, 1]; beta = -b/a, gamma = c/a."""
    y = np.asarray(y, dtype=float)
    x = _design(p, u, length)
    if len(y) < 5 or not np.all(np.isfinite(x)) or not np.all(np.isfinite(y)):
        raise DatasetError("MORCELA fit: needs at least 5 sentences with finite scores and judgments")
    if np.std(y) == 0:
        raise DatasetError(f"MORCELA fit: all {len(y)} judgments are equal ({y[0]:g}); nothing to fit")
    (a, b, c, d), _, rank, _ = np.linalg.lstsq(x, y, rcond=None)
    if rank < x.shape[1]:
        raise DatasetError(f"MORCELA fit: degenerate: the scores give {rank} independent predictors of 4 "
                             f"(p/l, u/l, 1/l, 1), e.g. every sentence has the same length; beta and gamma "
                             f"are not determined")
    if a == 0:
        raise DatasetError("MORCELA fit: the LP coefficient is 0, beta and gamma are undefined")
    return MorcelaFit(float(a), float(b), float(c), float(d), float(-b / a), float(c / a), len(y))


def _pearson(x, y) -> float:
    x, y = np.asarray(x, float), np.asarray(y, float)
    if x.std() == 0 or y.std() == 0:
        return float("nan")
    return float(np.corrcoef(x, y)[0, 1])


def cross_validate(p, u, length, y, folds: int = 5, seed: int = 0) -> dict:
    """Mean Pearson r over k folds of MORCELA (fitted on the other folds), SLOR and raw LP."""
    p, u, n_tok, y = (np.asarray(v, dtype=float) for v in (p, u, length, y))
    n = len(y)
    if folds < 2 or n < 2 * folds:
        raise UsageError(Param("folds"), f" {folds}", value=folds, reason=f"needs 2 <= folds and at least 2 sentences per fold ({n} given)")
    order = np.random.default_rng(seed).permutation(n)
    parts = np.array_split(order, folds)
    rs = {"morcela": [], "slor": [], "lp": []}
    for k in range(folds):
        test = parts[k]
        train = np.concatenate([parts[j] for j in range(folds) if j != k])
        f = fit_terms(p[train], u[train], n_tok[train], y[train])
        # the fitted predictor itself (a*MORCELA + a*d, same r as MORCELA when a > 0)
        pred = np.sign(f.a) * (p[test] - f.beta * u[test] + f.gamma) / n_tok[test]
        rs["morcela"].append(_pearson(pred, y[test]))
        rs["slor"].append(_pearson((p[test] - u[test]) / n_tok[test], y[test]))
        rs["lp"].append(_pearson(p[test], y[test]))
    bad = sorted(k for k, v in rs.items() if not np.all(np.isfinite(v)))
    if bad:
        raise UsageError(Param("folds"), f" {folds}", value=folds, reason=f"the correlation of {', '.join(bad)} is undefined in some fold "
                             f"(constant scores or judgments there); use fewer folds or more varied data")
    return {k: float(np.mean(v)) for k, v in rs.items()} | {"folds": folds, "seed": seed}


@dataclass
class Judgments:
    """Sentences with their acceptability judgments, read from `path`; `dropped`: how many rows
    were left out and why ({reason: count})."""
    sentences: list
    judgments: np.ndarray
    dropped: dict
    path: Path
    measure: str = "LS"


def read_judgments(path, measure: str = "LS"):
    """(sentences, judgments) from a CSV: Sprouse et al. (2013) pairs ('Good Sentence',
    'Bad Sentence', 'Good Sentence LS', 'Bad Sentence LS', ...) or plain 'sentence,judgment'."""
    j = load_judgments(path, measure)
    return j.sentences, j.judgments


def load_judgments(judgments, measure: str = "LS") -> Judgments:
    """The judgments of a CSV file `judgments` (see `read_judgments`): rows without a sentence or
    a numeric judgment are left out and counted; an infinite judgment, or fewer than 10 left, is
    an error."""
    import pandas as pd

    from fairpairs.arguments import path as path_arg, text

    path = path_arg(judgments, "judgments", error=DatasetError, what="file")
    text(measure, "measure")
    try:
        df = pd.read_csv(path)
    except IsADirectoryError:
        raise DatasetError(Param("judgments"), f" {path}", value=path, reason=f"is a folder, not a CSV file") from None
    except (OSError, UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise DatasetError(Param("judgments"), f" {path}", value=path, reason=f"not a readable CSV ({type(exc).__name__}: {exc})") from None
    cols = set(df.columns)
    if {"sentence", "judgment"} <= cols:
        sents, ys = df["sentence"], df["judgment"]
    else:
        need = ["Good Sentence", "Bad Sentence", f"Good Sentence {measure}", f"Bad Sentence {measure}"]
        missing = [c for c in need if c not in cols]
        if missing:
            raise DatasetError(Param("judgments"), f" {path}", value=path, reason=f"missing column(s) {', '.join(repr(m) for m in missing)} "
                               f"(expected Sprouse-style pairs or 'sentence','judgment')")
        sents = pd.concat([df["Good Sentence"], df["Bad Sentence"]], ignore_index=True)
        ys = pd.concat([df[f"Good Sentence {measure}"], df[f"Bad Sentence {measure}"]], ignore_index=True)
    raw = ys
    ys = pd.to_numeric(ys, errors="coerce")
    inf = np.isinf(ys.to_numpy(float))
    if inf.any():
        row = int(np.nonzero(inf)[0][0])
        raise DatasetError(Param("judgments"), f" {path}", value=path, reason=f"the judgment of sentence {sents.iloc[row]!r} is "
                           f"infinite ({raw.iloc[row]}), not a judgment")
    has_text = sents.notna() & sents.astype(str).str.strip().astype(bool)
    missing = has_text & raw.isna()            # empty cells and NaN (pandas reads "NaN" as missing)
    dropped = {"no sentence": int((~has_text).sum()), "a missing or NaN judgment": int(missing.sum()),
               "a non-numeric judgment": int((has_text & ~missing & ys.isna()).sum())}
    keep = has_text & ys.notna()
    if keep.sum() < 10:
        raise DatasetError(Param("judgments"), f" {path}", value=path, reason=f"fewer than 10 sentences with a numeric judgment")
    return Judgments(sents[keep].astype(str).tolist(), ys[keep].to_numpy(float),
                     {k: v for k, v in dropped.items() if v}, path, measure)


def check_scorer(scorer) -> None:
    if not callable(getattr(scorer, "score", None)):
        from fairpairs.errors import UsageTypeError

        raise UsageTypeError(Param("scorer"), f": expected a fairpairs.Scorer (Scorer.from_pretrained), not "
                             f"{type(scorer).__name__}")


def load_params(spec) -> dict:
    """beta and gamma from a dict, a MorcelaFit, or the JSON file `fairpairs morcela fit` writes."""
    if isinstance(spec, MorcelaFit):
        return {"beta": spec.beta, "gamma": spec.gamma}
    if isinstance(spec, dict):
        doc, where = spec, (Param("morcela_params"),)
    else:
        from fairpairs.arguments import path
        from fairpairs.scoring.unigrams import read_json

        where = (Param("morcela_params"), f" {spec}")
        doc = read_json(path(spec, "morcela_params", error=DatasetError, what="parameters file"), where)
    try:
        return {"beta": float(doc["beta"]), "gamma": float(doc["gamma"])}
    except (KeyError, TypeError, ValueError):
        raise DatasetError(*where, ": needs numeric fields 'beta' and 'gamma'") from None


def fit_morcela(scorer, judgments, measure: str = "LS", unigrams=None, folds: int = 5, seed: int = 0):
    """Fit MORCELA's beta and gamma for `scorer` on acceptability `judgments` (a CSV path, see
    `read_judgments`, or a `Judgments`), with `folds`-fold cross-validated Pearson r of MORCELA,
    SLOR and LP (`fairpairs morcela fit`). Returns the `MorcelaFit` (its `to_json()` is the
    parameters file; `dropped` counts the rows left out). `unigrams`: as for `Scorer.score`.
    Under a multi-process launch every rank calls this and rank 0 alone gets the fit (the others
    get None)."""
    from fairpairs.arguments import count
    from fairpairs.scoring.launch import is_main

    check_scorer(scorer)
    count(folds, "folds", 2)
    count(seed, "seed", 0)
    if not isinstance(judgments, Judgments):
        judgments = load_judgments(judgments, measure)
    df = scorer.score(judgments.sentences, normalize=("slor",), unigrams=unigrams)
    if not is_main():   # the ranks share the scoring; rank 0 fits
        return None
    p, u, n = (df[c].to_numpy(float) for c in ("sum_logprob", "unigram_logprob", "n_tokens"))
    result = fit_terms(p, u, n, judgments.judgments)
    result.cv = cross_validate(p, u, n, judgments.judgments, folds=folds, seed=seed)
    result.meta = {"model": scorer.name, "kind": scorer.kind, "pll": scorer.pll if scorer.kind == "masked" else None,
                   "unigrams": str(unigrams) if unigrams else "wordfreq", "measure": judgments.measure,
                   "judgments": judgments.path.name,
                   "judgments_sha256": hashlib.sha256(judgments.path.read_bytes()).hexdigest()}
    result.dropped = judgments.dropped
    return result
