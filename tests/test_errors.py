"""Error classes, parameter names in library errors, and the CLI's translation to its options."""

import ast
import inspect
from pathlib import Path

import pytest

import fairpairs.errors as errors
from fairpairs.cli import cli_message

PKG = Path(__file__).resolve().parent.parent / "fairpairs"


def test_every_error_is_a_fairpairs_error_and_a_builtin():
    classes = [c for _, c in inspect.getmembers(errors, inspect.isclass) if c.__module__ == errors.__name__
               and not issubclass(c, Warning)]
    assert {"ModelError", "PublishError", "DatasetError", "GrammarError"} <= {c.__name__ for c in classes}
    assert issubclass(errors.FairpairsWarning, UserWarning)   # the one warning class, shown by default
    for cls in classes:
        assert issubclass(cls, errors.FairpairsError)
        if cls is not errors.FairpairsError:
            builtin = [b for b in cls.__mro__ if b.__module__ == "builtins" and b not in (Exception, BaseException, object)]
            assert builtin, f"{cls.__name__} subclasses no specific built-in exception"


def test_no_error_class_defined_outside_errors_py():
    for path in PKG.rglob("*.py"):
        if path.name == "errors.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                bases = {getattr(b, "id", getattr(b, "attr", "")) for b in node.bases}
                assert not any(b.endswith("Error") for b in bases), f"{path}: class {node.name}"


def test_no_module_imports_from_commands():
    for path in PKG.rglob("*.py"):
        if "commands" in path.parts or path.name == "cli.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                assert "commands" not in (node.module or ""), f"{path} imports {node.module}"


def test_a_missing_dataset_is_a_file_not_found_error(tmp_path):
    from fairpairs.analysis.length_audit import load_sets

    with pytest.raises(FileNotFoundError, match="no such file or folder"):
        load_sets(tmp_path / "nothing.jsonl")


def test_library_errors_name_parameters_and_the_cli_translates():
    from fairpairs.scoring import check_pll

    with pytest.raises(ValueError) as info:
        check_pll("left_to_right")
    assert str(info.value).startswith("pll left_to_right: expected one of")
    assert cli_message(str(info.value)).startswith("--pll left_to_right: expected one of")
    assert cli_message("repo_id 'x': expected owner/name") == "--repo-id 'x': expected owner/name"
    assert cli_message("out /tmp/a: exists") == "--out /tmp/a: exists"
    assert cli_message("x.yaml: slots: raise max_draws") == "x.yaml: slots: raise --max-draws"
    assert cli_message("grammars/a.yaml: uid: bad") == "grammars/a.yaml: uid: bad"   # a path is left alone
    # evaluate takes its models from --models (score and morcela fit: --model)
    assert cli_message("model x: cannot load it", "evaluate") == "--models x: cannot load it"
    assert cli_message("model x: cannot load it", "score") == "--model x: cannot load it"


def test_evaluate_names_its_models_option(tmp_path, capsys):
    from fairpairs.cli import main

    data = tmp_path / "pairs.jsonl"
    data.write_text('{"sentence_good": "The cat sat.", "sentence_bad": "The cat sit."}\n', encoding="utf-8")
    with pytest.raises(SystemExit) as exc:
        main(["evaluate", "--models", str(tmp_path / "no-model"), "--data", str(data), "--out", str(tmp_path / "r")])
    err = capsys.readouterr().err.strip().splitlines()[-1]     # (after the note 'scoring with ...')
    assert exc.value.code == 1 and err.startswith(f"fairpairs: error: --models {tmp_path / 'no-model'}: "), err


def test_library_checks_normalize_once_with_each_allowed_set():
    from fairpairs.analysis.evaluation import parse_normalize as evaluate_parse
    from fairpairs.scoring.normalize import parse_normalize

    assert parse_normalize("morcela") == ("morcela",)
    with pytest.raises(ValueError, match="^normalize: unknown value"):
        evaluate_parse("morcela")     # evaluate reports no MORCELA (it needs fitted parameters)
    with pytest.raises(ValueError, match=r"\(none\)"):
        evaluate_parse("")
    assert parse_normalize("") == ()
