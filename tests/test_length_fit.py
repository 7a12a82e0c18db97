"""Length parameters for any model (issue 35 part 1) and models known by their content (issue 34,
items 6 and 7): `fairpairs fit-length`, `--length-params` on score / evaluate / robustness, the
model identity an entry records, and the score cache keyed on weights, not file times."""

from __future__ import annotations

import json
import os
import shutil
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest


FIXTURES = Path(__file__).parent / "fixtures"
CORPUS = FIXTURES / "wikitext-2-valid.txt"     # 105 usable sentences
PAIRS = [("The cat sat on the mat.", "The cat sit on the mat."),
         ("Many people have left.", "Many people has left."),
         ("Who did the doctor see?", "Who did the doctor see him?"),
         ("The dogs ran far away.", "Dogs ran far away the.")]


@pytest.fixture(scope="module")
def twins(tmp_path_factory):
    """Two tiny random gpt2 models with the same (bundled gpt2) tokenizer and different weights."""
    from fairpairs.scoring import build_tiny_model

    root = tmp_path_factory.mktemp("twins")
    return str(build_tiny_model("gpt2", root / "a", seed=0)), str(build_tiny_model("gpt2", root / "b", seed=1))


def write_pairs(path: Path, pairs) -> Path:
    path.write_text("".join(json.dumps({"sentence_good": g, "sentence_bad": b, "uid": "p", "pair_id": str(i)}) + "\n"
                            for i, (g, b) in enumerate(pairs)))
    return path


class LawScorer:
    """A stand-in whose log-probabilities follow a known law: LP = a + d_tok n + d_word w + b U + e,
    n the gpt2 tokens, U wordfreq's unigram log-probability (as the real scorer computes it), e
    seeded Gaussian noise."""

    name = "law"

    def __init__(self, law: dict, noise: float = 0.05):
        from fairpairs.tokenization.lengths import load_tokenizer

        self.tokenizer, self.law, self.noise = load_tokenizer("gpt2"), law, noise

    def score(self, sentences, normalize=(), unigrams=None, **_):
        from fairpairs.scoring.unigrams import WordfreqUnigrams

        wf = WordfreqUnigrams()
        rows = []
        rng = np.random.default_rng(0)
        for s in sentences:
            enc = self.tokenizer(s, add_special_tokens=False, return_offsets_mapping=True)
            n, w = len(enc["input_ids"]), len(s.split())
            u = float(wf.token_logprobs(s, enc["input_ids"], enc["offset_mapping"]).sum())
            lp = (self.law["intercept"] + self.law["delta_token"] * n + self.law["delta_word"] * w
                  + self.law["beta_unigram"] * u + rng.normal(0, self.noise))
            rows.append({"sentence": s, "sum_logprob": lp, "n_tokens": n, "unigram_logprob": u})
        return pd.DataFrame(rows)


def test_fit_recovers_a_known_length_law():
    from fairpairs.scoring.length import fit_length_params

    law = {"intercept": -3.0, "delta_token": -1.7, "delta_word": 0.6, "beta_unigram": 0.45}
    entry = fit_length_params(LawScorer(law), CORPUS, n=100, seed=0)
    for key, want in law.items():
        assert entry[key] == pytest.approx(want, abs=max(4 * entry["std_errors"][key], 1e-6)), key
        assert abs(entry[key] - want) < 0.1, key
    assert entry["r2"] > 0.99 and entry["fitted_on"]["sentences"] == 100


def test_fit_warns_when_the_corpus_has_fewer_sentences_than_asked(twins, tmp_path, fairpairs_cli):
    from fairpairs.scoring.length import read_params_file

    out = tmp_path / "len.json"
    code, _, err = fairpairs_cli("fit-length", "--models", twins[0], "--corpus", CORPUS, "--sentences", 300,
                                 "--out", out, "--no-progress")
    assert code == 0, err
    assert "only 105 usable sentences of the 300 asked for" in err and "--corpus" in err
    assert "fitted on 105 sentences" in err
    entry = read_params_file(out)[twins[0]]
    assert entry["fitted_on"]["sentences"] == 105 and entry["fitted_on"]["asked"] == 300


