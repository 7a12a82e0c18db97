"""Issue 22 ("Trust, round 3"): outputs never over a user's files or inside an input, values that
cannot be right refused, one error rule for the Python API, messages that say what is wrong, and
evaluate's leftovers cleaned. Each test failed on the code before the fix it covers (see the item
numbers). Everything here is offline and reads no reference data outside the repository.
"""

from __future__ import annotations

import json
import math
import signal
from pathlib import Path

import numpy as np
import pytest

import fairpairs as fp
from fairpairs.io.files import MARKER
from references import error_line, files

REPO = Path(__file__).resolve().parents[1]
UID = "determiner_noun_agreement_1"

pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture(scope="module")
def run_dir(small_run) -> Path:
    """conftest's small run (4 pairs of UID, the bundled tokenizers), this module's own."""
    return small_run


@pytest.fixture(scope="module")
def model(tiny_models) -> str:
    return tiny_models["gpt2"]


def evaluate_args(model, data, out, *extra):
    return ["evaluate", "--models", model, "--data", data, "--out", out, "--normalize", "lp", "--figures", "none", *extra]


# ------------------------------------------------------------------ item 1: evaluate's folders are ours
def test_evaluate_refuses_a_folder_it_did_not_write_before_any_work(run_dir, tmp_path, fairpairs_cli):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "report.md").write_text("my report")
    (mine / "accuracy.csv").write_text("my,numbers\n")
    before = files(mine)
    broken = tmp_path / "broken-model"     # would fail to load: the refusal must come first
    broken.mkdir()
    code, _, err = fairpairs_cli(*evaluate_args(broken, run_dir, mine))
    line = error_line(err)
    assert code == 1 and line.startswith(f"fairpairs: error: --out {mine}: ") and "did not write" in line
    assert files(mine) == before
    # --cache-dir alike: a folder of the user's is not a cache to write into
    code, _, err = fairpairs_cli(*evaluate_args(broken, run_dir, tmp_path / "ev", "--cache-dir", mine))
    line = error_line(err)
    assert code == 1 and line.startswith(f"fairpairs: error: --cache-dir {mine}: ") and "did not write" in line
    assert files(mine) == before and not (tmp_path / "ev").exists()


def test_evaluate_report_folder_carries_the_marker_and_keeps_user_files(run_dir, model, tmp_path, fairpairs_cli):
    """The report folder sits beside the sets of (a copy of) the run: docs/outputs.md, evaluation
    folders inside a run folder are allowed (and kept when it is regenerated); one evaluation checks
    both."""
    import shutil

    run = tmp_path / "run"
    shutil.copytree(run_dir, run)
    out = run / "evaluation"
    code, _, err = fairpairs_cli(*evaluate_args(model, run, out))
    assert code == 0, err
    assert (out / "report.md").is_file()
    assert fairpairs_cli("audit", run, "--models", "gpt2")[0] == 0      # the run still reads
    marker = json.loads((out / MARKER).read_text())
    assert "report.md" in marker["files"] and "accuracy.csv" in marker["files"]
    assert json.loads((out / "cache" / MARKER).read_text())["signature"] == marker["signature"]
    (out / "notes.md").write_text("my notes")
    (out / "report.md").write_text("edited")           # a file of ours: a re-run replaces it
    code, _, err = fairpairs_cli(*evaluate_args(model, run, out))
    assert code == 0, err
    assert (out / "notes.md").read_text() == "my notes"
    assert (out / "report.md").read_text().startswith("# fairpairs evaluation report")
    assert "cached" in err                              # the cache inside OUT survived the swap
    assert [p.name for p in run.iterdir() if p.name.startswith(".")] == [MARKER]   # no temporary folder left


