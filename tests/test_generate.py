"""Generation: every shipped paradigm renders valid pairs; length control checked with tokenizers
loaded independently of the code under test; reproducibility; CLI behaviour and errors."""

import functools
import json
import re

import pytest

from fairpairs.control.loop import generate_debiased, generate_original
from fairpairs.generation.sampler import Sampler
from fairpairs.generation.grammar import read_paradigm_file
from fairpairs.generation.selection import grammar_files
from fairpairs.tokenization.lengths import LengthMeter
from fairpairs.generation.vocab import default_vocabulary
from references import reference_tokenizer

FILES = grammar_files()
UIDS = [f.stem for f in FILES]
CONTROL = ["gpt2", "bert-base-cased"]


@pytest.fixture(scope="module")
def vocab():
    return default_vocabulary()


@pytest.fixture(scope="module")
def rows(vocab):
    return vocab.df.to_dict("records")


@pytest.fixture(scope="module")
def meters():
    """The control tokenizers' meters, loaded once for every paradigm (as one `generate` run shares
    them); what they count is checked against the independent tokenizers below."""
    return [LengthMeter(m) for m in CONTROL]


@pytest.fixture(scope="module")
def independent():
    """The reference tokenizer files read with the tokenizers library itself (tests/references.py)."""
    return {m: reference_tokenizer(m) for m in ["gpt2", "roberta-base", "bert-base-cased", "bert-base-uncased"]}


def n_tokens(tok, text):
    return len(tok.encode(text, add_special_tokens=False).ids)


def naive_sat(row, dnf):
    if not dnf:
        return True
    return any(all(row.get(c.split("=", 1)[0]) == c.split("=", 1)[1] for c in conj.split("^"))
               for conj in dnf.split(";"))


def check_constraints(spec, me, fillers, rows, where):
    """Re-check a slot's declared relations on the drawn rows with the naive evaluator."""
    if me.row < 0:
        return
    r = rows[me.row]
    for slot, arg in spec.fills:
        assert naive_sat(r, rows[fillers[slot].row][arg]), f"{where}: fills {slot}.{arg}"
    for slot, arg in spec.fails:
        assert not naive_sat(r, rows[fillers[slot].row][arg]), f"{where}: fails {slot}.{arg}"
    for arg, slot in spec.takes:
        assert naive_sat(rows[fillers[slot].row], r[arg]), f"{where}: takes {arg} {slot}"
    for arg, slot in spec.rejects:
        assert not naive_sat(rows[fillers[slot].row], r[arg]), f"{where}: rejects {arg} {slot}"
    for slot, cols in spec.same:
        assert all(r[c] == rows[fillers[slot].row][c] for c in cols), f"{where}: same as {slot}"
    if me.det >= 0:
        assert naive_sat(r, rows[me.det]["arg_1"]), f"{where}: determiner {rows[me.det]['expression']!r}"


def toks(text):
    return re.findall(r"[\w']+|[^\w\s]", text.lower())


@functools.lru_cache(maxsize=None)
def template_slots(source):
    """The slot names a template source uses (parsed once per source: a jinja2 parse per pair was
    most of this file's time)."""
    import jinja2.meta

    from fairpairs.generation.templates import template_env

    return jinja2.meta.find_undeclared_variables(template_env().parse(source))


def multiset_minus(words, remove):
    out = list(words)
    for w in remove:
        assert w in out, (w, words)
        out.remove(w)
    return out


def differing_tokens(good, bad):
    """Tokens of the good and the bad sentence outside their longest common alignment."""
    import difflib

    g, b = toks(good), toks(bad)
    out_g, out_b = [], []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=g, b=b, autojunk=False).get_opcodes():
        if op != "equal":
            out_g += g[i1:i2]
            out_b += b[j1:j2]
    return out_g, out_b


@pytest.mark.parametrize("uid", UIDS)
def test_paradigm_pairs(uid, vocab, rows, independent, meters):
    p = read_paradigm_file(FILES[UIDS.index(uid)], vocab)
    s = Sampler(p, vocab, 0)
    orig = generate_original(s, 200, meters)
    deb = generate_debiased(s, 200, meters, max_retries=10)
    for res in (orig, deb):
        keys = [(x.sentence_good, x.sentence_bad) for x in res.pairs]
        assert len(keys) == 200 and len(set(keys)) == 200, "duplicates or too few pairs"
        for x in res.pairs:
            g, b = x.sentence_good, x.sentence_bad
            assert g != b
            for sent in (g, b):
                assert sent[0].isupper() and sent[-1] in ".?", sent
                assert "  " not in sent
            if p.reorder:
                # same words in another order; slots used by only one template (e.g. an auxiliary
                # that must agree differently) are the declared exception
                only_g = template_slots(p.good_source) - template_slots(p.bad_source)
                only_b = template_slots(p.bad_source) - template_slots(p.good_source)
                # (a question and its declarative may differ in the final . or ?)
                wg = multiset_minus(toks(g.rstrip(".?")), [t for n in only_g for t in toks(x.good[n].text)])
                wb = multiset_minus(toks(b.rstrip(".?")), [t for n in only_b for t in toks(x.good[n].text)])
                assert sorted(wg) == sorted(wb), (g, b)
            else:
                dg, db = differing_tokens(g, b)
                assert dg or db
                assert set(dg) <= {t for n in p.critical for t in toks(x.good[n].word)}, (g, b)
                assert set(db) <= {t for n in p.critical for t in toks(x.bad[n].word)}, (g, b)
            for name in p.order:
                check_constraints(p.slots[name], x.good[name], x.good, rows, f"{uid} good {name}: {g}")
            ctx = dict(x.good)
            for name, spec in p.critical.items():
                ctx[name] = x.bad[name]
                check_constraints(spec, x.bad[name], ctx, rows, f"{uid} bad {name}: {b}")
    for x in deb.pairs:
        for m, tok in independent.items():
            if m in CONTROL:
                assert n_tokens(tok, x.sentence_good) == n_tokens(tok, x.sentence_bad), (m, x.sentence_good, x.sentence_bad)


