"""BLiMP's own pair fields with BLiMP's meanings (issue 48, item 6): `simple_LM_method`,
`one_prefix_method` / `two_prefix_method` with their prefix fields, and `lexically_identical` as BLiMP
declares it per paradigm; fairpairs' word-multiset flag is `same_words`.

The independent reference is public BLiMP itself: its lines in tests/fixtures/blimp (the first 20
pairs of each of its 67 files, unchanged; source in tests/fixtures/README.md) in the default tier,
all 67,000 lines in ../shared in the slow tier. Before this change no pair had a method field and
`lexically_identical` was the word-multiset flag (false for BLiMP's "this sketch / this sketches",
where BLiMP says true): every test below fails on b4812b2.
"""

from __future__ import annotations

import json
import re

import pytest
import yaml

from fairpairs.errors import GrammarError
from fairpairs.generation.grammar import read_paradigm_file
from fairpairs.generation.prefixes import one_prefix, same_words, two_prefix
from fairpairs.records import PAIR_FIELDS, PairRecord
from tests.references import BLIMP_SAMPLE, REPO, blimp_files, blimp_rows

GRAMMARS = REPO / "grammars"
PREFIX_FIELDS = ("one_prefix_prefix", "one_prefix_word_good", "one_prefix_word_bad", "two_prefix_prefix_good",
                 "two_prefix_prefix_bad", "two_prefix_word")


def naive_same_words(good: str, bad: str) -> bool:
    """The multiset of lower-cased words, written here independently of fairpairs."""
    split = lambda s: sorted(w.lower() for w in re.findall(r"[A-Za-z0-9_']+", s))   # noqa: E731
    return split(good) == split(bad)


# ------------------------------------------------------------------------- hand-built examples
def test_one_prefix_splits_at_the_differing_word():
    # BLiMP's first pair, and a word of two words (BLiMP's "grocery store")
    assert one_prefix("Raymond is selling this sketch.", "Raymond is selling this sketches.", "sketch",
                      "sketches") == ("Raymond is selling this", "sketch", "sketches")
    assert one_prefix("Craig explored that grocery store.", "Craig explored that grocery stores.",
                      "grocery store", "grocery stores") == ("Craig explored that", "grocery store", "grocery stores")
    # a sentence-initial word: empty prefix, the words as written (capitalised)
    assert one_prefix("Cats sleep.", "Cat sleep.", "cats", "cat") == ("", "Cats", "Cat")
    # the first place that fits: "the" occurs twice, only the second is followed alike
    assert one_prefix("The dog saw the cats.", "The dog saw the cat.", "cats", "cat") == ("The dog saw the", "cats", "cat")


@pytest.mark.parametrize("good, bad, wg, wb", [
    ("Aaron breaks the glass.", "Aaron appeared a glass.", "breaks", "appeared"),   # the rest differs too
    ("A dog barks.", "A dog barks.", "barks", "barks"),                              # no differing word
    ("Who did Bill see Tom?", "Who did see Bill Tom?", "Bill", "see"),                # a reordering
    ("The dogs bark.", "The dog bark.", "dog", "dog"),                                # same word
    ("The doghouse is red.", "The dog is red.", "dog", "dog"),                        # not a whole word
])
def test_one_prefix_is_none_where_the_pair_has_not_that_shape(good, bad, wg, wb):
    assert one_prefix(good, bad, wg, wb) is None


def test_two_prefix_takes_the_shared_word_after_the_differing_prefixes():
    assert two_prefix("Only Bill would ever complain.", "Even Bill would ever complain.", "ever") == (
        "Only Bill would", "Even Bill would", "ever")
    # BLiMP's matrix_question_npi_licensor_present: the rests differ in punctuation only
    assert two_prefix("Had Bruce ever played?", "Bruce had ever played.", "ever") == ("Had Bruce", "Bruce had", "ever")
    # "the" opens the good sentence too, but is followed otherwise there
    assert two_prefix("The dog saw the cat.", "No dog saw the cat.", "the") == ("The dog saw", "No dog saw", "the")
    # BLiMP writes some words with a leading space (" revealed"): the word is the stripped one
    assert two_prefix("Tina revealed Margaret.", "The horse revealed Margaret.", " revealed") == (
        "Tina", "The horse", "revealed")


