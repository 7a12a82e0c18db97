"""A paradigm's templates run in a sandbox with bounded work (issue 45, items 1 and 2).

A grammar folder may come from anyone, so a template must not reach Python (`cycler.__init__.__globals__`
ran shell commands during `generate`), must not hang or exhaust memory (a `range` of 10^8, loops in
loops, a macro that calls itself twice, repetition and concatenation that double), and a template that
fails while rendering must give one line naming the file and `template:` (not a 77-line traceback).
`fairpairs validate` refuses all of them first: the unsafe ones when the file is loaded, the others by
rendering each template on a few draws.

Each hostile template below was run on the code before the sandbox (jinja2.Environment): there
`validate` called every one of them OK (exit 0), `generate` ran the shell command (the mark file was
made) or wrote a sentence thousands of characters long (exit 0), failed with a traceback (1/0, pop,
the recursive macro, include), or did not end (the range, the loops, the doubling macro: stopped by
`deadline` here). So each test of a hostile template below fails on that code, as do the refused
sides of `test_the_documented_bounds`; `test_what_a_template_may_use_still_renders` and the allowed
sides of the bounds pass on both (they guard against a sandbox that refuses too much).
"""

from __future__ import annotations

import contextlib
import signal
import time

import pytest

from fairpairs.generation.grammar import read_paradigm_file
from fairpairs.generation.pairs import Filler

PARADIGM = """uid: {uid}
phenomenon: Determiner-noun agreement
field: morphology
linguistics_term: determiner_noun_agreement
slots:
  verb: {{where: {{category: '(S\\NP)/NP', expression: ate}}}}
  subj: {{where: {{category: N, properNoun: '1', animate: '1'}}, fills: verb.arg_1}}
  obj: {{where: {{category: N, properNoun: '0', mass: '0'}}, fills: verb.arg_2}}
  mode: {{text: [plain, odd]}}
template: |-
  {template}
critical:
  obj: {{form: other_number}}
"""
SENTENCE = "{{ subj }} {{ verb }} {{ obj }}."

# name: (template, what its one line must say). MARK is the file a shell command would make.
HOSTILE = {
    # item 1: reaching Python through a global's function (refused when the file is loaded)
    "cycler_globals": ("{{ cycler.__init__.__globals__.os.popen('touch MARK').read() }}" + SENTENCE,
                       "'__globals__'"),
    "lipsum_globals": ("{{ lipsum.__globals__['os'].popen('touch MARK').read() }}" + SENTENCE, "'__globals__'"),
    "private_getitem": ("{{ subj['__class__'] }}" + SENTENCE, "'__class__'"),
    # an attribute name made while rendering: only the sandbox sees it
    "computed_attribute": ("{{ subj[('__cla' ~ 'ss__')] }}" + SENTENCE, "unsafe"),
    "include": ("{% include 'PARADIGM' %}" + SENTENCE, "may not include"),
    # item 1: work without bound
    "huge_range": ("{% for i in range(100000000) %}{% endfor %}" + SENTENCE, "range of 100000000"),
    "loops_in_loops": ("{% for i in range(1000) %}{% for j in range(1000) %}{% for k in range(1000) %}"
                       "{% endfor %}{% endfor %}{% endfor %}" + SENTENCE, "steps"),
    "doubling_macro": ("{% macro f(n) %}{% if n < 40 %}{{ f(n + 1) }}{{ f(n + 1) }}{% endif %}{% endmacro %}"
                       "{{ f(0) }}" + SENTENCE, "steps"),
    # (sizes that the old code made in a moment: each only has to pass the documented bound of 1000)
    "repeated_word": ("{{ verb.word * 100000 }} " + SENTENCE, "repetition"),
    "doubling_concat": ("{% set a = verb.word %}" + "{% set a = a ~ a %}" * 10 + "{{ a }} " + SENTENCE,
                        "concatenation"),
    "big_power": ("{{ 10 ** 100000 }} " + SENTENCE, "power"),
    "printf_width": ("{{ '%0100000d' % 1 }} " + SENTENCE, "'%' formatting"),
    "padding": ("{{ verb.word.center(100000) }} " + SENTENCE, "center(100000)"),
    # item 2: templates that fail while rendering
    "division": ("{{ 1/0 }}" + SENTENCE, "ZeroDivisionError: division by zero"),
    "pop": ("{{ [].pop() }}" + SENTENCE, "'pop'"),
    "recursive_macro": ("{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}" + SENTENCE, "nested more than"),
    "index": ("{{ subj[100] }}" + SENTENCE, "no element 100"),
    "multiply_filler": ("{{ subj * 1000000 }}" + SENTENCE, "TypeError"),
    # only one variant fails: validate renders every value of a literal slot
    "one_branch": ("{% if mode.word == 'odd' %}{{ 1/0 }}{% endif %}" + SENTENCE, "ZeroDivisionError"),
}


class TookTooLong(BaseException):
    """Raised by `deadline` (a BaseException: no handler of the CLI turns it into an exit code)."""


