"""Room for a model (issue 49, item 3): a one-step `evaluate` generates, then loads a model and
scores, so what generation kept and what scoring frees count on top of the model's own memory.

- `make_room`, before a model loads: the tokenizers length control kept and the word frequencies of
  its balance report are dropped (built again if a later step asks for them), and the freed memory
  is returned to the system.
- `return_freed_tensors`, once a model is on the CPU, where a command holds more than the model
  (`cache.default_loader`: `evaluate`, `robustness`): glibc's malloc keeps freed blocks for reuse,
  and after a large block is freed it serves every smaller one from that kept memory (its *dynamic*
  mmap threshold grows up to 32 MiB), so the activations of successive batches fragment it and the
  process grows past what is alive. A fixed threshold of `MMAP_THRESHOLD` makes every block of that
  size or more (a layer's activations, a chunk of logits) its own mapping, returned when freed.
  Measured (benchmarks/results/score_speed.md): one-step evaluate's peak 1,150-1,240 MB -> about
  1,120 MB with both, for SmolLM2-135M on the CPU, at 1-2% more CPU time (page faults). `score`
  alone does not set it: its process holds little besides the model, and mapping every chunk of
  logits apart cost PLL on the benchmark's tiny BERT 8% more CPU time (a 1 MiB threshold, 4 MiB
  alike; above a chunk of logits, 8 MiB, evaluate's peak was 1.25x again).

Both act on this process only and only where they can: the threshold is glibc's (Linux); elsewhere
nothing is changed. The threshold stays set for the rest of the process (glibc cannot go back to a
dynamic one).
"""

from __future__ import annotations

import gc
import sys

from fairpairs.io.heap import map_apart, release_free_memory

MMAP_THRESHOLD = 1 << 20      # bytes: blocks of 1 MiB or more are mapped apart, returned when freed


def make_room() -> None:
    """Before a model loads: drop what generation kept for length counting and balance reports,
    collect cycles, and return freed memory to the system (`io.heap.release_free_memory`)."""
    lengths = sys.modules.get("fairpairs.tokenization.lengths")         # (a module not imported kept
    measures = sys.modules.get("fairpairs.control.balance_measures")    # nothing: not imported here)
    if lengths is not None:
        lengths.forget_tokenizers()
    if measures is not None:
        measures.forget_frequencies()
    gc.collect()
    release_free_memory()


def return_freed_tensors(device) -> bool:
    """On the CPU under glibc: give tensors of `MMAP_THRESHOLD` bytes or more mappings of their own,
    returned to the system when freed (`io.heap.map_apart`). Returns whether the threshold was set."""
    return str(device) == "cpu" and map_apart(MMAP_THRESHOLD)
