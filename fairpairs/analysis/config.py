"""The settings of an evaluation, checked once (issue 44): `EvaluationConfig` for `fp.evaluate` and
`fairpairs evaluate`, `RobustnessConfig` for `fp.robustness` and `fairpairs robustness`.

As `control.config.RunConfig` is for a run, each is frozen and is the one home of its settings'
defaults, help texts and checks: the API builds one from its keyword arguments and the command
builds one from its options through the same constructor, so both refuse the same things with the
same words (the API's ``seed: only without data ...`` is the CLI's ``--seed: only without --data
...``: one `SettingsError`, its parameters named by each surface). The defaults of the settings
that belong to another home stay there (the scoring ones in `scoring.settings.ScoringSettings`, the
generation ones in `RunConfig`); the fields here take them from it.

Without data, `fp.evaluate` generates the pairs first: the settings of that generation (and of its
design: `target_halfwidth`, `max_sentences`) are `None` when not given,
are refused when data is given (they would be ignored: the pairs exist), and otherwise resolve to
their defaults (each field's ``metadata["default"]``) here.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields

from fairpairs.arguments import count, number, path, setting, text
from fairpairs.control.config import RunConfig
from fairpairs.errors import Param, SettingsError, UsageError, UsageTypeError
from fairpairs.scoring.settings import DEVICE_MAPS, ScoringSettings

_UNSET = object()
DPI = 200                     # the PNG figures' resolution by default


def _setting(default, help: str, *, resolved=_UNSET):
    """A setting's default and help text. `resolved`: a generation setting, only without data
    (its field is None when not given; it resolves to `resolved`)."""
    meta = {"help": help}
    if resolved is not _UNSET:
        meta.update(default=resolved, without_data=True)
    return field(default=default, metadata=meta)


def _scoring(name: str):
    """A scoring setting as `ScoringSettings` defines it (default and help: their one home)."""
    default, help = setting(ScoringSettings, name)
    return _setting(default, help)


def _generation(name: str, help: str):
    """A generation setting of `RunConfig` (its default), only without data, with evaluate's help."""
    return _setting(None, help, resolved=setting(RunConfig, name)[0])


def without_data_settings(config: type) -> tuple[str, ...]:
    """The fields of `config` that only apply when the pairs are generated (refused with data)."""
    return tuple(f.name for f in fields(config) if f.metadata.get("without_data"))


def resolved_default(config: type, name: str):
    """The default field `name` of `config` takes when not given (what the CLI's help shows)."""
    f = config.__dataclass_fields__[name]
    return f.metadata.get("default", f.default)


@dataclass(frozen=True)
class ScoringConfig:
    """What every evaluation's scoring takes: the settings `EvaluationConfig` and
    `RobustnessConfig` share (their defaults, help and checks written once)."""

    pll: str = _scoring("pll")
    device: str = _scoring("device")
    batch_tokens: int | None = _setting(None, "Tokens per scoring batch (default: the scorer's).")
    cache_dir: str | os.PathLike | None = _setting(None, "Score cache (shared with reruns).")
    length_params: object = _setting(
        None, "Length parameters of the length-robust scores (tcf_lp, tc_lp, slln_lp) written by `fairpairs "
        "fit-length` (default: the bundled ones, for smollm2-135m); each model uses only the entry fitted for it.")

    def _check_scoring(self) -> None:
        from fairpairs.scoring import check_pll

        check_pll(self.pll)
        text(self.device, "device")
        count(self.batch_tokens, "batch_tokens", 1, optional=True)
        path(self.cache_dir, "cache_dir", exists=False, optional=True)
        spec = self.length_params
        if spec is not None and not isinstance(spec, (str, os.PathLike, Mapping)):
            raise UsageTypeError(Param("length_params"), f": expected a file path or a dict, not {type(spec).__name__}")