# ------------------------------------------------------------------ item 4: no output inside an input
def test_outputs_inside_what_a_command_reads_are_refused(run_dir, tmp_path, fairpairs_cli):
    before = files(run_dir)
    code, _, err = fairpairs_cli("audit", run_dir, "--models", "gpt2", "--out", run_dir / "debiased")
    line = error_line(err)
    # (audit --out is a folder of ours since issue 34: the folder is named, not a file in it)
    assert code == 1 and line.startswith(f"fairpairs: error: --out {run_dir / 'debiased'}: ")
    assert "is or holds the input" in line
    assert files(run_dir) == before
    assert fairpairs_cli("audit", run_dir, "--models", "gpt2")[0] == 0    # the run still reads
    broken = tmp_path / "broken-model"
    broken.mkdir()
    for extra, option in ((["--out", run_dir], "--out"), (["--cache-dir", run_dir], "--cache-dir"),
                          (["--cache-dir", run_dir / "original"], "--cache-dir")):
        args = ["evaluate", "--models", broken, "--data", run_dir, "--normalize", "lp"]
        if option == "--cache-dir":
            args += ["--out", tmp_path / "ev"]
        code, _, err = fairpairs_cli(*args, *extra)
        assert code == 1 and error_line(err).startswith(f"fairpairs: error: {option} "), err
        assert files(run_dir) == before
    # a folder of pairs is read whole: a report inside it would be read as pairs next time
    folder = tmp_path / "pairs"
    folder.mkdir()
    (folder / "a.jsonl").write_bytes((run_dir / "debiased" / f"{UID}.jsonl").read_bytes())
    code, _, err = fairpairs_cli(*evaluate_args(broken, folder, folder / "ev"))
    assert code == 1 and "reads as input" in error_line(err) and not (folder / "ev").exists()


# ------------------------------------------------------------------ item 5: values that cannot be right
def test_score_refuses_a_non_finite_alpha(model, tmp_path, fairpairs_cli):
    data = tmp_path / "s.txt"
    data.write_text("The cat sat.\nThe cats sat.\n")
    for alpha in ("nan", "inf", "-inf"):
        out = tmp_path / f"{alpha}.jsonl"
        code, _, err = fairpairs_cli("score", "--models", model, "--input", data, "--out", out, "--normalize", "pen_lp",
                                     "--alpha", alpha, "--no-progress")
        assert code == 1 and error_line(err).startswith("fairpairs: error: --alpha: expected a finite number")
        assert not out.exists()
    with pytest.raises(ValueError, match=r"^alpha: expected a finite number"):
        fp.score_sentences(fp.Scorer.from_pretrained(model), ["A cat."], "pen_lp",
                           alpha=float("nan"))


def test_a_unigram_table_counting_no_tokens_is_refused_for_slor(run_dir, tmp_path, fairpairs_cli):
    table = tmp_path / "empty.json"     # what `fairpairs unigrams` refuses to write, written by hand
    table.write_text(json.dumps({"format": "fairpairs-unigrams/1", "model": "gpt2", "tokenizer_sha256": "",
                                 "vocab_size": 50257, "total_tokens": 0, "counts": {}}))
    data = tmp_path / "s.txt"
    data.write_text("The cat sat.\n")
    broken = tmp_path / "broken-model"   # refused before the model is loaded
    broken.mkdir()
    code, _, err = fairpairs_cli("score", "--models", broken, "--input", data, "--out", tmp_path / "o.jsonl",
                                 "--normalize", "slor", "--unigrams", table)
    assert code == 1 and error_line(err).startswith(f"fairpairs: error: --unigrams {table}: the table counts no tokens")
    code, _, err = fairpairs_cli(*evaluate_args(broken, run_dir, tmp_path / "ev"), "--normalize", "lp,slor",
                                 "--unigrams",
                                 table)
    assert code == 1 and "--unigrams" in error_line(err) and "counts no tokens" in error_line(err)
    assert not (tmp_path / "ev").exists()


def test_a_bool_is_not_a_count():
    for kwargs in ({"pairs": True}, {"pairs": 2, "seed": False}, {"pairs": 2, "max_draws": True}):
        with pytest.raises(TypeError, match=rf"^{next(k for k in kwargs if isinstance(kwargs[k], bool))}: "):
            fp.generate(UID, **kwargs)
    with pytest.raises(TypeError, match="^max_retries: "):
        fp.generate(UID, pairs=2, models="gpt2", max_retries=True)


