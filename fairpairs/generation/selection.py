"""Which paradigm files there are and which a run takes: the index of a grammars folder (and its
language sub-folders), `select_paradigms` (all, UIDs, fr/all, a phenomenon), `validate`, and the
did-you-mean check of paradigm names."""

from __future__ import annotations

from pathlib import Path
from typing import Iterable
from fairpairs.errors import Param, FairpairsError, GrammarError, GrammarNotFoundError
from fairpairs.io.paths import data_dir
from fairpairs.generation.vocab import Vocabulary, default_vocabulary
from fairpairs.generation.grammar import Paradigm, check_render, read_paradigm_file
from fairpairs.generation.includes import read_with_includes


def paradigm_language(path: str | Path) -> str:
    """The language code a paradigm file declares (`en` when it says none)."""
    code = read_with_includes(Path(path)).get("language", "en")
    return code if isinstance(code, str) else "en"


def one_language(codes: Iterable[str]) -> str:
    """The one language code of a selection of paradigms (`en` for none); a UsageError naming
    `paradigms` when they are of several languages."""
    from fairpairs.errors import UsageError

    found = sorted(set(codes))
    if len(found) > 1:
        raise UsageError(Param("paradigms"), f": paradigms of several languages ({', '.join(found)}) in one selection; "
                         f"generate each language on its own")
    return found[0] if found else "en"


def run_language(manifest, grammars: str | Path | None = None) -> str:
    """The language code of a run (en, fr, de): its manifest's `language`; for a manifest written
    before fairpairs recorded it, the one language of its paradigms' files found by UID in
    `grammars` (default: the bundled folder and its language sub-folders), else `en`."""
    if isinstance(manifest.language, str) and manifest.language:
        return manifest.language
    try:
        index = paradigm_index(grammars)
    except FairpairsError:
        return "en"
    codes = {paradigm_language(index[uid]) for uid in (manifest.paradigms or {}) if uid in index}
    return codes.pop() if len(codes) == 1 else "en"


def resolved_language(manifest, grammars: str | Path | None = None):
    """The run's language (`run_language`) as a `fairpairs.manifest.RunLanguage`: what the stages
    after generation need of it (name, wordfreq code, the bundled tables its vocabulary can be
    checked against), resolved here once so that they never import generation. The sha256 of the
    language's own bundled table is read only when the manifest names that table."""
    from fairpairs.generation.languages import get_language
    from fairpairs.generation.restrictions import BUNDLED_SHA256, BUNDLED_TABLE
    from fairpairs.generation.vocab_extension import bundled_extension_sha256
    from fairpairs.manifest import RunLanguage

    language = get_language(run_language(manifest, grammars))
    voc = manifest.vocabulary if isinstance(manifest.vocabulary, dict) else {}
    named = language.code != "en" and voc.get("file") == language.vocabulary
    return RunLanguage(code=language.code, name=language.name, wordfreq=language.wordfreq or "en",
                       table=language.vocabulary,
                       table_sha256=default_vocabulary(language.code).sha256 if named else None,
                       fixes_table=BUNDLED_TABLE, fixes_sha256=BUNDLED_SHA256,
                       extension_sha256=bundled_extension_sha256() if voc.get("extension_sha256") else None)


def _paradigm_file(p: Path) -> bool:
    """A paradigm file's name: *.yaml, not an include file (_common.yaml) nor a hidden file (an
    editor's lock file .#x.yaml, which may be a dangling link)."""
    return p.suffix == ".yaml" and not p.name.startswith(("_", "."))


def grammar_files(directory: str | Path | None = None) -> list[Path]:
    """The paradigm files of a folder (default: the bundled grammars/); files whose name starts
    with _ (shared definitions such as _common.yaml) are include files, not paradigms; hidden
    files (.#x.yaml, an editor's lock file) are not read."""
    d = Path(directory) if directory else data_dir("grammars")
    if not d.exists():
        raise GrammarNotFoundError(f"{d}: no such folder of paradigm files")
    if not d.is_dir():
        raise GrammarError(f"{d}: is a file, not a folder of paradigm files")
    files = sorted(p for p in d.glob("*.yaml") if _paradigm_file(p))
    if not files:
        raise GrammarError(f"{d}: no paradigm files (*.yaml) in this folder")
    return files


def language_folders(directory: str | Path | None = None) -> list[Path]:
    """The sub-folders of a grammar folder (default: the bundled grammars/) that hold paradigms of
    another language (grammars/fr/, grammars/de/): every sub-folder not starting with _ or ."""
    d = Path(directory) if directory else data_dir("grammars")
    if not d.is_dir():
        return []
    return sorted(p for p in d.iterdir() if p.is_dir() and not p.name.startswith(("_", "."))
                  and any(_paradigm_file(f) for f in p.iterdir()))


def paradigm_index(directory: str | Path | None = None) -> dict[str, Path]:
    """Every paradigm a name can address in a grammar folder: `uid` for the folder's own files and
    for those of its language sub-folders (a uid of the folder itself wins), and `<sub>/<uid>`."""
    index = {}
    for sub in language_folders(directory):
        for f in grammar_files(sub):
            index[f"{sub.name}/{f.stem}"] = f
            index.setdefault(f.stem, f)
    top = Path(directory) if directory else data_dir("grammars")
    if any(_paradigm_file(f) for f in top.glob("*.yaml")):
        index.update({f.stem: f for f in grammar_files(directory)})
    return index


