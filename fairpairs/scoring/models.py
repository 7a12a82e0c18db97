"""Finding and loading language models: names, GGUF files, causal vs masked, device and dtype."""

from __future__ import annotations

import importlib.util
import re
import warnings
from pathlib import Path

from fairpairs.errors import Param, FairpairsWarning, ModelError, NetworkError, TokenizerError, VariableError
from fairpairs.io.network import network_deadline
from fairpairs.tokenization.sources import (  # noqa: F401  (re-exported: where scoring code has always found them)
    SMOLLM2_ALIASES,
    SMOLLM2_BOS,
    SMOLLM2_FILE,
    ModelSource,
    resolve_model_name,
)
from fairpairs.tokenization.lengths import load_saved_tokenizer, load_tokenizer as _load_tokenizer
from fairpairs.tokenization import pretrained
from fairpairs.scoring.settings import DEVICE_MAPS   # (the --device-map choices: one home)
from fairpairs.scoring.converted import keep_converted, kept_source
from fairpairs.scoring.gguf_reading import gguf_read_once

KINDS = ("causal", "masked")
DTYPES = {"float32": "float32", "fp32": "float32", "bfloat16": "bfloat16", "bf16": "bfloat16",
          "float16": "float16", "fp16": "float16", "half": "float16"}


def detect_kind(config) -> str | None:
    """'causal' or 'masked' from a transformers config, or None when it is neither."""
    from transformers.models.auto import modeling_auto as ma

    for arch in getattr(config, "architectures", None) or []:
        if arch.endswith("ForMaskedLM"):
            return "masked"
        if arch.endswith(("ForCausalLM", "LMHeadModel")):
            return "causal"
    mtype = getattr(config, "model_type", None)
    masked = mtype in ma.MODEL_FOR_MASKED_LM_MAPPING_NAMES
    causal = mtype in ma.MODEL_FOR_CAUSAL_LM_MAPPING_NAMES
    if masked and (not causal or not getattr(config, "is_decoder", False)):
        return "masked"
    if causal:
        return "causal"
    return None


def cuda_for_process(gpu_count: int, launch) -> tuple[str, FairpairsWarning | None]:
    """The GPU a process asking for 'cuda' scores on, and a hint to warn with (or None).

    Under a multi-process launch (`launch`, see `launch.detect_launch`) each rank takes the GPU
    of its ``local_rank``, one GPU per rank; more ranks on a node than GPUs is an error. A single
    process on a machine with several GPUs takes the first and the hint says how to use them all.
    """
    if gpu_count < 1:
        raise ModelError(Param("device"), " cuda: no CUDA GPU is available (use ", Param("device", quoted=True), " cpu or auto)")
    if launch is not None:
        if launch.local_rank >= gpu_count:
            raise ModelError(Param("device"), f" cuda: this is local rank {launch.local_rank} but only {gpu_count} "
                             f"GPU(s) are visible; start at most {gpu_count} process(es) per node")
        return f"cuda:{launch.local_rank}", None
    if gpu_count == 1:
        return "cuda", None
    return "cuda", FairpairsWarning(f"{gpu_count} GPUs are visible but one process scores on cuda:0 only; to use "
                                    f"all of them start one process per GPU (torchrun --nproc_per_node {gpu_count}), "
                                    "or set ", Param("device_map", quoted=True), " auto for one model too large for "
                                    "one GPU; see docs/scaling.md")


