"""Your own lexicon: a vocabulary table of your own (--vocab, read_vocabulary(path)) and words
restricted to a corpus (--lexicon-from CORPUS --min-count K). Expectations are counted by hand."""

import hashlib
import json
import re

import pytest

from fairpairs.generation import vocab as vocab_module
from fairpairs.generation import restrictions
from fairpairs.errors import LexiconError, VocabularyError
from fairpairs.generation.grammar import read_paradigm_file
from fairpairs.generation.lexicon import load_lexicon, restrict_to_lexicon, lexicon_words
from fairpairs.io.paths import data_dir
from fairpairs.manifest import RunManifest
from fairpairs.typecheck import mismatch
from fairpairs.generation.vocab import default_vocabulary, read_vocabulary

PARADIGM = """uid: {uid}
phenomenon: Determiner-noun agreement
field: morphology
linguistics_term: determiner_noun_agreement
slots:
  verb: {where: {category: '(S\\NP)/NP', expression: [ate, eats, bought]}}      # 4 rows (bought twice)
  subj: {where: {category: N, expression: [Alan, Anna, Carl]}, fills: verb.arg_1}
  obj: {where: {category: N, expression: [apple, apples, banana, bananas]}, fills: verb.arg_2}
  dem: {where: {category_2: D, expression: [this, that, these, those]}, takes: {arg_1: obj}}
template: "{{ subj }} {{ verb }} {{ dem }} {{ obj }}."
critical:
  obj: {form: other_number}
"""

# counts (case-insensitive): alan 2, anna 1 (anna's is another word), carl 0; ate 2, bought 1,
# eats 0; apple 2, apples 2, banana 2 (banana-split = banana + split), bananas 1; this 2, that 0,
# these 1, those 2
CORPUS = ("Alan ate this apple.\n"
          "ALAN ate those apples!\n"
          "Anna bought these bananas; the apple and the apples.\n"
          "Those were Anna\u2019s! This banana-split was one banana.\n")


@pytest.fixture
def setup(tmp_path):
    gdir = tmp_path / "grammars"
    gdir.mkdir()
    (gdir / "tiny_dna.yaml").write_text(PARADIGM.replace("{uid}", "tiny_dna"), encoding="utf-8")
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(CORPUS, encoding="utf-8")
    return gdir, corpus


# ---------------------------------------------------------------- corpus tokenization
def test_words_lowercase_apostrophes_and_separators():
    assert lexicon_words("Don\u2019t STOP-me, isn't it's 3rd (x_y)") == ["don't", "stop", "me", "isn't", "it's", "3rd", "x", "y"]


def test_counts_by_hand(setup):
    _, corpus = setup
    lex = load_lexicon(corpus, 2)
    want = {"alan": 2, "anna": 1, "anna's": 1, "carl": 0, "ate": 2, "bought": 1, "eats": 0, "apple": 2,
            "apples": 2, "banana": 2, "bananas": 1, "this": 2, "that": 0, "these": 1, "those": 2, "the": 2}
    assert {w: lex.counts[w] for w in want} == want
    assert lex.known("Alan") and not lex.known("Anna") and lex.known("") and not lex.known("banana bananas")
    assert lex.sha256 == hashlib.sha256(CORPUS.encode()).hexdigest()


def test_slot_candidates_kept_by_hand(setup):
    gdir, corpus = setup
    vocab = default_vocabulary()
    p = read_paradigm_file(gdir / "tiny_dna.yaml", vocab)
    _, _, report = restrict_to_lexicon([p], vocab, load_lexicon(corpus, 2))
    assert report == {"tiny_dna": {"slots.verb": {"candidates": 4, "kept": 1},   # ate
                                   "slots.subj": {"candidates": 3, "kept": 1},   # Alan
                                   "slots.obj": {"candidates": 4, "kept": 3},    # apple, apples, banana
                                   "slots.dem": {"candidates": 4, "kept": 2}}}   # this, those
    _, _, report1 = restrict_to_lexicon([p], vocab, load_lexicon(corpus, 1))
    assert [c["kept"] for c in report1["tiny_dna"].values()] == [3, 2, 4, 3]   # + bought x2, Anna, bananas, these


