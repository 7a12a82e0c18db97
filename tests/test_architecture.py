"""The package's shape (docs/architecture.md, issue 24): stages as packages that import only the
stages before them, no module named like a public function, no module over about 300 lines, and
no function that parses an error message.

Read from the source with `ast` (nothing is imported), so a new import, a grown module or a
message parsed back fails here with the file and line.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "fairpairs"

# each part of the package and the parts it may import (docs/architecture.md: left to right)
ORDER = ["errors", "suggest", "registry", "arguments", "stats", "survey", "typecheck", "io", "records", "manifest", "pairsets", "generation", "tokenization", "control", "scoring",
         "analysis", "publishing", "api", "commands", "cli"]
MAY_IMPORT = {part: set(ORDER[:i]) | {"fairpairs"} for i, part in enumerate(ORDER)}

# modules past the size limit that are one idea each (issue 24: "unless it is one idea")
LONG_MODULES = {
    "fairpairs/generation/sampler.py": "the Sampler: one seeded stream per pair, drawing and redrawing slots",
    "fairpairs/scoring/scorer.py": "the Scorer: loading, batching and scoring one model",
}
LIMIT = 330


# a string naming a module of the package, as lazy imports do ("fairpairs.control.loop:SEARCH",
# importlib.import_module("fairpairs.scoring")): the layering holds for them too
STRING_IMPORT = re.compile(r"fairpairs(\.[a-z_]+)+(:[A-Za-z_]+)?")
# where a string import may point up: the registry names the built-in entries of every stage, imported
# only when used (as lm-eval's registry does); the package root's lazy exports go through the API
STRING_IMPORTS_UP = {"registry"}


def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        yield path, ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)


def _part(module: str) -> str:
    parts = module.split(".")
    return "fairpairs" if len(parts) == 1 or parts[1] == "__init__" else parts[1]


def _imports(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("fairpairs"):
            if node.module == "fairpairs":
                yield node.lineno, [a.name for a in node.names if a.name != "__version__"] or ["fairpairs"]
            else:
                yield node.lineno, [node.module]
        elif isinstance(node, ast.Import):
            yield from ((node.lineno, [a.name]) for a in node.names if a.name.startswith("fairpairs."))
    yield from _string_imports(tree)


def _string_imports(tree: ast.AST):
    """(line, [module]) for every string that names a module of the package (a lazy import)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and STRING_IMPORT.fullmatch(node.value):
            module = node.value.partition(":")[0]
            if _part(module) in ORDER:     # (not an entry-point group such as "fairpairs.tokenizers")
                yield node.lineno, [module]


def test_stages_import_only_the_stages_before_them():
    wrong = []
    for path, module in _modules():
        part = _part(module)
        allowed = MAY_IMPORT.get(part, set(ORDER))
        tree = ast.parse(path.read_text())
        lazy = {line for line, _ in _string_imports(tree)}
        for line, targets in _imports(tree):
            for target in targets:
                if line in lazy and part in STRING_IMPORTS_UP:
                    continue
                other = target if "." not in target and not target.startswith("fairpairs") else _part(target)
                if other not in allowed and other != part:
                    wrong.append(f"{path.relative_to(PACKAGE.parent)}:{line}: {part} imports {target}")
    assert not wrong, "\n".join(wrong)


def test_no_relative_imports_inside_the_package():
    rel = [f"{p.relative_to(PACKAGE.parent)}:{n.lineno}" for p, _ in _modules()
           for n in ast.walk(ast.parse(p.read_text())) if isinstance(n, ast.ImportFrom) and n.level]
    assert not rel


def test_modules_stay_small():
    size = {str(p.relative_to(PACKAGE.parent)): len(p.read_text().splitlines()) for p, _ in _modules()}
    over = {m: n for m, n in size.items() if n > LIMIT and m not in LONG_MODULES}
    assert not over, f"modules over {LIMIT} lines (split them): {over}"
    assert not {m for m in LONG_MODULES if size.get(m, 0) <= LIMIT}, "split: take it off LONG_MODULES"


