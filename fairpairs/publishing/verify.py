"""Checking a run folder against its manifest before it is published (`fairpairs publish`).

A published dataset repeats what the run's manifest.json claims: which tokenizers the debiased
pairs are length-controlled for (with their file hashes), the vocabulary table's hash, and
per-paradigm counts. A hand-edited run folder can make those claims false, so `check_run`
recounts what the jsonl files allow and refuses what does not agree, naming the file and line:

* the manifest has `paradigms`, with an entry for every published paradigm, and every paradigm it
  lists has its file in each set folder (a paradigm is never left out of a dataset silently);
* every statistic of a paradigm entry that can be recounted from the jsonl rows (`RECOUNTED`:
  pair counts per set, pairs kept as drawn / with the bad sentence redrawn / replaced, the balance
  report's SMDs, distinct words and retention, with the word frequencies of the run's language)
  equals its recount; statistics that cannot be
  recounted (draws, dropped pairs, redraws, slot-feature TVDs that need the paradigm file) are left
  as they are;
* every published row's `token_lengths` are the lengths the manifest's tokenizers give its two
  sentences now, under every tokenizer the manifest lists, and a debiased pair has equal lengths;
* the tokenizer file hashes and the bundled vocabulary table's hash are those of the files here.

What cannot be checked (a tokenizer that cannot be loaded here, a vocabulary table of one's own)
is said in the returned `RunCheck`, and from there in publish's output and the dataset card.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, is_dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from fairpairs.errors import DatasetError, FairpairsError
from fairpairs.manifest import ParadigmEntry, RunManifest

if TYPE_CHECKING:
    from fairpairs.pairsets import PairSet


@dataclass
class RunCheck:
    """What `check_run` checked (every check passed) and what it could not check, and why."""

    paradigms: int = 0                                     # paradigm entries compared with the files
    statistics: list[str] = field(default_factory=list)    # statistics recounted (names under paradigms.<uid>)
    pairs: int = 0                                         # published rows whose token lengths were recomputed
    tokenizers: list[str] = field(default_factory=list)    # tokenizers whose lengths and file hashes were checked
    vocabulary: bool = False                               # the vocabulary table's sha256 was checked
    unchecked: list[str] = field(default_factory=list)     # "what: why" for each check that could not be made

    def summary(self) -> str:
        """One line: what was checked."""
        parts = [f"the counts and statistics of {self.paradigms} paradigm(s) ({', '.join(self.statistics)})"]
        if self.tokenizers:
            parts.append(f"the token lengths of {self.pairs} pair(s) under {', '.join(self.tokenizers)} and their "
                         f"tokenizer files' sha256")
        if self.vocabulary:
            parts.append("the vocabulary table's sha256")
        return "checked against the files: " + "; ".join(parts)


SETS = ("original", "debiased")


def _substitution(entry: ParadigmEntry) -> bool:
    """Distinct critical words are recounted for a substitution paradigm only (a reordering's are the
    words of its vocabulary slots, which need the paradigm file); the manifest says which it is."""
    return entry.reorder is False


def _controlled(rows: dict) -> bool:
    """Whether every debiased row says what length control did to it (rows of older runs do not)."""
    return all("control" in r for r in rows["debiased"])


def _count(state: str):
    return lambda rows: sum(r.get("control") == state for r in rows["debiased"])


def _balance(key: str):
    return lambda rows: rows["balance"][key]


BOTH, DEBIASED = SETS, ("debiased",)
ALWAYS = lambda entry, rows: True                                            # noqa: E731
# statistic (path under paradigms.<uid>) -> (sets it is counted from, applies?, recount from {set: rows})
# (a path's first key is a ParadigmEntry field, the next a ParadigmStats field or a balance key)
RECOUNTED: dict[str, tuple[tuple[str, ...], Callable[[ParadigmEntry, dict], bool], Callable[[dict], float | int | None]]] = {
    "original": (("original",), ALWAYS, lambda rows: len(rows["original"])),
    "debiased": (DEBIASED, ALWAYS, lambda rows: len(rows["debiased"])),
    "debiased_stats.kept": (DEBIASED, ALWAYS, lambda rows: len(rows["debiased"])),
    "debiased_stats.kept_as_drawn": (DEBIASED, lambda e, rows: _controlled(rows), _count("as_drawn")),
    "debiased_stats.kept_redrawn": (DEBIASED, lambda e, rows: _controlled(rows), _count("bad_redrawn")),
    "debiased_stats.replaced": (DEBIASED, lambda e, rows: _controlled(rows), _count("replaced")),
    **{f"balance.{k}": (BOTH, ALWAYS, _balance(k)) for k in (
        "n_original", "n_debiased", "smd_zipf_good", "smd_words_good", "smd_chars_good", "smd_zipf_bad",
        "smd_dzipf", "mean_dzipf_original", "mean_dzipf_debiased", "retention")},
    **{f"balance.{k}": (BOTH, lambda e, rows: _substitution(e), _balance(k)) for k in (
        "distinct_original", "distinct_debiased", "distinct_ratio")},
}


def manifest_line(text: str, keys: list[str]) -> int | None:
    """The line of manifest.json (its `text`) holding the key path `keys` (each key found after the
    previous one), or None."""
    pos = 0
    for key in keys:
        m = re.compile(r'"' + re.escape(json.dumps(key)[1:-1]) + r'"\s*:').search(text, pos)
        if m is None:
            return None
        pos = m.end()
    return text.count("\n", 0, pos) + 1


def _claimed(entry: ParadigmEntry, keys: list[str]):
    """The value at the path `keys` below a paradigm entry (attributes of its records, keys of its
    balance report), or None where the manifest has none."""
    claimed = entry
    for k in keys:
        claimed = getattr(claimed, k) if is_dataclass(claimed) else claimed.get(k) if isinstance(claimed, dict) else None
    return claimed


def check_run(run_dir: Path, manifest: RunManifest, rows: "dict[str, dict[str, PairSet]]",
              published: list[tuple[str, str]], held=None) -> RunCheck:
    """Check the run folder `run_dir` against its `manifest` (see the module docstring). `rows`:
    set -> uid -> the `PairSet` of every jsonl file read; `published`: the (set, uid) pairs
    being published; `held`: `fairpairs.control.statistics.reuse` of the run, when known. Raises
    a DatasetError naming the file and line of the first disagreement."""
    path = Path(run_dir) / "manifest.json"
    text = path.read_text(encoding="utf-8")

    def where(*keys) -> str:
        line = manifest_line(text, list(keys))
        return f"{path}:{line}" if line else str(path)

    result = RunCheck()
    paradigms = manifest.paradigms
    if not paradigms:
        raise DatasetError(f"{path}: has no 'paradigms' (the per-paradigm counts and statistics `fairpairs "
                           f"generate` writes); refusing to publish a dataset whose card could not say what it holds")
    from fairpairs.control.statistics import reuse

    language = manifest.run_language.wordfreq      # the frequencies `generate` used: the run's language
    held = (held or reuse(run_dir, manifest)).check(language, {}, None)   # (files and entries as the run recorded them)
    _check_listed(run_dir, paradigms, rows, where)
    _check_statistics(rows, published, paradigms, where, result, language, held)
    _check_tokenizers(run_dir, manifest, rows, published, where, result, held)
    _check_vocabulary(manifest, where, result)
    return result


def _check_listed(run_dir, paradigms, rows, where) -> None:
    """Every paradigm the manifest lists has a file (of pairs, or empty) in every set folder."""
    for set_name in SETS:
        if not (Path(run_dir) / set_name).is_dir():
            continue
        for uid in sorted(set(paradigms) - set(rows.get(set_name, {}))):
            raise DatasetError(f"{where('paradigms', uid)}: the manifest lists paradigm {uid}, but "
                               f"{Path(run_dir) / set_name / uid}.jsonl is missing; refusing to publish the run without "
                               f"it (restore the file, or generate the run again)")


def _check_statistics(rows, published, paradigms, where, result: RunCheck, language: str, held) -> None:
    """Every RECOUNTED statistic of a published paradigm equals its recount from the rows; for a
    paradigm whose files and entry are those the run recorded (`held`: fairpairs.control.statistics),
    the run's own figures computed from these very bytes, which are not recounted again."""
    for uid in sorted({uid for _, uid in published}):
        entry = paradigms.get(uid)
        files = [f"{s}/{uid}.jsonl" for s in SETS if uid in rows.get(s, {})]
        if entry is None:
            raise DatasetError(f"{where('paradigms')}: paradigms has no entry for {uid}, whose pairs are in "
                               f"{', '.join(files)}; the manifest is not this run's")
        same = held.current.get(uid, False) and held.language    # (its rows are those generate wrote: they apply as then)
        have = {s: [] if same else list(rows[s][uid].rows) for s in SETS if uid in rows.get(s, {})}
        if same:
            have["balance"] = entry.balance
        elif all(s in have for s in SETS):     # the balance report, recomputed from the rows as `generate` did
            from fairpairs.control.balance_report import paradigm_balance

            have["balance"] = paradigm_balance(have["original"], have["debiased"], language=language)
        for stat, (needed, applies, recount) in RECOUNTED.items():
            keys = stat.split(".")
            claimed = _claimed(entry, keys)
            if claimed is None or not all(s in have for s in needed) or not applies(entry, have):
                continue
            actual = claimed if same else recount(have)
            if actual is None or abs(float(claimed) - float(actual)) > 1e-4:
                sets = " and ".join(f"{s}/{uid}.jsonl" for s in needed)
                raise DatasetError(f"{where('paradigms', uid, *keys)}: paradigms.{uid}.{stat} is {claimed}, but "
                                   f"{sets} give{'s' if len(needed) == 1 else ''} {actual}; the files and the "
                                   f"manifest disagree (edited by hand?)")
            if stat not in result.statistics:
                result.statistics.append(stat)
        result.paradigms += 1


