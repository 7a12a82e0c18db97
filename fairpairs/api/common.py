"""What the public calls share: defaults, `load_vocabulary`, and the helpers that turn what a caller
gives into what the stages take."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Mapping

from fairpairs import arguments as check
from fairpairs.control.config import DEFAULT_MODELS as RUN_DEFAULT_MODELS
from fairpairs.errors import Param, DatasetError, UsageError, UsageTypeError, VocabularyError
from fairpairs.scoring.settings import SCORING

if TYPE_CHECKING:   # (for readers and type checkers only: nothing heavy is imported at run time)
    from fairpairs.generation.vocab import Vocabulary
    from fairpairs.manifest import RunManifest
    from fairpairs.pairsets import PairSets


DEFAULT_MODELS = RUN_DEFAULT_MODELS     # the tokenizers length control equalises by default (control.config)
DEFAULT_NORMALIZE = SCORING.normalize   # what evaluation reports by default (scoring.settings)


def items(value, name: str, what: str = "a list") -> list:
    """The items of a list-like argument (a TypeError naming `name` for anything else)."""
    if isinstance(value, (str, bytes, os.PathLike, Mapping)) or not hasattr(value, "__iter__"):
        raise UsageTypeError(Param(name), f": expected {what}, not {type(value).__name__}")
    return list(value)


def vocabulary(vocab):
    if vocab is None or hasattr(vocab, "expressions"):
        return vocab
    if isinstance(vocab, (str, os.PathLike)):
        return load_vocabulary(check.path(vocab, "vocab", error=VocabularyError, what="vocabulary table"))
    raise UsageTypeError(Param("vocab"), f": expected a Vocabulary or a table path, not {type(vocab).__name__}")


def resolve_models(models) -> list:
    """Every model given resolved now, once, so that a path that is not there fails before any
    other model is loaded (errors name the parameter `models`): each name as a `ResolvedModel` (the
    name, carrying the files it resolved to, which the later stages read instead of resolving the
    name again: the model list, the checks, the score cache, the scorer); a loaded `Scorer` as it is."""
    from fairpairs.errors import ModelError
    from fairpairs.tokenization.sources import ResolvedModel, resolve_model_name

    out = []
    for model in models:
        if not isinstance(model, str):
            out.append(model)
            continue
        try:
            out.append(ResolvedModel(model, resolve_model_name(model)))
        except ModelError as exc:
            raise exc.with_param("model", "models") from None
    return out


def read_paths(data) -> list[Path]:
    """The files and folders that reading `data` reads (a path, or a dict of them), which no
    output may be written into."""
    from fairpairs.pairsets import dataset_paths

    if isinstance(data, (str, os.PathLike)):
        return dataset_paths(data)
    if isinstance(data, Mapping):
        return [p for v in data.values() for p in read_paths(v)]
    return []




def with_language(manifest: "RunManifest", grammars=None) -> "RunManifest":
    """`manifest` carrying its run's language, resolved here once for every stage after generation
    (`fairpairs.generation.selection.resolved_language`; `grammars`: where a manifest written before
    fairpairs recorded the language finds its paradigms' files)."""
    from fairpairs.generation.selection import resolved_language

    return manifest.with_language(resolved_language(manifest, grammars))


def run_manifest(run_dir, grammars=None) -> "RunManifest":
    """The manifest.json of the run folder `run_dir`, with its language resolved (`with_language`):
    what publishing and balance read the run's language from."""
    from fairpairs.manifest import read_manifest

    return with_language(read_manifest(run_dir), grammars)


def with_run_language(sets: "PairSets") -> "PairSets":
    """`sets`, a run folder's manifest carrying its resolved language (`with_language`); where it
    cannot be resolved (a language this installation does not know) it carries none, and only the
    calls that need it fail."""
    from fairpairs.errors import FairpairsError

    if sets.manifest is not None:
        try:
            sets.manifest = with_language(sets.manifest)
        except FairpairsError:
            pass
    return sets


def read_sets(data, columns, name: str, param: str) -> "PairSets":
    """`fairpairs.pairsets.read_pair_sets` of `data` (a path, in-memory pairs, or a dict of set name ->
    either), with errors naming the call's parameter `param` (data, pairs); a run folder's manifest
    carries its resolved language (`with_run_language`)."""
    from fairpairs.pairsets import Columns, PairSets, read_pair_sets

    columns = Columns() if columns is None else columns
    if not isinstance(columns, Columns):
        raise UsageTypeError(Param("columns"), f": expected a fairpairs.pairsets.Columns, not {type(columns).__name__}", value=columns)
    if isinstance(data, Mapping):
        if not data:
            raise UsageError(Param(param), ": no sets given")
        out = {}
        for key, value in data.items():
            sub = read_sets(value, columns, str(key), f"{param}[{key!r}]")
            if len(sub) != 1:
                raise UsageError(Param(param), f"[{key!r}]: holds {len(sub)} sets ({', '.join(sub)}); give one set per name")
            out[str(key)] = next(iter(sub.values()))
        return PairSets(out)
    if isinstance(data, (str, os.PathLike)):
        return with_run_language(read_pair_sets(check.path(data, param, error=DatasetError, what="file or folder"), columns))
    if isinstance(data, (bytes, int, float)) or data is None or not hasattr(data, "__iter__"):
        raise UsageTypeError(Param(param), f": expected PairRecords, a DataFrame or a dataset path, not {type(data).__name__}")
    return read_pair_sets(data, columns, name=name)


def normalize_names(value) -> tuple[str, ...]:
    from fairpairs.analysis.reported import parse_reported

    return parse_reported(value)


def is_scorer(model) -> bool:
    """A loaded `Scorer` (or anything that scores sentences like one), not a name."""
    return not isinstance(model, (str, bytes, os.PathLike)) and callable(getattr(model, "score", None))


def load_vocabulary(path: str | os.PathLike | None = None) -> "Vocabulary":
    """The bundled, fixed BLiMP vocabulary table, or a table of your own at `path` (same columns;
    checked row by row)."""
    from fairpairs.generation.vocab import read_vocabulary as load

    return load(check.path(path, "path", error=VocabularyError, what="vocabulary table", optional=True))
