"""Error classes, structured messages (parameters as fields, rendered per surface), and the CLI's
option names for them."""

import ast
import inspect
from pathlib import Path

import pytest

import fairpairs.errors as errors
from fairpairs.cli import cli_message

PKG = Path(__file__).resolve().parent.parent / "fairpairs"


def test_every_error_is_a_fairpairs_error_and_a_builtin():
    classes = [c for _, c in inspect.getmembers(errors, inspect.isclass) if c.__module__ == errors.__name__
               and issubclass(c, BaseException) and not issubclass(c, Warning)]
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
    from fairpairs.api import load_sets

    with pytest.raises(FileNotFoundError, match="no such file or folder"):
        load_sets(tmp_path / "nothing.jsonl")


def test_library_errors_name_parameters_and_the_cli_renders_its_options():
    from fairpairs.scoring import check_pll

    with pytest.raises(ValueError) as info:
        check_pll("left_to_right")
    exc = info.value
    assert str(exc).startswith("pll: unknown pseudo-log-likelihood variant 'left_to_right' (known: original")
    assert (exc.param, exc.value) == ("pll", "left_to_right")
    assert cli_message(exc, "score").startswith("--pll: unknown pseudo-log-likelihood variant")
    # a parameter inside the text, quoted in the API's rendering and an option in the CLI's
    err = errors.UsageError(errors.Param("normalize"), " morcela needs ", errors.Param("morcela_params", quoted=True),
                            " (from `fairpairs morcela fit`)")
    assert str(err) == "normalize morcela needs `morcela_params` (from `fairpairs morcela fit`)"
    assert cli_message(err, "score") == "--normalize morcela needs --morcela-params (from `fairpairs morcela fit`)"
    # each command's own map: every command takes its models from --models (issue 37: score's
    # --model is only a deprecated alias); audit's data is its DATASET argument, evaluate's its --data option
    model = errors.ModelError(errors.Param("model"), " x: cannot load it")
    assert cli_message(model, "evaluate") == "--models x: cannot load it"
    assert cli_message(model, "score") == "--models x: cannot load it"
    data = errors.DatasetNotFoundError(errors.Param("data"), " d.jsonl: no such file or folder")
    assert cli_message(data, "audit").startswith("DATASET d.jsonl") and cli_message(data, "evaluate").startswith("--data")
    # text that only looks like a parameter is text: a message is never searched for names
    assert cli_message(errors.ModelError("out of memory; use `dtype` bfloat16"), "score") == \
        "out of memory; use `dtype` bfloat16"
    assert cli_message(ValueError("out: x"), "score") == "out: x"


def test_with_param_renames_structurally():
    err = errors.TokenizerError(errors.Param("tokenizers"), " 'gpt3': cannot load tokenizer", value="gpt3")
    renamed = err.with_param("tokenizers", "split_tokenizer")
    assert type(renamed) is errors.TokenizerError and isinstance(renamed, LookupError)
    assert str(renamed) == "split_tokenizer 'gpt3': cannot load tokenizer" == renamed.args[0]
    assert (renamed.param, renamed.value) == ("split_tokenizer", "gpt3")
    assert cli_message(renamed, "evaluate") == "--split-tokenizer 'gpt3': cannot load tokenizer"
    assert str(err) == "tokenizers 'gpt3': cannot load tokenizer"        # the original is unchanged


def test_warnings_are_rendered_like_errors(capsys):
    import warnings

    from fairpairs.cli import _one_line_warnings

    show = _one_line_warnings(warnings.showwarning, "score")
    w = errors.FairpairsWarning(errors.Param("dtype"), " bfloat16 is ignored on the CPU; scoring in float32")
    assert str(w) == "dtype bfloat16 is ignored on the CPU; scoring in float32" and w.param == "dtype"
    show(w, errors.FairpairsWarning, "f.py", 1)
    assert capsys.readouterr().err == "fairpairs: warning: --dtype bfloat16 is ignored on the CPU; scoring in float32\n"


