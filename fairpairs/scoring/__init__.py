"""Scoring sentences with causal LMs (log-likelihood) and masked LMs (pseudo-log-likelihood).

    from fairpairs.scoring import Scorer
    scorer = Scorer.from_pretrained("smollm2-135m")            # or a folder, Hub name, .gguf file
    df = scorer.score(["The cat sat.", "The cat sit."], normalize=("mean_lp", "pen_lp", "slor"))

Modules: `models` (names, loading, device/dtype), `gguf_reading` (a GGUF read once per load), `converted` (a GGUF model kept de-quantised),
`encoding` (tokenisation, PLL mask sets), `heads` (LM head only where scored), `batching`
(token-budget batches), `normalize` (linking functions, unigram tables), `morcela` (fitting),
`tiny` (tiny random test models).
Importing this package imports neither torch nor transformers.
"""

from __future__ import annotations

__all__ = ["Scorer", "resolve_model_name", "build_tiny_model", "UnigramTable", "PLL_VARIANTS", "check_pll"]

from fairpairs.registry import PLL_VARIANTS   # names -> fairpairs.scoring.encoding.PLLVariant

_LAZY = {"Scorer": "fairpairs.scoring.scorer", "resolve_model_name": "fairpairs.scoring.models",
         "build_tiny_model": "fairpairs.scoring.tiny", "UnigramTable": "fairpairs.scoring.unigrams"}


def check_pll(pll: str) -> str:
    """`pll` if it names a pseudo-log-likelihood variant, else a ModelError naming the parameter."""
    if not isinstance(pll, str):
        from fairpairs.errors import Param, UsageTypeError

        raise UsageTypeError(Param("pll"), f": expected one of {', '.join(PLL_VARIANTS)}, not {type(pll).__name__}")
    return PLL_VARIANTS.check(pll)


def __getattr__(name):
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(_LAZY[name]), name)
