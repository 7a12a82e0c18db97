"""The public API (`import fairpairs as fp`, docs/api.md): the issue's notebook run as written,
then each call checked against an independent reference - the CLI's own output files, token
counts from the `tokenizers` library on the reference tokenizer files, and a naive torch sum of
log-probabilities."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import fairpairs as fp
from references import reference_tokenizer

TOKS = ("gpt2", "bert-base-cased")


@pytest.fixture(scope="module")
def MODEL(tiny_models):
    """A tiny random causal model folder with the bundled gpt2 tokenizer (tests/conftest.py)."""
    return tiny_models["gpt2"]


DOCS = Path(__file__).resolve().parents[1] / "docs" / "api.md"


def docs_notebook() -> str:
    """The first python block of docs/api.md: the issue's notebook, as written."""
    text = DOCS.read_text(encoding="utf-8")
    return text.split("```python\n", 1)[1].split("```", 1)[0]


@pytest.fixture(scope="module")
def notebook(MODEL, one_torch_thread):
    """docs/api.md's notebook, run as written with MODEL defined."""
    ns = {"MODEL": MODEL}
    exec(compile(docs_notebook(), str(DOCS), "exec"), ns)
    pairs = ns["pairs"]
    ns["first"] = pairs[0].sentence_good, pairs[0].sentence_bad, pairs[0].token_lengths["gpt2"]["good"]
    return ns


def test_docs_notebook_is_the_issues():
    lines = [ln.split("#")[0].strip() for ln in docs_notebook().splitlines()]
    assert lines == [
        "import fairpairs as fp",
        'p = fp.load_paradigm("determiner_noun_agreement_1")',
        'pairs = fp.generate(p, pairs=50, models=["gpt2", "bert-base-cased"], seed=0)',
        "orig = fp.generate(p, pairs=50, seed=0)",
        'pairs[0].sentence_good, pairs[0].sentence_bad, pairs[0].token_lengths["gpt2"]["good"]',
        'bias = fp.audit(orig, models=["gpt2"])',
        "scorer = fp.Scorer.from_pretrained(MODEL)",
        "scores = fp.score_pairs(scorer, pairs)",
        'report = fp.evaluate({"original": orig, "debiased": pairs}, [MODEL])',
    ]


# ---------------------------------------------------------------------------- import


def test_import_is_lazy_and_torch_free():
    code = ("import sys, fairpairs; fairpairs.load_paradigm; fairpairs.generate; fairpairs.audit; "
            "p = fairpairs.load_paradigm('determiner_noun_agreement_1'); "
            "print(sorted(m for m in ('torch', 'transformers') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    bare = subprocess.run([sys.executable, "-c", "import sys, fairpairs; print('pandas' in sys.modules, "
                                                 "'fairpairs.api' in sys.modules)"],
                          capture_output=True, text=True, check=True)
    assert bare.stdout.split() == ["False", "False"]


def test_no_module_of_the_package_is_named_like_an_api_function():
    """A sub-module named like a public function (once fairpairs/generate.py beside fp.generate)
    would replace the function on the package when imported; none is, and importing every module
    leaves fp.generate / fp.audit / fp.evaluate the functions."""
    import pkgutil

    import fairpairs as fp
    from fairpairs import _EXPORTS

    children = {m.name for m in pkgutil.iter_modules(fp.__path__)}
    assert not children & set(_EXPORTS)
    code = ("import importlib, pkgutil, fairpairs as fp; "
            "[importlib.import_module('fairpairs.' + m.name) for m in pkgutil.iter_modules(fp.__path__)]; "
            "print(all(callable(getattr(fp, n)) for n in ('generate', 'audit', 'evaluate', 'publish', 'robustness')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True"]


# ---------------------------------------------------------------------------- the notebook


