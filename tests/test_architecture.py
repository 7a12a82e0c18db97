"""The package's shape (docs/architecture.md, issue 24): stages as packages that import only the
stages before them, no module named like a public function, no module over 330 lines, no
function that parses an error message, FAIRPAIRS_* variables read in one module, no public name
defined twice and no docstring pointer to nothing.

Read from the source with `ast` (nothing is imported), so a new import, a grown module or a
message parsed back fails here with the file and line.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "fairpairs"

# each part of the package and the parts it may import (docs/architecture.md: left to right)
ORDER = ["errors", "environment", "suggest", "registry", "arguments", "stats", "survey", "typecheck", "io", "records", "manifest", "pairsets", "generation", "tokenization", "control", "scoring",
         "analysis", "publishing", "api", "commands", "cli"]
MAY_IMPORT = {part: set(ORDER[:i]) | {"fairpairs"} for i, part in enumerate(ORDER)}

# one size limit for every module (issue 50: the Sampler and the Scorer, once past it, are split
# along their seams: generation.readback, scoring.sentence_scores)
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
    over = {m: n for m, n in size.items() if n > LIMIT}
    assert not over, f"modules over {LIMIT} lines (split them): {over}"


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
# another module (no exceptions; the one module size limit is LIMIT above)
EVERY = [path for path, _ in _modules()]
FUNCTION_LINES = 60


def _long_functions(tree: ast.AST) -> list[tuple[str, int]]:
    return [(n.name, n.end_lineno - n.lineno + 1) for n in ast.walk(tree)
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.end_lineno - n.lineno + 1 > FUNCTION_LINES]


def _private_imports(tree: ast.AST) -> list[tuple[int, str]]:
    return [(n.lineno, a.name) for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
            and (n.module or "").startswith("fairpairs") for a in n.names if a.name.startswith("_")
            and a.name != "__version__"]


def test_every_module_has_short_functions_and_no_private_imports():
    long = [f"{p.relative_to(PACKAGE.parent)}: {name} ({n} lines)" for p in EVERY
            for name, n in _long_functions(ast.parse(p.read_text()))]
    private = [f"{p.relative_to(PACKAGE.parent)}:{line}: imports {name}" for p in EVERY
               for line, name in _private_imports(ast.parse(p.read_text()))]
    assert not long and not private, "\n".join(long + private)


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
# issue 50: every FAIRPAIRS_* variable is read in one module, fairpairs/environment.py (its name, default,
# parser and help, as HF datasets' config.py). Elsewhere the variable's name is not even written as a
# string (that is how a reader starts), and os.environ is never read with a key made from it.
ENVIRONMENT = "fairpairs/environment.py"
VARIABLE_NAME = re.compile(r"FAIRPAIRS_[A-Z0-9_]+")
ENVIRON_METHODS = {"get", "pop", "setdefault", "__getitem__", "__contains__"}


def _docstrings(tree: ast.AST) -> set[int]:
    return {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and n.body
            and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}


def _is_environ(node) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "environ") or (isinstance(node, ast.Name) and node.id == "environ")


def _environ_key(node):
    """The key of a read of the environment (`os.environ.get(k)`, `os.getenv(k)`, `os.environ[k]`,
    `k in os.environ`, ...), or None when `node` reads none."""
    if isinstance(node, ast.Call) and node.args:
        f = node.func
        if (isinstance(f, ast.Attribute) and f.attr in ENVIRON_METHODS and _is_environ(f.value)) or \
                (isinstance(f, ast.Attribute) and f.attr == "getenv") or (isinstance(f, ast.Name) and f.id == "getenv"):
            return node.args[0]
    if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and _is_environ(node.value):
        return node.slice
    if isinstance(node, ast.Compare) and any(isinstance(o, (ast.In, ast.NotIn)) for o in node.ops) \
            and any(_is_environ(c) for c in node.comparators):
        return node.left
    return None


def _environment_reads(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, what) for each place outside fairpairs.environment that reads a FAIRPAIRS_* variable
    itself: the variable's name written as a string (outside docstrings), or the environment read
    with a key made of a FAIRPAIRS_* string or of a name imported from fairpairs.environment."""
    docs = _docstrings(tree)
    imported = {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
                and n.module == "fairpairs.environment" for a in n.names}
    imported |= {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.Import)
                 for a in n.names if a.name == "fairpairs.environment"}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs \
                and VARIABLE_NAME.fullmatch(node.value):
            found.append((node.lineno, f"names {node.value}"))
        key = _environ_key(node)
        if key is not None and any(isinstance(k, ast.Constant) and isinstance(k.value, str) and k.value.startswith("FAIRPAIRS_")
                                   or isinstance(k, ast.Name) and k.id in imported for k in ast.walk(key)):
            found.append((node.lineno, "reads a FAIRPAIRS_* variable from the environment"))
    return sorted(set(found))