# ------------------------------------------------------------------ item 6: one error rule
class _Stub:
    """Not a scorer (for the functions that take one)."""


@pytest.fixture(scope="module")
def scorer(model):
    return fp.Scorer.from_pretrained(model)


@pytest.fixture(scope="module")
def pairs_file(tmp_path_factory) -> Path:
    f = tmp_path_factory.mktemp("pairs") / "pairs.jsonl"
    f.write_text(json.dumps({"sentence_good": "The cat sat.", "sentence_bad": "The cat sit."}) + "\n")
    return f


def error_rule_cases(scorer, pairs_file, model, missing: Path):
    """(call, bad argument, built-in class, parameter the message must name) for every public
    function: a missing path is a FileNotFoundError, a wrong type a TypeError, another bad value
    a ValueError."""
    S, P, M = scorer, pairs_file, missing
    return [
        ("load_vocabulary", lambda: fp.load_vocabulary(M / "v.csv"), "missing", FileNotFoundError, "path"),
        ("load_vocabulary", lambda: fp.load_vocabulary(5), "type", TypeError, "path"),
        ("load_vocabulary", lambda: fp.load_vocabulary(P), "value", ValueError, "pairs.jsonl"),
        ("load_paradigm", lambda: fp.load_paradigm(M / "p.yaml"), "missing", FileNotFoundError, "paradigm"),
        ("load_paradigm", lambda: fp.load_paradigm(5), "type", TypeError, "paradigm"),
        ("load_paradigm", lambda: fp.load_paradigm("no_such_uid"), "value", ValueError, "paradigm"),
        ("load_paradigm", lambda: fp.load_paradigm(UID, vocab=M / "v.csv"), "missing", FileNotFoundError, "vocab"),
        ("paradigms", lambda: fp.paradigms(M), "missing", FileNotFoundError, "grammars"),
        ("paradigms", lambda: fp.paradigms(phenomenon=5), "type", TypeError, "phenomenon"),
        ("paradigms", lambda: fp.paradigms(phenomenon="Nothing"), "value", ValueError, "phenomenon"),
        ("validate", lambda: fp.validate(5), "type", TypeError, "paths"),
        ("validate", lambda: fp.validate([P], vocab=M / "v.csv"), "missing", FileNotFoundError, "vocab"),
        ("generate", lambda: fp.generate(UID, pairs=True), "type", TypeError, "pairs"),
        ("generate", lambda: fp.generate(UID, pairs=0), "value", ValueError, "pairs"),
        ("generate", lambda: fp.generate(UID, pairs=2, models=5), "type", TypeError, "models"),
        ("generate", lambda: fp.generate(UID, pairs=2, models=[str(M / "t.json")]), "missing", FileNotFoundError,
         "models"),
        ("generate", lambda: fp.generate(UID, pairs=2, models=["gpt2"], match_frequency=math.nan), "value",
         ValueError, "match_frequency"),
        ("generate", lambda: fp.generate(UID, pairs=2, strategy=5), "type", TypeError, "strategy"),
        ("generate", lambda: fp.generate(UID, pairs=2, vocab=M / "v.csv"), "missing", FileNotFoundError, "vocab"),
        ("generate_run", lambda: fp.generate_run(5, paradigms=[UID], pairs=2), "type", TypeError, "out"),
        ("generate_run", lambda: fp.generate_run(M / "o", paradigms=5, pairs=2), "type", TypeError, "paradigms"),
        ("generate_run", lambda: fp.generate_run(M / "o", paradigms=[UID], pairs=True), "type", TypeError, "pairs"),
        ("generate_run", lambda: fp.generate_run(M / "o", paradigms=["nope"], pairs=2), "value", ValueError,
         "paradigms"),
        ("generate_run", lambda: fp.generate_run(M / "o", grammars=M, pairs=2), "missing", FileNotFoundError,
         "grammars"),
        ("generate_run", lambda: fp.generate_run(M / "o", paradigms=[UID], pairs=2, lexicon_from=M / "c.txt"),
         "missing", FileNotFoundError, "lexicon_from"),
        ("generate_run", lambda: fp.generate_run(M / "o", paradigms=[UID], pairs=2, lexicon_from=P, min_count=0),
         "value", ValueError, "min_count"),
        ("read_pairs", lambda: fp.read_pairs(M / "d.jsonl"), "missing", FileNotFoundError, "source"),
        ("read_pairs", lambda: fp.read_pairs(5), "type", TypeError, "source"),
        ("read_pairs", lambda: fp.read_pairs({}), "value", ValueError, "source"),
        ("read_pairs", lambda: fp.read_pairs(P, columns="good"), "type", TypeError, "columns"),
        ("load_sets", lambda: fp.load_sets(M / "d.jsonl"), "missing", FileNotFoundError, "data"),
        ("load_sets", lambda: fp.load_sets(5), "type", TypeError, "data"),
        ("load_sets", lambda: fp.load_sets({}), "value", ValueError, "data"),
        ("load_sets", lambda: fp.load_sets(P, columns=5), "type", TypeError, "columns"),
        ("audit", lambda: fp.audit(M / "d.jsonl"), "missing", FileNotFoundError, "data"),
        ("audit", lambda: fp.audit(P, models=5), "type", TypeError, "models"),
        ("audit", lambda: fp.audit(P, models=[]), "value", ValueError, "models"),
        ("audit_report", lambda: fp.audit_report(M / "d.jsonl"), "missing", FileNotFoundError, "data"),
        ("audit_report", lambda: fp.audit_report(P, models=5), "type", TypeError, "models"),
        ("audit_report", lambda: fp.audit_report(P, format="csvx"), "value", ValueError, "format"),
        ("audit_report", lambda: fp.audit_report(P, language=5), "type", TypeError, "language"),
        ("score_pairs", lambda: fp.score_pairs(_Stub(), P), "type", TypeError, "scorer"),
        ("score_pairs", lambda: fp.score_pairs(S, M / "d.jsonl"), "missing", FileNotFoundError, "pairs"),
        ("score_pairs", lambda: fp.score_pairs(S, P, normalize="bogus"), "value", ValueError, "normalize"),
        ("score_pairs", lambda: fp.score_pairs(S, P, normalize=5), "type", TypeError, "normalize"),
        ("score_pairs", lambda: fp.score_pairs(S, P, normalize="slor", unigrams=M / "u.json"), "missing",
         FileNotFoundError, "unigrams"),
        ("evaluate", lambda: fp.evaluate(M / "d.jsonl", [model]), "missing", FileNotFoundError, "data"),
        ("evaluate", lambda: fp.evaluate(P, 5), "type", TypeError, "models"),
        ("evaluate", lambda: fp.evaluate(P, [str(M / "model")]), "missing", FileNotFoundError, "models"),
        ("evaluate", lambda: fp.evaluate(P, [model], pll="bogus"), "value", ValueError, "pll"),
        ("evaluate", lambda: fp.evaluate(P, [model], batch_tokens=True), "type", TypeError, "batch_tokens"),
        ("evaluate", lambda: fp.evaluate(P, [model], cache_dir=5), "type", TypeError, "cache_dir"),
        ("evaluate", lambda: fp.evaluate(P, [model], split_tokenizer=str(M / "t.json")), "missing",
         FileNotFoundError, "split_tokenizer"),
        ("publish", lambda: fp.publish(M, "me/x", dry_run=True), "missing", FileNotFoundError, "run_dir"),
        ("publish", lambda: fp.publish(5, "me/x", dry_run=True), "type", TypeError, "run_dir"),
        ("publish", lambda: fp.publish(P.parent, 5, dry_run=True), "type", TypeError, "repo_id"),
        ("publish", lambda: fp.publish(P.parent, "no-slash", dry_run=True), "value", ValueError, "repo_id"),
        ("read_sentences", lambda: fp.read_sentences(M / "s.txt"), "missing", FileNotFoundError, "sentences"),
        ("read_sentences", lambda: fp.read_sentences(5), "type", TypeError, "sentences"),
        ("read_sentences", lambda: fp.read_sentences([]), "value", ValueError, "sentences"),
        ("score_sentences", lambda: fp.score_sentences(_Stub(), P), "type", TypeError, "scorer"),
        ("score_sentences", lambda: fp.score_sentences(S, P, "pen_lp", alpha="high"), "type", TypeError, "alpha"),
        ("score_sentences", lambda: fp.score_sentences(S, P, "pen_lp", alpha=math.inf), "value", ValueError,
         "alpha"),
        ("score_sentences", lambda: fp.score_sentences(S, P, "morcela", morcela_params=M / "m.json"), "missing",
         FileNotFoundError, "morcela_params"),
        ("pair_accuracy", lambda: fp.pair_accuracy(5, "lp"), "type", TypeError, "df"),
        ("pair_accuracy", lambda: fp.pair_accuracy(S.score(["A cat."], normalize=()), "lp"), "value", ValueError,
         "df"),
        ("write_scores", lambda: fp.write_scores(S.score(["A cat."], normalize=()), M / "s.txt"), "value",
         ValueError, "out"),
        ("write_scores", lambda: fp.write_scores(S.score(["A cat."], normalize=()), 5), "type", TypeError, "out"),
        ("write_scores", lambda: fp.write_scores(5, M / "s.csv"), "type", TypeError, "df"),
        ("count_unigrams", lambda: fp.count_unigrams(str(M / "tok"), P), "missing", FileNotFoundError, "model"),
        ("count_unigrams", lambda: fp.count_unigrams(5, P), "type", TypeError, "model"),
        ("count_unigrams", lambda: fp.count_unigrams("gpt2", M / "c.txt"), "missing", FileNotFoundError, "corpus"),
        ("count_unigrams", lambda: fp.count_unigrams("gpt2", 5), "type", TypeError, "corpus"),
        ("count_unigrams", lambda: fp.count_unigrams("gpt2", []), "value", ValueError, "corpus"),
        ("load_judgments", lambda: fp.load_judgments(M / "j.csv"), "missing", FileNotFoundError, "judgments"),
        ("load_judgments", lambda: fp.load_judgments(5), "type", TypeError, "judgments"),
        ("load_judgments", lambda: fp.load_judgments(P), "value", ValueError, "judgments"),
        ("fit_morcela", lambda: fp.fit_morcela(_Stub(), P), "type", TypeError, "scorer"),
        ("fit_morcela", lambda: fp.fit_morcela(S, M / "j.csv"), "missing", FileNotFoundError, "judgments"),
        ("fit_morcela", lambda: fp.fit_morcela(S, P, folds=True), "type", TypeError, "folds"),
        ("fit_morcela", lambda: fp.fit_morcela(S, P, folds=1), "value", ValueError, "folds"),
        ("Scorer", lambda: fp.Scorer.from_pretrained(str(M / "model")), "missing", FileNotFoundError, "model"),
        ("Scorer", lambda: fp.Scorer.from_pretrained(5), "type", TypeError, "model"),
        ("Scorer", lambda: fp.Scorer.from_pretrained(model, batch_tokens=0), "value", ValueError, "batch_tokens"),
        ("Scorer", lambda: fp.Scorer.from_pretrained(model, pll="bogus"), "value", ValueError, "pll"),
        ("Scorer", lambda: S.score(["A cat."], normalize="pen_lp", alpha=math.nan), "value", ValueError, "alpha"),
        ("write_report", lambda: fp.write_report(5, M / "r"), "type", TypeError, "report"),
        ("report_figures", lambda: fp.report_figures(M / "r"), "missing", FileNotFoundError, "report"),
        ("report_figures", lambda: fp.report_figures(5), "type", TypeError, "report"),
        ("balance", lambda: fp.balance(M / "run"), "missing", FileNotFoundError, "data"),
        ("balance", lambda: fp.balance(5), "type", TypeError, "data"),
        ("balance", lambda: fp.balance({"original": []}), "value", ValueError, "data"),
        ("balance", lambda: fp.balance({"original": [], "debiased": 5}), "type", TypeError, "data"),
        ("matched_pairs", lambda: fp.matched_pairs(M / "d.jsonl"), "missing", FileNotFoundError, "data"),
        ("matched_pairs", lambda: fp.matched_pairs(5), "type", TypeError, "data"),
        ("robustness", lambda: fp.robustness(M / "d.jsonl", [model]), "missing", FileNotFoundError, "data"),
        ("robustness", lambda: fp.robustness(P, 5), "type", TypeError, "models"),
        ("robustness", lambda: fp.robustness(P, [str(M / "model")]), "missing", FileNotFoundError, "models"),
        ("robustness", lambda: fp.robustness(P, [model], pll="bogus"), "value", ValueError, "pll"),
        ("robustness", lambda: fp.robustness(P, [model], length_params=M / "l.json"), "missing", FileNotFoundError,
         "length_params"),
        ("robustness", lambda: fp.robustness(P, [model], length_params=P), "value", ValueError, "length_params"),
        ("robustness", lambda: fp.robustness(P, [model], batch_tokens=True), "type", TypeError, "batch_tokens"),
        ("fit_length_params", lambda: fp.fit_length_params(_Stub(), P), "type", TypeError, "scorer"),
        ("fit_length_params", lambda: fp.fit_length_params(S, M / "c.txt"), "missing", FileNotFoundError, "corpus"),
        ("fit_length_params", lambda: fp.fit_length_params(S, 5), "type", TypeError, "corpus"),
        ("fit_length_params", lambda: fp.fit_length_params(S, P, n=3), "value", ValueError, "n"),
        ("tokenizers", lambda: fp.tokenizers(hub_cache="no"), "type", TypeError, "hub_cache"),
        ("languages", lambda: fp.languages(5), "type", TypeError, "grammars"),
        ("languages", lambda: fp.languages(M / "g"), "missing", FileNotFoundError, "grammars"),
        ("to_frame", lambda: fp.to_frame(M / "d.jsonl"), "missing", FileNotFoundError, "data"),
        ("to_frame", lambda: fp.to_frame(5), "type", TypeError, "data"),
        ("to_frame", lambda: fp.to_frame({}), "value", ValueError, "data"),
        ("placebo_pairs", lambda: fp.placebo_pairs(M / "run"), "missing", FileNotFoundError, "run_dir"),
        ("placebo_pairs", lambda: fp.placebo_pairs(5), "type", TypeError, "run_dir"),
        ("placebo_pairs", lambda: fp.placebo_pairs(P.parent, per_paradigm=0), "value", ValueError, "per_paradigm"),
        ("placebo_pairs", lambda: fp.placebo_pairs(P), "value", ValueError, "run_dir"),
    ]


