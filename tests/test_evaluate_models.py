"""`fairpairs evaluate` end to end with tiny random models, checked against the scorer called
directly and against the public BLiMP data with tokenizers loaded independently."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pytest
from tokenizers import Tokenizer

from fairpairs.analysis.evaluation import Settings, default_loader, evaluate_sets
from references import blimp_rows, reference_tokenizer

os.environ.setdefault("HF_HUB_OFFLINE", "1")

UIDS = ("determiner_noun_agreement_1", "causative")
N = 16


def ntok(tok: Tokenizer, s: str) -> int:
    return len(tok.encode(s, add_special_tokens=False).ids)


@pytest.fixture(scope="module")
def models(tiny_models):
    return tiny_models


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    """A run folder in the documented format: original/ = the first N public pairs of two
    paradigms, debiased/ = those of them with equal gpt2 token length."""
    run = tmp_path_factory.mktemp("run")
    gpt2 = reference_tokenizer("gpt2")
    for uid in UIDS:
        rows = blimp_rows(uid, N)
        orig, deb = [], []
        for r in rows:
            g, b = ntok(gpt2, r["sentence_good"]), ntok(gpt2, r["sentence_bad"])
            row = {k: r[k] for k in ("sentence_good", "sentence_bad", "field", "linguistics_term", "UID",
                                     "pairID", "lexically_identical")}
            row.update(critical_good={}, critical_bad={}, token_lengths={"gpt2": {"good": g, "bad": b}}, redraws=0)
            orig.append(row)
            if g == b:
                deb.append(row)
        for name, part in (("original", orig), ("debiased", deb)):
            (run / name).mkdir(exist_ok=True)
            (run / name / f"{uid}.jsonl").write_text(
                "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in part), encoding="utf-8")
    (run / "manifest.json").write_text(json.dumps({"seed": 0, "pairs": N}))
    return run


def test_evaluate_cli_end_to_end(models, run_dir, tmp_path, fairpairs_cli):
    from fairpairs.scoring import Scorer

    out = tmp_path / "report"
    code, stdout, err = fairpairs_cli("evaluate", "--models", f"{models['gpt2']},{models['bert']}", "--data", run_dir,
                                      "--normalize", "lp,mean_lp", "--out", out, "--dpi", 50)   # (PNGs: not looked at)
    assert code == 0, err
    assert "Overall accuracy" in stdout and "scored" in err
    for stem in ("accuracy", "splits", "length_diff_accuracy", "loglik_length", "summary"):
        for ext in ("csv", "md", "png"):
            assert (out / f"{stem}.{ext}").stat().st_size > 0
    assert (out / "report.md").is_file() and (out / "ranking_change.csv").is_file()

    acc = pd.read_csv(out / "accuracy.csv").set_index(["set", "uid", "model", "normalization"])
    splits = pd.read_csv(out / "splits.csv").set_index(["set", "uid", "model", "normalization", "split"])
    pairs = {s: [json.loads(l) for uid in UIDS for l in (run_dir / s / f"{uid}.jsonl").read_text().splitlines()]
             for s in ("original", "debiased")}
    for key, tok_name in (("gpt2", "gpt2"), ("bert", "bert-base-cased")):
        label = Path(models[key]).name
        scorer = Scorer.from_pretrained(models[key])
        every = sorted({r[k] for rows in pairs.values() for r in rows for k in ("sentence_good", "sentence_bad")})
        lp = dict(zip(every, scorer.score(every, normalize=()).sum_logprob))
        tok = reference_tokenizer(tok_name)
        for set_name, rows in pairs.items():
            for uid in UIDS:
                mine = [r for r in rows if r["UID"] == uid]
                correct = sum(lp[r["sentence_good"]] > lp[r["sentence_bad"]] for r in mine)
                got = acc.loc[(set_name, uid, label, "lp")]
                assert got.n_pairs == len(mine) and got.n_correct == correct
                assert got.accuracy == pytest.approx(correct / len(mine))
                if set_name == "original":
                    lens = [(ntok(tok, r["sentence_good"]), ntok(tok, r["sentence_bad"])) for r in mine]
                    want = {"A=U": sum(g == b for g, b in lens), "A>U": sum(g > b for g, b in lens),
                            "A<U": sum(g < b for g, b in lens)}
                    assert want["A=U"] < len(mine)  # the data does exercise the unequal splits
                    for split, n in want.items():
                        assert splits.loc[(set_name, uid, label, "lp", split), "n_pairs"] == n


def test_rerun_uses_cache_and_split_tokenizer(models, run_dir, tmp_path, fairpairs_cli):
    out = tmp_path / "r"
    args = ["evaluate", "--models", models["bert"], "--data", run_dir, "--out", out, "--normalize", "lp", "--figures", "none"]
    assert fairpairs_cli(*args)[0] == 0
    cached = sorted((out / "cache").glob("*.parquet"))
    stamp = [p.stat().st_mtime_ns for p in cached]
    first = (out / "accuracy.csv").read_bytes()
    code, _, err = fairpairs_cli(*args)
    assert code == 0 and "tiny-bert: cached" in err
    assert [p.stat().st_mtime_ns for p in sorted((out / "cache").glob("*.parquet"))] == stamp
    assert (out / "accuracy.csv").read_bytes() == first

    # the bert model's splits under the gpt2 tokenizer equal the gpt2 counts
    code, _, _ = fairpairs_cli(*args + ["--split-tokenizer", "gpt2"])
    assert code == 0
    sp = pd.read_csv(out / "splits.csv")
    gpt2, bert = reference_tokenizer("gpt2"), reference_tokenizer("bert-base-cased")
    differs = False     # (the data tells the two tokenizers apart: determiner_noun_agreement_1 does)
    for uid in UIDS:
        rows = [json.loads(l) for l in (run_dir / "original" / f"{uid}.jsonl").read_text().splitlines()]
        n_longer = sum(ntok(gpt2, r["sentence_good"]) > ntok(gpt2, r["sentence_bad"]) for r in rows)
        differs |= n_longer != sum(ntok(bert, r["sentence_good"]) > ntok(bert, r["sentence_bad"]) for r in rows)
        sel = sp[(sp.set == "original") & (sp.uid == uid) & (sp.split == "A>U")]
        assert sel.n_pairs.tolist() == [n_longer], uid
    assert differs


def test_cache_hit_does_not_call_the_real_scorer(models, run_dir, tmp_path):
    from fairpairs.api import load_sets

    calls = {"load": 0, "score": 0}

    def loader(model, settings):
        calls["load"] += 1
        scorer = default_loader(model, settings)
        real = scorer.score

        def counted(*a, **k):
            calls["score"] += 1
            return real(*a, **k)

        scorer.score = counted
        return scorer

    sets = load_sets(run_dir)
    settings = Settings(normalize=("lp", "pen_lp"))
    r1 = evaluate_sets(sets, [models["gpt2"]], settings, tmp_path / "c", load_scorer=loader)
    r2 = evaluate_sets(sets, [models["gpt2"]], settings, tmp_path / "c", load_scorer=loader)
    assert calls == {"load": 1, "score": 1}
    assert list(r2.cache_hits.values()) == [True]
    pd.testing.assert_frame_equal(r1.pairs, r2.pairs)


def test_evaluate_bad_inputs(models, run_dir, tmp_path, fairpairs_cli):
    out = tmp_path / "o"
    code, _, err = fairpairs_cli("evaluate", "--models", str(tmp_path / "no-model-here"), "--data", run_dir,
                                 "--out", out)
    last = err.strip().splitlines()[-1]
    assert code == 1 and last.startswith("fairpairs: error:") and "no-model-here" in last
    assert not (out / "report.md").exists()
    code, _, err = fairpairs_cli("evaluate", "--models", models["gpt2"], "--data", run_dir, "--normalize", "lp,bogus")
    assert code == 1 and "--normalize" in err and "bogus" in err
    code, _, err = fairpairs_cli("evaluate", "--models", models["gpt2"], "--data", tmp_path / "missing")
    assert code == 1 and "missing: no such file or folder" in err
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"sentence_good": "A b.", "sentence_bad": "A c."}\n{"sentence_good": "x"}\n')
    code, _, err = fairpairs_cli("evaluate", "--models", models["gpt2"], "--data", bad, "--out", out)
    assert code == 1 and "bad.jsonl:2: missing field 'sentence_bad'" in err


def test_a_model_name_reaches_the_scorer_resolved_once(models, run_dir, tmp_path):
    """Issue 50: `fp.evaluate` resolves each model name once (`fairpairs.api.common.resolve_models`)
    into a `ResolvedModel`: the name (it prints, compares and keys as the name) carrying the files it
    resolved to, which every later stage reads (`resolve_model_name` of it resolves nothing again).
    Fails on the code before it: the loader was given the bare name, which the scorer resolved again."""
    import pickle

    import fairpairs as fp
    from fairpairs.tokenization.sources import ResolvedModel, resolve_model_name

    given = []

    def loader(model, settings):
        given.append(model)
        return default_loader(model, settings)

    name = str(models["gpt2"])
    report = fp.evaluate(run_dir, [name], normalize="lp", load_scorer=loader)
    (model,) = given
    assert isinstance(model, ResolvedModel) and model == name and model.source.path == name
    assert resolve_model_name(model) is model.source
    assert pickle.loads(pickle.dumps(model)).source == model.source     # (to worker processes)
    assert list(report.cache_hits) == [Path(name).name]      # (the report labels a folder by its name)
    # resolved, a name is not looked up again: a folder gone since still gives the source it had
    assert resolve_model_name(ResolvedModel(str(tmp_path / "gone"), model.source)) is model.source
