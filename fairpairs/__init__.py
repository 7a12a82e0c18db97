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

# every public name is defined or re-exported by `fairpairs.api` (imported on first access, PEP 562)
_EXPORTS = {name: "api" for name in (
    "load_paradigm", "paradigms", "languages", "load_vocabulary", "validate", "generate", "generate_run", "load_sets",
    "audit", "audit_report", "score_pairs", "evaluate", "matched_pairs", "publish", "balance", "read_sentences",
    "score_sentences", "pair_accuracy", "write_scores", "count_unigrams", "load_judgments", "fit_morcela",
    "PairRecord", "read_pairs", "Scorer", "write_report", "report_figures", "Report", "tokenizers", "to_frame", "robustness",
    "fit_length_params", "placebo_pairs", "disable_progress_bars", "enable_progress_bars", "are_progress_bars_disabled")}

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