def test_the_layering_check_can_fail(tmp_path):
    """A control module importing analysis (the stage after it) is what the check refuses."""
    tree = ast.parse("from fairpairs.analysis.effects import decompose\n")
    targets = [t for _, ts in _imports(tree) for t in ts]
    assert targets == ["fairpairs.analysis.effects"] and _part(targets[0]) not in MAY_IMPORT["control"]


# issue 37: the CLI is a thin client of the API. A command module imports only `fairpairs.api` (its
# public calls, and `fairpairs.api.settings`: the settings objects its options are built from; what
# it prints, the objects the calls return render themselves: issue 50) and the other command
# modules; never a stage.
def _command_imports_outside_the_api(tree: ast.AST) -> list[tuple[int, str]]:
    return [(line, t) for line, targets in _imports(tree) for t in targets
            if not (t == "fairpairs.api" or t.startswith(("fairpairs.api.", "fairpairs.commands")))]


def test_commands_import_only_the_api():
    wrong = [f"{path.relative_to(PACKAGE.parent)}:{line}: imports {target}"
             for path in sorted((PACKAGE / "commands").glob("*.py"))
             for line, target in _command_imports_outside_the_api(ast.parse(path.read_text()))]
    assert not wrong, "\n".join(wrong)


def test_the_thin_cli_check_can_fail():
    tree = ast.parse("def f():\n    from fairpairs.io.files import claim_folder\n    from fairpairs.api import evaluate\n")
    assert _command_imports_outside_the_api(tree) == [(2, "fairpairs.io.files")]


# issue 50: nor a machine-learning or data library: loading, computing and rendering tables is the
# stages' work (transformers' logging is set where evaluation runs), the CLI parses and prints
ML_LIBRARIES = {"torch", "transformers", "tokenizers", "datasets", "huggingface_hub", "accelerate", "safetensors",
                "sentencepiece", "gguf", "numpy", "pandas", "pyarrow", "scipy", "sklearn", "statsmodels",
                "matplotlib", "wordfreq"}


def _library_imports(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, library) for every import of one of `ML_LIBRARIES`, at any depth (a lazy import too)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name.split(".")[0]) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module.split(".")[0]))
    return [(line, name) for line, name in found if name in ML_LIBRARIES]


def test_commands_and_cli_import_no_ml_library():
    files = sorted((PACKAGE / "commands").glob("*.py")) + [PACKAGE / "cli.py"]
    wrong = [f"{path.relative_to(PACKAGE.parent)}:{line}: imports {name}" for path in files
             for line, name in _library_imports(ast.parse(path.read_text()))]
    assert not wrong, "\n".join(wrong)


def test_the_ml_library_check_can_fail():
    """What commands/analysis.py did before issue 50 (transformers' logging set in the command)."""
    tree = ast.parse("import click\ndef f():\n    from transformers.utils import logging as hf_logging\n"
                     "    import numpy as np, rich\n")
    assert _library_imports(tree) == [(3, "transformers"), (4, "numpy")]


def test_publishing_takes_the_runs_language_from_the_manifest_and_imports_no_generation():
    """Issue 50: publishing read the run's language through `generation.selection.run_language` in
    four places; the API's reader resolves it once into the manifest (`RunManifest.run_language`)."""
    wrong = [f"{path.relative_to(PACKAGE.parent)}:{line}: imports {target}"
             for path in sorted((PACKAGE / "publishing").glob("*.py"))
             for line, targets in _imports(ast.parse(path.read_text())) for target in targets
             if _part(target) == "generation"]
    assert not wrong, "\n".join(wrong)


