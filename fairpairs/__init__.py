"""fairpairs: minimal-pair benchmarks free of token-length bias.

    import fairpairs as fp
    p = fp.load_paradigm("determiner_noun_agreement_1")
    pairs = fp.generate(p, pairs=50, models=["gpt2", "bert-base-cased"], seed=0)

The public API (docs/api.md) is exported lazily from `fairpairs.api`: importing the package does
no work and imports neither torch nor transformers; each name's module is imported on first use.

Pipeline, one sub-package per stage (docs/architecture.md):

    generation (vocabulary -> grammar -> sampler) -> control -> scoring -> analysis -> publishing

with `io` (reading, writing, signals) under all of them.
"""

__version__ = "0.1.0"

# public name -> module that defines it (imported on first access, PEP 562)
_EXPORTS = {
    "load_paradigm": "api", "paradigms": "api", "languages": "api", "load_vocabulary": "api", "validate": "api",
    "generate": "api", "generate_run": "api", "load_sets": "api", "audit": "api", "audit_report": "api", "score_pairs": "api",
    "evaluate": "api", "matched_pairs": "api", "publish": "api", "balance": "control.balance_report",
    "read_sentences": "scoring.tables", "score_sentences": "scoring.tables", "pair_accuracy": "scoring.tables",
    "write_scores": "scoring.tables", "count_unigrams": "scoring.unigrams", "load_judgments": "scoring.morcela",
    "fit_morcela": "scoring.morcela",
    "PairRecord": "records", "read_pairs": "api", "Scorer": "scoring", "write_report": "analysis.report", "Report": "analysis.evaluation",
    "tokenizers": "api", "to_frame": "api",
    "robustness": "api", "fit_length_params": "scoring.length",
    "disable_progress_bars": "api", "enable_progress_bars": "api", "are_progress_bars_disabled": "api",
}

__all__ = ["__version__", *_EXPORTS]

def __getattr__(name):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    from fairpairs.io.progress import quiet_notebook

    quiet_notebook()     # in Jupyter without ipywidgets: no "IProgress not found" from libraries' tqdm.auto
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))
