"""Length-control strategies (resample = Algorithm 1, search), checked against independent tokenizers.

References: the real tokenizer files (tests/references.py) or the trained tokenizer.json files, read
with the `tokenizers` library's own `encode`, wordfreq called directly, and brute force over every candidate word.
"""

from __future__ import annotations

import copy
import re
import tempfile

import numpy as np
import pytest
from tokenizers import Tokenizer

from fairpairs.control.loop import generate_debiased, generate_original
from fairpairs.generation.sampler import Sampler
from fairpairs.generation.grammar import read_paradigm_file
from fairpairs.generation.selection import grammar_files
from fairpairs.control.search import Searcher
from fairpairs.tokenization.lengths import LengthMeter
from fairpairs.tokenization.zoo import train_zoo
from fairpairs.generation.vocab import default_vocabulary
from references import (BLIMP_SAMPLE, WIKITEXT_SAMPLE, blimp_files, reference_tokenizer, reference_tokenizer_file,
                        toy_paradigm, toy_vocabulary)

BUNDLED = ["gpt2", "bert-base-cased", "bert-base-uncased"]


@pytest.fixture(scope="module")
def zoo(tmp_path_factory):
    """Four trained tokenizers (BPE byte-level, WordPiece, Unigram/Metaspace, BPE whitespace), trained
    on the WikiText-2 excerpt of tests/fixtures (their vocabularies stop where that text runs out)."""
    names = ["bpe-bytelevel-16k", "wordpiece-cased-16k", "unigram-metaspace-16k", "bpe-whitespace-uncased-12k"]
    return train_zoo(WIKITEXT_SAMPLE, tmp_path_factory.mktemp("zoo"), names)


@pytest.fixture(scope="module")
def eight(zoo):
    """Eight distinct tokenizations: {name for --models: independent encode function}."""
    out = {}
    for m in BUNDLED + ["roberta-base"]:
        out[m] = reference_tokenizer(m)
    for path in zoo.values():
        out[str(path)] = Tokenizer.from_file(str(path))
    out.pop("roberta-base")   # same tokenization as gpt2
    assert len(out) == 7
    return out


def n_tokens(tok: Tokenizer, text: str) -> int:
    return len(tok.encode(text, add_special_tokens=False).ids)


def paradigm(uid: str):
    return read_paradigm_file(next(f for f in grammar_files() if f.stem == uid), default_vocabulary())


# ------------------------------------------------------------------ a hand-built vocabulary
NAMES_GOOD = ["Mary", "Ann", "Bartholomew", "Eve", "Xanthippe", "Rose"]
NAMES_BAD = ["Tom", "Bob", "Nebuchadnezzar", "Ozymandias", "Jim", "Archibald", "Zbigniew", "Al", "Quetzalcoatl",
             "Hieronymus", "Ed", "Cuthbert", "Peregrine", "Thaddeus", "Ulysses", "Bo", "Wolfgang", "Ignatius"]
VERBS = ["left", "slept", "laughed", "waited", "sang"]


@pytest.fixture(scope="module")
def tiny():
    rows = [{"expression": v, "category": "S\\NP", "kind": "verb"} for v in VERBS]
    rows += [{"expression": n, "category": "N", "kind": "good"} for n in NAMES_GOOD]
    rows += [{"expression": n, "category": "N", "kind": "bad"} for n in NAMES_BAD]
    return toy_vocabulary(rows, source="tiny")


def tiny_paradigm(tmp_path, vocab):
    return toy_paradigm(tmp_path, vocab, """
        uid: tiny_names
        phenomenon: Test
        field: syntax
        linguistics_term: test
        slots:
          verb: {where: {kind: verb}}
          subj: {where: {kind: good}}
        template: "{{ subj }} {{ verb }} early."
        critical:
          subj: {where: {kind: bad}}
    """)