def _parses_a_message(node: ast.AST, names: set[str]) -> bool:
    """`node` reads an error's text back: str(e) / e.args / e.render() of an exception variable
    `names` under a regex call, a string method that searches or cuts, or a subscript."""
    def is_message(n):
        if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "str" and n.args:
            return isinstance(n.args[0], ast.Name) and n.args[0].id in names
        if isinstance(n, ast.Attribute) and n.attr in ("args", "render") and isinstance(n.value, ast.Name):
            return n.value.id in names
        return False
    if isinstance(node, ast.Call):
        f = node.func
        if isinstance(f, ast.Attribute) and getattr(f.value, "id", "") == "re":
            return any(is_message(a) for a in node.args)
        if isinstance(f, ast.Attribute) and f.attr in ("startswith", "endswith", "replace", "split", "find", "index",
                                                        "partition", "removeprefix", "strip", "lstrip"):
            return is_message(f.value)
    if isinstance(node, ast.Subscript):
        return is_message(node.value) and not (isinstance(node.value, ast.Attribute) and node.value.attr == "args"
                                               and isinstance(node.slice, ast.Constant) and node.slice.value == 0)
    return False


def _handler_nodes(handler: ast.ExceptHandler):
    """The nodes of an except block, with `msg = str(e)` followed: `msg.startswith(...)` is
    `str(e).startswith(...)`."""
    aliases = {}
    for n in (m for stmt in handler.body for m in ast.walk(stmt)):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            aliases[n.targets[0].id] = n.value
    class Inline(ast.NodeTransformer):
        def visit_Name(self, node):
            return aliases.get(node.id, node) if isinstance(node.ctx, ast.Load) else node
    for stmt in handler.body:
        yield from ast.walk(Inline().visit(ast.parse(ast.unparse(stmt))))


def test_no_function_parses_an_error_message():
    """Issue 24: errors carry their parameter as a field; nothing finds it in the text again."""
    found = []
    for path in sorted(PKG.rglob("*.py")):
        for handler in (n for n in ast.walk(ast.parse(path.read_text())) if isinstance(n, ast.ExceptHandler)):
            if handler.name:
                found += [f"{path.relative_to(PKG.parent)}:{n.lineno}" for n in _handler_nodes(handler)
                          if _parses_a_message(n, {handler.name})]
    assert not found
    for bad in ("m = re.sub('^a', 'b', str(e))", "msg = str(e)\n    x = msg[len('a'):] if msg.startswith('a') else msg"):
        handler = next(n for n in ast.walk(ast.parse(f"try:\n    pass\nexcept ValueError as e:\n    {bad}\n"))
                       if isinstance(n, ast.ExceptHandler))
        assert any(_parses_a_message(n, {"e"}) for n in _handler_nodes(handler)), bad     # the check can fail


def test_the_cli_has_no_regular_expressions():
    source = (PKG / "cli.py").read_text()
    assert "import re" not in source and "re.compile" not in source


def test_evaluate_names_its_models_option(tmp_path, fairpairs_cli):
    data = tmp_path / "pairs.jsonl"
    data.write_text('{"sentence_good": "The cat sat.", "sentence_bad": "The cat sit."}\n', encoding="utf-8")
    code, _, err = fairpairs_cli("evaluate", "--models", str(tmp_path / "no-model"), "--data", str(data), "--out",
                                 str(tmp_path / "r"))
    err = err.strip().splitlines()[-1]     # (after the note 'scoring with ...')
    assert code == 1 and err.startswith(f"fairpairs: error: --models {tmp_path / 'no-model'}: "), err


def test_library_checks_normalize_once_with_each_allowed_set():
    from fairpairs.analysis.reported import parse_reported as evaluate_parse
    from fairpairs.scoring.normalize import parse_normalize

    assert parse_normalize("morcela") == ("morcela",)
    with pytest.raises(ValueError, match="^normalize: normalisation 'morcela' is not one of those taken here"):
        evaluate_parse("morcela")     # evaluate reports no MORCELA (it needs fitted parameters)
    with pytest.raises(ValueError, match=r"\(none\)"):
        evaluate_parse("")
    assert parse_normalize("") == ()
