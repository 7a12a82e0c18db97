"""Compiling a paradigm file's slots and templates: what each slot draws (vocabulary restrictions,
agreement, articles), whether the vocabulary can satisfy them, their order, and the templates;
errors name the file and key."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
import jinja2
import numpy as np
from fairpairs.errors import GrammarError, VocabularyError
from fairpairs.generation.vocab import Vocabulary
from fairpairs.generation.restrictions import RESTRICTION_COLUMNS
from fairpairs.generation.sandbox import TemplateFailure
from fairpairs.generation.templates import JinjaTemplate, compile_bounded, parse_template


META_KEYS = ("uid", "phenomenon", "field", "linguistics_term")
FIELDS = ("morphology", "syntax", "semantics", "syntax_semantics")   # BLiMP's `field` values
TOP_KEYS = {*META_KEYS, "description", "standard", "slots", "template", "good", "bad", "critical",
            "reorder", "examples", "include", "defs", "language", "rules",
            "lexically_identical", "one_prefix", "two_prefix"}   # BLiMP's per-paradigm flags
SLOT_KEYS = {"where", "where_not", "fills", "fails", "takes", "rejects", "same", "differ",
             "distinct_from", "det", "note", "text", "use", "article"}
CRITICAL_KEYS = SLOT_KEYS - {"det", "article"} | {"form"}
ARTICLE_FEATURES = ("number", "gender", "case", "person")   # the columns an article rule is told
DET_KEYS = {"where", "where_not"}
DEFAULT_DET = {"category_2": "D"}
ARG_RE = re.compile(r"^([A-Za-z_][\w]*)\.(arg_1|arg_2|arg_3|arg_clause)$")


@dataclass
class SlotSpec:
    """One slot (or the bad-sentence spec of a critical slot), compiled against a vocabulary."""

    name: str
    key: str                      # the YAML path, for error messages
    base: np.ndarray              # row indices allowed by where/where_not (static part)
    fills: list[tuple[str, str]] = field(default_factory=list)     # (slot, arg): row satisfies slot.arg
    fails: list[tuple[str, str]] = field(default_factory=list)     # row does not satisfy slot.arg
    takes: list[tuple[str, str]] = field(default_factory=list)     # (arg, slot): slot satisfies row.arg
    rejects: list[tuple[str, str]] = field(default_factory=list)   # slot does not satisfy row.arg
    same: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)
    differ: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)
    distinct_from: list[str] = field(default_factory=list)
    det_base: np.ndarray | None = None     # determiner rows, when the slot is a determiner phrase
    form: Any = None                       # bad only: "other_number" or {column: value}
    has_where: bool = False
    text: tuple[str, ...] = ()             # a literal slot: one of these strings, no vocabulary row
    named: tuple[str, ...] = ()            # vocabulary columns the file names for the slot (where,
                                           # where_not, same, differ): the features a balance report compares
    article: str = ""                      # "definite"/"indefinite": the determiner is the language's article
    article_of: np.ndarray | None = None   # with article: row -> its article's row (-1: no article)

    def references(self) -> set[str]:
        refs = {s for s, _ in self.fills} | {s for s, _ in self.fails}
        refs |= {s for _, s in self.takes} | {s for _, s in self.rejects}
        refs |= {s for s, _ in self.same} | {s for s, _ in self.differ} | set(self.distinct_from)
        return refs


# ---------------------------------------------------------------------------- loading
class ParseContext:
    """Builds `file: key: message` errors."""

    def __init__(self, path: Path):
        self.path = path

    def error(self, key: str, message: str) -> GrammarError:
        return GrammarError(f"{self.path}: {key}: {message}")


def as_list(value) -> list:
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


def compile_slot(ctx: ParseContext, name: str, key: str, spec: Any, vocab: Vocabulary, slot_names: set[str],
                 *, critical: bool, language: Any = None) -> SlotSpec:
    if spec is None:
        spec = {}
    if not isinstance(spec, dict):
        raise ctx.error(key, "must be a mapping of constraints")
    allowed = CRITICAL_KEYS if critical else SLOT_KEYS
    for k in spec:
        if k not in allowed:
            raise ctx.error(f"{key}.{k}", f"unknown key (allowed: {', '.join(sorted(allowed))})")
    if "text" in spec:
        return _literal_slot(ctx, name, key, spec)
    if spec.get("article") is not None and spec.get("det") not in (None, False):
        raise ctx.error(f"{key}.article", "give det (a determiner from the table) or article (the language's), not both")
    out = SlotSpec(name=name, key=key, base=np.flatnonzero(_where_mask(ctx, key, spec, vocab)),
                   has_where=bool(spec.get("where") or spec.get("where_not")))
    _compile_references(ctx, key, spec, out, vocab, slot_names)
    named = [c for sub in ("where", "where_not") for c in (spec.get(sub) or {})]
    named += [c for _, cols in out.same + out.differ for c in cols]
    out.named = tuple(dict.fromkeys(named))
    det = spec.get("det")
    if det is not None and det is not False:
        out.det_base = _det_base(ctx, key, {} if det is True else det, vocab)
    if spec.get("article") is not None:
        _compile_article(ctx, key, spec["article"], out, vocab, language)
    if critical and "form" in spec:
        out.form = _form(ctx, key, spec["form"], vocab)
    if not len(out.base):
        raise ctx.error(key, "no vocabulary row satisfies where/where_not (slot has no candidate word)")
    return out


def _literal_slot(ctx: ParseContext, name: str, key: str, spec: dict) -> SlotSpec:
    words = spec["text"]
    words = [words] if isinstance(words, str) else words
    if not isinstance(words, list) or not words or not all(isinstance(w, str) for w in words):
        raise ctx.error(f"{key}.text", "must be a string or a non-empty list of strings")
    others = set(spec) - {"text", "note"}
    if others:
        raise ctx.error(f"{key}.{sorted(others)[0]}", "a literal (text) slot takes no vocabulary constraints")
    return SlotSpec(name=name, key=key, base=np.arange(len(words)), text=tuple(words), has_where=True)


def _where_mask(ctx: ParseContext, key: str, spec: dict, vocab: Vocabulary) -> np.ndarray:
    """The vocabulary rows a slot's where / where_not select."""
    mask = np.ones(len(vocab), dtype=bool)
    for sub in ("where", "where_not"):
        part = spec.get(sub) or {}
        if not isinstance(part, dict):
            raise ctx.error(f"{key}.{sub}", "must map vocabulary columns to values")
        for col, val in part.items():  # one column at a time, so an error names its key
            try:
                mask &= vocab.select({col: val}) if sub == "where" else vocab.select(None, {col: val})
            except VocabularyError as exc:
                raise ctx.error(f"{key}.{sub}.{col}", str(exc)) from None
    return mask


