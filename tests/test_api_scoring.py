"""The API behind `fairpairs score`, `unigrams` and `morcela fit` (docs/api.md): each call checked
against the file the command writes for the same input, and against independent references -
the gpt2 tokenizer of the `tokenizers` library counted naively, and a least-squares fit by hand."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import fairpairs as fp
from references import blimp_lines, reference_tokenizer

pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture(scope="module")
def MODEL(tiny_models):
    return tiny_models["gpt2"]


@pytest.fixture(scope="module")
def scorer(MODEL):
    return fp.Scorer.from_pretrained(MODEL)


def blimp_pairs(tmp_path, n=6) -> tuple[Path, list[dict]]:
    lines = blimp_lines("determiner_noun_agreement_1", n)
    f = tmp_path / "pairs.jsonl"
    f.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return f, [json.loads(x) for x in lines]


# ---------------------------------------------------------------------------- score_sentences


def test_score_sentences_writes_the_file_the_cli_writes(MODEL, scorer, tmp_path, fairpairs_cli):
    f, rows = blimp_pairs(tmp_path)
    for ext in ("jsonl", "csv"):
        by_cli = tmp_path / f"cli.{ext}"
        code, _, err = fairpairs_cli("score", "--models", MODEL, "--input", f, "--out", by_cli, "--normalize",
                                     "lp,mean_lp,pen_lp", "--no-progress")
        assert code == 0, err
        df = fp.score_sentences(scorer, f, "lp,mean_lp,pen_lp")
        by_api = tmp_path / f"api.{ext}"
        fp.write_scores(df, by_api)
        assert by_api.read_bytes() == by_cli.read_bytes()
    # two rows a pair, good then bad, led by the pair's index and BLiMP's ids (read off the input)
    assert df["pair_index"].tolist() == [i // 2 for i in range(12)]
    assert df["which"].tolist() == ["good", "bad"] * 6
    assert df["sentence"].tolist() == [s for r in rows for s in (r["sentence_good"], r["sentence_bad"])]
    assert df["pair_id"].tolist() == [str(r["pairID"]) for r in rows for _ in (0, 1)]   # BLiMP's ids, under our names
    assert df["uid"].tolist() == [r["UID"] for r in rows for _ in (0, 1)]
    # the accuracy line the CLI prints is pair_accuracy's, counted here pair by pair
    acc = fp.pair_accuracy(df, "lp,mean_lp,pen_lp")
    recs = df.to_dict("records")
    for metric in ("sum_logprob", "mean_lp", "pen_lp"):
        want = sum(recs[2 * i][metric] > recs[2 * i + 1][metric] for i in range(6)) / 6
        assert acc[metric] == want
    assert list(acc) == ["sum_logprob", "mean_lp", "pen_lp"]
    assert "accuracy (good > bad): " + ", ".join(f"{m} {v:.3f}" for m, v in acc.items()) in err


def test_score_sentences_takes_lists(scorer, tmp_path):
    text = tmp_path / "s.txt"
    text.write_text("The cat sat.\n\nDogs bark loudly.\n", encoding="utf-8")
    from_file = fp.score_sentences(scorer, text, "lp")
    from_list = fp.score_sentences(scorer, ["The cat sat.", "Dogs bark loudly."], "lp")
    assert from_list["sentence"].tolist() == ["The cat sat.", "Dogs bark loudly."]
    assert from_list["sum_logprob"].tolist() == from_file["sum_logprob"].tolist()
    pairs = fp.score_sentences(scorer, [{"sentence_good": "The cat sat.", "sentence_bad": "The cat sit."}], "lp")
    assert pairs[["pair_index", "which", "sentence"]].values.tolist() == [
        [0, "good", "The cat sat."], [0, "bad", "The cat sit."]]
    assert "uid" not in pairs.columns and "UID" not in pairs.columns   # no ids given: none made up
    assert fp.read_sentences(["A.", "B."]) == ([{"sentence": "A."}, {"sentence": "B."}], False)
    with pytest.raises(ValueError, match=r"^sentences\[1\]: mixes pairs and single sentences"):
        fp.read_sentences(["A.", {"sentence_good": "A.", "sentence_bad": "B."}])
    with pytest.raises(ValueError, match=r"^normalize morcela needs `morcela_params`"):
        fp.score_sentences(scorer, ["A."], "morcela")
    with pytest.raises(ValueError, match=r"^out .*x\.txt: extension must be \.jsonl or \.csv"):
        fp.write_scores(from_list, tmp_path / "x.txt")


# ---------------------------------------------------------------------------- count_unigrams


CORPUS = "The cat sat on the mat.\n\n  \nDogs bark; cats don't.\nThe cat, the cat!\n"


def test_count_unigrams_counts_like_the_tokenizers_library(tmp_path, fairpairs_cli):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text(CORPUS, encoding="utf-8")
    b.write_text("Émile's naïve café.\n", encoding="utf-8")
    table = fp.count_unigrams("gpt2", [a, b])
    ref = reference_tokenizer("gpt2")
    naive = Counter(i for text in (CORPUS, "Émile's naïve café.\n") for line in text.splitlines() if line.strip()
                    for i in ref.encode(line, add_special_tokens=False).ids)
    assert table.total == sum(naive.values()) > 20
    assert {i: int(c) for i, c in enumerate(table.counts) if c} == dict(naive)
    assert len(table.counts) == ref.get_vocab_size() == 50257
    # the table a file of it gives, and the one `fairpairs unigrams` writes, are the same
    table.save(tmp_path / "api.json")
    code, _, err = fairpairs_cli("unigrams", "--models", "gpt2", "--corpus", a, "--corpus", b, "--out",
                                 tmp_path / "cli.json")
    assert code == 0, err
    assert (tmp_path / "api.json").read_bytes() == (tmp_path / "cli.json").read_bytes()
    assert fp.count_unigrams("gpt2", a).total == sum(len(ref.encode(ln, add_special_tokens=False).ids)
                                                      for ln in CORPUS.splitlines() if ln.strip())


def test_count_unigrams_refuses_folders_missing_and_empty_corpora(tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_text("\n   \n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"^corpus .*: is a folder; give plain-text files \(repeat `corpus`\)"):
        fp.count_unigrams("gpt2", [tmp_path])
    with pytest.raises(ValueError, match=r"^corpus .*nope\.txt: no such file"):
        fp.count_unigrams("gpt2", tmp_path / "nope.txt")
    with pytest.raises(ValueError, match=r"^corpus .*empty\.txt: no tokens counted \(empty corpus\)"):
        fp.count_unigrams("gpt2", [empty])


# ---------------------------------------------------------------------------- fit_morcela


def judgments_csv(tmp_path) -> Path:
    """14 sentences of varied length with made-up judgments, and 2 rows that must be left out."""
    words = "the old dog saw a small cat near our big red house by this quiet green river today".split()
    rng = np.random.default_rng(3)
    rows = [(" ".join(words[:k]).capitalize() + ".", f"{rng.normal():.3f}") for k in range(3, 17)]
    rows += [("A left-out row.", "not a number"), ("", "0.5")]
    f = tmp_path / "judgments.csv"
    pd.DataFrame(rows, columns=["sentence", "judgment"]).to_csv(f, index=False)
    return f


def test_fit_morcela_is_a_least_squares_fit_and_writes_the_cli_file(MODEL, scorer, tmp_path, fairpairs_cli):
    f = judgments_csv(tmp_path)
    res = fp.fit_morcela(scorer, f, folds=3, seed=1)
    assert res.dropped == {"no sentence": 1, "a non-numeric judgment": 1} and res.n == 14
    # by hand: y ~ a p/l + b u/l + c/l + d, beta = -b/a, gamma = c/a
    data = pd.read_csv(f).dropna()
    data = data[pd.to_numeric(data["judgment"], errors="coerce").notna()]
    sc = scorer.score(data["sentence"].tolist(), normalize=("slor",))
    p, u, n = (sc[c].to_numpy(float) for c in ("sum_logprob", "unigram_logprob", "n_tokens"))
    x = np.column_stack([p / n, u / n, 1 / n, np.ones_like(p)])
    (a, b, c, _), *_ = np.linalg.lstsq(x, data["judgment"].astype(float).to_numpy(), rcond=None)
    assert res.beta == pytest.approx(-b / a, rel=1e-9) and res.gamma == pytest.approx(c / a, rel=1e-9)
    assert res.cv["folds"] == 3 and res.meta["judgments"] == "judgments.csv"
    out = tmp_path / "cli.json"
    code, _, err = fairpairs_cli("morcela", "fit", "--models", MODEL, "--judgments", f, "--folds", 3, "--seed", 1,
                                 "--out", out, "--no-progress")
    assert code == 0, err
    assert out.read_text() == res.to_json()
    assert "left out 1 row(s) with no sentence, 1 row(s) with a non-numeric judgment; fitting 14" in err
    # a fit takes the judgments already read, too
    again = fp.fit_morcela(scorer, fp.load_judgments(f), folds=3, seed=1)
    assert again.to_json() == res.to_json()


# ---------------------------------------------------------------------------- docs/api.md


def docs_examples(*calls: str) -> list[str]:
    """The python blocks of docs/api.md's sections on `calls`."""
    text = (Path(__file__).resolve().parents[1] / "docs" / "api.md").read_text(encoding="utf-8")
    blocks = []
    for call in calls:
        section = text.split(f"## `fp.{call}(", 1)[1].split("\n## ", 1)[0]
        blocks.append(section.split("```python\n", 1)[1].split("```", 1)[0])
    return blocks


