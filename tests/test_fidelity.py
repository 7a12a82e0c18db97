"""Fidelity report (issue 5): statistics on hand-computed inputs, a real BLiMP file against a naive
word counter, the report script end to end; SmolLM2 scoring only with -m slow."""

from __future__ import annotations

import json
import math
import statistics
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from fairpairs.analysis import fidelity
from fairpairs.errors import DatasetError
from references import BLIMP_SAMPLE, BLIMP_SAMPLE_PAIRS

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "benchmarks" / "fidelity.py"

# Hand-counted: good 5, 3, 6 words; bad 6, 4, 6; only the third pair has the same multiset of words.
HAND = [
    ("Who didn't Derek's dog see?", "Who did Derek's dog not see?"),   # didn't, Derek's: one word each
    ("The cat sat.", "The cat sat down."),
    ("A well-known cat, a dog.", "A dog, a well-known cat."),           # well-known: two words
]


def write_jsonl(path: Path, pairs, **extra) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps({"sentence_good": g, "sentence_bad": b, **extra}) + "\n" for g, b in pairs),
                    encoding="utf-8")
    return path


# ------------------------------------------------------------------------------ statistics


def test_text_stats_hand_computed():
    s = fidelity.text_stats(HAND)
    assert s.pairs == 3
    # all six sentences: 5 3 6 6 4 6 -> mean 5, squared deviations 0 4 1 1 1 1 -> variance 8/6
    assert s.words_mean == pytest.approx(5.0)
    assert s.words_sd == pytest.approx(math.sqrt(8 / 6))
    assert s.good_mean == pytest.approx(14 / 3)
    assert s.good_sd == pytest.approx(math.sqrt(14 / 9))
    assert s.bad_mean == pytest.approx(16 / 3)
    assert s.bad_sd == pytest.approx(math.sqrt(8) / 3)
    assert s.good_minus_bad == pytest.approx(-2 / 3)
    assert s.same_words == pytest.approx(1 / 3)


def test_mean_sd_is_population_sd():
    assert fidelity.mean_sd([3, 5]) == pytest.approx((4.0, 1.0))
    assert fidelity.mean_sd([7]) == (7.0, 0.0)
    with pytest.raises(ValueError):
        fidelity.mean_sd([])


def test_vocabulary_is_lower_cased_types_of_both_sentences():
    assert fidelity.pair_vocabulary([("The cat sat.", "the CATS sat.")]) == {"the", "cat", "cats", "sat"}


def test_vocab_overlap_hand_computed():
    ours = [("The cat sat.", "The cats sat.")]                            # the cat sat cats
    blimp = [("A cat sat.", "A dog sat."), ("The dog ran.", "The dogs ran.")]  # a cat sat dog the ran dogs
    v = fidelity.vocab_overlap(ours, blimp)
    assert (v.our_types, v.blimp_types, v.shared) == (4, 7, 3)            # shared: the cat sat
    assert v.share_of_blimp == pytest.approx(3 / 7)
    assert v.share_of_ours == pytest.approx(3 / 4)
    assert v.jaccard == pytest.approx(3 / 8)


def test_compare_cuts_both_files_to_the_same_number_of_pairs():
    ours = [("A cat sat.", "A cats sat.")] * 2
    blimp = [("A cat sat.", "A cats sat."), ("A cat sat.", "A cats sat."), ("Zebras sang.", "Zebras sing.")]
    r = fidelity.compare("u", ours, blimp)
    assert r.blimp.pairs == r.ours.pairs == 2
    assert r.vocab.share_of_blimp == 1.0          # the third BLiMP pair's words are not counted
    assert r.notes == []
    r = fidelity.compare("u", ours, blimp, n_pairs=1)
    assert r.ours.pairs == 1
    r = fidelity.compare("u", ours, blimp, n_pairs=10)
    assert r.ours.pairs == 2 and "2 pairs" in r.notes[0]


def test_pair_accuracy_ties_count_as_wrong():
    assert fidelity.share_correct([-1.0, -2.0, -3.0, -4.0], [-2.0, -1.0, -3.0, -5.0]) == 0.5
    with pytest.raises(ValueError):
        fidelity.share_correct([1.0], [])