@dataclass(frozen=True)
class EvaluationConfig(ScoringConfig):
    """The settings of `fp.evaluate` (and `fairpairs evaluate`, which also writes the report:
    `figures`, `dpi`, `cache`). `data_given`: whether the evaluation reads data (then the
    generation settings are refused) or generates its pairs (then they take their defaults)."""

    normalize: tuple[str, ...] = _scoring("normalize")
    cache_dir: str | os.PathLike | None = _setting(None, "Score cache (default: OUT/cache; the API's: none).")
    unigrams: object = _setting(None, "Unigram table for slor: 'wordfreq' (default) or a file written by "
                                "`fairpairs unigrams`.")
    split_tokenizer: str | None = _setting(
        None, "Tokenizer deciding A=U/A>U/A<U for every model (default: each model's own tokenizer).")
    dtype: str | None = _setting(None, "Model dtype, e.g. float32 or bfloat16 (default: the scorer's).")
    device_map: str | None = _setting(
        None, "Spread each model over the visible GPUs (accelerate), for models larger than one GPU.")
    cache: bool = _setting(True, "Read and write cached scores (the command line's --no-cache: neither).")
    figures: tuple[str, ...] | str = _setting(
        "png", "Comma-separated figure formats: png, pdf, svg (vector, for papers); report.md shows the first. "
        "none: tables and text alone, no figure drawn.")
    dpi: int = _setting(DPI, "Resolution of the PNG figures (50-1200).")
    # the pairs generated without data (one step): RunConfig's settings, and the design's
    paradigms: str | tuple[str, ...] | None = _generation(
        "paradigms", "Without --data: comma-separated paradigm UIDs, or 'all' [default: {default}].")
    phenomenon: str | None = _generation("phenomenon", "Without --data: only paradigms of this phenomenon.")
    pairs: int | None = _setting(
        None, "Without --data: pairs per paradigm in each set, every one scored (no size planning) [default: "
        "planned from --target-halfwidth on a pilot run; docs/evaluation.md, 'The designed evaluation'].",
        resolved=None)
    seed: int | None = _generation(
        "seed", "Without --data: random seed of the generated pairs [default: {default}] (the bootstrap "
        "intervals are seeded with 0, with or without --data).")
    strategy: str | None = _generation(
        "strategy", "Without --data: length control strategy [default: {default}] (see `fairpairs generate`).")
    run_dir: str | os.PathLike | None = _setting(
        None, "Without data: the folder the pairs are generated into [default: a new temporary folder, kept; "
        "the command line's OUT/run].", resolved=None)
    target_halfwidth: float | None = _setting(
        None, "Without --data: the half-width of the 95% interval of the bias the design aims at, in percentage "
        "points [default: {default}] (the API's target_halfwidth is a proportion: 0.10 for 10 points).",
        resolved=0.10)
    max_sentences: int | None = _setting(
        None, "Without --data: at most this many sentences scored per model [default: no limit].", resolved=None)
    equal_rate: float | None = _setting(
        None, "Sampling rate of the A=U contexts kept as drawn, in (0, 1]: the rest are not scored, the sample is "
        "weighted [default: the design's rate without --data and --pairs; 1, every pair, otherwise].")
    placebo: int | None = _setting(
        None, "Placebo contexts per paradigm (A=U contexts with the bad word redrawn at equal lengths; 0: none) "
        "[default: enough for the design's pairs per direction without --data and --pairs; none otherwise].")
    data_given: bool = field(default=False, repr=False)

    def __post_init__(self):
        self._refuse_generation_settings()
        self._check_scoring()
        self._check_evaluation()
        if not self.data_given:
            self._resolve_generation()

    def _refuse_generation_settings(self) -> None:
        """With data, a generation setting given is an error (the pairs exist: it would be ignored)."""
        given = [name for name in without_data_settings(EvaluationConfig) if getattr(self, name) is not None]
        if self.data_given and given:
            names = [part for name in given for part in (", ", Param(name))][1:]
            verb = "it sets" if len(given) == 1 else "they set"
            raise SettingsError(*names, ": only without ", Param("data"), f" ({verb} how the pairs are generated)",
                                value=getattr(self, given[0]))

    def _check_evaluation(self) -> None:
        """The scores, their inputs, the models' placement and the report's figures."""
        from fairpairs.analysis.reported import parse_reported
        from fairpairs.analysis.plots import check_formats

        object.__setattr__(self, "normalize", parse_reported(self.normalize))
        for name in ("split_tokenizer", "dtype", "device_map"):
            text(getattr(self, name), name, optional=True)
        if self.device_map is not None and self.device_map not in DEVICE_MAPS:
            raise UsageError(Param("device_map"), f" {self.device_map}: expected one of {', '.join(DEVICE_MAPS)}",
                             value=self.device_map)
        if not isinstance(self.cache, bool):
            raise UsageTypeError(Param("cache"), f": expected True or False, not {type(self.cache).__name__}")
        if "slor" in self.normalize:
            from fairpairs.scoring.unigrams import load_unigrams

            load_unigrams(self.unigrams)
        rate = number(self.equal_rate, "equal_rate", optional=True)
        if rate is not None and not 0 < rate <= 1:
            raise UsageError(Param("equal_rate"), f": expected a share in (0, 1], not {rate:g}", value=self.equal_rate)
        count(self.placebo, "placebo", 0, optional=True)
        formats, dpi = check_formats(self.figures, self.dpi)
        object.__setattr__(self, "figures", formats)
        object.__setattr__(self, "dpi", dpi)

    def _resolve_generation(self) -> None:
        """Without data: each generation setting not given takes its default; all are checked (the
        run's by `RunConfig`, with its words, before anything is generated)."""
        for f in fields(self):
            if f.metadata.get("without_data") and getattr(self, f.name) is None:
                object.__setattr__(self, f.name, f.metadata["default"])
        run = RunConfig(models=(), need_models=False, seed=self.seed, strategy=self.strategy,
                        paradigms=self.paradigms, phenomenon=self.phenomenon,
                        **({} if self.pairs is None else {"pairs": self.pairs}))
        object.__setattr__(self, "paradigms", run.paradigms)     # (a list of UIDs as a tuple)
        path(self.run_dir, "run_dir", exists=False, optional=True)
        halfwidth = number(self.target_halfwidth, "target_halfwidth")
        if not 0 < halfwidth <= 0.5:
            raise UsageError(Param("target_halfwidth"), f": expected a proportion in (0, 0.5] (0.10 is 10 percentage "
                             f"points), not {halfwidth:g}", value=self.target_halfwidth)
        count(self.max_sentences, "max_sentences", 1, optional=True)

    def scoring_settings(self, length_params: str | None = None):
        """What changes the scores (`scoring.cache.Settings`, the cache key): `length_params` as the
        cache keys them (`fp.evaluate` reads the parameters for its models)."""
        from fairpairs.analysis.evaluation import Settings

        return Settings(pll=self.pll, normalize=self.normalize, dtype=self.dtype, unigrams=self.unigrams,
                        length_params=length_params)


@dataclass(frozen=True)
class RobustnessConfig(ScoringConfig):
    """The settings of `fp.robustness` (and `fairpairs robustness`). It always reads data and none
    of its intervals is random (Wilson, Newcombe), so it has no seed."""

    morcela_params: object = _setting(None, "MORCELA parameters (`fairpairs morcela fit`); without them MORCELA is "
                                      "left out.")
    cache_dir: str | os.PathLike | None = _setting(None, "Score cache (shared with reruns; default: none).")

    def __post_init__(self):
        self._check_scoring()
