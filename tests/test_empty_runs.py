"""An empty result is an error, not a success (issue 45, item 8).

`generate --paradigms he/all` under the default tokenizers ran for a minute and exited 0 with every
debiased file empty, and every later command refused the run. Lenient mode is for short cells: a
run that kept no debiased pair in any paradigm is now an error (exit 1, one line naming the
tokenizers and those that suit the language, nothing written), strict or not; `fp.matched_pairs`
of data with one set is an error naming `data` instead of an empty frame.

The paradigm below can never be equalised under gpt2: its only differing word is the subject, a
good name of one token against a bad name of three (counted here with the tokenizers library on
the reference file, tests/references.py), and nothing else in the sentence differs.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import fairpairs as fp
from fairpairs.errors import NotComparableError, UsageError
from fairpairs.io.paths import data_dir
from references import reference_tokenizer

GOOD, BAD = ["Bill", "Steve", "Matt"], ["Clyde", "Curtis", "Cindy"]
NEVER_EQUAL = f"""uid: never_equal
phenomenon: Test
field: syntax
linguistics_term: test
slots:
  subj: {{where: {{category: N, expression: {GOOD}}}}}
template: "{{{{ subj }}}} left early."
critical:
  subj: {{where: {{category: N, expression: {BAD}}}}}
"""
ENGLISH_SUITS = "preset:modern"     # fairpairs/generation/languages/en.py


@pytest.fixture(scope="module")
def grammars(tmp_path_factory) -> Path:
    gpt2 = reference_tokenizer("gpt2")
    counts = {w: len(gpt2.encode(f"{w} left early.", add_special_tokens=False).ids) for w in GOOD + BAD}
    assert {counts[w] for w in GOOD} == {4} and {counts[w] for w in BAD} == {6}, counts   # never equal
    folder = tmp_path_factory.mktemp("grammars")
    (folder / "never_equal.yaml").write_text(NEVER_EQUAL, encoding="utf-8")
    shutil.copy(data_dir("grammars") / "determiner_noun_agreement_1.yaml", folder)
    return folder


def test_a_run_that_kept_no_pair_is_an_error_and_writes_nothing(grammars, tmp_path, fairpairs_cli):
    """(`--strict` already refused it, naming the paradigm's short cell.)"""
    out = tmp_path / "run"
    r = fairpairs_cli("generate", "--grammars", grammars, "--paradigms", "never_equal", "--models", "gpt2",
                      "--pairs", "2", "--quiet", "--out", out)
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 1 and len(lines) == 1, r.stderr
    # (refused by the preflight, issue 47, before anything is generated)
    assert lines[0].startswith("fairpairs: error: --models gpt2: length control can keep no pair under these "
                               "tokenizers: in none of the 1 paradigm(s) (never_equal)"), lines[0]
    assert lines[0].endswith(f"the tokenizers that suit English (en; `fairpairs languages`): {ENGLISH_SUITS}; "
                             "nothing was generated"), lines[0]
    assert not out.exists() and not list(tmp_path.glob(".run.*"))


def test_an_earlier_run_in_the_way_is_left_as_it_was(grammars, tmp_path, fairpairs_cli):
    out = tmp_path / "run"
    fp.generate_run(out, "determiner_noun_agreement_1", ["gpt2"], pairs=3)
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    with pytest.raises(NotComparableError, match=r"^models gpt2: length control can keep no pair"):
        fp.generate_run(out, "never_equal", ["gpt2"], pairs=2, grammars=grammars)
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before


def test_a_run_with_one_empty_paradigm_among_others_is_still_lenient(grammars, tmp_path, fairpairs_cli):
    out = tmp_path / "run"
    r = fairpairs_cli("generate", "--grammars", grammars, "--paradigms", "never_equal,determiner_noun_agreement_1",
                      "--models", "gpt2", "--pairs", "4", "--quiet", "--out", out)
    assert r.returncode == 0, r.stderr
    assert (out / "debiased" / "never_equal.jsonl").read_text() == ""
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["verdict"]["short"] == ["never_equal"] and manifest["paradigms"]["determiner_noun_agreement_1"][
        "debiased"] == 4


def test_matched_pairs_needs_both_sets(tmp_path):
    run = tmp_path / "run"
    fp.generate_run(run, "determiner_noun_agreement_1", ["gpt2"], pairs=3)
    assert len(fp.matched_pairs(run)) > 0
    for data in (run / "original", {"debiased": run / "debiased"}):
        with pytest.raises(UsageError) as info:
            fp.matched_pairs(data)
        assert info.value.param == "data" and "matched pairs join an original and a debiased set" in str(info.value)


def test_one_step_evaluate_says_control_kept_nothing_for_the_models_tokenizer(tiny_models, tmp_path, fairpairs_cli,
                                                                               monkeypatch):
    """No bundled tokenizer suits Hebrew (grammars/he/README.md), the tiny model's is gpt2's: the
    one-step evaluation ends before any scoring with the generation's line, and leaves no folder
    (before issue 45 it named OUT/run/debiased, a folder it had just removed)."""
    import tempfile

    out = tmp_path / "eval"
    r = fairpairs_cli("evaluate", "--models", tiny_models["gpt2"], "--paradigms", "he_simple_agrmt_n1sg", "--pairs", "1",
                      "--out", out)
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    assert lines[-1].startswith(f"fairpairs: error: --models {tiny_models['gpt2']}: length control can keep no pair"), lines
    assert "suit Hebrew" in lines[-1] and "Qwen/Qwen2.5-7B" in lines[-1] and not out.exists()
    # from Python, without run_dir: the temporary folder made for the run goes too
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    with pytest.raises(NotComparableError, match="can keep no pair"):
        fp.evaluate(models=[tiny_models["gpt2"]], paradigms="he_simple_agrmt_n1sg", pairs=1)
    assert list((tmp_path / "tmp").iterdir()) == []