def test_only_the_environment_module_reads_fairpairs_variables():
    found = [f"{path.relative_to(PACKAGE.parent)}:{line}: {what} (read it through fairpairs.environment)"
             for path, _ in _modules() if str(path.relative_to(PACKAGE.parent)) != ENVIRONMENT
             for line, what in _environment_reads(ast.parse(path.read_text()))]
    assert not found, "\n".join(found)
    assert _environment_reads(ast.parse((PACKAGE.parent / ENVIRONMENT).read_text())), "the check sees the readers"


def test_the_environment_check_can_fail():
    """Each way the modules read their variables before issue 50 (a constant then os.environ.get, a
    literal, getenv, a subscript, `in`, a key built from the environment module's own name) is found;
    a docstring naming a variable, a message quoting one and another library's variable are not."""
    planted = '''"""Reads $FAIRPAIRS_WORKERS."""
import os
from os import getenv
from fairpairs.environment import WORKERS
MAP_ENV = "FAIRPAIRS_TOKENIZER_MAP"
def f():
    """FAIRPAIRS_HUB_TIMEOUT, in a docstring."""
    a = os.environ.get(MAP_ENV)
    b = getenv("FAIRPAIRS_" + "WORKERS")
    c = os.environ[f"FAIRPAIRS_{a}"]
    d = "FAIRPAIRS_DIST_TIMEOUT" in os.environ
    e = os.environ.get(WORKERS.name, "")
    g = os.environ.get("HF_ENDPOINT"), f"(or {WORKERS.name}=1)", "set FAIRPAIRS_MODEL_CACHE=/x"
'''
    assert _environment_reads(ast.parse(planted)) == [
        (5, "names FAIRPAIRS_TOKENIZER_MAP"), (9, "reads a FAIRPAIRS_* variable from the environment"),
        (10, "reads a FAIRPAIRS_* variable from the environment"), (11, "names FAIRPAIRS_DIST_TIMEOUT"),
        (11, "reads a FAIRPAIRS_* variable from the environment"), (12, "reads a FAIRPAIRS_* variable from the environment")]


# issue 50: a docstring's pointer to the package (`fairpairs.x.y.Name`, `fp.Name`, `module.Name` for a
# top-level module or a sibling of the docstring's module, `Class.member`) names something that
# exists. Anything else in backticks (a JSON path, a local variable, another library) is not checked.
POINTER = re.compile(r"`([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)(?:\(\))?`")
FILE_SUFFIXES = {"md", "json", "jsonl", "tsv", "csv", "txt", "yaml", "yml", "py", "lock", "parquet", "gguf"}