def resolve_device(device: str | None) -> str:
    """'auto' -> 'cuda' when a GPU is visible, else 'cpu'; validate 'cpu', 'cuda', 'cuda:N', 'mps'.

    'cuda' (and 'auto' with GPUs) is the GPU `cuda_for_process` picks: ``cuda:LOCAL_RANK`` under a
    multi-process launch; a single process with several GPUs uses the first and warns how to use all.
    """
    import torch

    from fairpairs.scoring.launch import detect_launch

    device = (device or "auto").lower()
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and torch.cuda.is_available():
        device, hint = cuda_for_process(torch.cuda.device_count(), detect_launch())
        if hint:
            warnings.warn(hint, stacklevel=2)
        return device
    if device == "cpu":
        return "cpu"
    if device == "mps":
        if not (hasattr(torch.backends, "mps") and torch.backends.mps.is_available()):
            raise ModelError(Param("device"), " mps: no MPS device is available")
        return device
    if device == "cuda" or device.startswith("cuda:"):
        if not torch.cuda.is_available():
            raise ModelError(Param("device"), f" {device}: no CUDA GPU is available (use ", Param("device", quoted=True),
                             " cpu or auto)", value=device)
        if ":" in device:
            idx = device.split(":", 1)[1]
            if not idx.isdigit() or int(idx) >= torch.cuda.device_count():
                raise ModelError(Param("device"), f" {device}", value=device, reason=f"no such GPU ({torch.cuda.device_count()} visible)")
        return device
    raise ModelError(Param("device"), f" {device}", value=device, reason=f"expected auto, cpu, cuda or cuda:N")


def resolve_dtype(dtype: str | None, device: str):
    """torch dtype to run in: float32 unless bfloat16/float16 is asked for on a GPU."""
    import torch

    if dtype is None:
        return torch.float32
    key = DTYPES.get(str(dtype).lower().replace("torch.", ""))
    if key is None:
        raise ModelError(Param("dtype"), f" {dtype}", value=dtype, reason=f"expected float32, bfloat16 or float16")
    if key != "float32" and device == "cpu":
        warnings.warn(FairpairsWarning(Param("dtype"), f" {dtype} is ignored on the CPU; scoring in float32"), stacklevel=2)
        return torch.float32
    return getattr(torch, key)


def load_model_tokenizer(name: str, source: ModelSource | None = None, kept: str | None = None):
    """The fast tokenizer of model `name`, from the one tokenizer loader (`fairpairs.tokenization.lengths`):
    the bundled copy for the bundled names, else the model's own (folder, GGUF or Hub), or, with `kept`,
    the copy kept beside its de-quantised GGUF weights in that folder (`scoring.converted`). Errors are
    ModelError."""
    try:
        return _load_tokenizer(name) if kept is None else load_saved_tokenizer(name, kept)
    except TokenizerError as exc:
        raise ModelError(Param("model"), f" {name}", value=name, reason=f"cannot load its tokenizer ({exc.reason or exc})") from None


def check_device_map(device_map: str | None, device: str | None, launch=None) -> None:
    """A `device_map` needs accelerate, leaves the device to it, and takes a node's GPUs for one
    process, so a launch (`launch`, see `launch.detect_launch`) may start one process per node."""
    if device_map is None:
        return
    if device_map not in DEVICE_MAPS:
        raise ModelError(Param("device_map"), f" {device_map}", value=device_map, reason=f"expected one of {', '.join(DEVICE_MAPS)}")
    if (device or "auto").lower() != "auto":
        raise ModelError(Param("device_map"), f" {device_map}: places the model itself; leave ", Param("device", quoted=True),
                         f" at auto (got {device})", value=device_map)
    if launch is not None and launch.local_world_size > 1:
        raise ModelError(Param("device_map"), f" {device_map}", value=device_map, reason=f"spreads one model over all GPUs of a node, but this "
                         f"launch starts {launch.local_world_size} processes per node; use one "
                         f"(torchrun --nproc_per_node 1)")
    if importlib.util.find_spec("accelerate") is None:
        raise ModelError(Param("device_map"), f" {device_map}", value=device_map, reason=f"needs the accelerate package (pip install accelerate)")