def validate_paradigms(paths: Iterable[str | Path] | None = None, vocab: Vocabulary | None = None
             ) -> list[tuple[Path, Paradigm | FairpairsError]]:
    """Check paradigm files without generating: each is loaded exactly as generation loads it
    (schema, includes, vocabulary columns and values, templates, satisfiability of every slot), and
    each Jinja2 template is rendered on a few draws (`grammar.check_render`).

    `paths`: files or folders (a folder means its paradigm files); default: the bundled
    paradigms. Returns (path, Paradigm) for a valid file and (path, error) for a broken one."""
    files: list[Path] = []
    bundled = [data_dir("grammars"), *language_folders()]   # the English paradigms, then fr/, de/ ...
    for p in bundled if paths is None else [Path(x) for x in paths]:
        files.extend(grammar_files(p) if p.is_dir() else [p])
    out: list[tuple[Path, Paradigm | FairpairsError]] = []
    for f in files:
        try:
            out.append((f, check_render(read_paradigm_file(f, vocab))))   # (templates rendered on samples)
        except FairpairsError as exc:
            out.append((f, exc))
    return out


def select_paradigms(spec: str | list[str] = "all", phenomenon: str | None = None,
                     grammar_dir: str | Path | None = None, *, standard_only: bool = True,
                     vocab: Vocabulary | None = None) -> tuple[Vocabulary, list[Paradigm]]:
    """The vocabulary and the paradigms named by `spec` ("uid,uid", a list of UIDs, "all" or
    "standard"), optionally only those of `phenomenon`; with "all", only the standard ones unless
    `standard_only` is False. A name may address a language sub-folder of the grammar folder:
    "fr/all" (its paradigms), "fr/<uid>", or a uid found there. Without `vocab`, the paradigms'
    language's bundled table (one language per selection). Errors name the parameters
    `paradigms` and `phenomenon`."""
    from fairpairs.errors import UsageError

    index = paradigm_index(grammar_dir)
    every = isinstance(spec, str) and spec in ("all", "standard")
    if every:
        files = {p.stem: p for p in grammar_files(grammar_dir)}
        chosen = sorted(files)
    else:
        names = spec.split(",") if isinstance(spec, str) else list(spec)
        names = [u.strip() for u in names if u.strip()]
        if not names:
            raise UsageError(Param("paradigms"), f": {spec!r} names no paradigm (give uid,uid or 'all')")
        subs = {d.name: d for d in language_folders(grammar_dir)}
        folder = {u: subs[u.partition("/")[0]] for u in names
                  if u.partition("/")[2] in ("all", "standard") and u.partition("/")[0] in subs}
        folder.update({u: grammar_dir for u in names if u in ("all", "standard") and u not in index})  # (the top folder's)
        whole = set(folder)
        unknown = [u for u in names if u not in index and u not in whole]
        if unknown:
            folders = ", ".join(f"{d}/all" for d in subs)
            raise UsageError(Param("paradigms"), f": unknown paradigm(s) {', '.join(unknown)} (see `fairpairs paradigms`"
                             f"{'; language folders: ' + folders if folders else ''})")
        found = [(f.stem, f) for u in names for f in
                 (grammar_files(folder[u]) if u in whole else [index[u]])]
        chosen = [stem for stem, _ in found]
        dupes = sorted({u for u in chosen if chosen.count(u) > 1})
        if dupes:
            raise UsageError(Param("paradigms"), f": {', '.join(dupes)} named twice")
        files = dict(found)
    code = one_language(paradigm_language(files[u]) for u in chosen)
    if vocab is None:
        vocab = default_vocabulary(code)
    paradigms = [read_paradigm_file(files[u], vocab) for u in chosen]
    if every and standard_only:
        paradigms = [p for p in paradigms if p.standard]
    if phenomenon:
        norm = phenomenon.strip().lower().replace("_", " ").replace("-", " ")
        known = sorted({p.phenomenon for p in paradigms})
        paradigms = [p for p in paradigms if p.phenomenon.lower().replace("-", " ") == norm]
        if not paradigms:
            if not every:
                lang = paradigm_language(files[chosen[0]])     # every paradigm file of the selection's language
                same = {f for f in index.values() if paradigm_language(f) == lang}
                all_phen = {read_paradigm_file(f, vocab).phenomenon for f in same}
                if any(ph.lower().replace("-", " ") == norm for ph in all_phen):
                    raise UsageError(Param("phenomenon"), f" {phenomenon!r}: none of the paradigms named by ",
                                     Param("paradigms", quoted=True), f" belongs to it (theirs: {', '.join(known)})", value=phenomenon)
            raise UsageError(Param("phenomenon"), f": unknown phenomenon {phenomenon!r} (known: {', '.join(known)})")
    return vocab, paradigms


def check_paradigm_names(spec, grammars) -> None:
    """A paradigm UID that is not there, with the closest known UIDs ("did you mean"); the other
    checks of `paradigms` are `select_paradigms`'s."""
    from fairpairs.errors import Param, UsageError
    from fairpairs.suggest import did_you_mean

    if not isinstance(spec, (str, list, tuple)) or spec in ("all", "standard"):
        return
    names = [u.strip() for u in (spec.split(",") if isinstance(spec, str) else spec) if isinstance(u, str) and u.strip()]
    try:
        known = set(paradigm_index(grammars))
    except Exception:     # a bad grammars folder is select_paradigms' error
        return
    for u in names:
        hint = did_you_mean(u, known) if u not in known and u.rpartition("/")[2] not in ("all", "standard") else ""
        if hint:
            raise UsageError(Param("paradigms"), f": unknown paradigm {u}{hint} (see `fairpairs paradigms`)")
