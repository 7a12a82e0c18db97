"""`fp.balance` of a run folder: the balance report the run recorded, read back where it still holds.

`fairpairs generate` computes every paradigm's balance entry (manifest `paradigms.<uid>.balance`)
and the pooled ALL row's SMDs (manifest `statistics["balance_all"]`) from the rows it writes, and
records the fingerprints of what they were computed from (fairpairs.control.statistics). Here a
paradigm's entry is read from the manifest when its two jsonl files, its manifest entry, its
paradigm file (as read, with includes) and the vocabulary the slot features come from are those
the run recorded, under the same versions; every other paradigm, and the ALL row unless every
paradigm holds, is computed from the rows as before. The table is the same bytes either way.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from fairpairs.control.balance_measures import SlotFeatures
from fairpairs.control.balance_report import balance_table, read_run_rows


def run_balance(run_dir, *, grammars=None, vocab=None, manifest=None):
    """The balance report of the run folder `run_dir` (`fp.balance`'s DataFrame): recorded
    entries reused where they hold, the rest computed from the rows. `manifest`: the run's, as the
    API's reader gave it (its language resolved: `RunManifest.run_language`); default read here."""
    from fairpairs.control.statistics import reuse, vocabulary_sha256
    from fairpairs.generation.selection import resolved_language

    run, manifest, uids = listed_run(run_dir, manifest)
    held = reuse(run, manifest)
    listed = set(held.current) == set(uids)    # the folder holds exactly the run's paradigms
    rows = None if held.complete and listed else read_run_rows(run)   # (a row's error first)
    entries = manifest.paradigms or {}
    files = {uid: e.grammar_file for uid, e in entries.items()}
    causes = {uid: (e.balance or {}).get("causes") or [] for uid, e in entries.items()}
    code = (manifest.run_language or resolved_language(manifest, grammars)).code
    paths, code, language = paradigm_paths(uids, files, grammars, code)
    voc = _vocabulary(vocab, code) if any(held.current.values()) else None
    # a table read from no file (sha256 "") has no identity to compare: its entries are recomputed
    held.check(language, paths, None if voc is None or not voc.sha256 else vocabulary_sha256(voc))
    known = {uid: entries[uid].balance for uid in uids if held.balanced.get(uid)}
    # the ALL row pools the run's paradigms: only those may be in the folder (a file added after it)
    pooled = held.balance_all() if held.pooled and listed else None
    if rows is None and set(known) == set(uids):      # everything holds: no row is read
        return balance_table(dict.fromkeys(uids), {}, language=language, causes=causes, known=known, pooled=pooled)
    original, debiased, _ = rows or read_run_rows(run)
    features = slot_features(original, files, grammars, vocab if voc is None else voc, code,
                             only=set(original) - set(known))[0]
    return balance_table(original, debiased, features=features, causes=causes, language=language, known=known,
                         pooled=pooled)


def listed_run(run_dir, manifest=None):
    """(folder, manifest, paradigms listed by their jsonl files in file-name order) of a run folder,
    with `read_run_rows`'s checks of the folder and without reading a row (`manifest`: the run's,
    read already; default read here)."""
    from fairpairs.errors import Param, DatasetError, DatasetNotFoundError
    from fairpairs.manifest import read_manifest

    run = Path(run_dir)
    if not run.exists():
        raise DatasetNotFoundError(Param("data"), f": {run}: no such folder")
    if not run.is_dir() or not (run / "original").is_dir() or not (run / "debiased").is_dir():
        raise DatasetError(Param("data"), f": {run}: not a run folder of `fairpairs generate` (original/ and debiased/ missing)")
    manifest = read_manifest(run) if manifest is None else manifest
    return run, manifest, [f.stem for f in sorted((run / "original").glob("*.jsonl"))]


def _vocabulary(vocab, code: str):
    from fairpairs.generation.vocab import read_vocabulary

    return vocab if hasattr(vocab, "expressions") else read_vocabulary(vocab, code)


def paradigm_paths(uids, files: dict, grammars, code: str | None) -> tuple[dict[str, Path], str, str]:
    """The paradigm file of each uid that is found (by the manifest's name in the grammar folder
    or its sub-folder of the run's language, else by UID), their language's code and the wordfreq
    language of their words. `code`: the run's language (its manifest's); None for pairs given in memory (the one
    language of their paradigm files, English when they name none or several). A file of another
    language than the run's and a run's paradigm missing from a `grammars` folder given are errors."""
    from fairpairs.errors import Param, GrammarError, GrammarNotFoundError
    from fairpairs.generation.selection import paradigm_index, paradigm_language
    from fairpairs.generation.languages import wordfreq_code
    from fairpairs.io.paths import data_dir

    folder = Path(grammars) if grammars is not None else data_dir("grammars")
    if not folder.is_dir():
        raise GrammarNotFoundError(Param("grammars"), f": {folder}: no such folder")
    index = paradigm_index(folder)
    paths = {}
    for uid in uids:
        name = files.get(uid) or f"{uid}.yaml"
        found = [folder / code / name] if code not in (None, "en") else []
        found += [folder / name, index.get(f"{code}/{uid}"), index.get(uid)]
        path = next((f for f in found if f is not None and f.is_file()), None)
        if path is None and code is not None and grammars is not None and files:
            raise GrammarNotFoundError(Param("grammars"), f": {folder} has no paradigm file {name} (the run's "
                                       f"paradigm {uid}); give the folder of the run's paradigm files")
        if path is not None:
            paths[uid] = path
    langs = {uid: paradigm_language(path) for uid, path in paths.items()}
    if code is None:
        codes = set(langs.values())
        code = codes.pop() if len(codes) == 1 else "en"
    for uid, lang in langs.items():
        if lang != code:
            raise GrammarError(Param("grammars"), f": {paths[uid]} is a paradigm of language {lang}, but the run's "
                               f"paradigms are {code}; give the folder of the run's paradigm files")
    return paths, code, wordfreq_code(code)


def slot_features(original: dict[str, list], files: dict, grammars, vocab, code: str | None,
                  only: set[str] | None = None) -> tuple[dict[str, SlotFeatures], str]:
    """SlotFeatures of the paradigms whose file is found (`paradigm_paths`; `only`: of these
    paradigms alone), and the wordfreq language of their words. A paradigm file or table that does
    not load is an error (as `fairpairs validate` reports it)."""
    from fairpairs.generation.grammar import read_paradigm_file

    paths, code, language = paradigm_paths(original, files, grammars, code)
    if not any(isinstance(r.get("fillers"), Mapping) for rows in original.values() for r in rows[:1]):
        return {}, language
    voc = _vocabulary(vocab, code)
    return {uid: SlotFeatures(read_paradigm_file(path, voc), voc) for uid, path in paths.items()
            if only is None or uid in only}, language