def test_every_public_function_follows_the_one_error_rule(scorer, pairs_file, model, tmp_path):
    from fairpairs import _EXPORTS
    from fairpairs.errors import FairpairsError

    cases = error_rule_cases(scorer, pairs_file, model, tmp_path / "missing")
    # every public function (and class with a constructor of ours) has cases; Report and PairRecord
    # are plain records (pairs are read back, checked, by fp.read_pairs); the progress switch's three
    # functions take no argument
    assert {c[0] for c in cases} == set(_EXPORTS) - {"Report", "PairRecord", "disable_progress_bars",
                                                     "enable_progress_bars", "are_progress_bars_disabled"}
    for name, call, kind, expected, param in cases:
        with pytest.raises(expected) as info:
            call()
        exc = info.value
        assert isinstance(exc, FairpairsError), f"{name} ({kind}): {type(exc).__name__}: {exc}"
        assert (kind == "missing") == isinstance(exc, FileNotFoundError), f"{name} ({kind}): {exc}"
        if kind == "type":
            assert not isinstance(exc, ValueError), f"{name}: a wrong type is a TypeError only: {exc}"
        import re

        assert re.search(rf"(^|\b){re.escape(param)}\b", str(exc)), f"{name} ({kind}) names no {param!r}: {exc}"
    assert not (tmp_path / "missing").exists()


