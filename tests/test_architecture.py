"""The package's shape (docs/architecture.md, issue 24): stages as packages that import only the
stages before them, no module named like a public function, no module over about 300 lines, and
no function that parses an error message.

Read from the source with `ast` (nothing is imported), so a new import, a grown module or a
message parsed back fails here with the file and line.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "fairpairs"

# each part of the package and the parts it may import (docs/architecture.md: left to right)
ORDER = ["errors", "suggest", "registry", "arguments", "stats", "typecheck", "io", "records", "manifest", "pairsets", "generation", "tokenizers", "control", "scoring",
         "analysis", "publishing", "api", "commands", "cli"]
MAY_IMPORT = {part: set(ORDER[:i]) | {"fairpairs"} for i, part in enumerate(ORDER)}

# modules past the size limit that are one idea each (issue 24: "unless it is one idea")
LONG_MODULES = {
    "fairpairs/generation/sampler.py": "the Sampler: one seeded stream per pair, drawing and redrawing slots",
    "fairpairs/scoring/scorer.py": "the Scorer: loading, batching and scoring one model",
}
LIMIT = 330


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


def test_stages_import_only_the_stages_before_them():
    wrong = []
    for path, module in _modules():
        part = _part(module)
        allowed = MAY_IMPORT.get(part, set(ORDER))
        for line, targets in _imports(ast.parse(path.read_text())):
            for target in targets:
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
