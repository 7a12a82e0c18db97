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
    ({"strategy": "best"}, ValueError, r"strategy: expected one of search, resample, not 'best'$"),
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
    with pytest.raises(ValueError, match="^strategy: expected one of"):
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
