"""Reading a GGUF model once: what transformers reads of a GGUF file several times during one load
is kept for that load (issue 36: SmolLM2's load took ~13 s more CPU than needed; issue 44: Gemma 3's
262,144-token vocabulary made the second parse of the file's fields the largest part of its load)."""

from __future__ import annotations

import copy
import functools
import importlib.util
import os
from contextlib import contextmanager

from fairpairs.tokenization.sources import ModelSource


@contextmanager
def gguf_read_once(source: ModelSource):
    """While a GGUF model loads, what transformers reads of its file several times is read once.

    transformers parses the GGUF's metadata (gguf's reader builds every vocabulary string in
    Python: ~4 s of CPU for SmolLM2) for the config and again for the tokenizer's config, and builds
    gguf's tensor-name map for the model and again for each of its submodules (397 times for
    SmolLM2, ~7 s). Both depend only on their arguments and are only read, so for the length of this
    load the first result is kept (the metadata handed out as a copy each time). The call that reads
    the weights opens the file with gguf's reader once more, which builds every field again (every
    token string: for Gemma 3's 262,144 tokens about as long as the rest of the load); it gets the
    reader the metadata call built (a read-only memory map of the same file, its fields only read).
    The libraries' own functions are put back after the load. Nothing changes for other models, nor
    for the weights."""
    if not source.gguf_file or importlib.util.find_spec("gguf") is None:   # (transformers says what is missing)
        yield
        return
    import gguf
    from transformers import modeling_gguf_pytorch_utils as reading

    name_map, checkpoint = gguf.get_tensor_name_map, reading.load_gguf_checkpoint
    metadata = {}

    def metadata_once(path, *args, **kwargs):
        # (only the metadata-only call is kept; any other, whatever its arguments in this or a later
        # transformers, goes to the library's own function as it came)
        if any(args) or any(v not in (None, False) for v in kwargs.values()):
            return checkpoint(path, *args, **kwargs)
        key = os.fspath(path)
        if key not in metadata:
            metadata[key] = checkpoint(path, return_tensors=False)
        return copy.deepcopy(metadata[key])

    readers = {}
    reader_class = gguf.GGUFReader

    def reader_once(path, mode="r"):
        # (only read-only readers are shared; transformers opens its file as gguf.GGUFReader(path))
        if mode != "r":
            return reader_class(path, mode)
        key = os.fspath(path)
        if key not in readers:
            readers[key] = reader_class(path)
        return readers[key]

    gguf.get_tensor_name_map = functools.lru_cache(maxsize=None)(name_map)
    reading.load_gguf_checkpoint = metadata_once
    gguf.GGUFReader = reader_once
    try:
        yield
    finally:
        gguf.get_tensor_name_map, reading.load_gguf_checkpoint, gguf.GGUFReader = name_map, checkpoint, reader_class
        readers.clear()
