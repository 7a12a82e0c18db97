"""Issue 22 item 2: the ranks of a multi-process launch agree on what they score before they share
the work - model (config and a digest of its weights, its resolved files), tokenizer, scorer
settings and input - and on any disagreement every rank stops with one line naming what differs.

Here: the identities of real (tiny, random) models loaded from disk (the `checkpoints` of
tests/conftest.py), compared in this process. That a real launch whose ranks differ stops every rank
with one line is tests/test_distributed.py's `test_a_launch_whose_ranks_differ_stops_every_rank_with_one_line`
(two jobs of its shared launch).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from fairpairs.scoring import Scorer

SENTENCES = ["The cat sat.", "The cats sat.", "Every dog barks.", "Every dogs barks."]

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def loaded(folder: Path, monkeypatch, name: str = "model", **kw) -> Scorer:
    """A scorer of the checkpoint in `folder`, loaded by the relative path `name` (as a rank
    started in that folder would)."""
    from fairpairs.tokenization.lengths import _backend, _load

    monkeypatch.chdir(folder.parent)
    _load.cache_clear()      # (tokenizers are cached by their path as given: here one relative path, two cwds)
    _backend.cache_clear()
    link = folder.parent / name
    if not link.exists():
        link.symlink_to(folder.name)
    return Scorer.from_pretrained(name, **kw)


def test_identities_of_real_models_name_what_differs(checkpoints, tmp_path, monkeypatch):
    from fairpairs.scoring.launch import disagreement

    a = tmp_path / "a"
    b = tmp_path / "b"
    for d, seed in ((a, 0), (b, 1)):
        d.mkdir()
        shutil.copytree(checkpoints[seed], d / "ckpt")
    s0, s1 = loaded(a / "ckpt", monkeypatch), loaded(b / "ckpt", monkeypatch)
    assert s0.name == s1.name == "model"
    same = s0.identity(SENTENCES, ("lp",))
    assert disagreement([same, s0.identity(SENTENCES, ("lp",))]) is None
    # another checkpoint at the same name: same config, other weights
    msg = disagreement([same, s1.identity(SENTENCES, ("lp",))])
    assert msg.startswith(f"the model: rank 1 has a different checkpoint ({os.path.realpath(b / 'ckpt')}; rank 0: "
                          f"{os.path.realpath(a / 'ckpt')}) (weights digest ")
    # settings and input
    msg = disagreement([same, s0.identity(SENTENCES, ("lp", "pen_lp"), alpha=0.5)])
    assert msg == "the scorer settings: `normalize` is ['lp'] on rank 0 but ['lp', 'pen_lp'] on rank 1"
    msg = disagreement([same, s0.identity(SENTENCES[:3], ("lp",))])
    assert msg.startswith("the input: rank 1 has 3 sentence(s) (sha256 ") and "rank 0 4 (" in msg
    # the tokenizer alone: the same weights with two token ids swapped in the tokenizer's vocabulary
    c = tmp_path / "c"
    shutil.copytree(a, c, symlinks=True)
    spec = json.loads((c / "ckpt" / "tokenizer.json").read_text())
    vocab = spec["model"]["vocab"]
    vocab["Hello"], vocab["ĠWorld"] = vocab["ĠWorld"], vocab["Hello"]
    (c / "ckpt" / "tokenizer.json").write_text(json.dumps(spec))
    s2 = loaded(c / "ckpt", monkeypatch)
    msg = disagreement([same, s2.identity(SENTENCES, ("lp",))])
    assert msg.startswith("the tokenizer of model: rank 1 has another (sha256 ")
    # three ranks: the first that differs is named
    assert disagreement([same, same, s1.identity(SENTENCES, ("lp",))]).startswith(
        "the model: rank 2 has a different checkpoint")
