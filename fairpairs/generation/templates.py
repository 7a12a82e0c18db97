"""Templates of sentences: the environment paradigm templates are parsed, compiled and rendered in
(generation.sandbox: Jinja2's sandbox, every render bounded in work), and the finishing of a rendered
sentence (spaces, punctuation, capital)."""

from __future__ import annotations

import functools
import re
from typing import Any, Callable

import jinja2
import jinja2.meta
import jinja2.nodes as jn

from fairpairs.generation.sandbox import TemplateFailure, TemplateSandbox, fresh_budget, instrument, render_bounded, unsafe_use


@functools.lru_cache(maxsize=1)
def template_env() -> TemplateSandbox:
    """The one environment every paradigm template is parsed and compiled in."""
    return TemplateSandbox(filters={"cap": cap_first, "lower_first": _lower_first})


def parse_template(source: str) -> tuple[jn.Template, frozenset[str]]:
    """A template text parsed, and the variables it reads. Raises jinja2.TemplateSyntaxError, or
    TemplateFailure for what `unsafe_use` refuses."""
    tree = template_env().parse(source)
    problem = unsafe_use(tree)
    if problem:
        raise TemplateFailure(problem)
    return tree, frozenset(jinja2.meta.find_undeclared_variables(tree))


def compile_bounded(tree: jn.Template) -> jinja2.Template:
    """A parsed template compiled with its budget's checks (`sandbox.instrument`; changes `tree`).
    What Jinja2 computes while compiling (constant expressions) has a budget of its own."""
    env = template_env()
    tree = instrument(tree)
    tree.set_environment(env)
    with fresh_budget():
        return env.from_string(tree)


class JinjaTemplate:
    """A paradigm's template with Jinja2 logic: `render` is `render_bounded`, and a failure is the
    exception `error(message)` makes (generation.slots: a GrammarError naming the paradigm file and
    the template's key), raised without the render's traceback."""

    __slots__ = ("template", "error")

    def __init__(self, template: jinja2.Template, error: Callable[[str], Exception]):
        self.template, self.error = template, error

    def render(self, values: dict) -> str:
        try:
            return render_bounded(self.template, values)
        except TemplateFailure as exc:
            raise self.error(str(exc)) from None


# ---------------------------------------------------------------------------- sentences
def cap_first(text: Any) -> str:
    """The text with its first character upper-cased (the template filter `cap`)."""
    s = str(text)
    return s[:1].upper() + s[1:]


def _lower_first(text: Any) -> str:
    s = str(text)
    return s[:1].lower() + s[1:]


_SPACES = re.compile(r"\s+")
_SPACE_PUNCT = re.compile(r"\s+([.,?!;:])")
_UNTIDY = re.compile(r"\s\s|[^\S ]|\s[.,?!;:]")    # what the two substitutions would change


def finish_sentence(text: str) -> str:
    """Collapse spaces (empty fillers leave doubles), drop spaces before punctuation, capitalise."""
    if _UNTIDY.search(text) is None:     # (most sentences: only single spaces, none before punctuation)
        return cap_first(text.strip())
    text = _SPACE_PUNCT.sub(r"\1", _SPACES.sub(" ", text).strip())
    return cap_first(text)