class _Package:
    """What the package defines, read with `ast`: each module's top-level names (and the names a
    module with `__getattr__` exports lazily, as strings), and each class's members."""

    def __init__(self, sources: dict[str, str]):
        self.trees = {m: ast.parse(text) for m, text in sources.items()}
        self.names = {m: self._top(t) for m, t in self.trees.items()}
        self.classes: dict[str, list[ast.ClassDef]] = {}
        for t in self.trees.values():
            for n in t.body:
                if isinstance(n, ast.ClassDef):
                    self.classes.setdefault(n.name, []).append(n)
        self.constants = {n.value for t in self.trees.values() for n in ast.walk(t)
                          if isinstance(n, ast.Constant) and isinstance(n.value, str)}

    @staticmethod
    def _top(tree: ast.Module) -> set[str]:
        out = set()
        for n in tree.body:
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                out.add(n.name)
            elif isinstance(n, (ast.Assign, ast.AnnAssign)):
                out |= {x.id for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
                        for x in ast.walk(t) if isinstance(x, ast.Name)}
            elif isinstance(n, (ast.Import, ast.ImportFrom)):
                out |= {(a.asname or a.name).split(".")[0] for a in n.names}
        if "__getattr__" in out:      # lazy exports: the names it returns are strings in the module
            out |= {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
        return out

    def members(self, cls: ast.ClassDef) -> set[str] | None:
        """The names a class defines (methods, fields, attributes set anywhere in its body, those of
        its bases in the package); None when a base is another library's (anything may be there)."""
        out = {n.name for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
        out |= {x.id for n in cls.body if isinstance(n, (ast.Assign, ast.AnnAssign))
                for t in (n.targets if isinstance(n, ast.Assign) else [n.target]) for x in ast.walk(t) if isinstance(x, ast.Name)}
        out |= {n.attr for n in ast.walk(cls) if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store)}
        for base in cls.bases:
            name = base.id if isinstance(base, ast.Name) else getattr(base, "attr", "")
            if name in ("object", "NamedTuple", "TypedDict", "Protocol", "Generic"):
                continue
            if name not in self.classes:
                return None
            for b in self.classes[name]:
                inherited = self.members(b)
                if inherited is None:
                    return None
                out |= inherited
        return out

    def resolves(self, module: str, rest: list[str]) -> bool:
        if not rest:
            return True
        if f"{module}.{rest[0]}" in self.trees:
            return self.resolves(f"{module}.{rest[0]}", rest[1:])
        if rest[0] not in self.names[module]:
            return False
        classes = [c for c in self.trees[module].body if isinstance(c, ast.ClassDef) and c.name == rest[0]]
        if len(rest) > 1 and classes:
            members = self.members(classes[0])
            return members is None or rest[1] in members
        return True

    def broken(self, pointer: str, module: str, params: set[str]) -> bool:
        """Whether `pointer`, in a docstring of `module` (of a function taking `params`), points
        into the package at something that is not there."""
        parts = pointer.split(".")
        if parts[-1] in FILE_SUFFIXES or parts[0] in params or pointer in self.constants:
            return False     # (a file name, a parameter's attribute, a name the code uses as a string)
        if parts[0] == "fp":
            return not self.resolves("fairpairs", parts[1:])
        if parts[0] == "fairpairs":
            return not any(self.resolves(".".join(parts[:i]), parts[i:])
                           for i in range(len(parts), 0, -1) if ".".join(parts[:i]) in self.trees)
        package = module if module + ".__init__" in self.trees or module == "fairpairs" else module.rpartition(".")[0]
        near = [m for m in (f"fairpairs.{parts[0]}", f"{package}.{parts[0]}") if m in self.trees and m != module]
        if near:
            return not any(self.resolves(m, parts[1:]) for m in near)
        if parts[0] in self.classes:
            found = [self.members(c) for c in self.classes[parts[0]]]
            return not any(m is None or parts[1] in m for m in found)
        return False


def _sources() -> dict[str, str]:
    return {".".join(p.relative_to(PACKAGE.parent).with_suffix("").parts).removesuffix(".__init__"): p.read_text()
            for p, _ in _modules()}


def _broken_pointers(package: _Package, module: str) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(package.trees[module]):
        if not (isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body
                and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)
                and isinstance(node.body[0].value.value, str)):
            continue
        params = {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)} if hasattr(node, "args") else set()
        found += [(node.body[0].lineno, p) for p in POINTER.findall(node.body[0].value.value)
                  if package.broken(p, module, params)]
    return found


def test_every_docstring_pointer_resolves():
    package = _Package(_sources())
    broken = [f"{module.replace('.', '/')}.py:{line}: `{pointer}` names nothing in the package"
              for module in sorted(package.trees) for line, pointer in _broken_pointers(package, module)]
    assert not broken, "\n".join(broken)


def test_the_pointer_check_can_fail():
    """The pointers issue 50 found broken (a function at the package root that lives in a module, a
    class moved to another module, a function moved to a sibling, a member that is a function's
    argument), planted in a copy of the package, are found; their corrected forms, a lazy export,
    a file name, a parameter's attribute and an entry-point group name are not."""
    sources = _sources()
    sources["fairpairs.scoring.planted"] = '''"""`fairpairs.partial_pool`, `records.ParadigmStats`, `distributed.detect_launch`,
`Searcher.control_rows`, `fairpairs.arguments.setting_help`; fine: `fairpairs.analysis.clustered.partial_pool`,
`manifest.ParadigmStats`, `launch.detect_launch`, `fairpairs.control.search.control_lexicon`, `fp.balance`,
`fairpairs.scoring.Scorer`, `Scorer.info`, `report.md`, `fairpairs.strategies`, `numpy.ndarray`."""


def f(config):
    """`config.run_dir`, `arguments.setting`, `Sampler.redraw_bad`, `Sampler.redraws_bad`."""
'''
    found = _broken_pointers(_Package(sources), "fairpairs.scoring.planted")
    assert found == [(1, "fairpairs.partial_pool"), (1, "records.ParadigmStats"), (1, "distributed.detect_launch"),
                     (1, "Searcher.control_rows"), (1, "fairpairs.arguments.setting_help"),
                     (8, "Sampler.redraws_bad")]


