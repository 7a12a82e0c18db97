"""`fairpairs evaluate` without --data (issue 26): pairs generated for exactly the models' tokenizers,
then evaluated as `generate` + `evaluate --data` would; and the warning for a run folder that is not
controlled for a model's tokenizer. Two tiny random models with different real tokenizers (gpt2's
BPE and bert-base-cased's WordPiece); lengths are checked with the tokenizers loaded here directly
from the model folders' tokenizer.json."""

from __future__ import annotations

import hashlib
import re
import shlex
import warnings
from pathlib import Path

import pytest
from tokenizers import Tokenizer

import fairpairs as fp
from fairpairs.errors import FairpairsWarning

PARADIGMS = "determiner_noun_agreement_1,causative"
TABLES = ("accuracy.csv", "splits.csv", "effects.csv", "headline.csv", "summary.csv", "pair_scores.csv",
          "balance.csv", "ranking_change.csv", "length_diff_accuracy.csv")


def ntok(tok: Tokenizer, s: str) -> int:
    return len(tok.encode(s, add_special_tokens=False).ids)


def files_of(run: Path) -> dict[str, str]:
    return {p.relative_to(run).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(run.rglob("*.jsonl"))}


def test_one_step_equals_generate_then_evaluate(tiny_models, tmp_path, fairpairs_cli):
    import json

    a, b = tiny_models["gpt2"], tiny_models["bert"]
    one = tmp_path / "one"
    code, out, err = fairpairs_cli("evaluate", "--models", f"{a},{b}", "--paradigms", PARADIGMS, "--pairs", 8,
                                   "--seed", 3,
                                   "-n", "lp", "--figures", "none", "--out", one)   # (figures not looked at)
    assert code == 0, err
    run = one / "run"
    toks = [Tokenizer.from_file(str(Path(m) / "tokenizer.json")) for m in (a, b)]
    debiased = [json.loads(line) for f in sorted((run / "debiased").glob("*.jsonl")) for line in f.read_text().splitlines()]
    assert len(debiased) == 16
    for row in debiased:     # controlled for both models' own tokenizers
        for tok in toks:
            assert ntok(tok, row["sentence_good"]) == ntok(tok, row["sentence_bad"]), row
    original = [json.loads(line) for f in sorted((run / "original").glob("*.jsonl")) for line in f.read_text().splitlines()]
    assert any(ntok(toks[1], r["sentence_good"]) != ntok(toks[1], r["sentence_bad"]) for r in original)

    # the same as `generate` then `evaluate --data`, with the same arguments
    gen = tmp_path / "gen"
    code, _, err = fairpairs_cli("generate", "--models", f"{a},{b}", "--paradigms", PARADIGMS, "--pairs", 8, "--seed",
                                 3,
                                 "--out", gen, "--quiet")
    assert code == 0, err
    assert files_of(run) == files_of(gen)
    two = tmp_path / "two"
    code, _, err = fairpairs_cli("evaluate", "--models", f"{a},{b}", "--data", gen, "-n", "lp", "--figures", "none",
                                 "--out", two)
    assert code == 0, err
    assert "warning" not in err
    for name in TABLES:
        assert (one / name).read_bytes() == (two / name).read_bytes(), name

    # report.md's first lines: the tokenizers, the seed and the command that writes the same pairs
    md = (one / "report.md").read_text().splitlines()
    assert md[0] == "# fairpairs evaluation report"
    assert a in md[2] and b in md[2] and "length-controlled for the tokenizers" in md[2]
    assert md[3].startswith("- Seed 3, strategy search.")
    command = re.search(r"`(fairpairs generate [^`]+)`", md[3]).group(1)
    before = files_of(run)
    code, _, err = fairpairs_cli(*shlex.split(command)[1:] + ["--quiet"])
    assert code == 0, err
    assert files_of(run) == before                       # byte for byte

    # the library: fp.evaluate(models=...) without data, through the same code path (with the CLI run's
    # score cache: the pairs are what is compared; scoring them again would redo what `two` did)
    report = fp.evaluate(models=[a, b], paradigms=PARADIGMS.split(","), pairs=8, seed=3, normalize="lp",
                         run_dir=tmp_path / "api-run", cache_dir=two / "cache")
    assert set(report.cache_hits.values()) == {True}
    assert files_of(tmp_path / "api-run") == before
    assert report.accuracy.to_csv(index=False, lineterminator="\n") == (two / "accuracy.csv").read_text()
    assert "fairpairs generate --models" in report.notes[1]