def _check_tokenizers(run_dir, manifest, rows, published, where, result: RunCheck, held) -> None:
    """Tokenizer files' sha256 and every published row's token lengths (see the module docstring);
    the lengths of a file the run recorded (`held`) are not measured again where the tokenizer
    files and the libraries' versions are the run's: they are the lengths measured then."""
    from fairpairs.control.statistics import versions
    from fairpairs.tokenization.lengths import LengthMeter

    infos = manifest.tokenizers or {}
    names = list(dict.fromkeys([*(manifest.models or []), *infos]))
    listed = set(names)
    meters = {}
    for name in names:
        try:
            meters[name] = LengthMeter(name)
        except FairpairsError as exc:
            reason = exc.reason if exc.param == "models" and exc.reason else str(exc)
            result.unchecked.append(f"token lengths and file hashes under {name}: the tokenizer could not be "
                                    f"loaded here ({reason})")
    same_tokenizers = manifest.versions == versions() and len(meters) == len(names)
    for name, meter in meters.items():
        claimed = (infos.get(name) or {}).get("files") or {}
        actual = meter.file_hashes()
        same_tokenizers = same_tokenizers and bool(claimed)
        for fname, sha in claimed.items():
            if fname not in actual:
                same_tokenizers = False
                result.unchecked.append(f"the sha256 of {name}'s {fname}: no such file in the tokenizer read here")
            elif actual[fname] != sha:
                raise DatasetError(f"{where('tokenizers', name, 'files', fname)}: tokenizers.{name}.files.{fname} "
                                   f"is {sha[:12]}..., but the file fairpairs reads for {name} has sha256 "
                                   f"{actual[fname][:12]}...; the run was not made with these tokenizer files")
    for set_name, uid in published:
        file = Path(run_dir) / set_name / f"{uid}.jsonl"
        if same_tokenizers and held.current.get(uid, False):
            result.pairs += len(rows[set_name][uid].rows) if meters else 0
            continue
        items = [(line, row) for (_, line), row in zip(rows[set_name][uid].origin, rows[set_name][uid].rows)]
        for line, row in items:
            extra = sorted(set(row.get("token_lengths") or {}) - listed)
            if extra:
                raise DatasetError(f"{file}:{line}: token_lengths has {', '.join(extra)}, which the manifest's "
                                   f"models do not list")
        for name, meter in meters.items():
            goods = meter.lengths([r["sentence_good"] for _, r in items])
            bads = meter.lengths([r["sentence_bad"] for _, r in items])
            for (line, row), g, b in zip(items, goods, bads):
                stored = (row.get("token_lengths") or {}).get(name)
                if stored is None:
                    raise DatasetError(f"{file}:{line}: token_lengths has no {name}, a tokenizer the manifest lists")
                if (stored.get("good"), stored.get("bad")) != (g, b):
                    raise DatasetError(f"{file}:{line}: token_lengths.{name} says good {stored.get('good')}, bad "
                                       f"{stored.get('bad')}, but {name} gives the sentences {g} and {b} tokens "
                                       f"(edited after generation?)")
                if set_name == "debiased" and g != b:
                    raise DatasetError(f"{file}:{line}: a debiased pair whose sentences have {g} and {b} tokens "
                                       f"under {name}; not length-controlled")
        result.pairs += len(items) if meters else 0
    result.tokenizers = list(meters)