def test_a_tokenizer_error_is_a_value_error_and_the_classes_fit_the_rule():
    from fairpairs import errors

    with pytest.raises(ValueError, match="^models "):
        fp.audit([{"sentence_good": "A.", "sentence_bad": "B."}], models=["preset:nothing"])
    for cls in (errors.TokenizerError, errors.OutputError, errors.ModelError, errors.DatasetError):
        assert issubclass(cls, ValueError)
    assert issubclass(errors.UsageTypeError, TypeError) and not issubclass(errors.UsageTypeError, ValueError)
    for base in (errors.DatasetError, errors.GrammarError, errors.VocabularyError, errors.TokenizerError,
                 errors.ModelError, errors.LexiconError, errors.UsageError):
        variant = errors.not_found(base)
        assert issubclass(variant, base) and issubclass(variant, FileNotFoundError), base


def test_docs_state_the_error_rule():
    text = (REPO / "docs" / "api.md").read_text(encoding="utf-8")
    section = text.split("\n## Errors\n", 1)[1].split("\n## ", 1)[0]
    for needle in ("FileNotFoundError", "TypeError", "ValueError", "parameter"):
        assert needle in section


# ------------------------------------------------------------------ item 7: messages that say what is wrong
def test_tokenizer_files_that_are_not_what_they_seem(tmp_path, fairpairs_cli):
    cases = {
        "empty.model": (b"", "is an empty file, not a tokenizer"),
        "broken.tiktoken@qwen": (b"not base64!! 0\nQUJD 1\n", "broken.tiktoken:1: not a tiktoken rank line"),
        "late.tiktoken@qwen": (b"IQ== 0\nIg== x\n", "late.tiktoken:2: not a tiktoken rank line"),
        "other.json": (b'{"version": "1.0", "labels": [1, 2]}', "is not a tokenizer.json"),
        "cut.json": (b'{"model": {"vocab": {', "is not valid JSON"),
        "tekken.json": (b'{"config": {"default_vocab_size": 10}, "vocab": []}',
                        "is not a Mistral Tekken tokenizer file (no 'config.pattern'"),
    }
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(json.dumps({"sentence_good": "The cat sat.", "sentence_bad": "The cat sit."}) + "\n")
    for name, (data, needle) in cases.items():
        (tmp_path / name.split("@")[0]).write_bytes(data)
        code, _, err = fairpairs_cli("audit", pairs, "--models", tmp_path / name)
        line = error_line(err)
        assert code == 1 and needle in line, (name, line)
        assert line.startswith(f"fairpairs: error: --models {tmp_path / name}: "), line
        for wrong in ("sentencepiece", "Unigram", "KeyError", "line 1 column"):
            assert wrong not in line, (name, line)