def test_notebook_runs_as_written(notebook, MODEL):
    pairs, orig = notebook["pairs"], notebook["orig"]
    assert len(pairs) == len(orig) == 50
    assert all(isinstance(r, fp.PairRecord) for r in pairs + orig)
    sg, sb, n = notebook["first"]
    assert sg != sb and n == len(reference_tokenizer("gpt2").encode(sg, add_special_tokens=False).ids)
    for r in pairs:     # length-controlled under both tokenizers, by the reference tokenizers' count
        for name in TOKS:
            tok = reference_tokenizer(name)
            g, b = (len(tok.encode(s, add_special_tokens=False).ids) for s in (r.sentence_good, r.sentence_bad))
            assert g == b == r.token_lengths[name]["good"] == r.token_lengths[name]["bad"]
    assert all(r.token_lengths == {} for r in orig)
    assert {"n_equal", "n_good_longer", "n_good_shorter"} <= set(notebook["bias"].columns)
    scores = notebook["scores"]
    assert len(scores) == 50 and {"lp_good", "lp_bad", "correct"} <= set(scores.columns)
    report = notebook["report"]
    assert set(report.accuracy["set"]) == {"original", "debiased"}
    assert set(report.accuracy["model"]) == {Path(MODEL).name}


def test_pair_record_is_frozen_and_to_dict_is_the_jsonl_row(notebook):
    r = notebook["pairs"][0]
    with pytest.raises(AttributeError):
        r.sentence_good = "x"
    d = r.to_dict()
    assert list(d) == ["sentence_good", "sentence_bad", "field", "linguistics_term", "uid", "pair_id",
                       "simple_LM_method", "one_prefix_method", "two_prefix_method", "lexically_identical",
                       "same_words", "one_prefix_prefix", "one_prefix_word_good", "one_prefix_word_bad",
                       "critical_good", "critical_bad", "token_lengths", "redraws", "draw", "control", "fillers"]
    d["token_lengths"]["gpt2"]["good"] = -1             # a copy: the record is unchanged
    assert r.token_lengths["gpt2"]["good"] > 0
    assert fp.read_pairs([r.to_dict()])["pairs"].records() == [r]      # read back by the one reader


# ---------------------------------------------------------------------------- one code path with the CLI


def _line(row: dict) -> str:
    return json.dumps(row, ensure_ascii=False, separators=(", ", ": ")) + "\n"


@pytest.mark.parametrize("uid,strategy", [("determiner_noun_agreement_1", "search"),
                                          ("anaphor_number_agreement", "resample")])   # (a {% if %} template)
def test_generate_gives_the_cli_files(tmp_path, uid, strategy, fairpairs_cli):
    out = tmp_path / "run"
    r = fairpairs_cli("generate", "--paradigms", f"{uid},causative", "--pairs", "40", "--models", ",".join(TOKS),
                      "--seed", "7", "--strategy", strategy, "--out", str(out), "--quiet")
    assert r.returncode == 0, r.stderr
    deb = fp.generate(uid, pairs=40, models=list(TOKS), seed=7, strategy=strategy)
    assert "".join(_line(r.to_dict()) for r in deb).encode() == (out / "debiased" / f"{uid}.jsonl").read_bytes()
    orig = fp.generate(uid, pairs=40, models=list(TOKS), seed=7, strategy=None)
    assert "".join(_line(r.to_dict()) for r in orig).encode() == (out / "original" / f"{uid}.jsonl").read_bytes()
    bare = fp.generate(uid, pairs=40, seed=7)            # no tokenizers: the same pairs, without lengths
    written = [json.loads(x) for x in (out / "original" / f"{uid}.jsonl").read_text().splitlines()]
    assert [{**r.to_dict(), "token_lengths": None} for r in bare] == [{**w, "token_lengths": None} for w in written]


def test_generate_run_writes_the_cli_run(tmp_path, fairpairs_cli):
    res = fp.generate_run(tmp_path / "api", paradigms=["causative"], models=["gpt2"], pairs=20, seed=1)
    r = fairpairs_cli("generate", "--paradigms", "causative", "--pairs", "20", "--models", "gpt2", "--seed", "1",
                      "--out", str(tmp_path / "cli"), "--quiet")
    assert r.returncode == 0, r.stderr
    for part in ("original/causative.jsonl", "debiased/causative.jsonl"):
        assert (tmp_path / "api" / part).read_bytes() == (tmp_path / "cli" / part).read_bytes()
    assert res.stats["causative"]["debiased"].kept == 20