def load_model(name: str, kind: str | None = None, device: str = "auto", dtype=None,
               device_map: str | None = None):
    """Load (model, tokenizer, kind, device, torch_dtype) for scoring; errors are ModelError.

    With `device_map` the model is dispatched by accelerate (big-model inference) and the device
    returned is the one its inputs go to."""
    if kind is not None and kind not in KINDS:
        raise ModelError(Param("kind"), f" {kind}", value=kind, reason=f"expected causal or masked")
    from fairpairs.scoring.launch import detect_launch

    check_device_map(device_map, device, detect_launch())
    source = resolve_model_name(name)
    if device_map:
        import torch

        dev = "cuda" if torch.cuda.is_available() else "cpu"
    else:
        dev = resolve_device(device)
    tdtype = resolve_dtype(dtype, dev)
    model, tok, kind = _load_parts(name, source, kind, tdtype, device_map)
    if device_map:
        dev = str(model.get_input_embeddings().weight.device)
        model = model.eval()
    else:
        model = model.to(dev).eval()
    for p in model.parameters():
        p.requires_grad_(False)
    return model, tok, kind, dev, tdtype


def _load_parts(name: str, source: ModelSource, kind: str | None, tdtype, device_map: str | None):
    """(model, tokenizer, kind) of model `name`, as read from its files (not yet placed or frozen)."""
    kept = kept_source(source)       # (a GGUF model already de-quantised once: scoring.converted)
    if kept is not None:
        try:
            return _read_parts(name, source, kept, kind, tdtype, device_map)
        except ModelError:          # (a kept folder that no longer reads: the GGUF file is read as before)
            pass
    with gguf_read_once(source):   # (only here: a kept folder is no GGUF; entering it imports gguf's reader, ~2 s)
        model, tok, kind = _read_parts(name, source, source, kind, tdtype, device_map)
    if not device_map:
        keep_converted(model, tok, source, tdtype)
    return model, tok, kind


def _read_parts(name: str, source: ModelSource, weights: ModelSource, kind: str | None, tdtype, device_map: str | None):
    """(model, tokenizer, kind) of model `name`: config and weights read from `weights` (`source`
    itself, or the folder its GGUF file is kept in de-quantised), the tokenizer from `source`."""
    from transformers import AutoModelForCausalLM, AutoModelForMaskedLM

    config = _load_config(name, weights)
    detected = detect_kind(config)
    kind = kind or detected
    if kind is None:
        raise ModelError(Param("model"), f" {name}: model type {getattr(config, 'model_type', '?')!r} is "
                         "neither a causal nor a masked language model (use ", Param("kind", quoted=True), " to force one)", value=name)
    tok = load_model_tokenizer(name, source, kept=None if weights is source else weights.path)
    if kind == "masked" and tok.mask_token_id is None:
        raise ModelError(Param("model"), f" {name}: its tokenizer has no mask token, so it cannot be "
                         "scored with pseudo-log-likelihood (use ", Param("kind", quoted=True), " causal?)", value=name)
    auto = AutoModelForMaskedLM if kind == "masked" else AutoModelForCausalLM
    try:
        with warnings.catch_warnings(), network_deadline((Param("model"), f" {name}"), source.path):
            warnings.simplefilter("ignore")
            placed = {"device_map": device_map} if device_map else {}
            # (the config read above: a GGUF file is not parsed for it again)
            model = auto.from_pretrained(weights.path, dtype=tdtype, config=config, **placed, **weights.kwargs())
    except (NetworkError, VariableError):     # (VariableError: FAIRPAIRS_HUB_TIMEOUT, not the model)
        raise
    except Exception as exc:
        raise ModelError(Param("model"), f" {name}", value=name, reason=f"cannot load it as a {kind} LM ({_first_line(exc)})") from None
    return model, tok, kind