def test_docs_examples_run(scorer, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    blimp_pairs(tmp_path)
    (tmp_path / "wiki.txt").write_text(CORPUS, encoding="utf-8")
    judgments_csv(tmp_path)
    ns = {"fp": fp, "scorer": scorer}
    for block in docs_examples("score_sentences", "count_unigrams", "fit_morcela"):
        exec(compile(block, "docs/api.md", "exec"), ns)
    assert json.loads((tmp_path / "scores.jsonl").read_text().splitlines()[0])["which"] == "good"
    assert ns["table"].total > 0 and (tmp_path / "gpt2-unigrams.json").is_file()
    assert ns["fit"].n == 14


# ---------------------------------------------------------------------------- errors name parameters


def error_cases(MODEL, scorer, tmp: Path):
    """(param, Python call, CLI arguments, CLI option): the same bad input from both sides."""
    good = tmp / "in.txt"
    good.write_text("The cat sat.\n", encoding="utf-8")
    bad_json = tmp / "bad.json"
    bad_json.write_text("not json", encoding="utf-8")
    judgments = judgments_csv(tmp)
    score = ["score", "--input", good, "--out", tmp / "o.jsonl", "--no-progress"]
    return [
        ("model", lambda: fp.Scorer.from_pretrained(str(tmp / "nope")),
         ["score", "--models", tmp / "nope", "--input", good, "--out", tmp / "o.jsonl"], "--models"),
        ("device", lambda: fp.Scorer.from_pretrained(MODEL, device="tpu"),
         [*score, "--models", MODEL, "--device", "tpu"], "--device"),
        ("device_map", lambda: fp.Scorer.from_pretrained(MODEL, device="cpu", device_map="auto"),
         [*score, "--models", MODEL, "--device", "cpu", "--device-map", "auto"], "--device-map"),
        ("models", lambda: fp.generate("causative", pairs=5, models=["preset:nope"]),
         ["generate", "--paradigms", "causative", "--pairs", "5", "--models", "preset:nope", "--out", tmp / "run"],
         "--models"),
        ("models", lambda: fp.audit([{"sentence_good": "A.", "sentence_bad": "B."}],
                                        models=[str(tmp / "t.gguf")]),
         ["generate", "--paradigms", "causative", "--pairs", "5", "--models", tmp / "t.gguf", "--out", tmp / "run"],
         "--models"),
        ("corpus", lambda: fp.count_unigrams("gpt2", [tmp]),
         ["unigrams", "--models", "gpt2", "--corpus", tmp, "--out", tmp / "u.json"], "--corpus"),
        ("judgments", lambda: fp.load_judgments(tmp / "nope.csv"),
         ["morcela", "fit", "--models", MODEL, "--judgments", tmp / "nope.csv", "--out", tmp / "m.json"],
         "--judgments"),
        ("folds", lambda: fp.fit_morcela(scorer, judgments, folds=8),
         ["morcela", "fit", "--models", MODEL, "--judgments", judgments, "--folds", 8, "--out", tmp / "m.json",
          "--no-progress"], "--folds"),
        ("unigrams", lambda: fp.score_sentences(scorer, good, "slor", unigrams=bad_json),
         [*score, "--models", MODEL, "--normalize", "slor", "--unigrams", bad_json], "--unigrams"),
        ("morcela_params", lambda: fp.score_sentences(scorer, good, "morcela", morcela_params=bad_json),
         [*score, "--models", MODEL, "--normalize", "morcela", "--morcela-params", bad_json], "--morcela-params"),
        ("repo_id", lambda: fp.publish(tmp, "no-slash", dry_run=True),
         ["publish", tmp, "--repo-id", "no-slash", "--dry-run"], "--repo-id"),
        ("sentences", lambda: fp.score_sentences(scorer, tmp / "nope.txt"),
         ["score", "--models", MODEL, "--input", tmp / "nope.txt", "--out", tmp / "o.jsonl"], "--input"),
    ]


def test_library_errors_name_parameters_and_the_cli_its_options(MODEL, scorer, tmp_path, fairpairs_cli):
    for param, call, argv, option in error_cases(MODEL, scorer, tmp_path):
        with pytest.raises((ValueError, LookupError)) as exc:     # (FairpairsErrors are built-ins too)
            call()
        text = str(exc.value)
        assert text.startswith(f"{param} ") and "--" not in text, text
        code, _, err = fairpairs_cli(*argv)
        line = err.strip().splitlines()[-1]
        assert code == 1 and line.startswith(f"fairpairs: error: {option} "), (param, err)
        # the same message, with the parameter shown as the option
        want = f"fairpairs: error: {option}{text[len(param):]}".replace(f"`{param}`", option)
        assert line == want.replace("`device`", "--device")


def test_warnings_name_parameters_and_the_cli_shows_them_as_one_line(MODEL, tmp_path, fairpairs_cli):
    from fairpairs.errors import FairpairsWarning

    good = tmp_path / "in.txt"
    good.write_text("The cat sat.\n", encoding="utf-8")
    code, _, err = fairpairs_cli("score", "--models", MODEL, "--input", good, "--out", tmp_path / "o.jsonl",
                                 "--no-progress", "--device", "cpu", "--dtype", "bfloat16")
    assert code == 0
    assert "fairpairs: warning: --dtype bfloat16 is ignored on the CPU; scoring in float32\n" in err
    assert "Warning:" not in err and "warnings.warn" not in err     # not Python's two-line display
    with pytest.warns(FairpairsWarning, match=r"^dtype bfloat16 is ignored on the CPU; scoring in float32$"):
        fp.Scorer.from_pretrained(MODEL, device="cpu", dtype="bfloat16")