# ---------------------------------------------------------------------------- audit


def test_audit_counts_match_the_tokenizers_library(notebook, tmp_path):
    orig = notebook["orig"]
    tok = reference_tokenizer("gpt2")
    diffs = [len(tok.encode(r.sentence_bad, add_special_tokens=False).ids)
             - len(tok.encode(r.sentence_good, add_special_tokens=False).ids) for r in orig]
    row = notebook["bias"].query("uid == 'determiner_noun_agreement_1'").iloc[0]
    assert (row.n_pairs, row.n_equal, row.n_good_longer, row.n_good_shorter) == (
        50, sum(d == 0 for d in diffs), sum(d < 0 for d in diffs), sum(d > 0 for d in diffs))
    assert sum(d != 0 for d in diffs) > 0        # the uncontrolled set is biased: the check can fail
    # the same pairs as a DataFrame and as a file give the same table
    frame = pd.DataFrame([r.to_dict() for r in orig])
    path = tmp_path / "orig.jsonl"
    path.write_text("".join(_line(r.to_dict()) for r in orig), encoding="utf-8")
    cols = ["uid", "n_pairs", "n_equal", "n_good_longer", "n_good_shorter"]
    for other in (fp.audit(frame, models=["gpt2"]), fp.audit(path, models="gpt2")):
        assert other[cols].to_dict("records") == notebook["bias"][cols].to_dict("records")


# ---------------------------------------------------------------------------- scoring


