"""One validated run config and one name per concept (issue 24, item 3).

`fairpairs.control.config.RunConfig` is the one place the settings of a generation run are checked
and their defaults resolved; the control loop takes what it is given. The old spellings of the
API's parameters (`n`, `tokenizers`, `which`, `Paradigm.is_reordering`) work for one release and
warn exactly once with a `FairpairsDeprecationWarning`; an old name next to its new one is an error.
"""

import dataclasses
import warnings

import pytest

import fairpairs as fp
from fairpairs.control.config import RunConfig
from fairpairs.errors import FairpairsDeprecationWarning

OK = {"models": ("gpt2",), "pairs": 5}


@pytest.mark.parametrize("bad, error, message", [
    ({"models": ()}, ValueError, r"models: give at least one tokenizer$"),
    ({"models": 5}, TypeError, r"models: expected a name or a list of names, not 5$"),
    ({"models": ("gpt2", " ")}, ValueError, r"models: expected tokenizer names"),
    ({"models": ("gpt2", "gpt2")}, ValueError, r"models: gpt2 named twice$"),
    ({"models": ("preset:nope",)}, ValueError, r"models preset:nope: no such preset"),
    ({"pairs": 0}, ValueError, r"pairs: expected a whole number >= 1, not 0$"),
    ({"pairs": 2.5}, TypeError, r"pairs: expected a whole number >= 1"),
    ({"pairs": 200_000}, ValueError, r"pairs: 200000 pairs per paradigm is more than"),
    ({"max_draws": 0}, ValueError, r"max_draws: expected a whole number >= 1, not 0$"),
    ({"max_draws": 10_000_000}, ValueError, r"max_draws: at most 5000000, not 10000000$"),
    ({"max_draws": 3}, ValueError, r"max_draws: 3 draws cannot give 5 pairs"),
    ({"seed": -1}, ValueError, r"seed: expected a whole number >= 0, not -1$"),
    ({"strategy": "best"}, ValueError, r"strategy: unknown strategy 'best' \(known: search, resample\)$"),
    ({"strategy": None}, TypeError, r"strategy: expected a string"),
    ({"match_frequency": float("nan")}, ValueError, r"match_frequency: expected a finite number"),
    ({"match_frequency": -1}, ValueError, r"match_frequency: expected a number >= 0"),
    ({"max_retries": -1}, ValueError, r"max_retries: expected a whole number >= 0, not -1$"),
    ({"command": 3}, TypeError, r"command: expected a string"),
])
def test_the_config_refuses_each_bad_setting_naming_it(bad, error, message):
    with pytest.raises(error, match="^" + message) as caught:
        RunConfig(**{**OK, **bad})
    assert caught.value.param == next(iter(bad))
    cfg = RunConfig(**OK)
    with pytest.raises(error, match="^" + message):    # a copy is built, so checked, again
        dataclasses.replace(cfg, **bad)


def test_the_config_is_frozen_and_resolves_the_defaults_once():
    cfg = RunConfig(**OK)
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.pairs = 6
    assert (cfg.retries, RunConfig(**OK, strategy="resample").retries) == (100, 10)    # search; Algorithm 1's N
    assert RunConfig(**OK, max_retries=0).retries == 0          # 0 is a setting, not "the default"
    assert (cfg.draws, RunConfig(models=("gpt2",), pairs=1000).draws) == (2000, 50_000)
    assert RunConfig(**OK, max_draws=7).draws == 7
    assert RunConfig(models="gpt2").models == ("gpt2",)          # a name, or a list of names: a tuple
    modern = RunConfig(models=("gpt2", "preset:modern")).models   # a preset is expanded (once, no repeats)
    assert modern[0] == "gpt2" and len(modern) == len(set(modern)) > 2
    assert RunConfig(models=(), need_models=False).models == ()  # (fp.generate without models)


def test_the_control_loop_trusts_the_config():
    """The loop takes what it is given: a budget the config refuses is not refused again there,
    and the loop's defaults are the config's."""
    from fairpairs.control import loop
    from fairpairs.generation.sampler import Sampler

    sampler = Sampler(fp.load_paradigm("causative"), fp.load_vocabulary(), 0)
    with pytest.raises(ValueError, match="^max_draws: 3 draws cannot give 5 pairs"):
        RunConfig(**OK, max_draws=3)
    assert loop.Budget(sampler, 5, 3).limit == 3
    assert loop.Budget(sampler, 5, None).limit == RunConfig(**OK).draws
    assert not hasattr(loop, "check_request") and not hasattr(loop, "default_max_draws")


