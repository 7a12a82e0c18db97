"""Progress is one module switch (issue 37): `fp.disable_progress_bars()` / `fp.enable_progress_bars()`,
the environment variable FAIRPAIRS_DISABLE_PROGRESS_BARS, the default (a bar where someone watches),
the deprecated `progress=` of the public calls (a warning, and it applies to that call only) and the
CLI's flags (for their command only). Whether a bar was drawn is read from what reached stderr (tqdm's
own "NN%|" bar and the line before it), not from our code's bookkeeping. (The non-zero ranks of a
torchrun launch: tests/test_distributed.py, which reads each rank's stderr.)"""

from __future__ import annotations

import io
import sys
import warnings

import pytest

import fairpairs as fp
from fairpairs.errors import FairpairsDeprecationWarning
from fairpairs.io import progress

ENV = "FAIRPAIRS_DISABLE_PROGRESS_BARS"


class Terminal(io.StringIO):
    """stderr that says it is a terminal, as a user's is."""

    def isatty(self):
        return True


@pytest.fixture(autouse=True)
def default_state(monkeypatch):
    """Every test starts from the default (automatic, no variable) and leaves it so."""
    monkeypatch.delenv(ENV, raising=False)
    with progress.scoped(None):     # (restores the switch after the test)
        yield


def drawn(stream) -> bool:
    """Whether tqdm drew a bar on `stream` (its "0%|" at the start)."""
    return "%|" in stream.getvalue()


def make_bar(stream, monkeypatch):
    monkeypatch.setattr(sys, "stderr", stream)
    with progress.bar(3, "work", first="doing 3 things") as b:
        b.update(3)
    return stream.getvalue()


def test_default_draws_where_someone_watches_and_nowhere_else(monkeypatch):
    assert "doing 3 things" in make_bar(Terminal(), monkeypatch) and drawn(sys.stderr)
    assert make_bar(io.StringIO(), monkeypatch) == ""       # a pipe, a log, a test
    assert fp.are_progress_bars_disabled()                  # (stderr is that pipe now)


def test_the_switch_turns_every_bar_off_and_on(monkeypatch):
    fp.disable_progress_bars()
    assert fp.are_progress_bars_disabled()
    assert make_bar(Terminal(), monkeypatch) == ""          # even in a terminal
    fp.enable_progress_bars()
    assert not fp.are_progress_bars_disabled()
    pipe = io.StringIO()
    assert "doing 3 things" in make_bar(pipe, monkeypatch) and drawn(pipe)   # even in a log


def test_the_variable_is_read_when_a_bar_is_made_and_wins(monkeypatch):
    import fairpairs.api  # noqa: F401  (imported before the variable is set: read later, not at import)

    monkeypatch.setenv(ENV, "1")
    assert make_bar(Terminal(), monkeypatch) == ""
    assert fp.are_progress_bars_disabled()
    fp.enable_progress_bars()                                # as HF_HUB_DISABLE_PROGRESS_BARS: it wins
    assert make_bar(Terminal(), monkeypatch) == ""
    for off in ("0", "false", "", "OFF"):
        monkeypatch.setenv(ENV, off)
        assert "doing" in make_bar(Terminal(), monkeypatch)
    monkeypatch.setenv(ENV, "maybe")
    with pytest.raises(ValueError, match=f"{ENV}='maybe': expected 1"):
        make_bar(Terminal(), monkeypatch)


def test_a_deprecated_progress_argument_warns_and_applies_to_its_call_only(tmp_path, monkeypatch, capsys):
    with pytest.warns(FairpairsDeprecationWarning, match=r"generate_run\(\): `progress` is deprecated .* "
                                                         r"fp\.enable_progress_bars\(\)") as got:
        fp.generate_run(tmp_path / "a", paradigms=["causative"], models=["gpt2"], pairs=4, progress=True)
    ours = [w for w in got if issubclass(w.category, FairpairsDeprecationWarning)]
    assert len(ours) == 1 and ours[0].filename == __file__  # once, at the caller's line, not ours
    err = capsys.readouterr().err
    assert "generating 1 paradigm x 4 pairs" in err and "%|" in err   # shown although stderr is no terminal
    assert fp.are_progress_bars_disabled()                  # and only for that call

    monkeypatch.setattr(sys, "stderr", Terminal())
    with pytest.warns(FairpairsDeprecationWarning, match=r"fp\.disable_progress_bars\(\)"):
        fp.publish(tmp_path / "a", "me/x", out=tmp_path / "hub", set="both", dry_run=True, progress=False)
    assert "writing" not in sys.stderr.getvalue() and not drawn(sys.stderr)   # hidden in a terminal
    assert not fp.are_progress_bars_disabled()              # the terminal gets bars again
    with warnings.catch_warnings():
        warnings.simplefilter("error")                      # not given: no warning
        fp.publish(tmp_path / "a", "me/x", out=tmp_path / "hub", set="both", dry_run=True)
    assert "dataset configs to" in sys.stderr.getvalue() and drawn(sys.stderr)
    with pytest.raises(TypeError, match="progress: expected True, False or None, not str"):
        fp.publish(tmp_path / "a", "me/x", out=tmp_path / "hub", dry_run=True, progress="yes")


def test_cli_flags_flip_the_switch_for_their_command_only(tmp_path, tiny_models, fairpairs_cli):
    (tmp_path / "s.txt").write_text("A dog barks.\nThe cats sleep.\n")
    score = ["score", "--model", tiny_models["gpt2"], "--input", tmp_path / "s.txt", "--normalize", ""]

    def run(args):
        code, _, err = fairpairs_cli(*args)
        assert code == 0
        return err

    assert "%|" not in run([*score, "--out", tmp_path / "a.csv"])        # stderr is no terminal here
    err = run([*score, "--out", tmp_path / "b.csv", "--progress"])
    assert "scoring 2 sentences with" in err and "%|" in err
    assert fp.are_progress_bars_disabled()                              # the command's only
    fp.enable_progress_bars()
    err = run([*score, "--out", tmp_path / "c.csv", "--no-progress"])
    assert "scoring " not in err and "%|" not in err
    assert not fp.are_progress_bars_disabled()                          # the user's switch is back
    err = run(["generate", "--paradigms", "causative", "--pairs", "3", "--models", "gpt2", "--out", tmp_path / "r",
               "--quiet"])
    assert "generating" not in err and "%|" not in err                  # --quiet beats the user's switch


def test_inner_loops_and_later_ranks_are_suppressed_only_inside_the_block(monkeypatch):
    monkeypatch.setattr(sys, "stderr", Terminal())
    with progress.suppressed():
        with progress.bar(3, "inner", first="inner work") as b:
            b.update(3)
        with progress.suppressed(False):                    # (rank 0 inside: nothing changes)
            assert progress.are_progress_bars_disabled()
    assert sys.stderr.getvalue() == ""
    assert not progress.are_progress_bars_disabled()