def test_determiner_noun_agreement_invariant(vocab):
    """Hand-written check: the demonstrative's number matches the noun in good, not in bad."""
    p = read_paradigm_file([f for f in FILES if f.stem == "determiner_noun_agreement_1"][0], vocab)
    s = Sampler(p, vocab, 3)
    number = {"this": "sg", "that": "sg", "these": "pl", "those": "pl"}
    df = vocab.df
    for x in generate_original(s, 100, []).pairs:
        dem = x.good["dem"].word
        for noun, ok in ((x.good["obj"].word, True), (x.bad["obj"].word, False)):
            r = df[(df.expression == noun) & (df.category == "N")].iloc[0]
            assert (r[number[dem]] == "1") is ok, (dem, noun)


def test_output_independent_of_chunk_size(vocab):
    p = read_paradigm_file([f for f in FILES if f.stem == "determiner_noun_agreement_1"][0], vocab)
    meters = [LengthMeter(m) for m in CONTROL]
    a = generate_debiased(Sampler(p, vocab, 5), 60, meters, chunk=7)
    b = generate_debiased(Sampler(p, vocab, 5), 60, meters, chunk=256)
    assert [(x.sentence_good, x.sentence_bad) for x in a.pairs] == [(x.sentence_good, x.sentence_bad) for x in b.pairs]
    assert a.stats.as_dict() == b.stats.as_dict()


def test_debiased_good_sentences_follow_the_original_stream(vocab):
    p = read_paradigm_file([f for f in FILES if f.stem == "determiner_noun_agreement_1"][0], vocab)
    meters = [LengthMeter(m) for m in CONTROL]
    s = Sampler(p, vocab, 0)
    orig = {x.k: x.sentence_good for x in generate_original(s, 300, meters).pairs}
    for x in generate_debiased(s, 100, meters, strategy="resample").pairs:
        if x.k in orig:
            assert orig[x.k] == x.sentence_good
    renewed = 0
    for x in generate_debiased(s, 100, meters, strategy="search").pairs:
        renewed += x.renewed > 0
        if x.k in orig and not x.renewed:   # search keeps the good sentence unless it redrew the whole pair
            assert orig[x.k] == x.sentence_good
    assert 0 < renewed < 100


