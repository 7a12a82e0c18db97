"""Room for a model (fairpairs.scoring.memory; issue 49, item 3): what generation kept is dropped
before a model loads, and on the CPU freed tensors go back to the system."""

from __future__ import annotations

import platform
import subprocess
import sys
import textwrap

import pytest

GLIBC = platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"


def test_make_room_drops_the_tokenizers_and_frequencies_generation_kept():
    """Before: the same tokenizer object comes back (kept) and the Zipf cache holds the word; after
    `make_room` both are built again (without it the first assertion after the call fails)."""
    import wordfreq

    from fairpairs.control.balance_measures import zipf
    from fairpairs.scoring.memory import make_room
    from fairpairs.tokenization.lengths import load_backend

    kept = load_backend("gpt2")
    assert load_backend("gpt2") is kept
    value = zipf("house")
    wordfreq.get_frequency_dict("en")       # (read here: an earlier test's lookup may have been cached above it)
    assert zipf.cache_info().currsize >= 1 and wordfreq.get_frequency_dict.cache_info().currsize >= 1
    make_room()
    assert load_backend("gpt2") is not kept
    assert zipf.cache_info().currsize == 0 and wordfreq.get_frequency_dict.cache_info().currsize == 0
    assert zipf("house") == value      # (read again, the same)


FRAGMENTS = textwrap.dedent("""
    import sys
    import numpy as np

    def rss_mb():
        for line in open("/proc/self/status"):
            if line.startswith("VmRSS"):
                return int(line.split()[1]) // 1024

    if sys.argv[1] == "set":
        from fairpairs.scoring.memory import return_freed_tensors
        assert return_freed_tensors("cpu")
    big = np.ones(8 << 20, dtype=np.uint8)     # a mapping freed: glibc's dynamic threshold rises to 8 MiB
    del big
    blocks, pins = [], []
    for _ in range(20):                       # 4 MiB blocks, each followed by a small one kept alive
        blocks.append(np.ones(4 << 20, dtype=np.uint8))
        pins.append(np.ones(64 << 10, dtype=np.uint8))
    before = rss_mb()
    del blocks
    print(before - rss_mb())
""")


@pytest.mark.skipif(not GLIBC, reason="the mmap threshold is glibc's; elsewhere nothing is set")
def test_on_the_cpu_freed_tensors_go_back_to_the_system():
    """glibc's own behaviour, shown first (a fresh process each): after a large block was freed,
    20 blocks of 4 MiB between small live ones come from the heap and stay in the process when freed
    (0 MB returned, of 80); with the threshold set, each is a mapping of its own and the 80 MB go back."""
    def returned(mode):
        out = subprocess.run([sys.executable, "-c", FRAGMENTS, mode], capture_output=True, text=True, check=True)
        return int(out.stdout)

    assert returned("default") < 20
    assert returned("set") >= 70


def test_the_threshold_is_set_on_the_cpu_only():
    from fairpairs.scoring.memory import return_freed_tensors

    assert return_freed_tensors("cuda:0") is False
    assert return_freed_tensors("meta") is False