@contextlib.contextmanager
def deadline(seconds: float):
    """Stop the block with TookTooLong after `seconds` (the old code hung on several templates)."""
    def stop(signum, frame):
        raise TookTooLong(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def write_paradigm(folder, uid, template, mark):
    folder.mkdir(exist_ok=True)
    path = folder / f"{uid}.yaml"
    text = template.replace("MARK", str(mark)).replace("PARADIGM", str(path))
    path.write_text(PARADIGM.format(uid=uid, template=text), encoding="utf-8")
    return path


def one_error_line(text: str, path, needle: str) -> str:
    lines = text.strip().splitlines()
    assert len(lines) == 1, text
    assert f"{path}: template: " in lines[0] and needle in lines[0], lines[0]
    return lines[0]


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_validate_refuses_each_hostile_template(tmp_path, fairpairs_cli, case):
    template, needle = HOSTILE[case]
    mark = tmp_path / "MARK"
    path = write_paradigm(tmp_path / "g", case, template, mark)
    start = time.monotonic()
    with deadline(30):
        r = fairpairs_cli("validate", tmp_path / "g")
    assert r.returncode == 1, r.stdout + r.stderr
    one_error_line(r.stdout, path, needle)
    assert "Traceback" not in r.stdout + r.stderr
    assert not mark.exists()
    assert time.monotonic() - start < 30


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_generate_refuses_each_hostile_template_and_writes_nothing(tmp_path, fairpairs_cli, case):
    template, needle = HOSTILE[case]
    mark = tmp_path / "MARK"
    path = write_paradigm(tmp_path / "g", case, template, mark)
    with deadline(60):
        r = fairpairs_cli("generate", "--grammars", tmp_path / "g", "--paradigms", case, "--models", "gpt2",
                          "--pairs", "3", "--quiet", "--out", tmp_path / "out")
    assert r.returncode == 1, r.stdout + r.stderr
    line = one_error_line(r.stderr, path, needle)
    assert line.startswith("fairpairs: error: ")
    assert "Traceback" not in r.stdout + r.stderr
    assert not mark.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g"]      # no output folder, no mark


def test_a_failure_mid_run_leaves_nothing(tmp_path, fairpairs_cli):
    """The first paradigm generates; the second fails at its first 'odd' draw: the run writes nothing."""
    write_paradigm(tmp_path / "g", "a_fine", SENTENCE, tmp_path / "MARK")
    bad = write_paradigm(tmp_path / "g", "b_broken", HOSTILE["one_branch"][0], tmp_path / "MARK")
    with deadline(60):
        r = fairpairs_cli("generate", "--grammars", tmp_path / "g", "--paradigms", "a_fine,b_broken",
                          "--models", "gpt2", "--pairs", "20", "--quiet", "--out", tmp_path / "out")
    assert r.returncode == 1
    one_error_line(r.stderr, bad, "ZeroDivisionError")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g"]


def test_validate_renders_every_literal_variant(tmp_path):
    """Loading alone cannot see a failure inside one branch of an {% if %}: validate's renders do."""
    from fairpairs.generation.selection import validate_paradigms

    path = write_paradigm(tmp_path, "one_branch", HOSTILE["one_branch"][0], tmp_path / "MARK")
    assert read_paradigm_file(path).uid == "one_branch"
    [(_, err)] = validate_paradigms([path])
    assert str(err).startswith(f"{path}: template: ") and "ZeroDivisionError" in str(err)


def fillers(**words) -> dict[str, Filler]:
    return {n: Filler(None, -1, literal=w) for n, w in words.items()}


def test_what_a_template_may_use_still_renders(tmp_path):
    """grammars/README.md's list: filters (cap, lower_first, Jinja2's own), methods that read
    (split), macros, {% set %}, {% if %} and bounded loops; expected text written by hand."""
    template = ("{% macro np(x) %}{{ x|upper }}{% endmacro %}{% set parts = verb.word.split('|') %}"
                "{{ np(subj) }} {{ parts[1] }}{% for i in range(2) %} {{ obj.word|cap }}{% endfor %}"
                "{% if mode.word == 'odd' %} {{ 'Odd'|lower_first }}{% endif %}.")
    p = read_paradigm_file(write_paradigm(tmp_path, "allowed", template, tmp_path / "MARK"))
    text = p.good_template.render(fillers(subj="john", verb="ate|eats", obj="cake", mode="odd"))
    assert text == "JOHN eats Cake Cake odd."


@pytest.mark.parametrize("body, ok", [("{% for i in range(1000) %}{% endfor %}", True),
                                      ("{% for i in range(1001) %}{% endfor %}", False),
                                      ("{{ 'ab' * 500 }}", True), ("{{ 'ab' * 501 }}", False),
                                      ("{{ ('ab' * 250) ~ ('ab' * 250) }}", True),
                                      ("{{ ('ab' * 250) ~ ('ab' * 250) ~ 'c' }}", False),
                                      ("{% for i in range(500) %}{{ 'abcdefghij' ~ 'klmnopqrst' }}{% endfor %}", True),
                                      ("{% for i in range(501) %}{{ 'abcdefghij' ~ 'klmnopqrst' }}{% endfor %}", False)])
def test_the_documented_bounds(tmp_path, body, ok):
    """grammars/README.md: a range, a repetition or a concatenation makes at most 1000 items, and
    loop bodies write at most 10,000 characters (500 x 20 is the most)."""
    from fairpairs.errors import GrammarError

    p = read_paradigm_file(write_paradigm(tmp_path, "bound", body + SENTENCE, tmp_path / "MARK"))
    values = fillers(subj="John", verb="ate", obj="cake", mode="plain")
    if ok:
        assert p.good_template.render(values).endswith("John ate cake.")
    else:
        with pytest.raises(GrammarError, match="template: fails to render"):
            p.good_template.render(values)
