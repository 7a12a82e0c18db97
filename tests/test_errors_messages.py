"""Messages that name what is at fault (issue 45, item 10).

Before issue 45: a `--corpus` of fit-length that is not UTF-8 ended in "text that is not UTF-8"
naming neither the option nor the file; the advice for length parameters fitted for another model
named the deprecated `--model`; a `--out` that is a symbolic link to a folder was "not a folder";
a write the operating system refused ("No space left on device", "File too large") named no file,
as the OS names none. (One-step evaluate of a paradigm nothing can be kept of: tests/test_empty_runs.py.)

The disk-full case fakes the OS's answer to a write (the file object's write raises ENOSPC, as the
kernel's does); the file-too-large case is the real one, a process whose file size limit
(RLIMIT_FSIZE) is below what it writes.
"""

from __future__ import annotations

import errno
import os
import random
import string
import subprocess
from pathlib import Path

import fairpairs as fp

CHECKOUT = Path(__file__).resolve().parents[1]
UID = "determiner_noun_agreement_1"


def one_line(result) -> str:
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 1 and len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    return lines[0]


def test_a_corpus_that_is_not_utf8_names_the_option_and_the_file(tmp_path, fairpairs_cli):
    bad = tmp_path / "latin1.txt"
    bad.write_bytes("Caf\u00e9 au lait is a drink.\n".encode("latin-1"))      # é is byte 3, 0xE9
    r = fairpairs_cli("fit-length", "--models", "gpt2", "--corpus", bad, "--out", tmp_path / "p.json")
    assert one_line(r) == f"fairpairs: error: --corpus {bad}: file is not UTF-8 text (byte 3)"
    assert not (tmp_path / "p.json").exists()


def test_the_advice_for_another_models_length_parameters_names_models(checkpoints, tmp_path, fairpairs_cli):
    params = tmp_path / "p.json"
    r = fairpairs_cli("fit-length", "--models", checkpoints[0], "--sentences", "10", "--out", params)
    assert r.returncode == 0, r.stderr
    sentences = tmp_path / "s.txt"
    sentences.write_text("The cat sat.\n", encoding="utf-8")
    r = fairpairs_cli("score", "--models", checkpoints[1], "--input", sentences, "--normalize", "tc_lp",
                      "--length-params", params, "--out", tmp_path / "s.jsonl")
    line = one_line(r)
    assert f"fit them for it with `fairpairs fit-length --models {checkpoints[1]} --out FILE`" in line, line
    assert "--model " not in line


def test_a_symlinked_out_folder_is_named_a_link(tmp_path, fairpairs_cli):
    run = tmp_path / "run"
    fp.generate_run(run, UID, ["gpt2"], pairs=2)
    before = sorted(p.relative_to(run) for p in run.rglob("*"))
    link = tmp_path / "link"
    link.symlink_to("run", target_is_directory=True)
    r = fairpairs_cli("generate", "--paradigms", UID, "--models", "gpt2", "--pairs", "2", "--quiet", "--out", link)
    assert one_line(r) == (f"fairpairs: error: --out {link}: is a symbolic link (to run); an output folder is "
                           f"replaced whole, which would replace the link and not its folder: give the folder itself "
                           f"({os.path.realpath(run)})")
    assert link.is_symlink() and sorted(p.relative_to(run) for p in run.rglob("*")) == before


class _FullDisk:
    """A file object whose writes fail as the kernel's do on a full disk."""

    def __init__(self, fh):
        self.fh = fh

    def write(self, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.fh.close()
        return False


def test_a_full_disk_names_the_file(tmp_path, monkeypatch, fairpairs_cli):
    corpus = tmp_path / "c.txt"
    corpus.write_text("The cat sat on the mat.\n", encoding="utf-8")
    real = os.fdopen
    monkeypatch.setattr(os, "fdopen", lambda fd, *a, **k: _FullDisk(real(fd, *a, **k)))
    r = fairpairs_cli("unigrams", "--models", "gpt2", "--corpus", corpus, "--out", tmp_path / "u.json")
    assert one_line(r) == f"fairpairs: error: {tmp_path / 'u.json'}: cannot write (No space left on device)"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.txt"]      # no temporary file left


def limited(fairpairs_cli, args, cwd: Path, size: int) -> subprocess.CompletedProcess:
    """`fairpairs ARGS` in a process that may write no file larger than `size` bytes."""
    import resource

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
    env = {**os.environ, "PYTHONPATH": str(CHECKOUT), "HF_HUB_OFFLINE": "1", "XDG_CACHE_HOME": str(cwd / "cache")}
    return fairpairs_cli.process(*args, cwd=cwd, env=env, preexec_fn=limit, timeout=600)


def test_a_file_too_large_names_the_file_and_writes_nothing(tmp_path, fairpairs_cli):
    rng = random.Random(0)      # random letters: thousands of token types, a table of well over 16 kB
    words = " ".join("".join(rng.choice(string.ascii_lowercase) for _ in range(7)) for _ in range(8000))
    (tmp_path / "corpus.txt").write_text(words + "\n", encoding="utf-8")
    r = limited(fairpairs_cli, ["unigrams", "--models", "gpt2", "--corpus", "corpus.txt", "--out", "u.json"], tmp_path,
                16_000)
    assert one_line(r) == "fairpairs: error: u.json: cannot write (File too large)"
    r = limited(fairpairs_cli, ["generate", "--paradigms", UID, "--models", "gpt2", "--pairs", "60", "--quiet", "--out",
                                "run"], tmp_path, 16_000)
    assert one_line(r) == (f"fairpairs: error: --out run: cannot write the output folder (run/original/{UID}.jsonl): "
                           "File too large; nothing was written")
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "cache") == ["corpus.txt"]
