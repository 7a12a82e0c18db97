"""The placebo of length control (issue 44, item 4): `fp.placebo_pairs` redraws the bad word of a
sample of original A=U pairs among the other words of equal token lengths, and
`fairpairs.analysis.placebo.placebo_table` scores what that word change does alone.

The pairs are checked against independent references: the token lengths with the `tokenizers`
library on the bundled tokenizer files (tests/references.py, not fairpairs' LengthMeter), the
context and the changed word against the run's own rows; the table against hand-computed outcomes
and a scorer that sees only token length. Offline, bundled tokenizers, a few seconds.
"""

from __future__ import annotations

import json
import re
import shutil

import numpy as np
import pandas as pd
import pytest

import fairpairs as fp
from fairpairs.analysis.evaluation import pair_scores
from fairpairs.analysis.placebo import placebo_table
from fairpairs.errors import DatasetError
from fairpairs.records import row_json
from fairpairs.scoring.cache import score_column
from references import reference_tokenizer

TOKENIZERS = ["gpt2", "bert-base-cased"]
# causative draws its bad word (a verb) from vocabulary rows, anaphor_gender_agreement from a
# literal list (himself / herself / itself); the bad noun of determiner_noun_agreement_1 is the other
# number of the good one: no other candidate exists
PARADIGMS = ["anaphor_gender_agreement", "causative", "determiner_noun_agreement_1"]
PAIRS = 30
PER_PARADIGM = 10


def ref_len(name: str, text: str) -> int:
    """Content tokens of `text` under `name`, by the tokenizers library itself."""
    return len(reference_tokenizer(name).encode(text, add_special_tokens=False).ids)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("placebo") / "run"
    fp.generate_run(out, paradigms=PARADIGMS, models=TOKENIZERS, pairs=PAIRS, seed=0)
    return out


@pytest.fixture(scope="module")
def originals(run) -> dict[tuple[str, int], dict]:
    rows = {}
    for uid in PARADIGMS:
        for line in (run / "original" / f"{uid}.jsonl").read_text(encoding="utf-8").splitlines():
            r = json.loads(line)
            rows[(r["uid"], r["draw"])] = r
    return rows


@pytest.fixture(scope="module")
def placebo(run):
    return fp.placebo_pairs(run, TOKENIZERS, per_paradigm=PER_PARADIGM, seed=0)


def _middle(a: str, b: str) -> tuple[list[str], list[str]]:
    """The words where two sentences differ: both without their common leading and trailing words
    (punctuation stripped)."""
    x, y = [w.strip(".,?!") for w in a.split()], [w.strip(".,?!") for w in b.split()]
    while x and y and x[0] == y[0]:
        x, y = x[1:], y[1:]
    while x and y and x[-1] == y[-1]:
        x, y = x[:-1], y[:-1]
    return x, y


def test_a_placebo_pair_is_its_original_context_with_another_bad_word_of_equal_lengths(placebo, originals):
    """Every placebo pair: the original pair of its draw (good sentence, pair_id, fillers) with a
    different bad sentence; the original was A=U and the placebo pair is A=U under every tokenizer
    (counted by the tokenizers library); the two bad sentences differ only in the words of one
    critical slot (the old and the new bad word). Fails when the original bad word is not excluded
    (its pair comes back: anaphor_gender_agreement has three words, determiner_noun_agreement_1 one)
    and when the pick is an unconstrained redraw of the bad word (lengths differ: 5 vs 6 GPT-2
    tokens), both tried."""
    rows = placebo.pairs.rows
    assert len(rows) == sum(c.redrawn for c in placebo.counts.values()) > 0
    for r in rows:
        o = originals[(r["uid"], r["draw"])]
        assert (r["sentence_good"], r["pair_id"], r["fillers"], r["critical_good"]) == \
            (o["sentence_good"], o["pair_id"], o["fillers"], o["critical_good"])
        assert r["sentence_bad"] not in (o["sentence_bad"], o["sentence_good"])
        assert r["control"] == "bad_redrawn"
        for name in TOKENIZERS:
            n = ref_len(name, r["sentence_good"])
            assert ref_len(name, o["sentence_bad"]) == n, (name, o)
            assert ref_len(name, r["sentence_bad"]) == n, (name, r)
            assert r["token_lengths"][name] == {"good": n, "bad": n}
        changed = [s for s in r["critical_bad"] if r["critical_bad"][s] != o["critical_bad"][s]]
        assert len(changed) == 1 and set(r["critical_bad"]) == set(o["critical_bad"]), (o, r)
        old, new = _middle(o["sentence_bad"], r["sentence_bad"])
        assert set(old) <= set(o["critical_bad"][changed[0]].split()), (o["sentence_bad"], r["sentence_bad"])
        assert set(new) <= set(r["critical_bad"][changed[0]].split()), (o["sentence_bad"], r["sentence_bad"])


