"""A tokenizer conversion runs in a forked child process (fairpairs.tokenization.cache.convert_apart):
the calling process only reads the converted tokenizer back, so what the conversion imports and
leaves behind (transformers, torch: hundreds of MB) is not kept there, nor shared with the workers
it forks later. A conversion that fails in the child fails again here, with its own error."""

from __future__ import annotations

import pytest
from tokenizers import Tokenizer

from fairpairs.errors import TokenizerError
from fairpairs.tokenization.cache import convert_apart
from fairpairs.tokenization.lengths import load_backend


def test_the_conversion_runs_in_a_child_and_the_tokenizer_comes_back():
    calls = []
    gpt2 = load_backend("gpt2")

    def convert():
        calls.append(1)          # (in this process only when it converts here)
        return Tokenizer.from_str(gpt2.to_str())

    tok = convert_apart(convert)
    assert calls == []
    assert tok.to_str() == gpt2.to_str()
    assert tok.encode("The cats sleep.").ids == gpt2.encode("The cats sleep.").ids


def test_a_failing_conversion_fails_here_with_its_error():
    calls = []

    def convert():
        calls.append(1)
        raise TokenizerError("models: cannot load tokenizer 'x' (gguf at x.gguf): not a GGUF file")

    with pytest.raises(TokenizerError, match=r"^models: cannot load tokenizer 'x' \(gguf at x.gguf\): not a GGUF file$"):
        convert_apart(convert)
    assert calls == [1]          # the child's attempt is not counted here; this process's is