def test_diff_and_flag_threshold():
    r = fidelity.compare("u", HAND, HAND)
    assert r.diff is None and not r.flagged()
    r.acc_ours, r.acc_blimp = 0.80, 0.70
    assert r.diff == pytest.approx(10.0) and not r.flagged(10)   # exactly 10 points: not more than 10
    r.acc_ours = 0.59
    assert r.diff == pytest.approx(-11.0) and r.flagged(10) and not r.flagged(12)


class FakeScorer:
    """log-prob = minus the number of characters: the shorter sentence wins."""

    def __init__(self):
        self.calls = []

    def score(self, sentences, normalize=("mean_lp",)):
        self.calls.append((list(sentences), normalize))
        return pd.DataFrame({"sentence": sentences, "sum_logprob": [-float(len(s)) for s in sentences]})


def test_score_pairs_one_call_and_split_back_per_set():
    sets = {("a", "ours"): [("ab", "abc"), ("abcd", "a"), ("x", "y")],   # third pair cut by n_pairs=2
            ("a", "blimp"): [("a", "bb")]}
    fake = FakeScorer()
    out = fidelity.score_fidelity_pairs(fake, sets, 2)
    assert len(fake.calls) == 1
    assert fake.calls[0][0] == ["ab", "abc", "abcd", "a", "a", "bb"]
    assert tuple(fake.calls[0][1]) == ()
    assert out == {("a", "ours"): [(-2.0, -3.0), (-4.0, -1.0)], ("a", "blimp"): [(-1.0, -2.0)]}
    assert fidelity.score_accuracies(FakeScorer(), sets, 2) == {("a", "ours"): 0.5, ("a", "blimp"): 1.0}


def test_markdown_table_and_summary():
    a = fidelity.compare("para_a", HAND, HAND)
    b = fidelity.compare("para_b", HAND[:2], HAND[:2])
    a.acc_ours, a.acc_blimp = 0.90, 0.75
    b.acc_ours, b.acc_blimp = 0.60, 0.65
    table = fidelity.fidelity_table([a, b]).splitlines()
    assert table[0].startswith("| uid | words/sent ours")
    assert len(table) == 4
    cells_a = [c.strip() for c in table[2].strip("|").split("|")]
    assert cells_a == ["para_a", "5.00 ± 1.15", "5.00 ± 1.15", "100.0%", "90", "75", "+15", "FLAG"]
    cells_b = [c.strip() for c in table[3].strip("|").split("|")]
    assert cells_b[-2:] == ["-5", ""]
    line = fidelity.summary_line([a, b])
    assert "mean |diff| 10.0 points" in line and "1 flagged" in line and "para_a" in line
    details = fidelity.markdown_details([a]).splitlines()
    assert "-0.67 / -0.67" in details[2] and "33% / 33%" in details[2]


# --------------------------------------------------------------------------------- reading


def test_read_pairs_limit_and_errors(tmp_path):
    p = write_jsonl(tmp_path / "x.jsonl", HAND, UID="x")
    assert fidelity.sentence_pairs(p) == HAND
    assert fidelity.sentence_pairs(p, limit=2) == HAND[:2]
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"sentence_good": "A.", "sentence_bad": "B."}\n{"sentence_good": "A."}\n', encoding="utf-8")
    with pytest.raises(DatasetError, match=r"bad\.jsonl:2: missing field 'sentence_bad'"):
        fidelity.sentence_pairs(bad)
    bad.write_text('{"sentence_good": "A.", "sentence_bad": "B."}\nnot json\n', encoding="utf-8")
    with pytest.raises(DatasetError, match=r"bad\.jsonl:2: invalid JSON"):
        fidelity.sentence_pairs(bad)
    with pytest.raises(DatasetError, match=r"nope\.jsonl: no such file"):
        fidelity.sentence_pairs(tmp_path / "nope.jsonl")


# ---------------------------------------------------------------------------- real BLiMP data