def test_generated_pairs_use_only_known_words(setup, tmp_path, fairpairs_cli):
    gdir, corpus = setup
    out = tmp_path / "run"
    code, printed, err = fairpairs_cli("generate", "--grammars", gdir, "--paradigms", "tiny_dna", "--pairs", 2,
                                 "--models", "gpt2", "--lexicon-from", corpus, "--min-count", 2, "--out", out)
    assert code == 0, err
    # only Alan, ate, this/those and apple/apples survive (banana has no known plural): two pairs in all
    both = {("Alan ate this apple.", "Alan ate this apples."), ("Alan ate those apples.", "Alan ate those apple.")}
    for part in ("original", "debiased"):
        rows = [json.loads(ln) for ln in (out / part / "tiny_dna.jsonl").read_text().splitlines()]
        pairs = {(r["sentence_good"], r["sentence_bad"]) for r in rows}
        assert pairs == both if part == "original" else pairs <= both
    m = json.loads((out / "manifest.json").read_text())
    assert mismatch(m, RunManifest) is None     # the typed record, lexicon entry included
    lex = m["lexicon"]
    assert lex["min_count"] == 2 and lex["corpus"] == "corpus.txt"
    assert lex["sha256"] == hashlib.sha256(CORPUS.encode()).hexdigest()
    assert lex["paradigms"]["tiny_dna"]["slots.dem"] == {"candidates": 4, "kept": 2}
    assert "dem 2/4" in printed and "verb 1/4" in printed  # the printed table (stdout, issue 37)


def test_slot_left_with_none_fails_naming_it(setup, tmp_path, fairpairs_cli):
    gdir, _ = setup
    corpus = tmp_path / "nodet.txt"
    corpus.write_text("Alan ate apples and apple twice: Alan ate apples and apple.\n", encoding="utf-8")
    code, out, err = fairpairs_cli("generate", "--grammars", gdir, "--paradigms", "tiny_dna", "--models", "gpt2",
                                   "--lexicon-from", corpus, "--min-count", 2, "--out", tmp_path / "r")
    assert code == 1 and err.count("\n") == 1 and "Traceback" not in err
    assert "tiny_dna slots.dem (0 of 4)" in err and str(corpus) in err
    assert not (tmp_path / "r").exists()


def test_template_word_missing_from_the_corpus(setup, tmp_path):
    gdir, corpus = setup
    text = PARADIGM.replace("{uid}", "tpl_w").replace('template: "{{ subj }}', 'template: "Yesterday {{ subj }}')
    (gdir / "tpl_w.yaml").write_text(text, encoding="utf-8")
    p = read_paradigm_file(gdir / "tpl_w.yaml")
    with pytest.raises(LexiconError, match="tpl_w template word.s. yesterday"):
        restrict_to_lexicon([p], default_vocabulary(), load_lexicon(corpus, 1))


@pytest.mark.parametrize("make,needle", [
    (lambda d: d / "missing.txt", "corpus not found"),
    (lambda d: d, "is a folder, not a corpus"),
])
def test_bad_corpus(tmp_path, make, needle):
    with pytest.raises(LexiconError, match=needle):
        load_lexicon(make(tmp_path), 1)


def test_min_count_is_a_parameter_error():
    with pytest.raises(LexiconError, match=r"^min_count: "):
        load_lexicon("whatever.txt", 0)


# ---------------------------------------------------------------- a vocabulary of one's own
def own_copy(tmp_path, edit=None, name="own.csv"):
    df = default_vocabulary().df.copy()
    if edit:
        df = edit(df)
    path = tmp_path / name
    df.to_csv(path, index=False)
    return path


def test_load_vocabulary_default_and_own_copy(tmp_path):
    assert read_vocabulary() is default_vocabulary()
    own = read_vocabulary(own_copy(tmp_path))
    # BLiMP's 4196 rows (fixes applied) and the English extension's (vocab/blimp_extension.csv), kept as
    # the copy's own rows; fixes.yaml is for the bundled table only
    extension = (data_dir("vocab") / "blimp_extension.csv").read_text(encoding="utf-8").count("\n") - 1
    assert len(own) == 4196 + extension and own.fixes == []
    assert own.sha256 == hashlib.sha256((tmp_path / "own.csv").read_bytes()).hexdigest()


