"""Seeding draw streams in bulk: np.random.default_rng([seed, uid, k]) without a SeedSequence each.

default_rng([seed, uid, k]) is PCG64(SeedSequence([seed, uid, k])); making a SeedSequence costs
several times the draw it seeds. `seed_words` computes what SeedSequence(entropy).generate_state(4,
uint64) gives for many entropies at once (NumPy's documented algorithm: hashmix/mix over a pool of
4 words, then the output hash), and `stream` builds the generator from them; the tests check both
against NumPy. `copy_stream` copies a generator in its state.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from numpy.random.bit_generator import ISeedSequence

_INIT_A, _MULT_A, _INIT_B, _MULT_B = 0x43B0D7E5, 0x931E8875, 0x8B51F9DD, 0x58F38DED
_MIX_L, _MIX_R = 0xCA01F9DD, 0x4973F715
WORD = 0xFFFFFFFF        # the largest entropy value `seed_words` takes (one 32-bit word)


def _hash_consts(n: int, init: int, mult: int) -> list[tuple[int, int]]:
    """(constant xor-ed in, constant multiplied by) of the first n hash steps."""
    out, h = [], init
    for _ in range(n):
        nxt = (h * mult) & WORD
        out.append((h, nxt))
        h = nxt
    return out


@lru_cache(maxsize=1)
def _constants() -> tuple[list, list]:
    return _hash_consts(16, _INIT_A, _MULT_A), _hash_consts(8, _INIT_B, _MULT_B)


def seed_words(entropy: np.ndarray) -> np.ndarray:
    """(n, 3) entropies of values 0..WORD -> (n, 4) uint64: SeedSequence(row).generate_state(4, np.uint64)."""
    a, b = _constants()
    e = np.asarray(entropy, dtype=np.uint32).T
    sh = np.uint32(16)

    def hashmix(value, i):
        value = (value ^ np.uint32(a[i][0])) * np.uint32(a[i][1])
        return value ^ (value >> sh)

    def mix(x, y):
        r = np.uint32(_MIX_L) * x - np.uint32(_MIX_R) * y
        return r ^ (r >> sh)

    pool = [hashmix(e[i] if i < len(e) else np.zeros(e.shape[1], dtype=np.uint32), i) for i in range(4)]
    c = 4
    for src in range(4):
        for dst in range(4):
            if src != dst:
                pool[dst] = mix(pool[dst], hashmix(pool[src], c))
                c += 1
    out = np.empty((e.shape[1], 8), dtype=np.uint32)
    for i in range(8):
        v = (pool[i % 4] ^ np.uint32(b[i][0])) * np.uint32(b[i][1])
        out[:, i] = v ^ (v >> sh)
    return out.view("<u8")


class ReadySeed(ISeedSequence):
    """A seed sequence whose generate_state(4, uint64) is already known (`seed_words`); any other
    request is answered by a real SeedSequence of the entropy."""

    def __init__(self, words: np.ndarray, entropy: list[int] | None):
        self.words, self.entropy = words, entropy

    def generate_state(self, n_words, dtype=np.uint32):
        if n_words == 4 and np.dtype(dtype) == np.uint64:
            return self.words.copy()
        return np.random.SeedSequence(self.entropy).generate_state(n_words, dtype)


def stream(words: np.ndarray, entropy: list[int]) -> np.random.Generator:
    """default_rng(entropy), given its `seed_words`."""
    return np.random.Generator(np.random.PCG64(ReadySeed(words, entropy)))


def copy_stream(rng: np.random.Generator | None) -> np.random.Generator | None:
    """The same stream in its current state (a fraction of copy.deepcopy's time; pairs are copied often)."""
    if rng is None:
        return None
    bg = rng.bit_generator
    return from_state(type(bg), bg.state)


def from_state(kind, state: dict) -> np.random.Generator:
    """A generator of bit generator `kind` in `state` (made from ready seed words, skipping a
    SeedSequence's cost, then set: the seed does not matter)."""
    fresh = kind(ReadySeed(np.zeros(4, dtype=np.uint64), None)) if kind is np.random.PCG64 else kind(0)
    fresh.state = state
    return np.random.Generator(fresh)