def naive_word_count(sentence: str) -> int:
    """Count maximal runs of letters, digits, '_' or apostrophes, one character at a time."""
    n, inside = 0, False
    for ch in sentence:
        is_word = ch.isalnum() or ch in "_'"
        if is_word and not inside:
            n += 1
        inside = is_word
    return n


REAL_UIDS = ["adjunct_island", "determiner_noun_agreement_1", "ellipsis_n_bar_1", "npi_present_1"]


@pytest.mark.parametrize("uid", REAL_UIDS)
def test_real_blimp_sample_against_naive_loop(uid):
    check_real_blimp_file(BLIMP_SAMPLE / f"{uid}.jsonl", uid, BLIMP_SAMPLE_PAIRS)


@pytest.mark.slow
@pytest.mark.parametrize("uid", REAL_UIDS)
def test_real_blimp_file_against_naive_loop(shared, uid):
    check_real_blimp_file(shared / "reference" / "blimp" / f"{uid}.jsonl", uid, 1000)


def check_real_blimp_file(path: Path, uid: str, n: int):
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(rows) == n
    pairs = fidelity.sentence_pairs(path)
    assert pairs == [(r["sentence_good"], r["sentence_bad"]) for r in rows]
    s = fidelity.text_stats(pairs)
    good = [naive_word_count(r["sentence_good"]) for r in rows]
    bad = [naive_word_count(r["sentence_bad"]) for r in rows]
    assert s.words_mean == pytest.approx(statistics.fmean(good + bad))
    assert s.words_sd == pytest.approx(statistics.pstdev(good + bad))
    assert s.good_mean == pytest.approx(statistics.fmean(good))
    assert s.bad_sd == pytest.approx(statistics.pstdev(bad))
    assert s.good_minus_bad == pytest.approx(statistics.fmean(g - b for g, b in zip(good, bad)))
    # a file compared with itself uses all of its own vocabulary
    self_cmp = fidelity.compare(uid, pairs, pairs)
    assert self_cmp.vocab.share_of_blimp == self_cmp.vocab.jaccard == 1.0


@pytest.mark.parametrize("tier", ["sample", pytest.param("full", marks=pytest.mark.slow)])
def test_real_blimp_same_words_share(tier, request):
    # reorderings have the same words; agreement pairs differ in one word
    blimp = BLIMP_SAMPLE if tier == "sample" else request.getfixturevalue("shared") / "reference" / "blimp"
    assert fidelity.text_stats(fidelity.sentence_pairs(blimp / "adjunct_island.jsonl")).same_words == 1.0
    dna = fidelity.sentence_pairs(blimp / "determiner_noun_agreement_1.jsonl")
    assert fidelity.text_stats(dna).same_words == 0.0


# -------------------------------------------------------------------------------- generation


def test_generate_original_pairs_equals_the_run_folder(tmp_path):
    from fairpairs.generation.selection import select_paradigms
    from fairpairs.control.run import RunConfig, write_run

    vocab, paradigms = select_paradigms("transitive,adjunct_island", None, None)
    write_run(paradigms, vocab, RunConfig(models=["gpt2"], pairs=30, seed=3), tmp_path / "run")
    for p in paradigms:
        written = fidelity.sentence_pairs(tmp_path / "run" / "original" / f"{p.uid}.jsonl")
        assert fidelity.generate_original_pairs(p, vocab, 30, seed=3) == written
    assert fidelity.generate_original_pairs(paradigms[0], vocab, 30, seed=4) != \
        fidelity.generate_original_pairs(paradigms[0], vocab, 30, seed=3)


# ---------------------------------------------------------------------------- the script


def run_script(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True,
                          cwd=REPO, timeout=300, check=False)