def _check_vocabulary(manifest, where, result: RunCheck) -> None:
    """The vocabulary table's sha256 against the bundled table the manifest names (the tables of the
    run's resolved language, `RunManifest.run_language`), or what could not be checked."""
    voc, language = manifest.vocabulary, manifest.run_language
    if not isinstance(voc, dict) or not voc:
        return
    if voc.get("fixes"):   # fixes.yaml applies to the bundled table only: the run claims that table
        if voc.get("file") != language.fixes_table or voc.get("sha256") != language.fixes_sha256:
            raise DatasetError(f"{where('vocabulary')}: vocabulary lists fixes of the bundled table, but its file "
                               f"{voc.get('file')!s} / sha256 {str(voc.get('sha256'))[:12]}... is not the bundled "
                               f"{language.fixes_table} ({language.fixes_sha256[:12]}...)")
        if voc.get("extension_sha256") and voc["extension_sha256"] != language.extension_sha256:
            raise DatasetError(f"{where('vocabulary', 'extension_sha256')}: vocabulary.extension_sha256: the run drew "
                               f"replacements from a vocabulary extension of sha256 {str(voc['extension_sha256'])[:12]}..., not the bundled "
                               f"vocab/blimp_extension.csv ({str(language.extension_sha256)[:12]}...): another "
                               f"fairpairs version or an edited file; generate the run again with this one")
        result.vocabulary = True
    elif _bundled_table(manifest, voc):
        result.vocabulary = True
    else:
        result.unchecked.append(f"the sha256 of the vocabulary table {voc.get('file')}: a table of the run's own, "
                                f"not available here")


def _bundled_table(manifest, voc: dict) -> bool:
    """Whether a run without vocabulary fixes drew from its language's bundled table (vocab/fr.csv
    ...): the same name and sha256 (a table of one's own of the same name has another sha256)."""
    language = manifest.run_language
    if language.code == "en" or voc.get("file") != language.table:
        return False
    return voc.get("sha256") == language.table_sha256
