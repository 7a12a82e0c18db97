"""The public Python API: what `import fairpairs as fp` exports (docs/api.md).

    import fairpairs as fp
    p = fp.load_paradigm("determiner_noun_agreement_1")
    pairs = fp.generate(p, pairs=50, models=["gpt2", "bert-base-cased"], seed=0)
    bias = fp.audit(fp.generate(p, pairs=50, seed=0), models=["gpt2"])
    scores = fp.score_pairs(fp.Scorer.from_pretrained(MODEL), pairs)
    report = fp.evaluate({"original": orig, "debiased": pairs}, [MODEL])

Every call wraps the modules the CLI uses (run, control, audit, evaluate, scoring): the CLI's
commands are clients of these functions, so `fp.generate(p, n, tokenizers, seed)` gives exactly
the pairs `fairpairs generate --seed` writes. Errors are `fairpairs.errors` classes whose
messages name this module's parameters, by one rule (docs/api.md): a missing file or folder is a
FileNotFoundError, an argument of the wrong type a TypeError, any other bad input a ValueError
(`fairpairs.arguments` checks the arguments). Importing this module imports neither torch nor
pandas; they are imported by the calls that need them.
"""

from fairpairs.api.common import DEFAULT_MODELS, DEFAULT_NORMALIZE, load_vocabulary
from fairpairs.api.generation import load_paradigm, paradigms, languages, validate, tokenizers, generate, generate_run
from fairpairs.api.datasets import read_pairs, load_sets, to_frame, audit, audit_report, balance
from fairpairs.api.evaluation import score_pairs, evaluate, matched_pairs, robustness
from fairpairs.api.publishing import publish
from fairpairs.api.placebo import placebo_pairs
from fairpairs.io.progress import are_progress_bars_disabled, disable_progress_bars, enable_progress_bars
from fairpairs.registry import lazy_getattr

# public names defined by a stage and re-exported here as they are, imported on first use (PEP 562:
# `import fairpairs.api` imports neither torch nor pandas): name -> its module
REEXPORTS = {
    "read_sentences": "fairpairs.scoring.tables",
    "score_sentences": "fairpairs.scoring.tables", "pair_accuracy": "fairpairs.scoring.tables",
    "write_scores": "fairpairs.scoring.tables", "count_unigrams": "fairpairs.scoring.unigrams",
    "load_judgments": "fairpairs.scoring.morcela", "fit_morcela": "fairpairs.scoring.morcela",
    "PairRecord": "fairpairs.records", "Scorer": "fairpairs.scoring", "write_report": "fairpairs.analysis.report",
    "Report": "fairpairs.analysis.evaluation", "fit_length_params": "fairpairs.scoring.length",
    "report_figures": "fairpairs.analysis.figure_set",
}

__getattr__ = lazy_getattr(__name__, REEXPORTS, globals())


__all__ = ['DEFAULT_MODELS', 'DEFAULT_NORMALIZE', 'load_vocabulary', 'load_paradigm', 'paradigms', 'languages', 'validate',
           'tokenizers', 'generate', 'generate_run', 'read_pairs', 'load_sets', 'to_frame', 'audit', 'audit_report',
           'balance', 'score_pairs', 'evaluate', 'matched_pairs', 'robustness', 'publish', 'placebo_pairs', *REEXPORTS]
__all__ += ['disable_progress_bars', 'enable_progress_bars', 'are_progress_bars_disabled']