def test_settings_are_checked_before_any_work():
    with pytest.raises(ValueError, match="^pairs: expected a whole number >= 1"):
        fp.generate("no_such_paradigm", pairs=0)
    with pytest.raises(ValueError, match="^strategy: unknown strategy .best."):
        fp.generate_run("never-written", paradigms=["no_such_paradigm"], models=["gpt2"], strategy="best")


def one_deprecation(call):
    """What `call()` returns, and the message of the one FairpairsDeprecationWarning it gave."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        got = call()
    messages = [str(w.message) for w in seen if issubclass(w.category, FairpairsDeprecationWarning)]
    assert len(messages) == 1, messages
    return got, messages[0]


def files(folder):
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*.jsonl"))}


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("config") / "run"
    fp.generate_run(out, paradigms=["causative"], models=["gpt2"], pairs=4, seed=1)
    return out


def test_generate_run_and_audit_report_take_tokenizers_as_the_old_name_of_models(run, tmp_path):
    old, message = one_deprecation(lambda: fp.generate_run(tmp_path / "old", paradigms=["causative"],
                                                           tokenizers=["gpt2"], pairs=4, seed=1))
    assert message == "generate_run(): `tokenizers` is deprecated, use `models` (same meaning)"
    assert files(tmp_path / "old") == files(run)
    report, message = one_deprecation(lambda: fp.audit_report(run, tokenizers=["gpt2"]))
    assert message == "audit_report(): `tokenizers` is deprecated, use `models` (same meaning)"
    assert report["summary"].equals(fp.audit_report(run, models=["gpt2"])["summary"])


def test_publish_which_and_paradigm_is_reordering_warn_once(run, tmp_path):
    built, message = one_deprecation(lambda: fp.publish(run, "me/x", out=tmp_path / "a", which="debiased",
                                                        dry_run=True))
    assert "`which` is deprecated, use `set`" in message
    assert [c.name for c in built.configs] == ["causative"]
    p = fp.load_paradigm("causative")
    reorder, message = one_deprecation(lambda: p.is_reordering)
    assert reorder is p.reorder and message == "Paradigm.is_reordering is deprecated, use Paradigm.reorder"


@pytest.mark.parametrize("call, message", [
    (lambda out: fp.generate("causative", pairs=5, tokenizers=["gpt2"], models=["gpt2"]),
     r"^tokenizers: the old name of models; give only models$"),
    (lambda out: fp.generate_run(out / "r", paradigms=["causative"], models=["gpt2"], tokenizers=["gpt2"]),
     r"^tokenizers: the old name of models; give only models$"),
    (lambda out: fp.audit_report([{"sentence_good": "A cat sat.", "sentence_bad": "A cat sit."}],
                                 models=["gpt2"], tokenizers=["gpt2"]),
     r"^tokenizers: the old name of models; give only models$"),
    (lambda out: fp.publish(out / "r", "me/x", out=out / "h", set="original", which="original", dry_run=True),
     r"^which: the old name of set; give only set$"),
])
def test_an_old_name_next_to_its_new_one_is_an_error(call, message, tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("error", FairpairsDeprecationWarning)     # refused before any warning
        with pytest.raises(ValueError, match=message):
            call(tmp_path)
    assert not (tmp_path / "r").exists() and not (tmp_path / "h").exists()


# ---------------------------------------------------------------- one home per default (issue 37)

from fairpairs.analysis.config import EvaluationConfig, RobustnessConfig, resolved_default  # noqa: E402
from fairpairs.control.config import DEFAULT_MODELS  # noqa: E402
from fairpairs.scoring.settings import SCORING, ScoringSettings  # noqa: E402

RUN_FIELDS = {f.name for f in dataclasses.fields(RunConfig)}
SCORING_FIELDS = {f.name for f in dataclasses.fields(ScoringSettings)}

# command -> click parameter -> (settings class, field); every option of these commands that sets
# a setting is here (test_every_setting_option_is_listed)
OPTIONS = {
    "generate": {"models": (RunConfig, "models"), "paradigms_spec": (RunConfig, "paradigms"),
                 **{k: (RunConfig, k) for k in ("phenomenon", "pairs", "seed", "strategy", "max_retries",
                                                "match_frequency", "max_draws", "lexicon_from", "min_count")},
                 "grammar_dir": (RunConfig, "grammars")},
    "evaluate": {k: (EvaluationConfig, k) for k in (   # (issue 44: evaluate's settings have one home)
        "paradigms", "phenomenon", "pairs", "seed", "strategy", "target_halfwidth", "max_sentences", "equal_rate",
        "placebo", "pll", "normalize", "unigrams", "length_params", "cache_dir", "split_tokenizer", "device",
        "dtype", "device_map", "batch_tokens", "figures", "dpi")},
    "robustness": {k: (RobustnessConfig, k) for k in ("cache_dir", "length_params", "morcela_params", "pll", "device",
                                                      "batch_tokens")},
    "score": {"pll": (ScoringSettings, "pll"), "device": (ScoringSettings, "device"),
              "normalize": (ScoringSettings, "score_normalize"), "alpha": (ScoringSettings, "alpha")},
    "fit-length": {"pll": (ScoringSettings, "pll"), "device": (ScoringSettings, "device"),
                   "n": (ScoringSettings, "fit_sentences")},
}


def _shown(value):
    return ",".join(value) if isinstance(value, tuple) else value


def _option_drift(option, settings, name) -> str | None:
    """What is wrong with a click option of setting `name` (None: default and help are the
    setting's). An option with no default of its own names the setting's default in its help."""
    f = next(f for f in dataclasses.fields(settings) if f.name == name)
    text = f.metadata.get("help", "")
    default = resolved_default(settings, name)     # (a setting that is None until resolved: what it resolves to)
    if option.default is None and default is not None:
        shown = f"{default * 100:g}" if name == "target_halfwidth" else _shown(default)   # (the CLI's points)
        if f"[default: {shown}" not in (option.help or ""):
            return f"{option.name}: help does not name the default {default!r}: {option.help!r}"
        return None
    if option.default is None and f.default is None and text and option.help != text.format(default=None):
        return f"{option.name}: help {option.help!r} is not the setting's {text!r}"
    if option.default != _shown(f.default):
        return f"{option.name}: default {option.default!r}, the setting's is {f.default!r}"
    if text and option.help != text and not (option.help or "").startswith("Without --data: "):
        return f"{option.name}: help {option.help!r} is not the setting's {text!r}"   # (evaluate's own, else)
    return None


def test_click_options_take_default_and_help_from_the_settings():
    from fairpairs.cli import cli

    drift = []
    for command, options in OPTIONS.items():
        params = {p.name: p for p in cli.get_command(None, command).params}
        for param, (settings, name) in options.items():
            problem = _option_drift(params[param], settings, name)
            if problem:
                drift.append(f"fairpairs {command} {problem}")
    assert not drift, "\n".join(drift)


def test_the_option_drift_check_can_fail():
    import click

    @click.command()
    @click.option("--pairs", default=999, help="Pairs per paradigm in each of original/ and debiased/.")
    @click.option("--pll", default="word_l2r", help="another text")
    @click.option("--seed", default=None, help="Without --data: random seed.")
    def cmd(pairs, pll, seed):
        pass

    p = {x.name: x for x in cmd.params}
    assert "default 999" in _option_drift(p["pairs"], RunConfig, "pairs")
    assert "is not the setting's" in _option_drift(p["pll"], ScoringSettings, "pll")
    assert "does not name the default" in _option_drift(p["seed"], RunConfig, "seed")


def _api_defaults():
    """(call, parameter, its default, the settings' default) for every API parameter that is a setting."""
    import inspect

    from fairpairs.scoring.tables import score_sentences

    run = {"pairs": RunConfig.pairs, "seed": RunConfig.seed, "strategy": RunConfig.strategy,
           "paradigms": RunConfig.paradigms}
    scoring = {"pll": SCORING.pll, "device": SCORING.device, "alpha": SCORING.alpha}
    calls = {fp.generate: {**run, "models": None}, fp.generate_run: {**run, "models": DEFAULT_MODELS},
             # (evaluate's generation settings: None until EvaluationConfig resolves them, which tells
             # a setting given from its default; test_evaluation_config.py checks what they resolve to)
             fp.evaluate: {**{k: None for k in run}, **scoring, "normalize": SCORING.normalize, "pairs": None},
             fp.robustness: scoring,
             fp.audit: {"models": DEFAULT_MODELS}, fp.audit_report: {"models": DEFAULT_MODELS},
             fp.score_pairs: {"normalize": SCORING.normalize}, fp.Scorer.from_pretrained: scoring,
             fp.Scorer.score: {**scoring, "pll": None, "normalize": SCORING.score_normalize},   # (None: the scorer's)
             score_sentences: {**scoring, "normalize": SCORING.score_normalize}}
    for call, expected in calls.items():
        params = inspect.signature(inspect.unwrap(call)).parameters
        for name, param in params.items():
            if name in expected:
                yield call.__qualname__, name, param.default, expected[name]


def test_api_signatures_take_their_defaults_from_the_settings():
    checked = list(_api_defaults())
    drift = [f"{call}({name}={got!r}): the setting's is {want!r}" for call, name, got, want in checked if got != want]
    assert not drift, "\n".join(drift)
    assert len(checked) >= 25      # (the calls above still take these parameters)


def test_every_setting_has_help_and_one_literal_default():
    """Each setting the CLI shows has a help text; the defaults that issue 37 found written in many
    places are now written once in the package's source (their settings)."""
    import re
    from pathlib import Path

    shown = {(s, n) for opts in OPTIONS.values() for s, n in opts.values()}
    for settings in (RunConfig, ScoringSettings, EvaluationConfig, RobustnessConfig):
        for f in dataclasses.fields(settings):
            if (settings, f.name) in shown:
                assert f.metadata.get("help"), f"{settings.__name__}.{f.name} has no help text"
    import ast
    from pathlib import Path

    root = Path(fp.__file__).parent
    found = {"search": [], "word_l2r": []}      # issue 37: written in 11 and 10 places
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in found:
                found[node.value].append(str(path.relative_to(root)))
    assert sorted(found["search"]) == ["control/config.py", "registry.py"]      # the setting; the registry's name
    assert sorted(found["word_l2r"]) == ["registry.py", "scoring/settings.py"]


def test_no_control_is_explicit():
    """fp.generate(strategy=None): the uncontrolled pairs (original/), recorded as no strategy; a run
    (which always controls its debiased set) refuses it."""
    cfg = RunConfig(models=("gpt2",), pairs=5, strategy=None, need_models=False)
    assert cfg.strategy is None and cfg.retries == 0
    with pytest.raises(TypeError, match="^strategy: expected a string"):
        RunConfig(models=("gpt2",), pairs=5, strategy=None)
    def sentences(records):
        return [(r.sentence_good, r.sentence_bad) for r in records]

    uncontrolled = fp.generate("causative", pairs=5, models=["gpt2"], seed=0, strategy=None)
    assert sentences(uncontrolled) == sentences(fp.generate("causative", pairs=5, seed=0))   # the original pairs
    assert all(r.token_lengths["gpt2"] for r in uncontrolled)                                 # measured


def test_a_comma_joined_models_string_is_one_clear_error(tmp_path):
    """`--models a,b` is the CLI's spelling; a call given "gpt2,bert-base-cased" took it for one
    tokenizer name and failed loading it ("did you mean bert-base-cased?"). Now: one UsageError
    naming `models` and the list to give, before anything is loaded or written. A local path with a
    comma in its name is still a name."""
    import fairpairs as fp
    from fairpairs.control.config import model_names
    from fairpairs.errors import UsageError

    with pytest.raises(UsageError, match=r"^models: 'gpt2,bert-base-cased' is one name; give a list, e.g. "
                                         r"\['gpt2', 'bert-base-cased'\]"):
        fp.generate_run(tmp_path / "out", paradigms="causative", pairs=2, models="gpt2,bert-base-cased")
    assert not (tmp_path / "out").exists()
    odd = tmp_path / "tok,v2"
    odd.mkdir()
    assert model_names([str(odd)]) == [str(odd)]
