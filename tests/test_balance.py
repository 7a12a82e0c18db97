"""The balance report and the balance-keeping control (issue 21), against hand-computed figures.

References: statistics.mean/stdev and wordfreq called directly (a naive SMD), counts worked out by
hand (TVD, retention, distinct words), and brute force over every candidate word (which contexts
can be equalised, which replacements are near in frequency).
"""

from __future__ import annotations

import json
import math
import statistics
import textwrap

import pandas as pd
import pytest
from wordfreq import zipf_frequency

import fairpairs as fp
from fairpairs.control.balance_report import paradigm_balance
from fairpairs.control.balance_measures import SlotFeatures
from fairpairs.control.loop import generate_debiased
from fairpairs.control.replacement import ZIPF_KERNEL
from fairpairs.generation.sampler import Sampler
from fairpairs.generation.grammar import read_paradigm_file
from fairpairs.tokenization.lengths import LengthMeter
from references import toy_paradigm, toy_vocabulary
from fairpairs.generation.vocab import Vocabulary


def naive_smd(a, b):
    """(mean(b) - mean(a)) / sqrt((var(a) + var(b)) / 2), sample variances."""
    return (statistics.mean(b) - statistics.mean(a)) / math.sqrt((statistics.variance(a) + statistics.variance(b)) / 2)


def row(good, bad, cg, cb, **extra):
    return {"sentence_good": good, "sentence_bad": bad, "UID": "toy", "critical_good": cg, "critical_bad": cb, **extra}


ORIGINAL = [
    row("The cat sleeps.", "The cats sleeps.", {"n": "cat"}, {"n": "cats"}, draw=0, control="none"),
    row("The dog sleeps here.", "The dogs sleeps here.", {"n": "dog"}, {"n": "dogs"}, draw=1, control="none"),
    row("A giraffe sleeps.", "A giraffes sleeps.", {"n": "giraffe"}, {"n": "giraffes"}, draw=2, control="none"),
    row("The aardvark sleeps today.", "The aardvarks sleeps today.", {"n": "aardvark"}, {"n": "aardvarks"},
        draw=3, control="none"),
]
DEBIASED = [
    row("The cat sleeps.", "The cats sleeps.", {"n": "cat"}, {"n": "cats"}, draw=0, control="as_drawn"),
    row("The dog sleeps here.", "The dogs sleeps here.", {"n": "dog"}, {"n": "dogs"}, draw=1, control="bad_redrawn"),
    row("The cat sleeps now.", "The cats sleeps now.", {"n": "cat"}, {"n": "cats"}, draw=2, control="replaced"),
    row("The dog sleeps today.", "The dogs sleeps today.", {"n": "dog"}, {"n": "dogs"}, draw=3, control="replaced"),
]


def test_smds_distinct_words_and_retention_by_hand():
    e = paradigm_balance(ORIGINAL, DEBIASED)
    z = lambda w: zipf_frequency(w, "en")
    zg_o = [z(r["critical_good"]["n"]) for r in ORIGINAL]
    zg_d = [z(r["critical_good"]["n"]) for r in DEBIASED]
    assert e["smd_zipf_good"] == pytest.approx(naive_smd(zg_o, zg_d), abs=1e-4)
    words_o, words_d = [3, 4, 3, 4], [3, 4, 4, 4]                 # counted by hand
    assert e["smd_words_good"] == pytest.approx(naive_smd(words_o, words_d), abs=1e-4)
    chars_o = [len(r["sentence_good"]) for r in ORIGINAL]
    chars_d = [len(r["sentence_good"]) for r in DEBIASED]
    assert e["smd_chars_good"] == pytest.approx(naive_smd(chars_o, chars_d), abs=1e-4)
    dz_o = [abs(z(r["critical_good"]["n"]) - z(r["critical_bad"]["n"])) for r in ORIGINAL]
    assert e["mean_dzipf_original"] == pytest.approx(statistics.mean(dz_o), abs=1e-4)
    # distinct critical words, good and bad: 8 in the original set, 4 (cat, cats, dog, dogs) in the debiased
    assert (e["distinct_original"], e["distinct_debiased"], e["distinct_ratio"]) == (8, 4, 0.5)
    assert e["retention"] == 0.5                                  # two of four replaced
    assert not e["balanced"]
    assert any(f.startswith("critical-word frequency: SMD") for f in e["flags"])
    assert "vocabulary: 4 distinct critical words (original 8)" in e["flags"]
    # the four words the debiased set lost, each in one original pair, so in alphabetical order
    assert "not in the debiased set: aardvark, aardvarks, giraffe, giraffes" in e["flags"]