def _compile_references(ctx: ParseContext, key: str, spec: dict, out: SlotSpec, vocab: Vocabulary,
                        slot_names: set[str]) -> None:
    """A slot's constraints against other slots (fills, fails, takes, rejects, same, differ,
    distinct_from), checked and added to `out`."""
    def check_slot(ref: Any, where: str) -> str:
        if not isinstance(ref, str) or ref not in slot_names:
            raise ctx.error(where, f"undefined slot {ref!r} (slots: {', '.join(sorted(slot_names))})")
        return ref

    def mapping(sub: str, what: str) -> dict:
        part = spec.get(sub) or {}
        if not isinstance(part, dict):
            raise ctx.error(f"{key}.{sub}", what)
        return part

    for sub in ("fills", "fails"):
        for item in as_list(spec.get(sub)):
            m = ARG_RE.match(str(item))
            if not m:
                raise ctx.error(f"{key}.{sub}", f"{item!r} is not of the form <slot>.arg_1|arg_2|arg_3|arg_clause")
            getattr(out, sub).append((check_slot(m.group(1), f"{key}.{sub}"), m.group(2)))
    for sub in ("takes", "rejects"):
        for arg, refs in mapping(sub, "must map arg_1/arg_2/arg_3/arg_clause to slot names").items():
            if arg not in RESTRICTION_COLUMNS:
                raise ctx.error(f"{key}.{sub}.{arg}", f"not a restriction column ({', '.join(RESTRICTION_COLUMNS)})")
            for ref in as_list(refs):
                getattr(out, sub).append((arg, check_slot(ref, f"{key}.{sub}.{arg}")))
    for sub in ("same", "differ"):
        for ref, cols in mapping(sub, "must map slot names to lists of vocabulary columns").items():
            check_slot(ref, f"{key}.{sub}")
            cols = tuple(str(c) for c in as_list(cols))
            for c in cols:
                if c not in vocab.columns:
                    raise ctx.error(f"{key}.{sub}.{ref}", f"unknown vocabulary column {c!r}")
            getattr(out, sub).append((ref, cols))
    out.distinct_from = [check_slot(r, f"{key}.distinct_from") for r in as_list(spec.get("distinct_from"))]