# issue 50: a public function or class name means one thing in the package: defined in one module.
# The exceptions are names of one interface implemented module by module, always called through
# their module (`packaged.lookup`, `pretrained.lookup`) or handed over as hooks, and the CLI's
# commands (commands/*), each a click function named as its command, which is the API call of that
# name (`fairpairs generate` is `fp.generate`).
SHARED_NAMES = {
    ("articles", "contraction"): ({"fairpairs/generation/languages/de.py", "fairpairs/generation/languages/fr.py",
                                   "fairpairs/generation/languages/he.py"},
                                  "a language's article and contraction rules, handed to its `Language` as hooks"),
    ("register", "lookup", "locate", "status"): ({"fairpairs/tokenization/packaged.py", "fairpairs/tokenization/pretrained.py",
                                                 "fairpairs/generation/languages/__init__.py"},
                                                "one registry interface: the pinned PyPI tokenizers, the pretrained "
                                                "models' files, the languages; always called through their module"),
}


def _public_definitions(sources: dict[str, str]) -> dict[str, list[str]]:
    """Public top-level function and class name -> the modules (paths) defining it, commands/* aside."""
    out: dict[str, list[str]] = {}
    for path, text in sources.items():
        if path.startswith("fairpairs/commands/"):
            continue
        for node in ast.parse(text).body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and not node.name.startswith("_"):
                out.setdefault(node.name, []).append(path)
    return out


def _defined_twice(sources: dict[str, str]) -> list[str]:
    allowed = {name: paths for names, (paths, _) in SHARED_NAMES.items() for name in names}
    return sorted(f"{name}: {', '.join(paths)}" for name, paths in _public_definitions(sources).items()
                  if len(paths) > 1 and not set(paths) <= allowed.get(name, set()))


def test_no_public_name_is_defined_in_two_modules():
    sources = {str(p.relative_to(PACKAGE.parent)): p.read_text() for p, _ in _modules()}
    twice = _defined_twice(sources)
    assert not twice, "defined in two modules (rename one, or keep one and import it):\n" + "\n".join(twice)
    used = {name for names in SHARED_NAMES for name in names}
    assert all(len(_public_definitions(sources).get(n, [])) > 1 for n in used), "an exception no longer needed"


def test_the_name_check_can_fail():
    """Issue 50's collisions (`model_identity` in scoring.models and scoring.length, `pair_accuracy`
    in analysis.fidelity and scoring.tables) are found; a private helper defined twice, a click
    command named as its API call and an allowed registry name in its registries are not; the same
    registry name in a module outside them is."""
    sources = {"fairpairs/scoring/models.py": "def model_identity(name): ...\ndef _shown(x): ...\n",
               "fairpairs/scoring/length.py": "def model_identity(model): ...\ndef _shown(x): ...\n",
               "fairpairs/analysis/fidelity.py": "def pair_accuracy(good, bad): ...\n",
               "fairpairs/scoring/tables.py": "class pair_accuracy: ...\n",
               "fairpairs/api/generation.py": "def generate(): ...\n",
               "fairpairs/commands/generate.py": "def generate(): ...\n",
               "fairpairs/tokenization/packaged.py": "def lookup(name): ...\n",
               "fairpairs/tokenization/pretrained.py": "def lookup(name): ...\n"}
    assert _defined_twice(sources) == ["model_identity: fairpairs/scoring/models.py, fairpairs/scoring/length.py",
                                       "pair_accuracy: fairpairs/analysis/fidelity.py, fairpairs/scoring/tables.py"]
    sources["fairpairs/control/config.py"] = "def lookup(name): ...\n"
    assert _defined_twice(sources)[0].startswith("lookup: ")
