"""Pairs as the pandas frames a researcher expects (`fp.load_sets`, `fp.to_frame`).

`fairpairs.pairsets.read_pair_sets` reads any dataset into sets whose frames have the four columns every
analysis needs (uid, pair_id, sentence_good, sentence_bad) and then the input's other columns
(field, linguistics_term, critical_good/bad, token_lengths, draw, control, ... for a run folder),
so a set can be sliced by phenomenon, control or length. `to_frame` makes one frame of them with
`len_<tokenizer>_good` / `len_<tokenizer>_bad` columns in place of the nested `token_lengths`.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd


def flatten_lengths(frame: pd.DataFrame) -> pd.DataFrame:
    """`frame` with its `token_lengths` column ({tokenizer: {good, bad}} per row) replaced by
    `len_<tokenizer>_good` and `len_<tokenizer>_bad` columns (integers; missing where a row was not
    measured with that tokenizer), in the order the tokenizers first appear."""
    if "token_lengths" not in frame.columns:
        return frame
    cells = [v if isinstance(v, Mapping) else {} for v in frame["token_lengths"]]
    names = list(dict.fromkeys(t for c in cells for t in c))
    at = list(frame.columns).index("token_lengths")
    out = frame.drop(columns=["token_lengths"])
    for i, tok in enumerate(names):
        for j, side in enumerate(("good", "bad")):
            values = [(c.get(tok) or {}).get(side) for c in cells]
            out.insert(at + 2 * i + j, f"len_{tok}_{side}", pd.array(values, dtype="Int64"))
    return out


def sets_frame(sets: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """One frame of the sets (a `set` column first when there are several), token lengths flat."""
    if len(sets) == 1:
        frame = next(iter(sets.values()))
    else:
        frame = pd.concat([df.assign(set=name) for name, df in sets.items()], ignore_index=True)
        frame = frame[["set", *[c for c in frame.columns if c != "set"]]]
    return flatten_lengths(frame.reset_index(drop=True))


def pairs_frame(sets) -> pd.DataFrame:
    """The pairs of every set of `sets` (the `PairSets` the API read) in one frame: their four
    columns (`PairSet.pairs`) and the set's name (`set`), set after set, each in its order."""
    return pd.concat([s.pairs.assign(set=name) for name, s in sets.items()], ignore_index=True)