def test_retention_from_draws_when_rows_do_not_say_what_control_did():
    strip = lambda rows: [{k: v for k, v in r.items() if k != "control"} for r in rows]
    e = paradigm_balance(strip(ORIGINAL), strip(DEBIASED))
    # draws 2 and 3 have other good sentences than the original set's: 2 of the 4 kept their context
    assert e["retention"] == 0.5
    plain = lambda rows: [{k: v for k, v in r.items() if k not in ("control", "draw")} for r in rows]
    assert paradigm_balance(plain(ORIGINAL), plain(DEBIASED))["retention"] is None


def test_rows_of_other_tools_use_the_words_in_which_the_sentences_differ():
    bare = lambda rows: [{"sentence_good": r["sentence_good"], "sentence_bad": r["sentence_bad"]} for r in rows]
    e = paradigm_balance(bare(ORIGINAL), bare(DEBIASED))
    assert e["distinct_original"] == 8 and e["distinct_debiased"] == 4       # the differing words are the nouns
    assert e["retention"] is None and e["tvd_slots"] is None


# ------------------------------------------------------------------ slot features (TVD), by hand
@pytest.fixture()
def toy(tmp_path):
    rows = [{"expression": w, "category": "N", "animate": a, "properNoun": p, "kind": "subj"}
            for w, a, p in [("Mary", "1", "1"), ("Tom", "1", "1"), ("rock", "0", "0"), ("dog", "1", "0")]]
    rows += [{"expression": "sleeps", "category": "S\\NP", "kind": "verb"}]
    vocab = toy_vocabulary(rows)
    return toy_paradigm(tmp_path, vocab, """
        uid: toy
        phenomenon: Test
        field: syntax
        linguistics_term: test
        slots:
          verb: {where: {kind: verb}}
          subj: {where: {kind: subj}}
        template: "{{ subj }} {{ verb }}."
        critical:
          subj: {where: {kind: subj}}
    """), vocab


def test_tvd_of_a_slot_feature_by_hand(toy):
    p, vocab = toy
    f = SlotFeatures(p, vocab)
    assert set(f.features["subj"]) == {"animate", "properNoun"}     # named nothing, but these vary
    mk = lambda w: row(f"{w} sleeps.", "x", {}, {}, fillers={"verb": "sleeps", "subj": w})
    original = [mk("Mary"), mk("Tom"), mk("Mary"), mk("rock")]          # properNoun: 1,1,1,0
    debiased = [mk("Mary"), mk("rock"), mk("dog"), mk("rock")]          # properNoun: 1,0,0,0
    e = paradigm_balance(original, debiased, features=f)
    # properNoun: 3/4 vs 1/4 -> TVD 0.5; animate: 3/4 vs 2/4 -> 0.25; the largest is reported
    assert e["tvd_slots"] == 0.5 and e["tvd_slots_feature"] == "subj.properNoun"
    assert any(x.startswith("subj.properNoun: TVD 0.50") for x in e["flags"]) and not e["balanced"]


# ------------------------------------------------------------------ the control, against brute force
GOOD = ["Mary", "Ann", "Bartholomew", "Eve", "Xanthippe", "Rose", "Maximilian", "Jo", "Gwendolyn", "Kate"]
BAD = ["Tom", "Bob", "Nebuchadnezzar", "Jim", "Archibald", "Al", "Quetzalcoatl", "Ed", "Cuthbert", "Bo"]
VERBS = ["left", "slept", "laughed", "waited", "sang"]