def test_search_finds_a_match_whenever_one_exists(tmp_path, tiny):
    toks = {m: reference_tokenizer(m) for m in ("gpt2", "bert-base-cased")}
    p = tiny_paradigm(tmp_path, tiny)
    meters = [LengthMeter(m) for m in toks]

    def matches(good: str, verb: str) -> set[str]:   # brute force over every bad name
        g = f"{good} {verb} early."
        return {b for b in NAMES_BAD
                if all(n_tokens(t, g) == n_tokens(t, f"{b} {verb} early.") for t in toks.values())}

    table = {(g, v): matches(g, v) for g in NAMES_GOOD for v in VERBS}
    assert any(table.values()) and not all(table.values()), "the word lists must give both cases"
    s = Sampler(p, tiny, 0)
    res = generate_debiased(s, 20, meters, strategy="search")
    assert res.stats.kept == 20 and res.stats.dropped == 0
    for x in res.pairs:
        assert x.bad["subj"].word in table[(x.good["subj"].word, x.good["verb"].word)]
        first = s.draw(x.k)                      # the pair as first drawn from its stream
        if table[(first.good["subj"].word, first.good["verb"].word)]:
            assert x.renewed == 0 and x.redraws <= 1, "a match existed: search must take it at once"
        else:
            assert x.renewed > 0
    # Algorithm 1 on the same draws drops pairs whose good word has a match it did not find in 10 tries
    rs = generate_debiased(Sampler(p, tiny, 0), 20, meters, strategy="resample")
    assert rs.stats.dropped > 0 and rs.stats.yield_ < res.stats.yield_


@pytest.mark.parametrize("uid,min_found", [("transitive", 3), ("existential_there_quantifiers_1", 3),
                                           ("only_npi_licensor_present", 0), ("anaphor_gender_agreement", 0),
                                           ("determiner_noun_agreement_with_adjective_1", 0)])
def test_pick_agrees_with_brute_force(uid, min_found, eight):
    """The in-context length prediction equals full-sentence tokenization: pick() succeeds exactly
    when some candidate equalises every length, and then picks one of those."""
    p = paradigm(uid)
    assert len(p.critical) == 1
    name = next(iter(p.critical))
    vocab = default_vocabulary()
    s = Sampler(p, vocab, 11)
    meters = [LengthMeter(m) for m in eight]
    searcher = Searcher(s, meters)
    toks = list(eight.values())
    checked = found = 0
    for k in range(25):
        x = s.draw(k)
        if x is None:
            continue
        good = [n_tokens(t, x.sentence_good) for t in toks]
        bad = tuple(n_tokens(t, x.sentence_bad) for t in toks)
        cands = s.bad_candidates(name, x.good, {})
        ok = set()
        for c in cands:
            sb = s.render_bad(x.good, {name: s.make_bad(name, x.good[name], c)})
            if sb != x.sentence_good and [n_tokens(t, sb) for t in toks] == good:
                ok.add(sb)
        y = copy.copy(x)
        y.bad = dict(x.bad)
        assert searcher.pick(y, tuple(good), bad) == bool(ok), (x.sentence_good, x.sentence_bad)
        if ok:
            assert y.sentence_bad in ok
            found += 1
        checked += 1
    assert checked >= 20 and found >= min_found


@pytest.mark.parametrize("strategy", ["search", "resample"])
def test_only_equal_lengths_under_eight_tokenizers(strategy, eight):
    """Both strategies emit only pairs of equal length under all eight tokenizations (independent
    encode), for a substitution, a derived-form and a reordering paradigm."""
    meters = [LengthMeter(m) for m in eight]
    vocab = default_vocabulary()
    for uid in ("transitive", "determiner_noun_agreement_1", "wh_island"):
        res = generate_debiased(Sampler(paradigm(uid), vocab, 2), 40, meters, strategy=strategy, max_draws=20000)
        assert res.pairs
        for x in res.pairs:
            for tok in eight.values():
                assert n_tokens(tok, x.sentence_good) == n_tokens(tok, x.sentence_bad), (uid, x.sentence_good, x.sentence_bad)
        if strategy == "search":   # search gives up no draw: a context it cannot keep is replaced
            assert res.stats.dropped == 0 and res.stats.kept == 40, (uid, res.stats.as_dict())