def _det_base(ctx: ParseContext, key: str, det: Any, vocab: Vocabulary) -> np.ndarray:
    """The determiner rows a slot's `det:` allows."""
    if not isinstance(det, dict) or set(det) - DET_KEYS:
        raise ctx.error(f"{key}.det", "must be true or a mapping with where / where_not")
    where = {**DEFAULT_DET, **(det.get("where") or {})}
    try:
        dmask = vocab.select(where, det.get("where_not"))
    except VocabularyError as exc:
        raise ctx.error(f"{key}.det", str(exc)) from None
    rows = np.flatnonzero(dmask)
    if not len(rows):
        raise ctx.error(f"{key}.det", "no determiner in the vocabulary matches")
    return rows


def _form(ctx: ParseContext, key: str, form: Any, vocab: Vocabulary):
    """A critical slot's `form:` (how its bad word derives from the good one), checked."""
    if form != "other_number" and not isinstance(form, dict):
        raise ctx.error(f"{key}.form", "must be 'other_number' or a mapping of features, e.g. {en: 1}")
    if isinstance(form, dict):
        for col in form:
            if col not in vocab.columns:
                raise ctx.error(f"{key}.form.{col}", f"unknown vocabulary column {col!r}")
    return form


def _compile_article(ctx: ParseContext, key: str, kind: Any, out: SlotSpec, vocab: Vocabulary, language: Any) -> None:
    """The article of every candidate row, by the language's rule from the row's agreement features;
    each article must be a determiner row (category D) of the table."""
    from fairpairs.generation.languages import get_language

    language = language or get_language("en")
    try:
        language.article(kind, {})   # (checks the language has articles and the kind)
    except GrammarError as exc:
        raise ctx.error(f"{key}.article", exc.reason) from None
    except ValueError:
        pass
    cols = [c for c in ARTICLE_FEATURES if c in vocab.columns]
    article_of = np.full(len(vocab), -1, dtype=np.int64)
    rows: dict[str, int] = {}
    for r in out.base:
        try:
            word = language.article(kind, {c: vocab.get(r, c) for c in cols})
        except ValueError as exc:
            raise ctx.error(f"{key}.article", f"no {language.name} {kind} article for {vocab.expressions[r]!r}: "
                                              f"{exc}") from None
        if not word:
            continue
        if word not in rows:
            found = [i for i in vocab.rows_for(word) if vocab.get(i, "category") == "D" or vocab.get(i, "category_2") == "D"]
            if not found:
                raise ctx.error(f"{key}.article", f"the article {word!r} (of {vocab.expressions[r]!r}) is not a "
                                                  f"determiner row (category D) of the vocabulary")
            rows[word] = int(found[0])
        article_of[r] = rows[word]
    out.article, out.article_of = str(kind), article_of
    out.det_base = np.array(sorted(set(rows.values())), dtype=np.int64)