def test_fit_length_refuses_a_corpus_without_usable_sentences_and_a_foreign_out_file(twins, tmp_path, fairpairs_cli):
    few = tmp_path / "few.txt"
    few.write_text("Short.\nAlso short.\n")
    code, _, err = fairpairs_cli("fit-length", "--models", twins[0], "--corpus", few, "--out", tmp_path / "o.json")
    assert code == 1 and err.count("\n") == 1 and "0 usable sentences" in err and "--corpus" in err
    assert not (tmp_path / "o.json").exists()
    mine = tmp_path / "mine.json"
    mine.write_text('{"something": "else"}')
    code, _, err = fairpairs_cli("fit-length", "--models", twins[0], "--corpus", CORPUS, "--out", mine)
    assert code == 1 and "not a fairpairs-length/1 file" in err and "--out" in err
    assert mine.read_text() == '{"something": "else"}'


def test_a_file_fitted_for_one_model_is_refused_for_its_twin(twins, tmp_path, fairpairs_cli):
    """Same tokenizer, other weights: one error naming both, before the model is loaded."""
    a, b = twins
    params = tmp_path / "len.json"
    code, _, err = fairpairs_cli("fit-length", "--models", a, "--corpus", CORPUS, "--sentences", 60, "--out", params,
                                 "--no-progress")
    assert code == 0, err
    data = write_pairs(tmp_path / "p.jsonl", PAIRS)
    code, _, err = fairpairs_cli("score", "--models", b, "--input", data, "--out", tmp_path / "s.jsonl",
                                 "--normalize", "tcf_lp", "--length-params", params)
    assert code == 1 and err.count("\n") == 1, err
    assert f"fitted for model '{a}'" in err and f"not for model '{b}'" in err and "--length-params" in err
    assert "scoring" not in err and not (tmp_path / "s.jsonl").exists()
    import fairpairs as fp
    from fairpairs.errors import ModelError

    for call in (lambda: fp.evaluate(data, [b], normalize="lp,tcf_lp", length_params=params),
                 lambda: fp.robustness(data, [b], length_params=params)):
        with pytest.raises(ModelError, match="not for model .*/b'"):
            call()
    # the model it was fitted for is accepted, also as a second entry of a file of several models
    code, _, err = fairpairs_cli("fit-length", "--models", b, "--corpus", CORPUS, "--sentences", 60, "--out", params,
                                 "--no-progress")
    assert code == 0 and set(json.loads(params.read_text())["models"]) == {a, b}
    code, _, err = fairpairs_cli("score", "--models", b, "--input", data, "--out", tmp_path / "s.jsonl",
                                 "--normalize", "tcf_lp", "--length-params", params)
    assert code == 0, err