@pytest.mark.parametrize("strategy", ["search", "resample"])
def test_frequency_tolerance_respected(strategy):
    from wordfreq import zipf_frequency

    vocab = default_vocabulary()
    meters = [LengthMeter("gpt2")]
    p = paradigm("animate_subject_trans")
    free = generate_debiased(Sampler(p, vocab, 4), 150, meters, strategy=strategy)
    tied_sampler = Sampler(p, vocab, 4)
    tied = generate_debiased(tied_sampler, 150, meters, strategy=strategy, match_frequency=0.5, max_draws=50000)
    def worst(x):   # the largest |Zipf difference| over the critical slots with a word on both sides
        return max(abs(zipf_frequency(x.good[n].word, "en") - zipf_frequency(x.bad[n].word, "en"))
                   for n in p.critical if x.good[n].word and x.bad[n].word)

    deltas = [worst(x) for x in tied.pairs]
    assert len(deltas) == 150 and max(deltas) <= 0.5
    assert max(worst(x) for x in free.pairs) > 0.5       # the tolerance is what made the difference
    # the balance report's mean |ΔZipf|, computed from the written records, is the same figure
    from fairpairs.control.balance_measures import pair_measures
    rows = [tied_sampler.row(x, {}, i) for i, x in enumerate(tied.pairs)]
    assert np.nanmean(pair_measures(rows)["dzipf"]) == pytest.approx(np.mean(deltas), abs=1e-9)


def test_search_reproducible_and_chunk_independent():
    vocab = default_vocabulary()
    meters = [LengthMeter(m) for m in BUNDLED]
    p = paradigm("left_branch_island_echo_question")   # a reordering: whole-pair redraws
    a = generate_debiased(Sampler(p, vocab, 9), 80, meters, chunk=13)
    b = generate_debiased(Sampler(p, vocab, 9), 80, meters, chunk=256)
    c = generate_debiased(Sampler(p, vocab, 10), 80, meters)
    key = [(x.sentence_good, x.sentence_bad) for x in a.pairs]
    assert key == [(x.sentence_good, x.sentence_bad) for x in b.pairs]
    assert key != [(x.sentence_good, x.sentence_bad) for x in c.pairs]
    assert a.stats.as_dict() == b.stats.as_dict()


def test_length_meter_matches_whole_encoding(zoo):
    """Chunk-summed lengths equal whole-sentence encoding on real BLiMP sentences (the sample of all
    67 paradigms), for the bundled and trained tokenizers; a tokenizer that can merge across spaces
    is encoded whole."""
    import json

    from tokenizers import models, pre_tokenizers, trainers

    sents = []
    for f in blimp_files(BLIMP_SAMPLE):
        for line in f.read_text().splitlines():
            d = json.loads(line)
            sents += [d["sentence_good"], d["sentence_bad"]]
    sents += ["Two  spaces here.", "A tab\there.", " Leading space.", ""]
    files = {m: reference_tokenizer_file(m) for m in BUNDLED + ["roberta-base"]}
    files.update({str(p): p for p in zoo.values()})
    for name, path in files.items():
        m = LengthMeter(name)
        assert m.decomposable, name
        tok = Tokenizer.from_file(str(path))
        whole = [n_tokens(tok, t) for t in sents]
        assert m.lengths(sents) == whole, name
        one = LengthMeter(name)      # one sentence at a time (the search's way), and again once forgotten
        assert [one.length(t) for t in sents] == whole, name
        one.forget_sentences()
        assert [one.length(t) for t in sents[::7]] == whole[::7], name
    # a Unigram model without whitespace splitting may learn tokens that span a space (trained on
    # every 9th sentence, all 67 paradigms: a twentieth of the time of training on all of them x 3,
    # and it still learns hundreds of such tokens, as the check below shows)
    tok = Tokenizer(models.Unigram())
    tok.pre_tokenizer = pre_tokenizers.Metaspace(split=False)
    tok.train_from_iterator([s for s in sents if s][::9],
                            trainers.UnigramTrainer(vocab_size=600, show_progress=False, unk_token="<unk>",
                                                    special_tokens=["<unk>"]))
    whole = [n_tokens(tok, t) for t in sents]
    chunks = [n_tokens(tok, t.split(" ")[0]) + sum(n_tokens(tok, " " + c) for c in t.split(" ")[1:]) for t in sents]
    assert sum(w != c for w, c in zip(whole, chunks)) > len(sents) // 2   # summing chunks would be wrong here
    with tempfile.TemporaryDirectory() as d:
        f = f"{d}/tokenizer.json"
        tok.save(f)
        m = LengthMeter(f)
        assert not m.decomposable
        assert m.lengths(sents) == whole