def test_every_public_name_comes_from_the_api():
    """`import fairpairs as fp`: each public name is defined or re-exported by `fairpairs.api`."""
    import fairpairs
    import fairpairs.api

    assert set(fairpairs._EXPORTS.values()) == {"api"}
    missing = [n for n in fairpairs._EXPORTS if n not in fairpairs.api.__all__]
    assert not missing, f"not exported by fairpairs.api: {missing}"
    assert all(getattr(fairpairs, n) is getattr(fairpairs.api, n) for n in ("generate", "Scorer", "balance"))


# issue 37: every module of the package: no function over 60 lines, no private name imported from
# another module, no module over 400 lines (no exceptions)
EVERY = [path for path, _ in _modules()]
FUNCTION_LINES = 60
MODULE_LINES = 400


def _long_functions(tree: ast.AST) -> list[tuple[str, int]]:
    return [(n.name, n.end_lineno - n.lineno + 1) for n in ast.walk(tree)
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.end_lineno - n.lineno + 1 > FUNCTION_LINES]


def _private_imports(tree: ast.AST) -> list[tuple[int, str]]:
    return [(n.lineno, a.name) for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
            and (n.module or "").startswith("fairpairs") for a in n.names if a.name.startswith("_")
            and a.name != "__version__"]


def test_every_module_has_short_functions_no_private_imports_and_at_most_400_lines():
    long = [f"{p.relative_to(PACKAGE.parent)}: {name} ({n} lines)" for p in EVERY
            for name, n in _long_functions(ast.parse(p.read_text()))]
    private = [f"{p.relative_to(PACKAGE.parent)}:{line}: imports {name}" for p in EVERY
               for line, name in _private_imports(ast.parse(p.read_text()))]
    big = [f"{p.relative_to(PACKAGE.parent)}: {n} lines" for p in EVERY
           if (n := len(p.read_text().splitlines())) > MODULE_LINES]
    assert not long and not private and not big, "\n".join(long + private + big)


def test_the_function_and_private_name_checks_can_fail():
    body = "\n".join(f"    x{i} = {i}" for i in range(FUNCTION_LINES))
    tree = ast.parse(f"from fairpairs.api.common import _items\ndef f():\n{body}\n")
    assert _long_functions(tree) == [("f", FUNCTION_LINES + 1)] and _private_imports(tree) == [(1, "_items")]
# What reads an error's message back: a method that looks into the text, a slice or index of it, a
# comparison with it, a regular expression run on it. Taking the first line to quote it
# (`str(exc).splitlines()[0]`) is display, not parsing, and is allowed.
PARSING_METHODS = {"startswith", "endswith", "split", "rsplit", "partition", "rpartition", "find", "rfind",
                   "index", "rindex", "count", "removeprefix", "removesuffix"}
REGEX_CALLS = {"match", "search", "fullmatch", "findall", "finditer", "sub", "split"}
TEXT_KEEPING = {"strip", "lstrip", "rstrip", "lower", "upper", "casefold"}     # still the message
EXCEPTION_PARAMS = {"e", "ex", "exc", "err", "error", "exception"}
# functions that may look into another library's message, and why (a new one fails the check)
PARSES_MESSAGES = {
    "fairpairs/errors.py:one_line": "folds another library's message to one line to quote it (split on white space)",
    "fairpairs/scoring/batching.py:is_oom": "torch raises some out-of-memory errors (MPS) as a plain RuntimeError: "
                                            "its message is the only sign",
}