def test_cli_messages_name_the_options_of_the_command(run_dir, tmp_path, fairpairs_cli):
    corpus = tmp_path / "c.txt"
    corpus.write_text("The cat sat.\n")
    code, _, err = fairpairs_cli("unigrams", "--models", tmp_path / "no-tok", "--corpus", corpus, "--out",
                                 tmp_path / "u.json")
    assert code == 1 and error_line(err).startswith(f"fairpairs: error: --models {tmp_path / 'no-tok'}: ")
    code, _, err = fairpairs_cli(*evaluate_args("gpt2", run_dir, tmp_path / "ev"), "--split-tokenizer",
                                 tmp_path / "no-tok")
    line = error_line(err)
    assert code == 1 and line.startswith(f"fairpairs: error: --split-tokenizer {tmp_path / 'no-tok'}: ")
    assert "split_tokenizer" not in line


def test_json_errors_are_whole_and_numbers_are_plain(tmp_path, fairpairs_cli):
    bad = tmp_path / "pairs.jsonl"
    bad.write_text('{"sentence_good": "The cat\tsat.", "sentence_bad": "x"}\n')
    code, _, err = fairpairs_cli("audit", bad)
    line = error_line(err)
    assert code == 1 and f"{bad}:1: invalid JSON (Invalid control character at column 27)" in line
    assert "at at" not in line
    manifest = tmp_path / "run" / "manifest.json"
    manifest.parent.mkdir()
    manifest.write_text('{"seed": 1,\n "pairs": }\n')
    with pytest.raises(ValueError, match=r"manifest.json: not valid JSON \(Expecting value at line 2, column 11\)$"):
        from fairpairs.manifest import read_manifest

        read_manifest(manifest.parent)
    judgments = tmp_path / "j.csv"
    judgments.write_text("sentence,judgment\n" + "".join(f"Sentence {i}.,{i % 5}\n" for i in range(12))
                         + "Bad one.,inf\n")
    with pytest.raises(ValueError) as info:
        fp.load_judgments(judgments)
    assert "np.float64" not in str(info.value) and "is infinite (inf)" in str(info.value)
    from fairpairs.arguments import number

    with pytest.raises(ValueError) as info:
        number(np.float64("inf"), "alpha")
    assert str(info.value) == "alpha: expected a finite number, not inf"