def check_satisfiable(ctx: ParseContext, slots: dict[str, SlotSpec], vocab: Vocabulary) -> None:
    """Every relation between two slots can hold for some pair of their candidates (a necessary
    condition: draws that combine several relations can still dead-end, which generation reports)."""
    for n, sp in slots.items():
        if sp.text:
            continue
        for ref, arg in sp.fills:
            if not vocab.any_accepts(slots[ref].base, arg, sp.base):
                raise ctx.error(f"{sp.key}.fills", f"no candidate of {n!r} satisfies {ref}.{arg} of any candidate of {ref!r}")
        for arg, ref in sp.takes:
            if not vocab.any_accepts(sp.base, arg, slots[ref].base):
                raise ctx.error(f"{sp.key}.takes.{arg}", f"no candidate of {ref!r} satisfies {arg} of any candidate of {n!r}")
        for ref, cols in sp.same:
            mine = {tuple(vocab.column(c)[i] for c in cols) for i in sp.base}
            if not any(tuple(vocab.column(c)[i] for c in cols) in mine for i in slots[ref].base):
                raise ctx.error(f"{sp.key}.same.{ref}", f"no candidate of {n!r} equals a candidate of {ref!r} in {', '.join(cols)}")
        if sp.det_base is not None and not sp.article and not vocab.any_accepts(sp.det_base, "arg_1", sp.base):
            raise ctx.error(f"{sp.key}.det", f"no determiner accepts any candidate of {n!r}")


def topological(ctx: ParseContext, slots: dict[str, SlotSpec]) -> list[str]:
    order: list[str] = []
    state: dict[str, int] = {}

    def visit(n: str, stack: list[str]):
        if state.get(n) == 2:
            return
        if state.get(n) == 1:
            cycle = stack[stack.index(n):] + [n]
            raise ctx.error("slots", f"cycle in slot dependencies: {' -> '.join(cycle)}")
        state[n] = 1
        for ref in sorted(slots[n].references()):
            visit(ref, stack + [n])
        state[n] = 2
        order.append(n)

    for n in slots:  # declaration order breaks ties, so files read top-down
        visit(n, [])
    return order


_PLAIN = re.compile(r"^(?:[^{}]|\{\{\s*[A-Za-z_]\w*\s*\}\})*$")
_VAR = re.compile(r"\{\{\s*([A-Za-z_]\w*)\s*\}\}")


class PlainTemplate:
    """A template that only substitutes `{{ slot }}`s, rendered without Jinja2's per-call set-up
    (most paradigm files; the generator renders hundreds of thousands of sentences)."""

    def __init__(self, source: str):
        self.parts = _VAR.split(source)   # text, name, text, name, ..., text
        # the same as a format string (the text has no braces: _PLAIN), filled in one C call
        self._format = "".join(part if i % 2 == 0 else "{" + part + "}" for i, part in enumerate(self.parts))

    def render(self, values: dict) -> str:
        return self._format.format_map(values)


@functools.lru_cache(maxsize=4096)
def _template(source: str) -> tuple[frozenset[str], jinja2.Template | PlainTemplate]:
    """The variables a template text uses and the template itself, made once per text: a function of
    the text alone (one environment, `template_env`), and rendering keeps no state, so the paradigms
    of one process that share a template text (or load one file again) share the template. A syntax
    error or a refusal (`templates.unsafe_use`) is raised, never kept."""
    tree, variables = parse_template(source)
    return variables, PlainTemplate(source) if _PLAIN.match(source) else compile_bounded(tree)


def compile_template(ctx: ParseContext, key: str, source: Any, slot_names: set[str]) -> JinjaTemplate | PlainTemplate:
    """The template of `key` (template, good or bad): a PlainTemplate when it only substitutes slots,
    else a JinjaTemplate. Errors (syntax, a refused attribute or tag, a variable that is no slot)
    name the file and key."""
    if not isinstance(source, str) or not source.strip():
        raise ctx.error(key, "must be a non-empty Jinja2 template string")
    try:
        variables, template = _template(source)
    except jinja2.TemplateSyntaxError as exc:
        raise ctx.error(key, f"template syntax error: {exc.message} (line {exc.lineno})") from None
    except TemplateFailure as exc:
        raise ctx.error(key, f"refused: {exc}") from None
    except (RecursionError, MemoryError, SyntaxError):   # (Python's own limits on the compiled code)
        raise ctx.error(key, "template nested too deeply to compile") from None
    undefined = variables - slot_names
    if undefined:
        raise ctx.error(key, f"undefined variable(s) {', '.join(sorted(undefined))} (slots: {', '.join(sorted(slot_names))})")
    return template if isinstance(template, PlainTemplate) else JinjaTemplate(template, functools.partial(ctx.error, key))