def test_the_counts_say_what_was_sampled(placebo, originals):
    """Per paradigm: `equal` is the number of original A=U pairs under both tokenizers (counted
    here with the tokenizers library), `sampled` min(per_paradigm, equal), sampled = redrawn + no
    candidate; the paradigm whose bad word is the other number of the good noun has no candidate
    (its only candidate is the original bad word); the others give most of their sample a pair."""
    for uid in PARADIGMS:
        rows = [r for (u, _), r in originals.items() if u == uid]
        equal = sum(all(ref_len(t, r["sentence_good"]) == ref_len(t, r["sentence_bad"]) for t in TOKENIZERS)
                    for r in rows)
        c = placebo.counts[uid]
        assert (c.original, c.equal, c.sampled) == (len(rows), equal, min(PER_PARADIGM, equal)), uid
        assert c.sampled == c.redrawn + c.no_candidate
        assert sum(r["uid"] == uid for r in placebo.pairs.rows) == c.redrawn
    assert placebo.counts["determiner_noun_agreement_1"].redrawn == 0
    assert placebo.counts["determiner_noun_agreement_1"].no_candidate > 0
    for uid in ("anaphor_gender_agreement", "causative"):
        assert placebo.counts[uid].redrawn >= placebo.counts[uid].sampled // 2 > 0
    table = placebo.table()
    assert list(table["uid"]) == [*PARADIGMS, "ALL"]
    assert table.iloc[-1]["redrawn"] == len(placebo.pairs)


def test_same_seed_same_bytes_another_seed_another_sample(run, placebo):
    again = fp.placebo_pairs(run, TOKENIZERS, per_paradigm=PER_PARADIGM, seed=0)
    assert [row_json(r) for r in again.pairs.rows] == [row_json(r) for r in placebo.pairs.rows]
    other = fp.placebo_pairs(run, TOKENIZERS, per_paradigm=PER_PARADIGM, seed=1)
    # anaphor_gender_agreement: 10 of 30 A=U contexts sampled; two seeds pick the same 10 with
    # probability 1 / C(30, 10) ~ 3e-8
    drawn = {s.seed: {r["draw"] for r in s.pairs.rows if r["uid"] == "anaphor_gender_agreement"}
             for s in (placebo, other)}
    assert drawn[0] != drawn[1]
    assert placebo.counts["anaphor_gender_agreement"].equal > PER_PARADIGM


def _scores(sentences, score) -> pd.DataFrame:
    """A scorer's table (sentence, n_tokens, one column per normalisation) from `score(sentence)`."""
    sentences = sorted(set(sentences))
    values = [float(score(s)) for s in sentences]
    return pd.DataFrame({"sentence": sentences, "n_tokens": [ref_len("gpt2", s) for s in sentences],
                         score_column("lp"): values, score_column("mean_lp"): values})


def _pair_scores(run, placebo, score) -> pd.DataFrame:
    original = pd.concat([fp.to_frame(run / "original" / f"{uid}.jsonl") for uid in PARADIGMS], ignore_index=True)
    frames = [original.assign(set="original"), placebo.pairs.frame.assign(set="placebo")]
    pairs = pd.concat([f[["set", "uid", "pair_id", "sentence_good", "sentence_bad", "draw"]] for f in frames],
                      ignore_index=True)
    scores = _scores(list(pairs["sentence_good"]) + list(pairs["sentence_bad"]), score)
    return pair_scores(pairs, scores, "m", ("lp", "mean_lp"))


def test_a_length_blind_scorer_has_a_placebo_effect_of_exactly_zero(run, placebo):
    """The issue's done-when test. A score that sees only token length (minus the token count,
    by the tokenizers library: GPT-2's and BERT's) ties every A=U pair, original and placebo alike,
    so the placebo's effect is 0 exactly and no outcome changes; a placebo pair of unequal length
    would break its tie. The same table with a score that sees the words (minus the character
    count) does move outcomes: the zero is the length-blindness, not a table that cannot move. With
    the pick replaced by an unconstrained redraw of the bad word, this test fails (effect +0.05 to
    +0.10)."""
    for name in TOKENIZERS:
        ps = _pair_scores(run, placebo, lambda s, name=name: -ref_len(name, s))
        table = placebo_table(ps)
        assert set(table["uid"]) == {"anaphor_gender_agreement", "causative", "ALL"}
        assert (table["effect_placebo"] == 0.0).all() and (table["share_outcome_changed"] == 0.0).all(), name
        assert (table["acc_original"] == 0.0).all() and (table["acc_placebo"] == 0.0).all()
        pooled = table[table["uid"] == "ALL"]
        assert list(pooled["n_placebo"]) == [len(placebo.pairs)] * 2
        assert (pooled["effect_placebo_low"] < 0).all() and (pooled["effect_placebo_high"] > 0).all()
    wordy = placebo_table(_pair_scores(run, placebo, lambda s: -len(s)))
    assert (wordy.loc[wordy["uid"] == "ALL", "share_outcome_changed"] > 0).all()


def _hand_built(outcomes: dict[str, tuple[list[int], list[int]]]) -> pd.DataFrame:
    """A pair_scores-like frame: per paradigm, the original and placebo outcomes of pairs 0, 1, ..."""
    rows = []
    for uid, (before, after) in outcomes.items():
        for i, (a, b) in enumerate(zip(before, after)):
            for which, outcome in (("original", a), ("placebo", b)):
                rows.append({"set": which, "uid": uid, "pair_id": str(i), "model": "m", "normalization": "lp",
                             "sentence_good": f"good {uid} {i}.", "draw": i, "outcome": outcome})
    return pd.DataFrame(rows)