@pytest.mark.parametrize("good, bad, word", [
    ("Only Bill would ever complain.", "Only Bill would ever complain.", "ever"),    # same prefixes
    ("Only Bill would ever complain.", "Even Bill would ever sleep.", "ever"),       # the rests differ
    ("Only Bill would ever complain.", "Even Bill would ever complain.", "never"),   # not there
    ("Only Bill would ever complain.", "Even Bill would ever complain.", " "),       # no word
])
def test_two_prefix_is_none_where_the_pair_has_not_that_shape(good, bad, word):
    assert two_prefix(good, bad, word) is None


@pytest.mark.parametrize("good, bad, expected", [
    ("Raymond is selling this sketch.", "Raymond is selling this sketches.", False),
    ("Who should Derek hug after shocking Richard?", "Who should Derek hug Richard after shocking?", True),
    ("Bruce had ever played.", "Had bruce ever played?", True),      # case and punctuation aside
    ("A dog barks.", "A dog dog barks.", False),                      # a multiset, not a set
])
def test_same_words_is_the_word_multiset(good, bad, expected):
    assert same_words(good, bad) is expected is naive_same_words(good, bad)


# ---------------------------------------------------------------- BLiMP's own lines (the fixture)
def check_blimp_lines(rows: list[dict]) -> list[str]:
    """Each line's prefix fields computed with fairpairs' derivation from its sentences and the words
    it names, compared with the stored ones; the lines that differ, described."""
    wrong = []
    for r in rows:
        g, b = r["sentence_good"], r["sentence_bad"]
        if r["one_prefix_method"]:
            got = one_prefix(g, b, r["one_prefix_word_good"], r["one_prefix_word_bad"])
            if got != (r["one_prefix_prefix"], r["one_prefix_word_good"], r["one_prefix_word_bad"]):
                wrong.append(f"{r['UID']} {r['pairID']}: one_prefix {got}")
        if r["two_prefix_method"]:
            got = two_prefix(g, b, r["two_prefix_word"])
            if got != (r["two_prefix_prefix_good"], r["two_prefix_prefix_bad"], r["two_prefix_word"].strip()):
                wrong.append(f"{r['UID']} {r['pairID']}: two_prefix {got}")
    return wrong


def test_the_derivation_gives_blimps_prefix_fields_on_blimps_lines():
    rows = [r for f in blimp_files() for r in blimp_rows(f.stem)]
    assert len(rows) == 67 * 20
    assert sum(r["one_prefix_method"] for r in rows) == 20 * 20 and sum(r["two_prefix_method"] for r in rows) == 20 * 20
    assert check_blimp_lines(rows) == []


def blimp_flags(folder=BLIMP_SAMPLE) -> dict[str, tuple]:
    """Per BLiMP paradigm: (one_prefix_method, two_prefix_method, lexically_identical), the same on
    every line of its file (asserted)."""
    out = {}
    for f in blimp_files(folder):
        rows = [json.loads(line) for line in f.read_text(encoding="utf-8").splitlines()]
        flags = {(r["simple_LM_method"], r["one_prefix_method"], r["two_prefix_method"], r["lexically_identical"])
                 for r in rows}
        assert len(flags) == 1 and next(iter(flags))[0] is True, f.stem
        out[f.stem] = next(iter(flags))[1:]
    return out


def declared(uid: str) -> tuple:
    """What grammars/<uid>.yaml declares (read as YAML, not through fairpairs)."""
    d = yaml.safe_load((GRAMMARS / f"{uid}.yaml").read_text(encoding="utf-8"))
    return d.get("one_prefix", False), bool(d.get("two_prefix")), d.get("lexically_identical")


def test_every_paradigm_file_declares_blimps_flags():
    flags = blimp_flags()
    assert len(flags) == 67
    for uid, want in flags.items():
        assert declared(uid) == want, uid


def test_blimps_lexically_identical_is_not_the_word_multiset():
    """Why the flag is declared, not computed: on BLiMP's own lines it is true where the words differ
    (this sketch / this sketches; herself / themselves) and false where every pair has the same words
    (ellipsis_n_bar_1, existential_there_quantifiers_2)."""
    flags = blimp_flags()
    for uid, li in [("determiner_noun_agreement_1", True), ("anaphor_number_agreement", True),
                    ("ellipsis_n_bar_1", False), ("existential_there_quantifiers_2", False)]:
        rows = blimp_rows(uid)
        assert flags[uid][2] is li and all(naive_same_words(r["sentence_good"], r["sentence_bad"]) is not li
                                           for r in rows), uid