@pytest.fixture()
def names(tmp_path):
    """Good subjects in two strata (animate 1 / 0: a stand-in for any feature), bad names, verbs."""
    rows = [{"expression": v, "category": "S\\NP", "kind": "verb", "animate": ""} for v in VERBS]
    rows += [{"expression": n, "category": "N", "kind": "good", "animate": "1" if i % 2 else "0"}
             for i, n in enumerate(GOOD)]
    rows += [{"expression": n, "category": "N", "kind": "bad", "animate": "1"} for n in BAD]
    df = pd.DataFrame(rows).fillna("")
    for col in ("root", "category_2", "arg_1", "arg_2", "arg_3", "arg_clause"):
        df[col] = ""
    df["root"] = df["expression"]
    vocab = Vocabulary(df, source="names")
    path = tmp_path / "names.yaml"
    path.write_text(textwrap.dedent("""
        uid: names
        phenomenon: Test
        field: syntax
        linguistics_term: test
        slots:
          verb: {where: {kind: verb}}
          subj: {where: {kind: good}}
        template: "{{ subj }} {{ verb }} early."
        critical:
          subj: {where: {kind: bad}}
    """))
    return read_paradigm_file(path, vocab), vocab


def test_contexts_are_kept_when_they_can_be_and_replacements_are_matched(names):
    p, vocab = names
    meters = [LengthMeter(m) for m in ("gpt2", "bert-base-cased")]
    L = lambda t: tuple(m.length(t) for m in meters)

    def matchable(subj, verb):   # brute force over every bad name
        return any(L(f"{subj} {verb} early.") == L(f"{b} {verb} early.") for b in BAD)

    table = {(g, v): matchable(g, v) for g in GOOD for v in VERBS}
    assert any(table.values()) and not all(table.values())
    s = Sampler(p, vocab, 0)
    res = generate_debiased(s, 40, meters, strategy="search")
    animate = dict(zip(vocab.expressions, vocab.column("animate")))
    zipf = lambda w: zipf_frequency(w, "en")
    for x, state in ((k.pair, k.control) for k in res.kept):
        first = s.draw(x.k)
        g0, v0 = first.good["subj"].word, first.good["verb"].word
        if table[(g0, v0)]:                      # the first context can be kept: it is
            assert state in ("as_drawn", "bad_redrawn") and x.sentence_good == first.sentence_good
            continue
        assert state == "replaced"
        g, v = x.good["subj"].word, x.good["verb"].word
        # the frame is kept (same verb), the subject comes from the same stratum, and of the words
        # of that stratum whose context can be equalised it is one near in frequency: drawn with a
        # Gaussian kernel of bandwidth ZIPF_KERNEL (issue 47), a word 4 bandwidths further than the
        # nearest has a weight of exp(-8) against it
        assert v == v0 and animate[g] == animate[g0]
        candidates = [w for w in GOOD if w != g0 and animate[w] == animate[g0] and table[(w, v0)]]
        assert g in candidates
        nearest = min(abs(zipf(w) - zipf(g0)) for w in candidates)
        assert abs(zipf(g) - zipf(g0)) <= nearest + 4 * ZIPF_KERNEL
    st = res.stats
    assert st.kept == 40 and st.replaced == sum(k.control == "replaced" for k in res.kept)
    assert st.kept_as_drawn + st.kept_redrawn + st.replaced == st.kept and st.drawn == st.kept + st.dropped
    assert st.yield_ == round((st.kept_as_drawn + st.kept_redrawn) / st.drawn, 4)


def test_resample_is_algorithm_1_and_counts_drops_not_replacements(names):
    p, vocab = names
    meters = [LengthMeter("gpt2"), LengthMeter("bert-base-cased")]
    res = generate_debiased(Sampler(p, vocab, 0), 30, meters, strategy="resample")
    assert res.stats.replaced == 0 and all(k.control != "replaced" for k in res.kept)     # Algorithm 1 never replaces
    assert res.stats.dropped > 0 and res.stats.yield_ == round(30 / (30 + res.stats.dropped), 4)


