"""Which draw of `fairpairs generate` each pair came from, attached to sets read from a run folder
or from typed pairs, so that the evaluation matches contexts by draw (`fairpairs.analysis.effects`,
"Matching")."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from fairpairs.analysis.effects import DEBIASED, ORIGINAL

if TYPE_CHECKING:
    from fairpairs.pairsets import PairSet


def set_frames(sets: "Mapping[str, PairSet | pd.DataFrame]") -> dict[str, pd.DataFrame]:
    """Each set of `sets` (the `PairSets` the API's reader read, or frames already) as its frame:
    every column it was read with (`PairSet.frame`, what `fp.load_sets` returns)."""
    return {name: s.frame if hasattr(s, "rows") else s for name, s in sets.items()}


def attach_draws(sets: "Mapping[str, PairSet | pd.DataFrame]", data) -> dict[str, pd.DataFrame]:
    """The frames of `sets` (`set_frames`: the `PairSets` the API read from `data`) with a `draw`
    column where `data` says which draw each pair came from: a run folder of `fairpairs generate` (its rows,
    joined on uid and pair_id) or a mapping whose original and debiased values are PairRecords,
    dicts or DataFrames with a draw for every pair (by position). Sets without one are unchanged,
    and are then matched on the good sentence's text."""
    import os
    from pathlib import Path

    sets = set_frames(sets)
    if not {ORIGINAL, DEBIASED} <= set(sets) or all("draw" in df.columns for df in sets.values()):
        return sets
    out = dict(sets)
    if isinstance(data, (str, os.PathLike)) and (Path(data) / ORIGINAL).is_dir():
        from fairpairs.control.balance_report import read_run_rows

        original, debiased, _ = read_run_rows(data)
        for name, rows in ((ORIGINAL, original), (DEBIASED, debiased)):
            flat = [r for uid_rows in rows.values() for r in uid_rows]
            if not flat or not all(isinstance(r.get("draw"), int) for r in flat):
                return sets
            keys = pd.DataFrame({"uid": [r["uid"] for r in flat], "pair_id": [r["pair_id"] for r in flat],
                                 "draw": [r["draw"] for r in flat]})
            if keys.duplicated(["uid", "pair_id"]).any():
                return sets
            merged = sets[name].merge(keys, on=["uid", "pair_id"], how="left", validate="many_to_one")
            if merged["draw"].isna().any():
                return sets
            out[name] = merged.assign(draw=merged["draw"].astype(int))
        return out
    if isinstance(data, Mapping):
        for name in (ORIGINAL, DEBIASED):
            value = data.get(name)
            if isinstance(value, pd.DataFrame):
                draws = value["draw"].tolist() if "draw" in value.columns else []
            else:
                draws = [getattr(r, "draw", None) if not isinstance(r, Mapping) else r.get("draw")
                         for r in (value if isinstance(value, (list, tuple)) else [])]
            if len(draws) != len(sets[name]) or not all(isinstance(d, (int, np.integer)) for d in draws):
                return sets
            out[name] = sets[name].assign(draw=[int(d) for d in draws])
        return out
    return sets