# --------------------------------------------------------------------------- generated pairs
def check_generated(recs: list[PairRecord], want: tuple) -> None:
    """Generated records of one paradigm: BLiMP's flags `want` (one, two, lexically_identical) on every
    pair, and each field meaning what BLiMP's does, checked on the sentences by hand."""
    for r in recs:
        row = r.to_dict()
        assert (r.simple_LM_method, r.one_prefix_method, r.two_prefix_method, r.lexically_identical) == (True, *want)
        assert r.same_words is naive_same_words(r.sentence_good, r.sentence_bad)
        assert [k for k in PREFIX_FIELDS if k in row] == (list(PREFIX_FIELDS[:3]) if want[0] else
                                                          list(PREFIX_FIELDS[3:]) if want[1] else [])
        assert [k for k in PAIR_FIELDS if k in row] == list(row)          # in PAIR_FIELDS order
        if want[0]:
            p, wg, wb = r.one_prefix_prefix, r.one_prefix_word_good, r.one_prefix_word_bad
            head_g, head_b = (p + " " if p else "") + wg, (p + " " if p else "") + wb
            assert wg != wb and r.sentence_good.startswith(head_g) and r.sentence_bad.startswith(head_b)
            assert r.sentence_good[len(head_g):] == r.sentence_bad[len(head_b):]
        if want[1]:
            pg, pb, w = r.two_prefix_prefix_good, r.two_prefix_prefix_bad, r.two_prefix_word
            assert pg != pb and r.sentence_good.startswith(f"{pg} {w}") and r.sentence_bad.startswith(f"{pb} {w}")
            rest = lambda s, p: re.findall(r"\w+", s[len(f"{p} {w}"):])   # noqa: E731
            assert rest(r.sentence_good, pg) == rest(r.sentence_bad, pb)


@pytest.mark.parametrize("uid", ["determiner_noun_agreement_1",        # one-prefix, a noun
                                 "distractor_agreement_relational_noun",  # one-prefix, template variants
                                 "determiner_noun_agreement_2",          # two-prefix, a slot
                                 "only_npi_licensor_present",            # two-prefix, a literal word
                                 "causative",                            # neither: the rest decides
                                 "adjunct_island"])                      # neither: a reordering
def test_generated_pairs_carry_blimps_fields(uid):
    import fairpairs as fp

    check_generated(fp.generate(uid, pairs=15, strategy=None), blimp_flags()[uid])


def test_a_paradigm_of_another_language_declares_no_blimp_flag():
    import fairpairs as fp

    recs = fp.generate("fr_long_vp_coord_n1pl", pairs=3, strategy=None)
    assert all(r.lexically_identical is None and not r.one_prefix_method and not r.two_prefix_method
               for r in recs)
    assert all("lexically_identical" not in r.to_dict() and r.to_dict()["same_words"] is False for r in recs)


# ---------------------------------------------------------------------- declaring in a file
BASE = """\
uid: t_methods
phenomenon: Test
field: morphology
linguistics_term: test
slots:
  subj:
    where: {category: N, properNoun: '1'}
  verb:
    where: {category: 'S\\NP', pres: '1'}
    takes: {arg_1: subj}
template: "{{ subj }} often {{ verb }}."
critical:
  verb:
    where: {category: 'S\\NP', pres: '1'}
    rejects: {arg_1: subj}
"""


@pytest.mark.parametrize("extra, key, message", [
    ("one_prefix: yes please", "one_prefix", "expected true or false"),
    ("lexically_identical: 1", "lexically_identical", "expected true or false"),
    ("two_prefix: verb", "two_prefix", "'verb' is critical"),
    ("two_prefix: never", "two_prefix", "'never' is neither a slot nor a word written in both templates"),
    ("two_prefix: {a: b}", "two_prefix", "expected a slot name"),
])
def test_a_wrong_declaration_is_one_error_naming_the_key(tmp_path, extra, key, message):
    path = tmp_path / "t_methods.yaml"
    path.write_text(BASE + extra + "\n", encoding="utf-8")
    with pytest.raises(GrammarError, match=re.escape(f"t_methods.yaml: {key}: {message}")):
        read_paradigm_file(path)


def test_a_declaration_loads(tmp_path):
    path = tmp_path / "t_methods.yaml"
    path.write_text(BASE + "one_prefix: true\ntwo_prefix: [subj, often]\nlexically_identical: false\n",
                    encoding="utf-8")
    p = read_paradigm_file(path)
    assert (p.one_prefix, p.two_prefix, p.lexically_identical) == (True, ("subj", "often"), False)