@pytest.mark.parametrize("strategy", ["search", "resample"])
def test_impossible_contrast_fails_fast_with_a_clear_error(tmp_path, tiny, strategy):
    """Good names of one token, bad names of several: no pair can ever match under gpt2."""
    from fairpairs.errors import GrammarError

    p = tiny_paradigm(tmp_path, tiny)
    meter = LengthMeter("gpt2")
    long_names = [n for n in NAMES_BAD if meter.length(n) >= 3]
    short_goods = [n for n in NAMES_GOOD if meter.length(n) == 1]
    assert long_names and short_goods
    src = p.path.read_text().replace("subj: {where: {kind: good}}", f"subj: {{where: {{expression: {short_goods}}}}}")
    src = src.replace("subj: {where: {kind: bad}}", f"subj: {{where: {{expression: {long_names}}}}}")
    p.path.write_text(src)
    p = read_paradigm_file(p.path, tiny)
    # the set ends short, empty, with the error a strict run raises (a run keeps its other paradigms)
    res = generate_debiased(Sampler(p, tiny, 0), 10, [meter], strategy=strategy)
    assert res.pairs == [] and isinstance(res.short, GrammarError)
    assert re.search(r"tiny_names.yaml: debiased: length control kept no pair in \d+ draws", str(res.short))


def test_records_name_only_the_critical_words_the_sentences_show():
    """Paradigms whose template switches variants draw slots it does not render; the jsonl record's
    critical words (and so the distinct-word and frequency figures) are only those shown."""
    vocab = default_vocabulary()
    switching = [f for f in grammar_files() if "{% if" in f.read_text()]
    assert len(switching) >= 10
    for f in switching:
        p = read_paradigm_file(f, vocab)
        if not p.critical:
            continue
        s = Sampler(p, vocab, 1)
        for x in generate_original(s, 30, []).pairs:
            row = s.row(x, {}, 0)
            assert row["critical_good"], f.stem
            for key, sent in (("critical_good", x.sentence_good), ("critical_bad", x.sentence_bad)):
                for word in row[key].values():
                    assert word.lower() in sent.lower(), (f.stem, key, word, sent)


@pytest.mark.parametrize("strategy", ["search", "resample"])
def test_remembered_draws_change_nothing(strategy):
    """A run draws the original set first and the debiased set reuses those draws: the debiased set
    must be exactly what a fresh sampler gives."""
    vocab = default_vocabulary()
    meters = [LengthMeter(m) for m in ("gpt2", "bert-base-cased")]
    p = paradigm("animate_subject_trans")
    fresh = generate_debiased(Sampler(p, vocab, 3), 120, meters, strategy=strategy)
    s = Sampler(p, vocab, 3)
    generate_original(s, 120, meters)
    reused = generate_debiased(s, 120, meters, strategy=strategy)
    assert [(x.sentence_good, x.sentence_bad) for x in fresh.pairs] == \
        [(x.sentence_good, x.sentence_bad) for x in reused.pairs]
    assert fresh.stats.as_dict() == reused.stats.as_dict()


