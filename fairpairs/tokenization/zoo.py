"""Tokenizers trained on the fly, to control lengths against more tokenizations than ship here.

The bundled tokenizers give only three distinct tokenizations (gpt2 = roberta-base, bert-base-cased,
bert-base-uncased = electra-base-generator); SmolLM2's adds a fourth. Tests and
`benchmarks/yield.py` reach eight with small BPE, WordPiece and Unigram models trained with the
`tokenizers` library on any plain-text corpus (WikiText-2 in ../shared/reference). Each is saved
as a `tokenizer.json`, which `--models` accepts as a path.

    from fairpairs.tokenization.zoo import train_zoo
    paths = train_zoo("wikitext-2/valid.txt", "zoo/")          # {name: Path to tokenizer.json}
"""

from __future__ import annotations

from pathlib import Path

from fairpairs.io.files import atomic_write

# name -> (model, pre-tokenizer, vocabulary size, lower-case)
ZOO = {
    "bpe-bytelevel-16k": ("bpe", "bytelevel", 16000, False),
    "wordpiece-cased-16k": ("wordpiece", "bert", 16000, False),
    "unigram-metaspace-16k": ("unigram", "metaspace", 16000, False),
    "bpe-whitespace-uncased-12k": ("bpe", "whitespace", 12000, True),
    "wordpiece-uncased-8k": ("wordpiece", "bert", 8000, True),
    "bpe-bytelevel-4k": ("bpe", "bytelevel", 4000, False),
}


def _build(kind: str, pre: str, size: int, lower: bool):
    from tokenizers import (
        Tokenizer,
        decoders,
        models,
        normalizers,
        pre_tokenizers,
        trainers,
    )

    unk = "[UNK]"
    if kind == "bpe":
        tok = Tokenizer(models.BPE(unk_token=None if pre == "bytelevel" else unk))
        trainer = trainers.BpeTrainer(vocab_size=size, special_tokens=[unk], show_progress=False,
                                      initial_alphabet=pre_tokenizers.ByteLevel.alphabet() if pre == "bytelevel" else [])
    elif kind == "wordpiece":
        tok = Tokenizer(models.WordPiece(unk_token=unk))
        trainer = trainers.WordPieceTrainer(vocab_size=size, special_tokens=[unk, "[CLS]", "[SEP]", "[MASK]"],
                                            show_progress=False)
        tok.decoder = decoders.WordPiece()
    elif kind == "unigram":
        tok = Tokenizer(models.Unigram())
        trainer = trainers.UnigramTrainer(vocab_size=size, special_tokens=[unk], unk_token=unk, show_progress=False)
    else:
        raise ValueError(f"unknown model kind {kind!r}")
    norms = [normalizers.NFKC()] + ([normalizers.Lowercase()] if lower else [])
    tok.normalizer = normalizers.Sequence(norms)
    tok.pre_tokenizer = {
        "bytelevel": pre_tokenizers.ByteLevel(add_prefix_space=False),
        "bert": pre_tokenizers.BertPreTokenizer(),
        "whitespace": pre_tokenizers.Whitespace(),
        "metaspace": pre_tokenizers.Metaspace(),
    }[pre]
    return tok, trainer


def train(name: str, corpus: str | Path | list, out_dir: str | Path) -> Path:
    """Train zoo tokenizer `name` on `corpus` (plain-text file(s)), save it as
    out_dir/name/tokenizer.json (atomically; reused when it exists) and return that path.
    (WordPiece and Unigram training is multi-threaded and not bit-for-bit reproducible.)"""
    kind, pre, size, lower = ZOO[name]
    target = Path(out_dir) / name / "tokenizer.json"
    if target.is_file():
        return target
    tok, trainer = _build(kind, pre, size, lower)
    files = [str(c) for c in corpus] if isinstance(corpus, (list, tuple)) else [str(corpus)]
    tok.train(files, trainer)
    target.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(target, tok.to_str(pretty=True))
    return target


def train_zoo(corpus: str | Path | list, out_dir: str | Path, names: list[str] | None = None) -> dict[str, Path]:
    """Train (or reuse) several zoo tokenizers; {name: tokenizer.json path}."""
    return {n: train(n, corpus, out_dir) for n in (names or list(ZOO))}
