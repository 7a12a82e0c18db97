"""What the `fairpairs` command needs besides the public calls: the settings objects (defaults,
help texts and checks of its options: `fairpairs evaluate` builds the `EvaluationConfig` that
`fp.evaluate` builds, so both refuse the same settings with the same words) and the renderers of
the tables it prints. `fairpairs.commands` imports nothing else of fairpairs than `fairpairs.api`
(tests/test_architecture.py)."""

from __future__ import annotations

from fairpairs.analysis.config import EvaluationConfig, RobustnessConfig, resolved_default
from fairpairs.arguments import setting
from fairpairs.control.config import DEFAULT_MODELS, RunConfig
from fairpairs.errors import FairpairsError, Param, SettingsError, UsageError
from fairpairs.registry import LANGUAGES, PLL_VARIANTS, READERS, STRATEGIES, lazy_getattr
from fairpairs.scoring.settings import DEVICE_MAPS, SCORING, ScoringSettings
from fairpairs.manifest import ParadigmStats, verdict_text
from fairpairs.io.progress import saying, scoped


# name -> "module:attribute": what the commands print with, constants and helpers that import pandas
# or more, imported on first use (PEP 562)
LAZY = {
    "LOW_DIVERSITY": "fairpairs.control.balance_measures:LOW_DIVERSITY",
    "SMD_LIMIT": "fairpairs.control.balance_measures:SMD_LIMIT",
    "TVD_LIMIT": "fairpairs.control.balance_measures:TVD_LIMIT",
    "ALL": "fairpairs.control.balance_measures:ALL",
    "balance_summary": "fairpairs.control.balance_report:balance_summary",
    "audit_summary_text": "fairpairs.analysis.length_audit:summary_text",
    "headline_markdown": "fairpairs.analysis.headline:headline_markdown",
    "summary_markdown": "fairpairs.analysis.report:summary_markdown",
    "robustness_markdown": "fairpairs.analysis.score_robustness:markdown",
    "PATH_KINDS": "fairpairs.tokenization.catalogue:PATH_KINDS",
    "Columns": "fairpairs.pairsets:Columns",
    "FIT_CORPUS": "fairpairs.scoring.length:CORPUS",
    "read_vocabulary": "fairpairs.generation.vocab:read_vocabulary",   # (its own not-found message, as validate's)
    "is_main": "fairpairs.scoring.launch:is_main",
    "parse_normalize": "fairpairs.analysis.reported:parse_reported",
}
__getattr__ = lazy_getattr(__name__, LAZY)

__all__ = ["setting", "resolved_default", "EvaluationConfig", "RobustnessConfig", "DEFAULT_MODELS", "RunConfig", "FairpairsError", "Param", "SettingsError", "UsageError",
           "LANGUAGES", "PLL_VARIANTS", "READERS", "STRATEGIES", "SCORING", "ScoringSettings", "DEVICE_MAPS", "ParadigmStats", "verdict_text", "scoped", "saying",
           *LAZY]