def test_hand_computed_placebo_effect():
    """x: 10 pairs, 5 correct before (1) and 8 after: effect +0.3, 4 gained, 1 lost; the exact
    McNemar p of 1 of 5 discordant pairs is 2 x (1 + 5) / 32 = 0.375; outcomes changed in 6 pairs
    (the 5 discordant, one of them a loss that became a win, and a tie that became a loss). y: 4 pairs, 3 correct before, 1 after: -0.5.
    ALL pools the 14: (5 + 3) / 14 before, (8 + 1) / 14 after."""
    x = ([1, 1, 1, 1, 1, 0, 0, 0, -1, 0], [1, 1, 1, 1, -1, 1, 1, 1, 1, -1])
    y = ([1, 1, 1, -1], [1, -1, 0, -1])
    table = placebo_table(_hand_built({"x": x, "y": y})).set_index("uid")
    assert list(table.index) == ["x", "y", "ALL"]
    want = {"x": (10, 0.5, 0.8, 4, 1, 0.6), "y": (4, 0.75, 0.25, 0, 2, 0.5),
            "ALL": (14, 8 / 14, 9 / 14, 4, 3, 8 / 14)}
    for uid, (n, before, after, gained, lost, changed) in want.items():
        r = table.loc[uid]
        assert (r["n_placebo"], r["n_gained"], r["n_lost"]) == (n, gained, lost), uid
        assert r["acc_original"] == pytest.approx(before) and r["acc_placebo"] == pytest.approx(after)
        assert r["effect_placebo"] == pytest.approx(after - before)
        assert r["share_outcome_changed"] == pytest.approx(changed)
        assert r["effect_placebo_low"] < after - before < r["effect_placebo_high"], uid
        assert -1 <= r["effect_placebo_low"] and r["effect_placebo_high"] <= 1
    assert table.loc["x", "effect_placebo_p"] == pytest.approx(0.375)
    assert table.loc["y", "effect_placebo_p"] == pytest.approx(0.5)      # 0 of 2 discordant: 2 x 1/4


def test_the_table_refuses_pairs_it_cannot_match():
    ps = _hand_built({"x": ([1, 0], [0, 1])})
    with pytest.raises(DatasetError, match=r"^ps: no column 'draw'"):
        placebo_table(ps.drop(columns="draw"))
    orphan = ps[~((ps["set"] == "original") & (ps["pair_id"] == "1"))]
    with pytest.raises(DatasetError, match=r"^ps: 1 placebo pair\(s\) without their original pair"):
        placebo_table(orphan)


def test_a_run_it_cannot_rebuild_is_refused(run, tmp_path):
    """A row that its draw does not give (another paradigm file or table than the run's) is an error
    naming the file and line; so is a run restricted to a corpus lexicon."""
    copy = tmp_path / "run"
    shutil.copytree(run, copy)
    path = copy / "original" / "causative.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    equal = next(i for i, line in enumerate(lines)
                 if all(ref_len(t, json.loads(line)["sentence_good"]) == ref_len(t, json.loads(line)["sentence_bad"])
                        for t in TOKENIZERS))
    row = json.loads(lines[equal])
    row["sentence_good"], row["sentence_bad"] = row["sentence_bad"], row["sentence_good"]   # (still A=U: sampled)
    lines[equal] = json.dumps(row)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(DatasetError, match=rf"causative\.jsonl:{equal + 1}: draw {row['draw']} of causative gives"):
        fp.placebo_pairs(copy, TOKENIZERS, per_paradigm=PAIRS)
    manifest = json.loads((run / "manifest.json").read_text(encoding="utf-8"))
    manifest["lexicon"] = {"corpus": "c.txt", "sha256": "0" * 64, "min_count": 1, "tokenization": "words",
                           "words_kept": 10}
    (copy / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(DatasetError, match=r"^run_dir: .*corpus lexicon"):
        fp.placebo_pairs(copy, TOKENIZERS)


def test_the_call_checks_its_arguments(run, tmp_path):
    with pytest.raises(FileNotFoundError, match=r"^run_dir "):
        fp.placebo_pairs(tmp_path / "none")
    with pytest.raises(TypeError, match=r"^per_paradigm: "):
        fp.placebo_pairs(run, per_paradigm=2.5)
    with pytest.raises(ValueError, match=r"^per_paradigm: "):
        fp.placebo_pairs(run, per_paradigm=0)
    with pytest.raises(ValueError, match=r"^models: "):
        fp.placebo_pairs(run, [])
    with pytest.raises(ValueError, match=re.escape("run_dir: ") + ".*not a run folder"):
        fp.placebo_pairs(run / "original")
    # models default to the run's: the same pairs as naming them
    assert len(fp.placebo_pairs(run, per_paradigm=2).pairs) == len(fp.placebo_pairs(run, TOKENIZERS,
                                                                                     per_paradigm=2).pairs)