def _load_config(name: str, source: ModelSource):
    """The transformers config of model `name`; a ModelError (with a "did you mean") when there is none."""
    from transformers import AutoConfig

    try:
        with network_deadline((Param("model"), f" {name}"), source.path):
            return AutoConfig.from_pretrained(source.path, **source.kwargs())
    except NetworkError as exc:
        from fairpairs.tokenization.catalogue import known_model_names
        from fairpairs.suggest import did_you_mean

        raise exc.appended(did_you_mean(name, known_model_names())) from None
    except VariableError:     # (FAIRPAIRS_HUB_TIMEOUT, not the model)
        raise
    except Exception as exc:
        from fairpairs.tokenization.catalogue import known_model_names
        from fairpairs.suggest import did_you_mean

        raise ModelError(Param("model"), f" {name}", value=name, reason=f"cannot load the model's config{did_you_mean(name, known_model_names())}: not a "
                         f"model folder, GGUF file or reachable Hub model ({_first_line(exc)})") from None


_QUANT = re.compile(r"[.-]((?:I?Q\d\w*)|F16|F32|BF16)$", re.IGNORECASE)


def model_identity(name: str, dtype: str = "float32", kind: str | None = None, source: ModelSource | None = None,
                   parameters: int | None = None) -> dict:
    """What a paper must state about the model behind `name`: the model it really is (the GGUF
    file's model, not the alias), its format and quantisation, the dtype it is scored in, and where
    it was read from. `description` says it in one line: ``SmolLM2-135M-Instruct (Q4_1 GGUF,
    de-quantised to float32)``. Reads no weights (only names and package metadata); for a short
    name of `fairpairs.tokenization.pretrained` (smollm2-135m, gemma3-270m) not even its file: a
    GGUF that has yet to be joined from its parts is not joined for this."""
    from importlib import metadata

    row = pretrained.lookup(name)
    if source is None and row is not None and pretrained.part_paths(row) is not None:
        source = ModelSource(str(pretrained.target(row).parent), row.file, row.bos_token)
    source = source or resolve_model_name(name)
    info = {"name": name, "model": name, "format": "transformers", "quantisation": None, "dtype": dtype,
            "kind": kind, "parameters": parameters, "read_from": source.path}
    if source.gguf_file:
        stem = Path(source.gguf_file).name[:-len(".gguf")]
        quant = _QUANT.search(stem)
        info.update(model=stem[:quant.start()] if quant else stem, format="GGUF",
                    quantisation=quant.group(1).upper() if quant else None,
                    read_from=str(Path(source.path) / source.gguf_file))
        if row is not None:
            try:
                info["read_from"] = f"{row.package} {metadata.version(row.package)}: {source.gguf_file}"
            except metadata.PackageNotFoundError:
                pass
        what = f"{info['quantisation']} GGUF" if info["quantisation"] else "GGUF"
        info["description"] = f"{info['model']} ({what}, de-quantised to {dtype})"
    else:
        info["description"] = f"{name} ({dtype})"
    return info


def remembering(load_scorer):
    """`load_scorer`, remembering what each model it loaded really is (`Scorer.info`)."""
    identities: dict[str, dict] = {}

    def load(model, s):
        scorer = load_scorer(model, s)
        if isinstance(getattr(scorer, "info", None), dict):
            identities[model] = scorer.info
        return scorer
    return load, identities


def model_notes(models, identities: dict[str, dict], dtype) -> list[str]:
    """One line per model for the report: what it really is (SmolLM2-135M-Instruct, Q4_1 GGUF,
    de-quantised to float32) and where it was read from; for a model whose scores came from the
    cache, from its name and settings (`model_identity` reads no weights)."""
    from fairpairs.errors import FairpairsError

    out = []
    for m in models:
        if not isinstance(m, str):       # a loaded Scorer: what it says it is
            info, m = getattr(m, "info", None), str(getattr(m, "name", "") or type(m).__name__)
            if not isinstance(info, dict) or "description" not in info:
                continue
        else:
            try:
                info = identities.get(m) or model_identity(m, str(dtype or "float32"))
            except FairpairsError:
                continue
        params = f", {info['parameters'] / 1e6:,.1f}M parameters" if info.get("parameters") else ""
        out.append(f"model {m}: {info['description']}{params}; read from {info.get('read_from', '?')}")
    return out


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__
