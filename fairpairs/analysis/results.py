"""results.json: every figure of an evaluation report with its interval, machine-readable (as
lm-eval writes one per run), beside report.md."""

from __future__ import annotations

import pandas as pd

from fairpairs import stats
from fairpairs.analysis.clustered import MIN_PARADIGMS
from fairpairs.analysis.directions import MIN_PAIRS
from fairpairs.analysis.evaluation import Report
from fairpairs.analysis.length_audit import ALL


def data_fingerprint(pairs: pd.DataFrame) -> str:
    """sha256 of the evaluated pairs (set, uid, pair_id, good and bad sentence, in order): the same
    pairs give the same fingerprint whatever models scored them."""
    import hashlib
    import json

    first = pairs[(pairs["model"] == pairs["model"].iloc[0]) & (pairs["normalization"] == pairs["normalization"].iloc[0])]
    rows = first[["set", "uid", "pair_id", "sentence_good", "sentence_bad"]].astype(str).to_numpy().tolist()
    return hashlib.sha256(json.dumps(rows, ensure_ascii=False).encode("utf-8")).hexdigest()


def results_json(report: Report) -> str:
    """results.json: the versions, the settings, the data's fingerprint and sizes, and every figure
    of the report with its interval (headline, effects per paradigm, summary, splits), machine-readable;
    NaN is null. No timestamp: the same scores give the same file."""
    import json
    import math
    import sys
    from importlib import metadata

    def version(name):
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return None

    def records(df):
        if df is None:
            return None
        out = []
        for rec in df.to_dict("records"):
            out.append({k: (None if isinstance(v, float) and math.isnan(v) else
                            v.item() if hasattr(v, "item") else v) for k, v in rec.items()})
        return out

    from fairpairs import __version__

    ps = report.pairs
    doc = {
        "fairpairs": __version__,
        "versions": {"python": sys.version.split()[0], **{n: version(n) for n in ("torch", "transformers", "tokenizers",
                                                                                  "numpy", "pandas", "scipy")}},
        "settings": report.settings,
        "data": {"fingerprint": data_fingerprint(ps) if len(ps) else None,
                 "pairs": {str(k): int(v) for k, v in
                           ps.drop_duplicates(["set", "uid", "pair_id"])["set"].value_counts(sort=False).items()},
                 "paradigms": int(ps["uid"].nunique()), "notes": list(report.notes)},
        "statistics": {"level": 0.95, "accuracy": "Wilson", "gap": "Newcombe (independent proportions)",
                       "effects": "Newcombe (paired proportions), exact McNemar p",
                       "change, selection, remainder": f"percentile bootstrap over units ({stats.RESAMPLES:,} resamples, seed 0)",
                       "too_few_pairs": f"fewer than {MIN_PAIRS} pairs: the report prints 'too few pairs'",
                       "gap, effects clustered": f"percentile cluster bootstrap over paradigms ({stats.RESAMPLES:,} "
                                                 "resamples, seed 0): *_low_clustered, *_high_clustered, null below "
                                                 f"{MIN_PARADIGMS} paradigms (n_paradigms_*, interval_method, "
                                                 "interval_note); the headline's words use it where it exists",
                       "pooled per paradigm": "normal random-effects model, Paule-Mandel tau^2, empirical-Bayes "
                                              "shrinkage, Agresti-Caffo / Agresti-Min variances: *_pooled, "
                                              "*_pooled_low, *_pooled_high of effects (ALL: the mean over paradigms)"},
        "headline": records(report.headline),
        "effects": records(report.effects),
        "summary": records(report.summary),
        "comparison": records(report.comparison),
        "placebo": records(report.placebo),
        "splits": records(report.splits[report.splits["uid"] == ALL]) if report.splits is not None else None,
    }
    return json.dumps(doc, indent=1, ensure_ascii=False, allow_nan=False) + "\n"
