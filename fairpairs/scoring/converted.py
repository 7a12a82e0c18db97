"""GGUF models kept de-quantised (issue 49): what transformers makes of a GGUF file is read once per
machine, not once per load.

transformers reads a GGUF model with gguf's pure-Python reader (it builds every vocabulary string,
262,144 of them for Gemma 3) and de-quantises every tensor to float32: 22 s of CPU for SmolLM2-135M,
63 s for Gemma 3 270M on this project's machine, against 0.7 s and 2.0 s to read the same float32
weights back from a safetensors file. So after a GGUF model has been loaded in float32, its weights
(`safetensors.torch.save_model`), config and tokenizer (`save_pretrained`, which transformers
otherwise builds from the GGUF file's vocabulary each time) are written to a folder of the model
cache named by the GGUF file's sha256 and the transformers version that converted it; later loads
read that folder.
The weights are the same tensors, byte for byte, the config the same settings and the tokenizer
the same (tests/test_converted_models.py checks them against a load from the GGUF file); the model's
fingerprint and identity stay those of the GGUF file.

A folder is used only when its record (`fairpairs-converted.json`, written last) names the same
GGUF sha256, transformers version and format; it is written to a temporary folder and renamed,
never when the disk would keep less than its size free, and not at all when
``FAIRPAIRS_KEEP_CONVERTED=off``. A folder that cannot be written or read only means the GGUF file
is read as before. No folder that is already there is replaced or deleted (one without a matching
record is left as it is, and the GGUF file read).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

from fairpairs.environment import KEEP_CONVERTED, MODEL_CACHE
from fairpairs.io.hashing import file_sha256
from fairpairs.tokenization.sources import ModelSource

FORMAT = 1
RECORD = "fairpairs-converted.json"


def _record(source: ModelSource) -> dict:
    import transformers

    return {"format": FORMAT, "gguf_file": source.gguf_file,
            "gguf_sha256": file_sha256(Path(source.path) / source.gguf_file),
            "transformers": transformers.__version__}


def _target(source: ModelSource) -> tuple[Path, dict] | None:
    """(the folder GGUF model `source` is or would be kept in, the record that folder must hold), or
    None: not a GGUF model, or ``FAIRPAIRS_KEEP_CONVERTED=off``."""
    if not source.gguf_file or not KEEP_CONVERTED.read():
        return None
    rec = _record(source)
    return MODEL_CACHE.read() / "converted" / f"{rec['gguf_sha256'][:32]}-transformers-{rec['transformers']}", rec


def kept_source(source: ModelSource) -> ModelSource | None:
    """A ModelSource of the kept de-quantised folder of GGUF model `source` when there is a complete
    one for this GGUF file and this transformers version, else None."""
    target = _target(source)
    if target is None:
        return None
    folder, record = target
    try:
        found = json.loads((folder / RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if found != record or not all((folder / f).is_file() for f in ("model.safetensors", "tokenizer.json")):
        return None
    return ModelSource(path=str(folder), bos_token=source.bos_token)


def keep_converted(model, tokenizer, source: ModelSource, dtype) -> Path | None:
    """Write `model` and `tokenizer`, just loaded from GGUF model `source` in `dtype`, to its kept folder (returned),
    unless it is not a float32 load, the folder is off or there already, or the disk is short; any
    error writing it only means nothing is kept (None)."""
    import torch

    target = _target(source)
    if target is None or dtype != torch.float32 or (target[0] / RECORD).is_file():
        return None
    folder, record = target
    size = sum(p.numel() * p.element_size() for p in model.state_dict().values())
    tmp = None
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        if shutil.disk_usage(folder.parent).free < 2 * size:
            return None
        tmp = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
        _write(model, tokenizer, tmp, record)
        os.rename(tmp, folder)
        tmp = None
        return folder
    except OSError:
        return None
    finally:                      # (an error, or Ctrl-C / SIGTERM while writing: no half-written folder)
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


def _write(model, tokenizer, where: Path, record: dict) -> None:
    """The weights (shared tensors once), the config, the tokenizer, then the record, into folder `where`."""
    from safetensors.torch import save_model

    save_model(model, str(where / "model.safetensors"))
    model.config.to_json_file(str(where / "config.json"))
    tokenizer.save_pretrained(str(where))
    (where / RECORD).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
