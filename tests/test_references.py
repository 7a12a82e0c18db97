"""The references the default run uses are what they claim to be.

Default run: every file under tests/fixtures/ is described (source, licence) in its README, the
public BLiMP sample has its documented shape, and the bundled tokenizers and vocabulary table carry
the sha256 of the reference copies. Slow tier: each fixture is byte for byte the leading part of its
reference file in ../shared, and the bundled tokenizer.json files and the vocabulary table are the
reference files themselves.
"""

from __future__ import annotations

import json

import pytest

from references import (
    ASSETS,
    BLIMP_PARADIGMS,
    BLIMP_SAMPLE,
    BLIMP_SAMPLE_PAIRS,
    FIXTURES,
    JUDGMENTS_SAMPLE,
    TOKENIZER_SHA256,
    VOCABULARY_SHA256,
    VOCABULARY_TABLE,
    WIKITEXT_SAMPLE,
    sha256,
)


def test_every_fixture_has_its_source_and_licence_in_the_readme():
    readme = (FIXTURES / "README.md").read_text(encoding="utf-8")
    files = sorted(p.relative_to(FIXTURES).as_posix() for p in FIXTURES.rglob("*") if p.is_file()
                   and p.name != "README.md" and "__pycache__" not in p.parts)
    named = {f.split("/")[0] + "/" if "/" in f else f for f in files}
    for name in named:
        assert f"`{name}`" in readme, f"tests/fixtures/README.md does not describe {name}"
    for licence in ("CC BY 4.0", "CC BY-SA 3.0"):
        assert licence in readme


def test_blimp_sample_shape():
    files = sorted(BLIMP_SAMPLE.glob("*.jsonl"))
    assert len(files) == 67
    with open(BLIMP_PARADIGMS, encoding="utf-8") as fh:
        uids = {line.split("\t")[2] for line in list(fh)[1:]}
    assert {f.stem for f in files} == uids
    for f in files:
        rows = [json.loads(line) for line in f.read_text(encoding="utf-8").splitlines()]
        assert len(rows) == BLIMP_SAMPLE_PAIRS, f
        assert [r["pairID"] for r in rows] == [str(i) for i in range(BLIMP_SAMPLE_PAIRS)], f
        assert {r["UID"] for r in rows} == {f.stem}


def test_bundled_tokenizers_and_vocabulary_are_the_reference_files():
    for name, digest in TOKENIZER_SHA256.items():
        assert sha256(ASSETS / name / "tokenizer.json") == digest, name
    assert sha256(VOCABULARY_TABLE) == VOCABULARY_SHA256


@pytest.mark.slow
def test_fixtures_are_unmodified_excerpts_of_the_references(shared):
    ref = shared / "reference"
    for f in sorted(BLIMP_SAMPLE.glob("*.jsonl")):
        mine = f.read_bytes()
        assert (ref / "blimp" / f.name).read_bytes().startswith(mine), f.name
    assert len(list((ref / "blimp").glob("*.jsonl"))) == 67
    assert BLIMP_PARADIGMS.read_bytes() == (ref / "blimp_paradigms.tsv").read_bytes()
    assert (ref / "linguistic_inquiry_judgments.csv").read_bytes().startswith(JUDGMENTS_SAMPLE.read_bytes())
    assert (ref / "wikitext-2" / "valid.txt").read_bytes().startswith(WIKITEXT_SAMPLE.read_bytes())


@pytest.mark.slow
def test_bundled_files_equal_the_reference_copies(shared):
    for name in TOKENIZER_SHA256:
        assert (ASSETS / name / "tokenizer.json").read_bytes() == \
            (shared / "assets" / "tokenizers" / name / "tokenizer.json").read_bytes(), name
    assert VOCABULARY_TABLE.read_bytes() == (shared / "reference" / "blimp_vocabulary.csv").read_bytes()


def readme_slow_commands() -> list[str]:
    import re

    text = (FIXTURES.parents[1] / "README.md").read_text(encoding="utf-8")
    setup = text.split("## Set up", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```bash\n(.*?)```", setup, re.S)
    assert len(blocks) == 2, "README's Set up: the default commands, then the slow tier's"
    return [ln.strip() for ln in blocks[1].splitlines() if ln.strip()]


def test_ci_runs_readmes_slow_tier_when_the_references_are_beside_the_checkout():
    """.ci/run, after README's two commands, runs README's slow-tier commands (with its fresh venv's
    interpreter) exactly when ../shared exists."""
    commands = readme_slow_commands()
    assert commands[-1] == "python -m pytest -m slow" and all(c.startswith("pip install ") for c in commands[:-1])
    script = (FIXTURES.parents[1] / ".ci" / "run").read_text(encoding="utf-8")
    code = [ln.strip() for ln in script.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    guard = next(i for i, ln in enumerate(code) if ln.startswith("if ") and '-d "$shared"' in ln)
    assert 'shared="$(dirname "$root")/shared"' in code
    body = code[guard + 1: code.index("else", guard)]
    venv = ['"$venv_python" -m ' + c.removeprefix("python -m ") for c in commands]
    assert [ln for ln in body if not ln.startswith("echo ")] == venv