def test_a_run_not_controlled_for_a_models_tokenizer_is_warned_once_per_model(tiny_models, tmp_path, fairpairs_cli):
    import json

    a, b = tiny_models["gpt2"], tiny_models["bert"]
    run = tmp_path / "gpt2-run"
    fp.generate_run(run, paradigms=PARADIGMS.split(","), models=["gpt2"], pairs=8, seed=0)
    bert = Tokenizer.from_file(str(Path(b) / "tokenizer.json"))
    deb = [json.loads(line) for f in sorted((run / "debiased").glob("*.jsonl")) for line in f.read_text().splitlines()]
    unequal = sum(ntok(bert, r["sentence_good"]) != ntok(bert, r["sentence_bad"]) for r in deb)
    assert unequal > 0

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = fp.evaluate(run, [a, b], normalize="lp", cache_dir=tmp_path / "cache")
    ours = [str(w.message) for w in caught if issubclass(w.category, FairpairsWarning)]
    # tiny-gpt2's tokenizer is the run's gpt2 (the same tokenizer.json): no warning; tiny-bert's is not
    assert ours == [f"models {b}: the debiased set of {run} is not length-controlled for this model's tokenizer "
                    f"({unequal} of {len(deb)} debiased pairs differ in token length under it; the run controlled "
                    f"for gpt2)"]
    assert any(line.startswith(f"**Warning** (model {b})") for line in report.notes)

    code, out, err = fairpairs_cli("evaluate", "--models", f"{a},{b}", "--data", run, "-n", "lp", "--figures", "none",
                                   "--out", tmp_path / "r", "--cache-dir", tmp_path / "cache")   # (scored above: the
    #                                                                           warning is the point)
    assert "cached" in err
    assert code == 0, err
    # the headline (report.md's and the closing summary's) says so before any figure of the bias
    headline = out[out.index("### Token-length bias by direction"):]
    assert headline.splitlines()[2].startswith(f"- **Warning** (model {b})")
    md = (tmp_path / "r" / "report.md").read_text()
    section = md[md.index("## Headline"):md.index("## 1.")]
    assert section.index(f"**Warning** (model {b})") < section.index("### The bias on the original set")
    lines = [line for line in err.splitlines() if "warning" in line]
    assert lines == [f"fairpairs: warning: --models {b}: the debiased set of {run} is not length-controlled for this "
                     f"model's tokenizer ({unequal} of {len(deb)} debiased pairs differ in token length under it; the "
                     f"run controlled for gpt2)"]
    assert f"**Warning** (model {b})" in (tmp_path / "r" / "report.md").read_text()


def test_generation_options_need_no_data(tmp_path, fairpairs_cli):
    code, _, err = fairpairs_cli("evaluate", "--models", "gpt2", "--data", tmp_path, "--pairs", 5, "--out",
                                 tmp_path / "r")
    assert code == 2 and "Error: --pairs: only without --data" in err      # click's usage error, exit 2
    assert not (tmp_path / "r").exists()
    with pytest.raises(ValueError, match="^pairs: only without data"):
        fp.evaluate(tmp_path, ["gpt2"], pairs=5)
    with pytest.raises(ValueError, match="^models: give at least one model"):
        fp.evaluate()


def test_a_wrong_paradigm_is_refused_before_the_design_is_announced(tiny_models, tmp_path, fairpairs_cli):
    """Without --data and --pairs the design's pilot is announced ("design: a pilot of ...") before
    it generates; a paradigm name that does not exist was found only then, after that line. Now it
    is the one line on stderr, and nothing is written."""
    code, out, err = fairpairs_cli("evaluate", "--models", tiny_models["gpt2"], "--paradigms", "nope",
                                   "--out", tmp_path / "r")
    assert code == 1 and "design:" not in out + err, err
    assert err.strip().splitlines() == [err.strip().splitlines()[-1]] and "unknown paradigm(s) nope" in err
    assert not (tmp_path / "r").exists()


class Counted:
    """A loaded Scorer, passed through, that counts the sentences it is asked to score."""

    def __init__(self, scorer):
        self.scorer, self.scored = scorer, []
        self.name, self.pll, self.dtype = scorer.name, scorer.pll, scorer.dtype

    def score(self, sentences, *args, **kwargs):
        self.scored.append(list(sentences))
        return self.scorer.score(sentences, *args, **kwargs)


def test_evaluate_takes_a_loaded_scorer_and_shares_the_cache_with_score_pairs(tiny_models, tmp_path):
    from fairpairs.scoring import Scorer

    a = tiny_models["gpt2"]
    run = tmp_path / "run"
    fp.generate_run(run, paradigms=PARADIGMS.split(","), models=["gpt2"], pairs=6, seed=0)
    by_name = fp.evaluate(run, [a], normalize="lp,mean_lp", cache_dir=tmp_path / "c1", dtype="float32")

    scorer = Counted(Scorer.from_pretrained(a, device="cpu"))
    cache = tmp_path / "cache"
    sets = fp.load_sets(run)
    deb = fp.score_pairs(scorer, {"debiased": sets["debiased"]}, "lp,mean_lp", cache_dir=cache)
    deb_sentences = set(sets["debiased"].sentence_good) | set(sets["debiased"].sentence_bad)
    assert sorted(scorer.scored[0]) == sorted(deb_sentences)

    def never(model, settings):
        raise AssertionError("a Scorer given is never loaded again")

    report = fp.evaluate(run, [scorer], normalize="lp,mean_lp", cache_dir=cache, load_scorer=never)
    everything = deb_sentences | set(sets["original"].sentence_good) | set(sets["original"].sentence_bad)
    # evaluate scored only what score_pairs had not: the original set's sentences that are not in the debiased one
    assert len(scorer.scored) == 2 and sorted(scorer.scored[1]) == sorted(everything - deb_sentences)
    again = fp.evaluate(run, [scorer], normalize="lp,mean_lp", cache_dir=cache, load_scorer=never)
    assert len(scorer.scored) == 2 and again.cache_hits == {Path(a).name: True}
    # the same figures as the model given by name (float32, the same weights)
    cols = ["set", "uid", "model", "normalization", "n_pairs", "n_correct", "n_ties"]
    assert report.accuracy[cols].equals(by_name.accuracy[cols])
    assert deb["correct"].tolist() == (report.pairs.query("set == 'debiased' and normalization == 'lp'")
                                       ["outcome"].eq(1).tolist())
