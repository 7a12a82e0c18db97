"""The public call that builds the placebo of length control: `placebo_pairs`."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Iterable

from fairpairs import arguments as check
from fairpairs.api.common import vocabulary
from fairpairs.errors import DatasetError, GrammarError

if TYPE_CHECKING:   # (for readers and type checkers only: nothing heavy is imported at run time)
    from fairpairs.control.placebo import PlaceboSet
    from fairpairs.generation.vocab import Vocabulary

PER_PARADIGM = 100      # A=U contexts sampled per paradigm by default


def placebo_pairs(run_dir: str | os.PathLike, models: Iterable[str] | str | None = None, *,
                  per_paradigm: int = PER_PARADIGM, seed: int = 0, grammars: str | os.PathLike | None = None,
                  vocab: "Vocabulary | str | os.PathLike | None" = None) -> "PlaceboSet":
    """The placebo of length control for the run folder `run_dir` (docs/evaluation.md, "The
    placebo"): per paradigm, up to `per_paradigm` contexts of the original set whose pair has equal
    token lengths under the tokenizer of every model of `models` (default: the models the run
    controlled for; give the models you score), sampled by `seed`, each with its bad word redrawn
    among the other words that keep every length equal (the search strategy's pick), the good
    sentence unchanged. `grammars` / `vocab`: the run's paradigm folder and vocabulary table when
    they are not the bundled ones. Returns a `PlaceboSet`: `.pairs` (the set "placebo", a
    `PairSet`: `.frame` is what `fp.evaluate` scores beside the original set) and `.counts` /
    `.table()` (per paradigm: sampled, redrawn, no candidate). Same arguments, same pairs."""
    from fairpairs.control.config import model_names
    from fairpairs.control.placebo import draw_placebo_pairs as build
    from fairpairs.io.progress import bar

    run_dir = check.path(run_dir, "run_dir", error=DatasetError, what="run folder")
    per_paradigm = check.count(per_paradigm, "per_paradigm", 1)
    seed = check.count(seed, "seed", 0)
    check.path(grammars, "grammars", error=GrammarError, what="folder of paradigm files", optional=True)
    voc = vocabulary(vocab)
    names = None if models is None else model_names(models, required=True)   # (None: the run's, read with it)
    under = ", ".join(names) if names else "the run's models"
    with bar(len(list((run_dir / "original").glob("*.jsonl"))), "placebo", "paradigm",
             first=f"placebo pairs: the bad word of up to {per_paradigm:,} A=U contexts per paradigm redrawn "
                   f"at equal lengths under {under}") as shown:
        return build(run_dir, names, per_paradigm=per_paradigm, seed=seed, grammars=grammars, vocab=voc,
                     on_paradigm=lambda uid: shown.update(1))