def _message_parsing(tree: ast.AST):
    """(line, function, how) for every place that reads an exception's message back: `str(e)`,
    `format(e)`, `e.args`, `e.message` (and names assigned from them) looked into."""
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    for func in ast.walk(tree):
        if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        exceptions = {h.name for h in ast.walk(func) if isinstance(h, ast.ExceptHandler) and h.name}
        exceptions |= {a.arg for a in func.args.args + func.args.kwonlyargs if a.arg in EXCEPTION_PARAMS}
        texts: set[str] = set()

        def is_message(n) -> bool:
            if isinstance(n, ast.Name):
                return n.id in texts
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("str", "format"):
                return bool(n.args) and isinstance(n.args[0], ast.Name) and n.args[0].id in exceptions
            if isinstance(n, ast.Attribute) and n.attr in ("args", "message"):
                return isinstance(n.value, ast.Name) and n.value.id in exceptions
            if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Attribute) and n.value.attr == "args":
                return is_message(n.value)
            return (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in TEXT_KEEPING
                    and is_message(n.func.value))

        for n in ast.walk(func):
            if isinstance(n, ast.Assign) and is_message(n.value):
                texts |= {t.id for t in n.targets if isinstance(t, ast.Name)}
        name = getattr(func, "name", "<lambda>")
        for n in ast.walk(func):
            if not is_message(n) or isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
                continue
            up = parents.get(n)
            if isinstance(up, ast.Attribute) and up.attr in PARSING_METHODS:
                yield n.lineno, name, f".{up.attr}"
            elif isinstance(up, ast.Subscript) and up.value is n and not (isinstance(n, ast.Attribute) and n.attr == "args"):
                yield n.lineno, name, "a slice or index"
            elif isinstance(up, ast.Compare):
                yield n.lineno, name, "a comparison"
            elif (isinstance(up, ast.Call) and n in up.args and isinstance(up.func, ast.Attribute)
                  and up.func.attr in REGEX_CALLS):
                yield n.lineno, name, f"a regular expression ({up.func.attr})"


def test_no_function_parses_an_error_message():
    """Errors are structured (fairpairs.errors): a caller reads `reason`, `param`, `value`, `file`,
    never the message (issue 37: the tokenizer listing parsed messages by an old prefix)."""
    found = []
    for path, _ in _modules():
        rel = str(path.relative_to(PACKAGE.parent))
        for line, func, how in _message_parsing(ast.parse(path.read_text())):
            if f"{rel}:{func}" not in PARSES_MESSAGES:
                found.append(f"{rel}:{line}: {func} reads an error message back ({how})")
    assert not found, "\n".join(found)


def test_the_message_parsing_check_can_fail():
    planted = '''
def reason(exc):
    return str(exc).partition(": ")[2]

def listing(names):
    for n in names:
        try:
            load(n)
        except Exception as err:
            if str(err).startswith("tokenizers "):
                pass
            parts = str(err).split(":")
            if "no such" in str(err) or err.args[0] == "x":
                pass
            text = str(err).strip()
            short = err.message[:20] + text[3:]
            if re.match("models", text):
                pass

def quoting(exc):
    return f"cannot read ({str(exc).splitlines()[0]})", exc.reason == "x", str(exc)
'''
    found = sorted((line, how) for line, _, how in _message_parsing(ast.parse(planted)))
    assert found == [(3, ".partition"), (10, ".startswith"), (12, ".split"), (13, "a comparison"),
                     (13, "a comparison"), (16, "a slice or index"), (16, "a slice or index"),
                     (17, "a regular expression (match)")]


def test_the_layering_check_sees_string_imports():
    """A lazy import written as a string is an import for the layering check (an entry-point group
    named like the package is not)."""
    tree = ast.parse('A = "fairpairs.analysis.report:write_report"\nB = "fairpairs.tokenizers"\n'
                     'import importlib\nC = importlib.import_module("fairpairs.scoring.tables")\n')
    found = [targets for _, targets in _imports(tree)]
    assert found == [["fairpairs.analysis.report"], ["fairpairs.scoring.tables"]]
    assert _part(found[0][0]) not in MAY_IMPORT["io"]


# ---------------------------------------------------------------- the tests' own shape (issue 50, item 4)
TESTS = Path(__file__).resolve().parent
TEST_MODULES = {path.stem for path in TESTS.glob("test_*.py")} | {"conftest"}
CLI_ENTRY_POINTS = {"main", "cli"}          # what fairpairs.cli exports that runs the command
CLI_MODULE = "fairpairs.cli"                # `python -m fairpairs.cli`


