"""One convention for every command (issue 37, docs/cli.md): tables on stdout, progress and
warnings on stderr; `--models` names the models everywhere (`--model`: a deprecated alias that
warns); a rule about settings made once, by the settings, still a usage error (exit 2) on the
command line."""

from __future__ import annotations

import pandas as pd
import pytest


pytestmark = pytest.mark.usefixtures("one_torch_thread")


def test_generate_prints_its_table_on_stdout(tmp_path, fairpairs_cli):
    code, out, err = fairpairs_cli("generate", "--paradigms", "causative", "--pairs", 3, "--models", "gpt2",
                                   "--out", tmp_path / "run")
    assert code == 0, err
    assert "Length control per paradigm (search)" in out and "retention = kept" in out
    assert "Length control per paradigm" not in err and "generating" in err     # the progress: stderr


@pytest.mark.parametrize("argv, line", [
    (["--min-count", 3], "Error: --min-count needs --lexicon-from CORPUS"),
    (["--match-frequency", "inf"], "Error: Invalid value for '--match-frequency': inf is not a finite number"),
])
def test_a_settings_rule_is_a_usage_error_on_the_command_line(argv, line, fairpairs_cli):
    """RunConfig makes the rule (the API raises a SettingsError); the command shows it as click shows
    a usage error: its usage first, the same line as before the rule moved, exit 2."""
    code, out, err = fairpairs_cli("generate", "--paradigms", "causative", "--pairs", 5, *argv)
    assert code == 2 and err.startswith("Usage: fairpairs generate [OPTIONS]\n") and err.rstrip().endswith(line)


def test_the_api_makes_the_same_rule(tmp_path):
    import fairpairs as fp
    from fairpairs.errors import SettingsError

    with pytest.raises(SettingsError, match=r"^min_count: needs lexicon_from \(a corpus\)$"):
        fp.generate_run(tmp_path / "run", "causative", ["gpt2"], pairs=5, min_count=3)
    with pytest.raises(SettingsError, match=r"^match_frequency: expected a finite number, not inf$"):
        fp.generate_run(tmp_path / "run", "causative", ["gpt2"], pairs=5, match_frequency=float("inf"))


def test_model_is_an_alias_of_models_that_warns(tmp_path, fairpairs_cli):
    missing = ["--input", tmp_path / "missing.txt", "--out", tmp_path / "o.csv"]
    code, _, err = fairpairs_cli("score", "--models", "gpt2", *missing)
    code_old, _, err_old = fairpairs_cli("score", "--model", "gpt2", *missing)
    warning = "fairpairs: warning: --model is deprecated, use --models (same meaning)\n"
    assert code == code_old == 1 and "deprecated" not in err and err_old == warning + err
    code, _, err = fairpairs_cli("score", "--model", "gpt2", "--models", "gpt2", *missing)
    assert code == 2 and "Error: --model: the old name of --models; give only --models" in err
    code, _, err = fairpairs_cli("score", *missing)
    assert code == 2 and "Error: Missing option '--models'." in err


def test_score_takes_several_models(tiny_models, tmp_path, fairpairs_cli):
    """Two models: each model's rows, in the order given, led by a model column; one model: the
    table as before (no model column)."""
    text = tmp_path / "s.txt"
    text.write_text("The cat sat.\nThe cats sat.\n", encoding="utf-8")
    one, both = tmp_path / "one.csv", tmp_path / "both.csv"
    assert fairpairs_cli("score", "--models", tiny_models["gpt2"], "--input", text, "--out", one, "--normalize", "lp",
                         "--no-progress")[0] == 0
    code, _, err = fairpairs_cli("score", "--models", f"{tiny_models['gpt2']},{tiny_models['bert']}", "--input", text,
                                 "--out", both, "--normalize", "lp", "--no-progress")
    assert code == 0, err
    single, table = pd.read_csv(one), pd.read_csv(both)
    assert "model" not in single.columns and list(table.columns) == ["model", *single.columns]
    assert list(table["model"]) == [tiny_models["gpt2"]] * 2 + [tiny_models["bert"]] * 2
    first = table[table["model"] == tiny_models["gpt2"]].drop(columns="model").reset_index(drop=True)
    pd.testing.assert_frame_equal(first, single)
    assert err.count("scored 2 sentences") == 2


def test_a_one_model_command_refuses_several(tmp_path, fairpairs_cli):
    corpus = tmp_path / "c.txt"
    corpus.write_text("The cat sat.\n")
    code, _, err = fairpairs_cli("unigrams", "--models", "gpt2,bert-base-cased", "--corpus", corpus, "--out",
                                 tmp_path / "u.json")
    assert code == 1 and "fairpairs: error: --models: a unigram table is for one model; give one, not 2" in err