def test_own_copy_generates_the_same_pairs_and_the_manifest_names_it(tmp_path, fairpairs_cli):
    path = own_copy(tmp_path)
    args = ["generate", "--paradigms", "determiner_noun_agreement_1", "--pairs", 30, "--models", "gpt2", "--quiet"]
    assert fairpairs_cli(*args, "--out", tmp_path / "a")[0] == 0
    assert fairpairs_cli(*args, "--vocab", path, "--out", tmp_path / "b")[0] == 0
    for part in ("original", "debiased"):
        f = f"{part}/determiner_noun_agreement_1.jsonl"
        assert (tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes()
    voc = json.loads((tmp_path / "b" / "manifest.json").read_text())["vocabulary"]
    assert voc["file"] == "own.csv" and voc["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()


def test_truncated_copy_names_the_line(tmp_path, fairpairs_cli):
    path = own_copy(tmp_path)
    raw = path.read_bytes()
    path.write_bytes(raw[:20000])                    # cut inside a line
    line = raw[:20000].count(b"\n") + 1
    fields = len(raw[:20000].split(b"\n")[-1].decode().split(","))   # the cut line (no quoted commas in it)
    code, _, err = fairpairs_cli("validate", "--vocab", path)
    assert code == 1 and err.strip() == (f"fairpairs: error: {path}: line {line}: {fields} field(s), "
                                         f"the header has 90 (a truncated or damaged file?)")   # (BLiMP's 88 + source, model)


def test_bundled_table_cut_at_a_line_is_not_blamed_on_fixes(tmp_path, monkeypatch):
    vdir = tmp_path / "vocab"
    vdir.mkdir()
    real = data_dir("vocab")
    lines = (real / "blimp_vocabulary.csv").read_bytes().splitlines(keepends=True)
    (vdir / "blimp_vocabulary.csv").write_bytes(b"".join(lines[:1001]))   # header + 1000 rows
    (vdir / "fixes.yaml").write_bytes((real / "fixes.yaml").read_bytes())
    monkeypatch.setattr(vocab_module, "data_dir", lambda name: vdir)
    with pytest.raises(VocabularyError) as exc:
        vocab_module.Vocabulary.load()
    msg = str(exc.value)
    assert "truncated or modified copy" in msg and "(1000 rows, expected 4216" in msg
    assert msg.startswith(str(vdir / "blimp_vocabulary.csv")) and "fixes.yaml:" not in msg


def test_bundled_constants_match_the_bundled_file():
    raw = (data_dir("vocab") / "blimp_vocabulary.csv").read_bytes()
    assert hashlib.sha256(raw).hexdigest() == restrictions.BUNDLED_SHA256
    assert raw.count(b"\n") - 1 == restrictions.BUNDLED_ROWS


@pytest.mark.parametrize("edit,needle", [
    (lambda df: df.drop(columns=["sg", "animate"]), "missing column(s) sg, animate"),
    # row 3 of the table is line 5 of the file (header = line 1, first row = line 2)
    (lambda df: df.assign(sg=["2" if i == 3 else v for i, v in enumerate(df.sg)]), "line 5 (expression {e3!r}): sg: '2' is not 0, 1 or empty"),
    (lambda df: df.assign(arg_1=["animate" if i == 10 else v for i, v in enumerate(df.arg_1)]), "line 12 (expression {e10!r}): arg_1: malformed restriction condition 'animate'"),
])
def test_own_table_errors_name_line_and_column(tmp_path, edit, needle):
    exprs = default_vocabulary().expressions
    path = own_copy(tmp_path, edit)
    with pytest.raises(VocabularyError) as exc:
        read_vocabulary(path)
    assert str(exc.value).startswith(f"{path}: ")
    assert needle.format(e3=exprs[3], e10=exprs[10]) in str(exc.value)


def test_validate_against_an_own_table_without_demonstratives(tmp_path, fairpairs_cli):
    path = own_copy(tmp_path, lambda df: df[~df.expression.isin(["this", "that", "these", "those"])])
    code, out, _ = fairpairs_cli("validate", "--vocab", path, data_dir("grammars") / "determiner_noun_agreement_1.yaml")
    assert code == 1
    assert re.search(r"determiner_noun_agreement_1\.yaml: slots\.dem\.where\.expression: value 'this' never occurs", out)


def test_min_count_without_a_corpus_is_a_usage_error(fairpairs_cli):
    code, _, err = fairpairs_cli("generate", "--paradigms", "determiner_noun_agreement_1", "--min-count", 2)
    assert code == 2 and "--min-count needs --lexicon-from" in err