@pytest.mark.parametrize("value", ["false", "null", "[]"])
def test_two_prefix_false_or_null_says_the_method_is_not_allowed(tmp_path, value):
    """Written as `one_prefix: false` is (found in review: `false` and `null` were refused as 'expected a
    slot name'); `true` stays an error, since it names no word."""
    path = tmp_path / "t_methods.yaml"
    path.write_text(BASE + f"two_prefix: {value}\n", encoding="utf-8")
    assert read_paradigm_file(path).two_prefix == ()
    path.write_text(BASE + "two_prefix: true\n", encoding="utf-8")
    with pytest.raises(GrammarError, match="two_prefix: expected a slot name"):
        read_paradigm_file(path)


def test_a_run_records_the_paradigm_file_as_it_was_read(tmp_path):
    """The manifest's grammar fingerprint is the file as loaded, not as it is when its paradigm is done
    (found in review: it was read again after generation, so an edit during a long run was recorded
    next to statistics computed from the old file, and later reused). The reference is the canonical
    JSON of the YAML as written, hashed here."""
    import hashlib
    import json

    import yaml
    from fairpairs.control.config import RunConfig
    from fairpairs.control.run import ParadigmJob
    from fairpairs.generation.vocab import default_vocabulary
    from fairpairs.tokenization.lengths import LengthMeter

    path = tmp_path / "t_methods.yaml"
    path.write_text(BASE, encoding="utf-8")
    p = read_paradigm_file(path)
    want = hashlib.sha256(json.dumps(yaml.safe_load(BASE), sort_keys=True, ensure_ascii=False,
                                     separators=(",", ":")).encode("utf-8")).hexdigest()
    path.write_text(BASE + "description: edited while the run went on\n", encoding="utf-8")
    (tmp_path / "out" / "original").mkdir(parents=True)
    (tmp_path / "out" / "debiased").mkdir()
    job = ParadigmJob([p], default_vocabulary(), RunConfig(pairs=5, models=("gpt2",)), [LengthMeter("gpt2")],
                      tmp_path / "out")
    assert job.run(0).files["grammar"] == want


# ------------------------------------------------------------------ slow tier: all of BLiMP
@pytest.mark.slow
def test_the_derivation_gives_blimps_prefix_fields_on_all_of_blimp(shared):
    """All 67,000 lines: the derivation reproduces every stored prefix field except on BLiMP's five
    principle_A_case_2 lines whose two sentences are the same (no word differs: no one-prefix split)."""
    folder = shared / "reference" / "blimp"
    rows = [json.loads(line) for f in blimp_files(folder) for line in f.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 67_000
    same = {f"principle_A_case_2 {r['pairID']}: one_prefix None" for r in rows
            if r["UID"] == "principle_A_case_2" and r["sentence_good"] == r["sentence_bad"]}
    assert len(same) == 5 and set(check_blimp_lines(rows)) == same


@pytest.mark.slow
def test_every_paradigm_gives_blimps_flags_on_every_pair(shared):
    """Per paradigm, the flags of 100 generated pairs are public BLiMP's flags for it (all 1,000 of its
    lines), and every field means what BLiMP's does."""
    import fairpairs as fp

    flags = blimp_flags(shared / "reference" / "blimp")
    assert len(flags) == 67
    for uid, want in flags.items():
        check_generated(fp.generate(uid, pairs=100, strategy=None), want)


def test_the_docs_say_per_paradigm_which_methods_apply():
    """grammars/README.md documents the keys; docs/pairs.md has a row per paradigm file, saying what
    the file declares."""
    text = (GRAMMARS / "README.md").read_text(encoding="utf-8")
    assert all(k in text for k in ("one_prefix:", "two_prefix:", "lexically_identical:"))
    doc = (REPO / "docs" / "pairs.md").read_text(encoding="utf-8")
    for path in sorted(GRAMMARS.glob("[!_]*.yaml")):
        one, two, li = declared(path.stem)
        row = next(line for line in doc.splitlines() if line.startswith(f"| {path.stem} |"))
        cells = [c.strip() for c in row.split("|")[2:5]]
        assert (cells[0].startswith("yes"), cells[1].startswith("yes"), cells[2]) == (one, two, str(li).lower()), row