def test_cli_and_api_give_the_python_fit_s_scores(twins, tmp_path, fairpairs_cli):
    import fairpairs as fp
    from fairpairs.scoring import Scorer
    from fairpairs.scoring.length import fit_length_params, read_params_file

    a = twins[0]
    scorer = Scorer.from_pretrained(a, device="cpu")
    entry = fit_length_params(scorer, CORPUS, n=80, seed=0)
    params = tmp_path / "len.json"
    code, _, err = fairpairs_cli("fit-length", "--models", a, "--corpus", CORPUS, "--sentences", 80, "--out", params,
                                 "--no-progress")
    assert code == 0, err
    cli_entry = read_params_file(params)[a]
    for key in ("intercept", "delta_token", "delta_word", "beta_unigram", "slln_alpha", "model_sha256",
                "tokenizer_sha256"):
        assert cli_entry[key] == pytest.approx(entry[key]) if isinstance(entry[key], float) else \
            cli_entry[key] == entry[key], key
    data = write_pairs(tmp_path / "p.jsonl", PAIRS)
    out = tmp_path / "s.jsonl"
    code, _, err = fairpairs_cli("score", "--models", a, "--input", data, "--out", out, "--normalize", "lp,slor,tcf_lp",
                                 "--length-params", params)
    assert code == 0, err
    rows = pd.DataFrame([json.loads(x) for x in out.read_text().splitlines()])
    w = rows["sentence"].map(lambda s: len(s.split()))
    by_hand = (rows["sum_logprob"] - entry["delta_token"] * rows["n_tokens"] - entry["delta_word"] * w
               - entry["beta_unigram"] * rows["unigram_logprob"])
    assert np.allclose(rows["tcf_lp"], by_hand, atol=1e-6)
    api = fp.score_pairs(scorer, data, normalize=("lp", "tcf_lp"), length_params=params)
    cli = rows.set_index("sentence")["tcf_lp"]
    assert np.allclose(api["tcf_lp_good"], api["sentence_good"].map(cli), atol=1e-6)
    assert np.allclose(api["tcf_lp_bad"], api["sentence_bad"].map(cli), atol=1e-6)
    report = fp.evaluate(data, [a], normalize="lp,tcf_lp", length_params=params, cache_dir=tmp_path / "c")
    ps = report.pairs[report.pairs["normalization"] == "tcf_lp"]
    assert np.allclose(ps["score_good"], ps["sentence_good"].map(cli), atol=1e-6)


def test_one_model_given_twice_is_scored_once(twins, tmp_path):
    """issue 34 item 6: a Scorer and its model's name are one model."""
    import fairpairs as fp
    from fairpairs.errors import FairpairsWarning
    from fairpairs.scoring import Scorer

    a = twins[0]
    data = write_pairs(tmp_path / "p.jsonl", PAIRS)
    with pytest.warns(FairpairsWarning, match="same model"):
        report = fp.evaluate(data, [Scorer.from_pretrained(a, device="cpu"), a])
    assert report.pairs["model"].nunique() == 1
    assert len(report.pairs[report.pairs["normalization"] == "lp"]) == len(PAIRS)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        both = fp.evaluate(data, list(twins))       # two models with one tokenizer are two models
    assert both.pairs["model"].nunique() == 2


def test_replaced_weights_with_restored_times_are_scored_afresh(twins, tmp_path):
    """issue 34 item 7: the score cache keys a model on its weights' content, not on sizes and times."""
    import fairpairs as fp

    a, b = twins
    model = tmp_path / "m"
    shutil.copytree(a, model)
    data = write_pairs(tmp_path / "p.jsonl", PAIRS)
    cache = tmp_path / "cache"
    first = fp.evaluate(data, [str(model)], cache_dir=cache).pairs
    weights = model / "model.safetensors"
    st = weights.stat()
    shutil.copyfile(Path(b) / "model.safetensors", weights)       # same size: same architecture
    os.utime(weights, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert weights.stat().st_size == st.st_size and weights.stat().st_mtime_ns == st.st_mtime_ns
    again = fp.evaluate(data, [str(model)], cache_dir=cache)
    assert not any(again.cache_hits.values())
    expect = fp.evaluate(data, [b]).pairs
    assert np.allclose(again.pairs["score_good"], expect["score_good"])
    assert not np.allclose(again.pairs["score_good"], first["score_good"])


def test_fit_length_is_offline_by_default_on_the_bundled_excerpt(twins, tmp_path, fairpairs_cli):
    from fairpairs.scoring.length import CORPUS, read_params_file

    assert "CC BY-SA 3.0" in (CORPUS.parent / "README.md").read_text()
    assert len(CORPUS.read_text().splitlines()) == 1452
    out = tmp_path / "len.json"
    code, _, err = fairpairs_cli("fit-length", "--models", twins[0], "--sentences", 20, "--out", out, "--no-progress")
    assert code == 0, err
    assert "fitted on 20 sentences of wikitext2-sentences.txt" in err and "warning" not in err
    entry = read_params_file(out)[twins[0]]
    assert list(entry["fitted_on"]["files"]) == ["fairpairs:wikitext2-sentences.txt"]