def test_shown_critical_cannot_go_stale():
    """The slots a branching template shows are cached per pair; the cache must follow the fillers'
    values, not the dicts' identity (a redraw's new dict can reuse a freed dict's id(), the same as
    the old dict changed in place here)."""
    vocab = default_vocabulary()
    p = paradigm("anaphor_number_agreement")
    s = Sampler(p, vocab, 0)
    pairs = generate_original(s, 40, []).pairs
    shown = {tuple(s.shown_critical(x.copy())): x for x in pairs}
    assert len(shown) == 2, shown.keys()        # the two branches show different critical slots
    (first, a), (second, b) = shown.items()
    a = a.copy()
    assert tuple(s.shown_critical(a)) == first
    a.good.clear()
    a.good.update(b.good)
    a.bad.clear()
    a.bad.update(b.bad)                          # same dicts (same ids), the other branch's fillers
    assert tuple(s.shown_critical(a)) == second


# ------------------------------------------------------------------ work done once, same results
def test_draw_streams_are_numpys_default_rng():
    """Draw k's stream, seeded in blocks from SeedSequence words computed in bulk, is
    np.random.default_rng([seed, uid seed, k]) exactly - also at the 32-bit edges, past them
    (the plain path) and across block boundaries."""
    from fairpairs.generation.sampler import uid_seed

    p = paradigm("causative")
    for seed in (0, 7, 2**32 - 1, 2**32):
        s = Sampler(p, default_vocabulary(), seed=seed)
        for k in [0, 1, 255, 256, 257, 4099, 2**32 - 1, 2**32]:
            ours, numpy_own = s.rng(k), np.random.default_rng([seed, uid_seed(p.uid), k])
            assert ours.bit_generator.state == numpy_own.bit_generator.state, (seed, k)
            assert ours.integers(1 << 30, size=8).tolist() == numpy_own.integers(1 << 30, size=8).tolist()


@pytest.mark.parametrize("uid", ["transitive", "distractor_agreement_relative_clause", "principle_A_domain_3",
                                 "determiner_noun_agreement_irregular_1", "ellipsis_n_bar_2"])
def test_remembered_pools_equal_filtering_afresh(uid):
    """A slot's remembered pool (its constraints' masks, each remembered per row) and a critical
    slot's remembered bad candidates are what filtering the slot's base afresh gives, in order,
    for the contexts of real draws."""
    p = paradigm(uid)
    vocab = default_vocabulary()
    s = Sampler(p, vocab, seed=3)
    checked = 0
    for k in range(30):
        pair = s.draw(k)
        if pair is None:
            continue
        afresh = Sampler(p, vocab, seed=3)      # nothing remembered (one question per slot)
        for name in p.order:
            spec = p.slots[name]
            if spec.text:
                continue
            assert s.pool(spec, pair.good).tolist() == afresh.candidates(spec, spec.base, pair.good).tolist(), \
                (uid, k, name)
            checked += 1
        for name in p.critical:
            others = {n: f for n, f in pair.bad.items() if n != name}
            remembered = s.bad_candidates(name, pair.good, others)
            assert list(remembered) == list(afresh.bad_candidates(name, pair.good, others)), (uid, k, name)
    assert checked > 25


def test_finishing_a_sentence_matches_the_two_substitutions():
    """finish_sentence's shortcut for tidy text gives what the two regex passes give (a naive copy
    of them here), on tidy and untidy texts."""
    import re

    from fairpairs.generation.templates import finish_sentence

    def naive(text):
        text = re.sub(r"\s+([.,?!;:])", r"\1", re.sub(r"\s+", " ", text).strip())
        return text[:1].upper() + text[1:]

    rng = np.random.default_rng(0)
    alphabet = list("ab .,?!;:'") + ["  ", "\t", "\n", "\u00a0", "é"]
    texts = ["the cat sat .", " the cat sat.", "who  left ?", "a\tb", "ok", "", " ", "x ,y"]
    texts += ["".join(rng.choice(alphabet, size=int(rng.integers(0, 12)))) for _ in range(3000)]
    for t in texts:
        assert finish_sentence(t) == naive(t), repr(t)