# ---------------------------------------------------------------- CLI
def test_cli_generate_reproducible_and_complete(tmp_path, independent, fairpairs_cli):
    """The first run in a process of its own, the second in this one: same seed, same bytes across
    processes (another hash seed, cold caches against warm ones), another seed, other bytes."""
    args = ["generate", "--paradigms", "determiner_noun_agreement_1", "--pairs", "150", "--models",
            "gpt2,roberta-base,bert-base-uncased", "--quiet"]
    r1 = fairpairs_cli.process(*args, "--out", str(tmp_path / "a"))
    assert r1.returncode == 0, r1.stderr
    r2 = fairpairs_cli(*args, "--out", str(tmp_path / "b"))
    r3 = fairpairs_cli(*args, "--seed", "1", "--out", str(tmp_path / "c"))
    assert r2.returncode == 0 and r3.returncode == 0, r2.stderr + r3.stderr
    for sub in ("original/determiner_noun_agreement_1.jsonl", "debiased/determiner_noun_agreement_1.jsonl"):
        assert (tmp_path / "a" / sub).read_bytes() == (tmp_path / "b" / sub).read_bytes()
        assert (tmp_path / "a" / sub).read_bytes() != (tmp_path / "c" / sub).read_bytes()
    rows = [json.loads(l) for l in (tmp_path / "a" / "debiased" / "determiner_noun_agreement_1.jsonl").open()]
    assert len(rows) == 150
    for i, r in enumerate(rows):
        assert list(r)[:14] == ["sentence_good", "sentence_bad", "field", "linguistics_term", "uid", "pair_id",
                                "simple_LM_method", "one_prefix_method", "two_prefix_method", "lexically_identical",
                                "same_words", "one_prefix_prefix", "one_prefix_word_good", "one_prefix_word_bad"]
        # BLiMP's flags for determiner_noun_agreement_1 (its lexically_identical is true: this sketch / sketches)
        assert r["pair_id"] == str(i) and r["lexically_identical"] is True and r["same_words"] is False
        assert r["one_prefix_method"] is True and r["two_prefix_method"] is False
        for m in ("gpt2", "roberta-base", "bert-base-uncased"):
            g, b = n_tokens(independent[m], r["sentence_good"]), n_tokens(independent[m], r["sentence_bad"])
            assert g == b == r["token_lengths"][m]["good"] == r["token_lengths"][m]["bad"]
    man = json.loads((tmp_path / "a" / "manifest.json").read_text())
    assert man["seed"] == 0 and man["models"] == ["gpt2", "roberta-base", "bert-base-uncased"]
    st = man["paradigms"]["determiner_noun_agreement_1"]
    d = st["debiased_stats"]
    assert st["debiased"] == 150 and st["original"] == 150 and d["kept"] == 150 and 0 < d["yield"] <= 1
    # one account: every kept pair is kept as drawn, with its bad sentence redrawn, or replaced
    assert d["kept_as_drawn"] + d["kept_redrawn"] + d["replaced"] == 150
    assert d["drawn"] == d["kept"] + d["dropped"] == d["draws"] - d["invalid"] - d["duplicates"]
    assert d["yield"] == round((d["kept_as_drawn"] + d["kept_redrawn"]) / d["drawn"], 4)
    assert sum(r["control"] == "replaced" for r in rows) == d["replaced"]
    import hashlib
    from fairpairs.tokenization.sources import ASSETS
    assert man["tokenizers"]["gpt2"]["files"]["tokenizer.json"] == hashlib.sha256(
        (ASSETS / "gpt2" / "tokenizer.json").read_bytes()).hexdigest()
    assert "out-in-the-open-predicative-only" in man["vocabulary"]["fixes"]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")], "temporary folders left behind"


def test_cli_original_lengths_are_recorded_and_biased(tmp_path, fairpairs_cli):
    r = fairpairs_cli("generate", "--paradigms", "determiner_noun_agreement_1", "--pairs", "300", "--quiet",
                      "--out", str(tmp_path / "run"))
    assert r.returncode == 0, r.stderr
    rows = [json.loads(l) for l in (tmp_path / "run" / "original" / "determiner_noun_agreement_1.jsonl").open()]
    diffs = [x["token_lengths"]["gpt2"]["bad"] - x["token_lengths"]["gpt2"]["good"] for x in rows]
    assert any(d != 0 for d in diffs), "the uncontrolled set should contain unequal lengths"


@pytest.mark.parametrize("args,needle", [
    (["--models", "no-such-tokenizer-xyz"], "--models: cannot load tokenizer 'no-such-tokenizer-xyz'"),
    (["--paradigms", "no_such_paradigm"], "--paradigms: unknown paradigm(s) no_such_paradigm"),
    (["--phenomenon", "Nonsense"], "--phenomenon: unknown phenomenon 'Nonsense'"),
])
def test_cli_errors_are_one_line(tmp_path, args, needle, fairpairs_cli):
    r = fairpairs_cli("generate", "--pairs", "5", "--quiet", "--out", str(tmp_path / "x"), *args)
    assert r.returncode == 1
    assert r.stderr.strip().startswith("fairpairs: error: ") and needle in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert not (tmp_path / "x").exists()


def test_cli_failed_run_leaves_nothing(tmp_path, fairpairs_cli):
    gdir = tmp_path / "g"
    gdir.mkdir()
    src = (FILES[UIDS.index("determiner_noun_agreement_1")]).read_text()
    (gdir / "determiner_noun_agreement_1.yaml").write_text(src.replace("takes: {arg_1: obj}", "takes: {arg_1: obj}\n    rejects: {arg_1: obj}"))
    r = fairpairs_cli("generate", "--grammars", str(gdir), "--pairs", "5", "--quiet", "--out", str(tmp_path / "out"))
    assert r.returncode == 1 and "unsatisfiable" in r.stderr
    assert not (tmp_path / "out").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["g"]


def test_cli_refuses_to_replace_a_foreign_folder(tmp_path, fairpairs_cli):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep me")
    r = fairpairs_cli("generate", "--paradigms", "determiner_noun_agreement_1", "--pairs", "5", "--quiet",
                      "--out", str(tmp_path / "mine"))
    assert r.returncode == 1 and "--out" in r.stderr and "fairpairs did not write" in r.stderr
    assert (tmp_path / "mine" / "notes.txt").read_text() == "keep me"


def test_cli_paradigms_lists_uids(fairpairs_cli):
    r = fairpairs_cli("paradigms")
    assert r.returncode == 0
    assert {f.stem for f in grammar_files()} == set(r.stdout.split())
    rv = fairpairs_cli("paradigms", "--verbose")
    assert "determiner_noun_agreement_1\tDeterminer-noun agreement\tmorphology" in rv.stdout