def _test_module_imports(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, module) of each import of a test module or of conftest: what several test files share
    lives in tests/references.py (data, builders) or tests/conftest.py (fixtures, the CLI)."""
    found = []
    for node in ast.walk(tree):
        names = ([node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module
                 else [a.name for a in node.names] if isinstance(node, ast.Import) else [])
        found += [(node.lineno, name) for name in names
                  if name.split(".")[0] in TEST_MODULES or name.split(".")[0].startswith("test_")]
    return found


def _cli_runners(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, name) of each function other than a test that runs `fairpairs`: calls the entry point
    imported from fairpairs.cli (`main`, `cli`, `fairpairs.cli.main`) or builds a `-m fairpairs.cli`
    command line. Tests run the command through conftest's `fairpairs_cli` fixture only."""
    entry = {alias.asname or alias.name for node in ast.walk(tree)
             if isinstance(node, ast.ImportFrom) and node.module == CLI_MODULE
             for alias in node.names if alias.name in CLI_ENTRY_POINTS}
    found = []
    for func in ast.walk(tree):
        if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)) or func.name.startswith("test_"):
            continue
        for node in ast.walk(func):
            called = ast.unparse(node.func) if isinstance(node, ast.Call) else None
            runs = (called in entry or called in {f"{CLI_MODULE}.{name}" for name in CLI_ENTRY_POINTS}
                    or isinstance(node, ast.Constant) and node.value == CLI_MODULE)
            if runs:
                found.append((func.lineno, func.name))
                break
    return found


def test_test_modules_import_no_test_module_and_only_conftest_runs_the_cli():
    """tests/README.md: a test file imports no other test file, and runs `fairpairs` only through
    the `fairpairs_cli` fixture of tests/conftest.py (one runner: in this process, or in a process of
    its own). tests/dist_worker.py is a program that torchrun starts, not a test module."""
    imports, runners = [], []
    for path in sorted(TESTS.glob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imports += [f"{path.name}:{line}: imports {name}" for line, name in _test_module_imports(tree)]
        runners += [f"{path.name}:{line}: {name} runs fairpairs" for line, name in _cli_runners(tree)]
    assert not imports, "test modules importing test modules (move what they share to tests/references.py):\n" \
        + "\n".join(imports)
    assert not runners, "CLI runners outside conftest.py (use the fairpairs_cli fixture):\n" + "\n".join(runners)


def test_the_test_module_checks_can_fail():
    """Both checks find what they look for in a snippet, and pass what is allowed."""
    imported = ast.parse("import json\nfrom test_publish import make_run\nimport test_trust as t\n"
                         "from references import reference_tokenizer\n")
    assert _test_module_imports(imported) == [(2, "test_publish"), (3, "test_trust")]
    runner = ast.parse(
        "from fairpairs.cli import main as entry\nimport subprocess, sys\n"
        "def run_cli(args, capsys):\n    entry(args)\n"
        "def run(args):\n    return subprocess.run([sys.executable, '-m', 'fairpairs.cli', *args])\n"
        "def test_inline(capsys):\n    entry(['validate'])\n"
        "def helper(fairpairs_cli):\n    return fairpairs_cli('validate')\n")
    assert _cli_runners(runner) == [(3, "run_cli"), (5, "run")]


def test_the_test_map_names_every_test_file():
    """tests/README.md maps subjects to files: every tests/test_*.py is in it and every file it names
    exists (a new file is placed on the map, a renamed one moves on it)."""
    named = set(re.findall(r"\btest_[a-z0-9_]+\.py\b", (TESTS / "README.md").read_text(encoding="utf-8")))
    present = {path.name for path in TESTS.glob("test_*.py")}
    assert sorted(present - named) == [], "test files missing from tests/README.md"
    assert sorted(named - present) == [], "tests/README.md names files that do not exist"
