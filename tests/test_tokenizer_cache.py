"""A cached converted tokenizer is used only for the source it was converted from (issue 45, item
5): an entry, its json and its record together, replaced by another tokenizer's (copied under its
key, by hand or by a sync) is converted again, and token counts stay those of the source.

Before the fix the record held the sha256 of the json alone, which guards against a torn write
only: the other tokenizer's json and hash agree with each other, so the cache returned the other
tokenizer and every count changed silently.

Token counts are checked against the `tiktoken` library itself, fed the same ranks and split pattern
(an implementation of ours is not the reference). The ranks file is tiny - 256 bytes and the merges
of "12345" - so each conversion takes a moment; the two split patterns count digits differently
(r50k keeps a run of digits together, qwen splits it into single digits)."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

SENTENCES = ["12345 apples", "call 12345678 now", "it was 1234 or 123456789", "no digits here"]


def ranks(extra: tuple[bytes, ...] = ()) -> dict[bytes, int]:
    merged = [b"12", b"123", b"1234", b"12345", *extra]
    return {**{bytes([b]): b for b in range(256)}, **{t: 256 + i for i, t in enumerate(merged)}}


def ranks_file(path: Path, extra: tuple[bytes, ...] = ()) -> Path:
    import base64

    path.write_text("".join(f"{base64.b64encode(t).decode()} {r}\n" for t, r in ranks(extra).items()))
    return path


def tiktoken_counts(pattern: str, extra: tuple[bytes, ...] = ()) -> list[int]:
    """Token counts of SENTENCES by the tiktoken library, with the ranks and pattern of the file."""
    import tiktoken

    from fairpairs.tokenization.sources import TIKTOKEN_PATTERNS

    enc = tiktoken.Encoding(f"test-{pattern}", pat_str=TIKTOKEN_PATTERNS[pattern], mergeable_ranks=ranks(extra),
                            special_tokens={})
    return [len(enc.encode_ordinary(s)) for s in SENTENCES]


def counts(tok) -> list[int]:
    return [len(e.ids) for e in tok.encode_batch(SENTENCES, add_special_tokens=False)]


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("FAIRPAIRS_TOKENIZER_CACHE", str(folder))
    return folder


def cached_with_count(src, conversions: list):
    """The tokenizer of `src` through the cache, each conversion the cache asks for counted."""
    from fairpairs.tokenization.cache import cached
    from fairpairs.tokenization.lengths import convert

    def counted():
        conversions.append(src)
        return convert(src)
    return cached(src, counted)


def entry_files(cache: Path, before: set) -> list[Path]:
    """The files a conversion added to the cache (one entry), sorted by name."""
    return sorted(p for p in cache.iterdir() if p not in before)


@pytest.mark.parametrize("other", ["same file, other pattern", "other file"])
def test_an_entry_replaced_by_another_tokenizers_is_converted_again(tmp_path, cache, other):
    from fairpairs.tokenization.sources import resolve_tokenizer

    mine = resolve_tokenizer(f"{ranks_file(tmp_path / 'mine.tiktoken')}@r50k")
    if other == "other file":
        extra, pattern = (b"ap", b"app"), "r50k"
        theirs = resolve_tokenizer(f"{ranks_file(tmp_path / 'theirs.tiktoken', extra)}@r50k")
    else:
        extra, pattern = (), "qwen"
        theirs = resolve_tokenizer(f"{tmp_path / 'mine.tiktoken'}@qwen")
    assert tiktoken_counts("r50k") != tiktoken_counts(pattern, extra)      # (the two tokenizers count differently)

    conversions: list = []
    assert counts(cached_with_count(mine, conversions)) == tiktoken_counts("r50k")
    my_entry = entry_files(cache, set())
    assert counts(cached_with_count(theirs, conversions)) == tiktoken_counts(pattern, extra)
    their_entry = entry_files(cache, set(my_entry))
    assert len(my_entry) == len(their_entry) >= 2 and len(conversions) == 2

    for mine_file, their_file in zip(my_entry, their_entry):     # the whole entry, under my key
        assert mine_file.name.split(".", 1)[1] == their_file.name.split(".", 1)[1]
        shutil.copyfile(their_file, mine_file)
    assert counts(cached_with_count(mine, conversions)) == tiktoken_counts("r50k")
    assert len(conversions) == 3                                       # converted again, not trusted
    assert counts(cached_with_count(mine, conversions)) == tiktoken_counts("r50k")
    assert len(conversions) == 3                                       # and written again: read from now on
    assert counts(cached_with_count(theirs, conversions)) == tiktoken_counts(pattern, extra)
    assert len(conversions) == 3                                       # (theirs untouched)


def test_an_entry_records_the_sha256_of_its_source_file(tmp_path, cache):
    from fairpairs.tokenization.sources import resolve_tokenizer

    source = ranks_file(tmp_path / "mine.tiktoken")
    cached_with_count(resolve_tokenizer(f"{source}@r50k"), [])
    records = [json.loads(p.read_text()) for p in cache.glob("*.entry.json")]
    assert len(records) == 1
    assert records[0]["converted_from"]["file"] == hashlib.sha256(source.read_bytes()).hexdigest()
    json_file = next(p for p in cache.glob("*.json") if not p.name.endswith(".entry.json"))
    assert records[0]["json_sha256"] == hashlib.sha256(json_file.read_bytes()).hexdigest()
