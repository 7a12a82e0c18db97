"""Templates of sentences: jinja2 with a plain-substitution fast path, and the finishing of a
rendered sentence (spaces, punctuation, capital)."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any
import jinja2
import jinja2.meta


# ---------------------------------------------------------------------------- templates
def cap_first(text: Any) -> str:
    """The text with its first character upper-cased (the template filter `cap`)."""
    s = str(text)
    return s[:1].upper() + s[1:]


def _lower_first(text: Any) -> str:
    s = str(text)
    return s[:1].lower() + s[1:]


@lru_cache(maxsize=1)
def template_env() -> jinja2.Environment:
    env = jinja2.Environment(undefined=jinja2.StrictUndefined, autoescape=False, keep_trailing_newline=False)
    env.filters["cap"] = cap_first
    env.filters["lower_first"] = _lower_first
    return env


_SPACES = re.compile(r"\s+")
_SPACE_PUNCT = re.compile(r"\s+([.,?!;:])")


_UNTIDY = re.compile(r"\s\s|[^\S ]|\s[.,?!;:]")    # what the two substitutions would change


def finish_sentence(text: str) -> str:
    """Collapse spaces (empty fillers leave doubles), drop spaces before punctuation, capitalise."""
    if _UNTIDY.search(text) is None:     # (most sentences: only single spaces, none before punctuation)
        return cap_first(text.strip())
    text = _SPACE_PUNCT.sub(r"\1", _SPACES.sub(" ", text).strip())
    return cap_first(text)