def test_a_tab_separated_vocabulary_is_named_as_such(tmp_path, fairpairs_cli):
    table = tmp_path / "vocab.tsv"
    lines = (REPO / "vocab" / "blimp_vocabulary.csv").read_text(encoding="utf-8").splitlines()[:50]
    import csv
    import io

    rows = list(csv.reader(io.StringIO("\n".join(lines))))
    table.write_text("\n".join("\t".join(r) for r in rows) + "\n", encoding="utf-8")
    code, _, err = fairpairs_cli("generate", "--paradigms", UID, "--pairs", "2", "--quiet", "--vocab", table,
                                 "--out", tmp_path / "o")
    line = error_line(err)
    assert code == 1 and "not comma-separated" in line and "tabs" in line and str(table) in line
    assert "column missing" not in line


# ------------------------------------------------------------------ item 8: leftovers of a killed evaluate
def test_saved_batches_that_can_no_longer_be_resumed_are_removed(run_dir, model, tmp_path, fairpairs_cli, monkeypatch):
    import shutil

    from fairpairs.scoring.scorer import Scorer

    run = tmp_path / "run"
    shutil.copytree(run_dir, run)
    out = tmp_path / "ev"
    score_subset = Scorer._score_subset

    def killed(self, enc, idx, pll, on_done):      # Ctrl-C right after the first saved batch
        def done(indices, sums):
            on_done(indices, sums)
            raise KeyboardInterrupt
        return score_subset(self, enc, idx, pll, done)

    monkeypatch.setattr(Scorer, "_score_subset", killed)
    code, _, err = fairpairs_cli(*evaluate_args(model, run, out, "--batch-tokens", "16"))
    assert code == 130, err
    monkeypatch.setattr(Scorer, "_score_subset", score_subset)
    stale = list((out / "cache").glob("*.parts"))
    assert len(stale) == 1 and list(stale[0].glob("part-*.parquet"))
    # a folder of the user's that looks alike, and saved batches of another model, are not ours to remove
    (out / "cache" / "mine.parts").mkdir()
    (out / "cache" / "mine.parts" / "notes.txt").write_text("mine")
    other = out / "cache" / "other-0123456789abcdef.parts"
    shutil.copytree(stale[0], other)
    meta = json.loads((other / "meta.json").read_text())
    (other / "meta.json").write_text(json.dumps(meta | {"model": "another-model"}))
    # the input changed before the rerun (a pair added): those batches can never be resumed
    path = run / "debiased" / f"{UID}.jsonl"
    row = json.loads(path.read_text().splitlines()[0]) | {"sentence_good": "Some new cat sat.",
                                                          "sentence_bad": "Some new cat sit.", "pair_id": "99"}
    path.write_text(path.read_text() + json.dumps(row) + "\n")
    code, _, err = fairpairs_cli(*evaluate_args(model, run, out))
    assert code == 0, err
    assert not stale[0].exists()
    assert (out / "cache" / "mine.parts" / "notes.txt").read_text() == "mine"
    assert other.is_dir() and list(other.glob("part-*.parquet"))
    assert sorted(p.name for p in (out / "cache").glob("*.parts")) == ["mine.parts", other.name]