def script_in_process(*args, capsys) -> subprocess.CompletedProcess:
    """The script's `main(argv)` (what `python benchmarks/fidelity.py ARGS` exits with) in this process."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("fidelity_script", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    code = module.main([str(a) for a in args])
    out = capsys.readouterr()
    return subprocess.CompletedProcess([str(SCRIPT), *args], code, out.out, out.err)


def test_script_reads_a_run_folder_and_writes_the_report(tmp_path, capsys):
    run = tmp_path / "run"
    write_jsonl(run / "original" / "para_a.jsonl", HAND)
    write_jsonl(run / "original" / "para_b.jsonl", HAND[:2])
    blimp = tmp_path / "blimp"
    write_jsonl(blimp / "para_a.jsonl", HAND)
    write_jsonl(blimp / "para_b.jsonl", [("A dog ran.", "A dogs ran.")] * 2)
    out = tmp_path / "res" / "fidelity.md"
    res = run_script("--run", run, "--blimp", blimp, "--out", out)
    assert res.returncode == 0, res.stderr
    text = out.read_text(encoding="utf-8")
    assert text.strip() == res.stdout.strip()
    rows = {line.split("|")[1].strip(): [c.strip() for c in line.strip("|").split("|")]
            for line in text.split("## Details")[0].splitlines() if line.startswith("| para_")}
    assert rows["para_a"][1:4] == ["5.00 ± 1.15", "5.00 ± 1.15", "100.0%"]
    # para_b: ours 5 6 3 4 words (mean 4.5, variance 5/4); BLiMP 3 words each; of BLiMP's types
    # a, dog, dogs, ran only "dog" occurs in ours
    assert rows["para_b"][1:4] == ["4.50 ± 1.12", "3.00 ± 0.00", "25.0%"]
    # the second run in this process: not the first run's process or hash seed
    again = script_in_process("--run", run, "--blimp", blimp, "--out", out, capsys=capsys)
    assert again.stdout == res.stdout              # deterministic


def test_script_missing_blimp_file_is_one_line_error(tmp_path, capsys):
    write_jsonl(tmp_path / "run" / "para_x.jsonl", HAND)
    (tmp_path / "blimp").mkdir()
    res = script_in_process("--run", tmp_path / "run", "--blimp", tmp_path / "blimp", capsys=capsys)
    assert res.returncode == 1
    assert res.stderr.strip().count("\n") == 0
    assert "para_x.jsonl" in res.stderr and "no BLiMP file" in res.stderr


def test_script_bad_pair_file_names_file_and_field(tmp_path, capsys):
    run = tmp_path / "run"
    run.mkdir()
    (run / "para_x.jsonl").write_text('{"sentence_good": "A cat sat."}\n', encoding="utf-8")
    write_jsonl(tmp_path / "blimp" / "para_x.jsonl", HAND)
    res = script_in_process("--run", run, "--blimp", tmp_path / "blimp", capsys=capsys)
    assert res.returncode == 1
    assert "para_x.jsonl:1: missing field 'sentence_bad'" in res.stderr


# -------------------------------------------------------------------------------- SmolLM2


@pytest.mark.slow
def test_smollm2_accuracy_two_paradigms(shared, one_torch_thread):
    """Real SmolLM2 on 2 paradigms x 20 pairs: the one-call batched scores equal sentence-by-sentence
    scores, and an easy agreement paradigm is mostly right."""
    from fairpairs.scoring import Scorer

    scorer = Scorer.from_pretrained("smollm2-135m", device="cpu")
    blimp = shared / "reference" / "blimp"
    sets = {(u, "blimp"): fidelity.sentence_pairs(blimp / f"{u}.jsonl", 20)
            for u in ("determiner_noun_agreement_1", "adjunct_island")}
    lps = fidelity.score_fidelity_pairs(scorer, sets, 20)
    for key, scored in lps.items():
        assert len(scored) == 20
        for (g, b), (lg, lb) in list(zip(sets[key], scored))[:3]:
            one = scorer.score([g], normalize=())["sum_logprob"][0]
            other = scorer.score([b], normalize=())["sum_logprob"][0]
            assert lg == pytest.approx(one, abs=1e-3) and lb == pytest.approx(other, abs=1e-3)
    acc = fidelity.score_accuracies(scorer, sets, 20)
    assert acc[("determiner_noun_agreement_1", "blimp")] >= 0.7