def naive_lp(model_dir: str, sentence: str) -> float:
    """Sum of log p(token | prefix) over the sentence's tokens after a BOS token, with plain torch."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForCausalLM.from_pretrained(model_dir).eval()
    ids = [tok.bos_token_id] + tok(sentence, add_special_tokens=False)["input_ids"]
    with torch.no_grad():
        logits = model(torch.tensor([ids])).logits[0].double()
    logp = torch.log_softmax(logits, dim=-1)
    return float(sum(logp[i - 1, ids[i]] for i in range(1, len(ids))))


def test_score_pairs_matches_a_naive_torch_sum(notebook, MODEL):
    scores = notebook["scores"]
    pairs = notebook["pairs"]
    assert scores["sentence_good"].tolist() == [r.sentence_good for r in pairs]    # input order
    for i in (0, 17, 49):
        assert math.isclose(scores.loc[i, "lp_good"], naive_lp(MODEL, pairs[i].sentence_good), abs_tol=1e-3)
        assert math.isclose(scores.loc[i, "lp_bad"], naive_lp(MODEL, pairs[i].sentence_bad), abs_tol=1e-3)
    assert (scores["correct"] == (scores["lp_good"] > scores["lp_bad"])).all()
    assert scores["split"].eq("A=U").all()      # length-controlled under gpt2, the model's tokenizer


def test_score_pairs_accepts_a_frame_and_a_path(notebook, tmp_path):
    pairs = notebook["pairs"][:5]
    path = tmp_path / "p.jsonl"
    path.write_text("".join(_line(r.to_dict()) for r in pairs), encoding="utf-8")
    a = fp.score_pairs(notebook["scorer"], pd.DataFrame([r.to_dict() for r in pairs]), normalize="lp")
    b = fp.score_pairs(notebook["scorer"], path, normalize=["lp"])
    # (other sentence sets batch and pad differently: float32 sums agree to about 1e-6)
    assert a["lp_good"].tolist() == b["lp_good"].tolist()
    assert a["lp_good"].to_numpy() == pytest.approx(notebook["scores"]["lp_good"][:5].to_numpy(), abs=1e-4)


def test_evaluate_report_agrees_with_score_pairs_and_saves(notebook, tmp_path):
    from fairpairs.analysis.report import write_report

    report = notebook["report"]
    acc = report.accuracy.query("set == 'debiased' and uid == 'ALL' and normalization == 'lp'").iloc[0]
    assert acc.n_pairs == 50 and acc.n_correct == int(notebook["scores"]["correct"].sum())
    files = write_report(report, tmp_path / "rep", figures="none")   # (figures: not looked at)
    assert (tmp_path / "rep" / "report.md").is_file() and len(files) > 5


# ---------------------------------------------------------------------------- names and errors


def test_paradigms_and_load_paradigm_by_path():
    listed = fp.paradigms()
    assert len(listed) == 69 and sum(p["standard"] for p in listed) == 67
    row = next(p for p in listed if p["uid"] == "causative")
    assert row["field"] in {"morphology", "syntax", "semantics", "syntax_semantics"} and row["phenomenon"]
    from fairpairs.io.paths import data_dir

    p = fp.load_paradigm(data_dir("grammars") / "causative.yaml")
    assert p.uid == "causative"
    assert fp.load_vocabulary() is fp.load_vocabulary()         # the bundled table, loaded once


def test_errors_are_builtins_naming_parameters(tmp_path):
    with pytest.raises(ValueError, match=r"^paradigm: unknown paradigm 'no_such'"):
        fp.load_paradigm("no_such")
    with pytest.raises(ValueError, match=r"^pairs: expected a whole number >= 1"):
        fp.generate("causative", pairs=0)
    with pytest.raises(ValueError, match=r"^strategy: unknown strategy 'best' \(known: search, resample\)"):
        fp.generate("causative", pairs=5, models=["gpt2"], strategy="best")
    with pytest.raises(ValueError, match=r"^models: gpt2 named twice"):
        fp.generate("causative", pairs=5, models=["gpt2", "gpt2"])
    with pytest.raises(TypeError, match=r"data: expected PairRecords"):   # a wrong type (docs/api.md)
        fp.audit(42, models=["gpt2"])


# ---------------------------------------------------------------------------- one name per concept


@pytest.mark.parametrize("call, old, new", [
    (lambda **k: fp.generate("causative", seed=3, **k), {"n": 6}, {"pairs": 6}),
    (lambda **k: fp.generate("causative", pairs=6, seed=3, **k), {"tokenizers": ["gpt2"]}, {"models": ["gpt2"]}),
    (lambda **k: fp.audit([{"sentence_good": "A cat sat.", "sentence_bad": "A cat sit."}], **k),
     {"tokenizers": ["gpt2"]}, {"models": ["gpt2"]}),
])
def test_old_parameter_names_still_work_and_warn_once(call, old, new):
    import warnings

    from fairpairs.errors import FairpairsDeprecationWarning

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        got = call(**old)
    deprecations = [w for w in seen if issubclass(w.category, FairpairsDeprecationWarning)]
    assert len(deprecations) == 1 and f"`{next(iter(old))}` is deprecated, use `{next(iter(new))}`" in \
        str(deprecations[0].message)
    assert issubclass(FairpairsDeprecationWarning, FutureWarning)       # shown to users by default
    expected = call(**new)
    if isinstance(got, list):
        assert [r.to_dict() for r in got] == [r.to_dict() for r in expected]
    else:
        assert got.equals(expected)


def test_old_and_new_names_together_or_an_unknown_name_are_errors(tmp_path):
    with pytest.raises(ValueError, match=r"^n: the old name of pairs; give only pairs$"):
        fp.generate("causative", pairs=5, n=6)
    with pytest.raises(TypeError, match="unexpected keyword argument 'pairz'"):
        fp.generate("causative", pairz=5)
    with pytest.raises(TypeError, match="unexpected keyword argument 'which'"):
        fp.generate("causative", which="original")       # `which` is publish's old name, not generate's


def test_publish_takes_set_and_its_old_name_which(tmp_path):
    import warnings

    from fairpairs.errors import FairpairsDeprecationWarning

    run = tmp_path / "run"
    fp.generate_run(run, paradigms=["causative"], models=["gpt2"], pairs=4, seed=0)
    new = fp.publish(run, "me/x", out=tmp_path / "a", set="original", dry_run=True)
    with pytest.warns(FairpairsDeprecationWarning, match="`which` is deprecated, use `set`"):
        old = fp.publish(run, "me/x", out=tmp_path / "b", which="original", dry_run=True)
    warnings.simplefilter("default")
    assert [c.name for c in new.configs] == [c.name for c in old.configs] == ["causative-original"]