# ------------------------------------------------------------------ a real run, read back
@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("bal") / "run"
    fp.generate_run(out, "animate_subject_trans,determiner_noun_agreement_irregular_1,transitive",
                    ["gpt2", "bert-base-cased"], pairs=120)
    return out


def test_balance_of_a_run_recomputes_the_manifest_and_the_control_field_is_honest(run):
    table = fp.balance(run)
    manifest = json.loads((run / "manifest.json").read_text())
    for uid, entry in manifest["paradigms"].items():
        got = table[table["uid"] == uid].iloc[0].to_dict()
        for key, value in entry["balance"].items():
            want = "; ".join(value) if isinstance(value, list) else value
            assert got[key] == want or (value is None and pd.isna(got[key])), (uid, key)
        assert entry["balance"]["retention"] == entry["debiased_stats"]["retention"]
        orig = {r["draw"]: r for r in map(json.loads, (run / "original" / f"{uid}.jsonl").open())}
        for r in map(json.loads, (run / "debiased" / f"{uid}.jsonl").open()):
            if r["draw"] in orig:   # the record says it kept its context exactly when it did
                assert (r["control"] != "replaced") == (r["sentence_good"] == orig[r["draw"]]["sentence_good"])
                if r["control"] == "as_drawn":
                    assert r["sentence_bad"] == orig[r["draw"]]["sentence_bad"]
    assert table.iloc[-1]["uid"] == "ALL"


def test_balance_command_and_its_errors(run, tmp_path, fairpairs_cli):
    code, out, _ = fairpairs_cli("balance", str(run), "--out", str(tmp_path / "b.csv"))
    assert code == 0
    assert "paradigm(s) balanced" in out
    assert pd.read_csv(tmp_path / "b.csv")["uid"].tolist()[-1] == "ALL"
    for args, needle in [([str(tmp_path / "nope")], "no such folder"),
                         ([str(run / "original")], "not a run folder"),
                         ([str(run), "--out", str(run / "b.csv")], "inside the run folder")]:
        code, _, err = fairpairs_cli("balance", *args)
        assert code == 1 and needle in err and len(err.strip().splitlines()) == 1, err
    with pytest.raises(ValueError, match="data: expected the keys original and debiased"):
        fp.balance({"original": ORIGINAL})


def test_missing_words_most_used_first_and_cut():
    from collections import Counter

    from fairpairs.control.balance_report import _missing_words

    original = Counter({"ox": 5, "oxen": 5, "cactus": 2, "cacti": 2, "man": 9, **{f"w{i}": 1 for i in range(9)}})
    debiased = Counter({"man": 7})
    # 13 missing: ox/oxen (5 pairs each), cacti/cactus (2), then w0..w8 (1): 8 shown, 5 more
    assert _missing_words(original, debiased) == (
        "not in the debiased set: ox, oxen, cacti, cactus, w0, w1, w2, w3 (+5 more)")


def test_balance_of_a_french_run_reads_its_paradigms_and_french_frequencies(tmp_path):
    # a run of a paradigm in grammars/fr/: the standalone report finds its file in the language
    # folder (slot features compared) and measures frequencies in French, so it agrees with the
    # report generate wrote into the manifest (computed with the paradigm's own language)
    run = tmp_path / "fr-run"
    fp.generate_run(run, paradigms="fr/fr_long_vp_coord_n1pl", models="gpt2", pairs=40)
    table = fp.balance(run).set_index("uid")
    row = table.loc["fr_long_vp_coord_n1pl"]
    manifest = json.loads((run / "manifest.json").read_text())
    written = manifest["paradigms"]["fr_long_vp_coord_n1pl"]["balance"]
    assert row["tvd_slots"] is not None and not pd.isna(row["tvd_slots"])
    assert row["smd_zipf_good"] == written["smd_zipf_good"]
    assert row["tvd_slots"] == written["tvd_slots"]
