"""The settings of the public calls, as the command line builds its options from them: each settings
object is the one home of its defaults, help texts and checks (`fairpairs evaluate` builds the
`EvaluationConfig` that `fp.evaluate` builds, so both refuse the same settings with the same words),
with the registries whose names they take and the switches of progress output for a block. The
commands take nothing else from the stages: what they print, the objects the calls return render
themselves (`RunResult.show`, `Report.markdown`, `AuditReport.summary_text`, `BalanceReport.show`)."""

from __future__ import annotations

from fairpairs.analysis.config import EvaluationConfig, RobustnessConfig, resolved_default
from fairpairs.arguments import setting
from fairpairs.control.config import RunConfig
from fairpairs.errors import FairpairsError, Param
from fairpairs.io.progress import saying, scoped
from fairpairs.registry import LANGUAGES, PLL_VARIANTS, READERS, STRATEGIES, lazy_getattr
from fairpairs.scoring.settings import DEVICE_MAPS, ScoringSettings

# name -> "module:attribute": the settings that import more than the calls' modules, on first use (PEP 562)
LAZY = {
    "Columns": "fairpairs.pairsets:Columns",                      # which columns a reader takes the pairs from
    "FIT_CORPUS": "fairpairs.scoring.length:CORPUS",              # fit-length's default corpus
    "PATH_KINDS": "fairpairs.tokenization.catalogue:PATH_KINDS",  # the paths --models takes besides names
}
__getattr__ = lazy_getattr(__name__, LAZY)

__all__ = ["setting", "resolved_default", "RunConfig", "ScoringSettings", "DEVICE_MAPS", "EvaluationConfig",
           "RobustnessConfig", "LANGUAGES", "PLL_VARIANTS", "READERS", "STRATEGIES", "FairpairsError", "Param",
           "scoped", "saying", *LAZY]
