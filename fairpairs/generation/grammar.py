"""Paradigm files: loading, validation and the compiled form the generator samples from.

A paradigm file (grammars/<uid>.yaml) declares metadata, slots (each a vocabulary row drawn under
feature constraints and restrictions relative to other slots), Jinja2 templates for the good and
the bad sentence, and the *critical* slots: those whose filler differs in the bad sentence and is
redrawn by the length-control loop. See grammars/README.md for the format.

Everything is checked when the file is loaded; errors read `file: key: message`.
"""

from __future__ import annotations

import re
import dataclasses
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable

import jinja2
import jinja2.meta
import numpy as np
import yaml

from fairpairs.errors import Param, FairpairsError, GrammarError, GrammarNotFoundError, VocabularyError
from fairpairs.io.reading import read_text
from fairpairs.io.paths import data_dir
from fairpairs.generation.vocab import RESTRICTION_COLUMNS, Vocabulary, default_vocabulary

META_KEYS = ("uid", "phenomenon", "field", "linguistics_term")
FIELDS = ("morphology", "syntax", "semantics", "syntax_semantics")   # BLiMP's `field` values
TOP_KEYS = {*META_KEYS, "description", "standard", "slots", "template", "good", "bad", "critical",
            "reorder", "examples", "include", "defs", "language", "rules"}
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


@dataclass
class Paradigm:
    uid: str
    phenomenon: str
    field: str
    linguistics_term: str
    path: Path
    slots: dict[str, SlotSpec]
    order: list[str]                      # slots in dependency order
    critical: dict[str, SlotSpec]
    good_template: Any                    # jinja2.Template or PlainTemplate: .render(mapping) -> str
    bad_template: Any
    good_source: str
    bad_source: str
    reorder: bool = False
    standard: bool = True
    description: str = ""
    vocab: Any = dataclasses.field(default=None, repr=False, compare=False)   # the table its rows index
    language: str = "en"
    rules: tuple[str, ...] = ()           # the language's surface rules, applied in this order

    @property
    def is_reordering(self) -> bool:
        """Deprecated: the old name of `reorder`."""
        import warnings

        from fairpairs.errors import FairpairsDeprecationWarning

        warnings.warn(FairpairsDeprecationWarning("Paradigm.is_reordering is deprecated, use Paradigm.reorder"),
                      stacklevel=2)
        return self.reorder

    def finish(self, text: str) -> str:
        """A rendered template as a sentence: `finish_sentence`, then the paradigm's surface rules."""
        text = finish_sentence(text)
        if self.rules:
            from fairpairs.generation.languages import get_language

            text = get_language(self.language).apply(self.rules, text)
        return text


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


def finish_sentence(text: str) -> str:
    """Collapse spaces (empty fillers leave doubles), drop spaces before punctuation, capitalise."""
    text = _SPACE_PUNCT.sub(r"\1", _SPACES.sub(" ", text).strip())
    return cap_first(text)


# ---------------------------------------------------------------------------- loading
class _Ctx:
    """Builds `file: key: message` errors."""

    def __init__(self, path: Path):
        self.path = path

    def error(self, key: str, message: str) -> GrammarError:
        return GrammarError(f"{self.path}: {key}: {message}")


def _as_list(value) -> list:
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _compile_slot(ctx: _Ctx, name: str, key: str, spec: Any, vocab: Vocabulary, slot_names: set[str],
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
        words = spec["text"]
        words = [words] if isinstance(words, str) else words
        if not isinstance(words, list) or not words or not all(isinstance(w, str) for w in words):
            raise ctx.error(f"{key}.text", "must be a string or a non-empty list of strings")
        others = set(spec) - {"text", "note"}
        if others:
            raise ctx.error(f"{key}.{sorted(others)[0]}", "a literal (text) slot takes no vocabulary constraints")
        return SlotSpec(name=name, key=key, base=np.arange(len(words)), text=tuple(words), has_where=True)
    if spec.get("article") is not None and spec.get("det") not in (None, False):
        raise ctx.error(f"{key}.article", "give det (a determiner from the table) or article (the language's), not both")
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
    out = SlotSpec(name=name, key=key, base=np.flatnonzero(mask),
                   has_where=bool(spec.get("where") or spec.get("where_not")))

    def check_slot(ref: Any, where: str) -> str:
        if not isinstance(ref, str) or ref not in slot_names:
            raise ctx.error(where, f"undefined slot {ref!r} (slots: {', '.join(sorted(slot_names))})")
        return ref

    for sub in ("fills", "fails"):
        for item in _as_list(spec.get(sub)):
            m = ARG_RE.match(str(item))
            if not m:
                raise ctx.error(f"{key}.{sub}", f"{item!r} is not of the form <slot>.arg_1|arg_2|arg_3|arg_clause")
            getattr(out, sub).append((check_slot(m.group(1), f"{key}.{sub}"), m.group(2)))
    for sub in ("takes", "rejects"):
        part = spec.get(sub) or {}
        if not isinstance(part, dict):
            raise ctx.error(f"{key}.{sub}", "must map arg_1/arg_2/arg_3/arg_clause to slot names")
        for arg, refs in part.items():
            if arg not in RESTRICTION_COLUMNS:
                raise ctx.error(f"{key}.{sub}.{arg}", f"not a restriction column ({', '.join(RESTRICTION_COLUMNS)})")
            for ref in _as_list(refs):
                getattr(out, sub).append((arg, check_slot(ref, f"{key}.{sub}.{arg}")))
    for sub in ("same", "differ"):
        part = spec.get(sub) or {}
        if not isinstance(part, dict):
            raise ctx.error(f"{key}.{sub}", "must map slot names to lists of vocabulary columns")
        for ref, cols in part.items():
            check_slot(ref, f"{key}.{sub}")
            cols = tuple(str(c) for c in _as_list(cols))
            for c in cols:
                if c not in vocab.columns:
                    raise ctx.error(f"{key}.{sub}.{ref}", f"unknown vocabulary column {c!r}")
            getattr(out, sub).append((ref, cols))
    out.distinct_from = [check_slot(r, f"{key}.distinct_from") for r in _as_list(spec.get("distinct_from"))]
    named = [c for sub in ("where", "where_not") for c in (spec.get(sub) or {})]
    named += [c for _, cols in out.same + out.differ for c in cols]
    out.named = tuple(dict.fromkeys(named))

    det = spec.get("det")
    if det is not None and det is not False:
        if det is True:
            det = {}
        if not isinstance(det, dict) or set(det) - DET_KEYS:
            raise ctx.error(f"{key}.det", "must be true or a mapping with where / where_not")
        where = {**DEFAULT_DET, **(det.get("where") or {})}
        try:
            dmask = vocab.select(where, det.get("where_not"))
        except VocabularyError as exc:
            raise ctx.error(f"{key}.det", str(exc)) from None
        out.det_base = np.flatnonzero(dmask)
        if not len(out.det_base):
            raise ctx.error(f"{key}.det", "no determiner in the vocabulary matches")

    if spec.get("article") is not None:
        _compile_article(ctx, key, spec["article"], out, vocab, language)

    if critical and "form" in spec:
        form = spec["form"]
        if form != "other_number" and not isinstance(form, dict):
            raise ctx.error(f"{key}.form", "must be 'other_number' or a mapping of features, e.g. {en: 1}")
        if isinstance(form, dict):
            for col in form:
                if col not in vocab.columns:
                    raise ctx.error(f"{key}.form.{col}", f"unknown vocabulary column {col!r}")
        out.form = form
    if not len(out.base):
        raise ctx.error(key, "no vocabulary row satisfies where/where_not (slot has no candidate word)")
    return out


def _compile_article(ctx: _Ctx, key: str, kind: Any, out: SlotSpec, vocab: Vocabulary, language: Any) -> None:
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


def _check_satisfiable(ctx: _Ctx, slots: dict[str, SlotSpec], vocab: Vocabulary) -> None:
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


def _topological(ctx: _Ctx, slots: dict[str, SlotSpec]) -> list[str]:
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

    def render(self, values: dict) -> str:
        parts = self.parts
        return "".join([parts[i] if i % 2 == 0 else str(values[parts[i]]) for i in range(len(parts))])


def _compile_template(ctx: _Ctx, key: str, source: Any, slot_names: set[str]) -> jinja2.Template | PlainTemplate:
    if not isinstance(source, str) or not source.strip():
        raise ctx.error(key, "must be a non-empty Jinja2 template string")
    env = template_env()
    try:
        ast = env.parse(source)
    except jinja2.TemplateSyntaxError as exc:
        raise ctx.error(key, f"template syntax error: {exc.message} (line {exc.lineno})") from None
    undefined = jinja2.meta.find_undeclared_variables(ast) - slot_names
    if undefined:
        raise ctx.error(key, f"undefined variable(s) {', '.join(sorted(undefined))} (slots: {', '.join(sorted(slot_names))})")
    return PlainTemplate(source) if _PLAIN.match(source) else env.from_string(source)


# ---------------------------------------------------------------------------- include: and use:
def _read_yaml(path: Path) -> dict:
    text = read_text(path, "file", GrammarError)
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark else ""
        raise GrammarError(f"{path}: YAML syntax error{where}: {getattr(exc, 'problem', exc)}") from None
    if not isinstance(data, dict):
        raise GrammarError(f"{path}: top level must be a mapping")
    return data


def merge(base: Any, local: Any) -> Any:
    """`local` over `base`: mappings merge key by key (recursively, local wins); any other value
    (string, list, number) replaces the base value. Keys keep the base's order, new ones follow."""
    if isinstance(base, dict) and isinstance(local, dict):
        out = dict(base)
        for k, v in local.items():
            out[k] = merge(base[k], v) if k in base else v
        return out
    return local


def _include_path(path: Path, name: Any) -> Path:
    if not isinstance(name, str) or not name.strip():
        raise GrammarError(f"{path}: include: must be a file name or a list of file names")
    target = path.parent / name
    if not target.exists() and not Path(name).is_absolute():
        bundled = data_dir("grammars") / name   # a user's paradigm may include the bundled _common.yaml
        if bundled.exists():
            return bundled
    if not target.exists():
        raise GrammarError(f"{path}: include: {name} not found (looked in {path.parent}"
                           f"{'' if Path(name).is_absolute() else ' and the bundled grammars/'})")
    return target


def read_with_includes(path: str | Path, _stack: tuple[Path, ...] = ()) -> dict:
    """A paradigm (or include) file's mapping with its `include:` files merged underneath it, in
    order (later includes over earlier ones, the file itself over all). Include paths are relative
    to the including file; a name not found there is looked up in the bundled grammars/ folder."""
    path = Path(path)
    key = path.resolve()
    if key in _stack:
        chain = " -> ".join(p.name for p in (*_stack[_stack.index(key):], key))
        raise GrammarError(f"{path}: include: cycle {chain}")
    data = _read_yaml(path)
    includes = data.pop("include", None)
    if includes is None:
        return data
    base: dict = {}
    for name in [includes] if isinstance(includes, str) else _as_list(includes) or [None]:
        base = merge(base, read_with_includes(_include_path(path, name), (*_stack, key)))
    return merge(base, data)


def _resolve_use(ctx: _Ctx, key: str, spec: Any, defs: dict) -> Any:
    """A slot spec with `use: NAME` replaced by definition NAME (from `defs:`) merged under it."""
    if not isinstance(spec, dict) or "use" not in spec:
        return spec
    name = spec["use"]
    if not isinstance(name, str) or name not in defs:
        known = ", ".join(sorted(defs)) or "none; include a file with defs:, e.g. include: _common.yaml"
        raise ctx.error(f"{key}.use", f"unknown definition {name!r} (defs: {known})")
    base = defs[name]
    if not isinstance(base, dict):
        raise ctx.error(f"defs.{name}", "must be a mapping of slot constraints")
    if "use" in base:
        raise ctx.error(f"defs.{name}.use", "a definition cannot use another one")
    return merge(base, {k: v for k, v in spec.items() if k != "use"})


def load_paradigm(path: str | Path, vocab: Vocabulary | None = None) -> Paradigm:
    """Load and validate one paradigm file (this is also what `fairpairs validate` runs)."""
    path = Path(path)
    ctx = _Ctx(path)
    if path.name.startswith("_"):
        raise GrammarError(f"{path}: a file whose name starts with _ is an include file, not a paradigm")
    data = read_with_includes(path)
    language, rules = _language(ctx, data)
    vocab = vocab or default_vocabulary(language.code)
    if vocab.language not in (language.code, "*"):
        raise ctx.error("language", f"{language.code}, but the vocabulary {Path(vocab.source).name} is a "
                                    f"{'BLiMP (English)' if vocab.language == 'en' else vocab.language} table: "
                                    f"use the {language.code} table (the default) or one of your own")
    defs = data.get("defs") or {}
    if not isinstance(defs, dict):
        raise ctx.error("defs", "must map definition names to slot constraints")
    for part in ("slots", "critical"):
        if isinstance(data.get(part), dict):
            data[part] = {n: _resolve_use(ctx, f"{part}.{n}", s, defs) for n, s in data[part].items()}
    for k in data:
        if k not in TOP_KEYS:
            raise ctx.error(k, f"unknown key (allowed: {', '.join(sorted(TOP_KEYS))})")
    for k in META_KEYS:
        if not isinstance(data.get(k), str) or not data[k].strip():
            raise ctx.error(k, "required (a non-empty string)")
    if data["field"] not in FIELDS:
        raise ctx.error("field", f"{data['field']!r} is not a BLiMP field (one of {', '.join(FIELDS)})")
    if not isinstance(data.get("standard", True), bool):
        raise ctx.error("standard", f"expected true or false, not {data['standard']!r}")
    if data["uid"] != path.stem:
        raise ctx.error("uid", f"{data['uid']!r} does not match the file name {path.stem!r}")
    raw_slots = data.get("slots")
    if not isinstance(raw_slots, dict) or not raw_slots:
        raise ctx.error("slots", "required: a mapping of slot names to constraints")
    names = set(raw_slots)
    for n in names:
        if not re.match(r"^[A-Za-z_]\w*$", str(n)):
            raise ctx.error(f"slots.{n}", "slot names must be identifiers (letters, digits, _)")
    slots = {n: _compile_slot(ctx, n, f"slots.{n}", s, vocab, names, critical=False, language=language)
             for n, s in raw_slots.items()}
    literal = {n for n, sp in slots.items() if sp.text}
    for n, sp in slots.items():
        bad_refs = sp.references() & literal
        if bad_refs:
            raise ctx.error(f"slots.{n}", f"refers to literal (text) slot {sorted(bad_refs)[0]!r}, which has no vocabulary row")
    order = _topological(ctx, slots)
    _check_satisfiable(ctx, slots, vocab)

    if "template" in data:
        if "good" in data or "bad" in data:
            raise ctx.error("template", "give either template (same for good and bad) or good and bad")
        good_src = bad_src = data["template"]
    else:
        if "good" not in data or "bad" not in data:
            raise ctx.error("good" if "good" not in data else "bad", "required (or a single template)")
        good_src, bad_src = data["good"], data["bad"]
    good_t = _compile_template(ctx, "good" if "template" not in data else "template", good_src, names)
    bad_t = _compile_template(ctx, "bad" if "template" not in data else "template", bad_src, names)

    raw_crit = data.get("critical")
    if raw_crit is None:
        raise ctx.error("critical", "required: the slots redrawn for the bad sentence ({} for a reordering)")
    if isinstance(raw_crit, list):
        raw_crit = {c: {} for c in raw_crit}
    if not isinstance(raw_crit, dict):
        raise ctx.error("critical", "must map slot names to their bad-sentence constraints")
    critical = {}
    for n, spec in raw_crit.items():
        if n not in names:
            raise ctx.error(f"critical.{n}", f"undefined slot {n!r}")
        cs = _compile_slot(ctx, n, f"critical.{n}", spec, vocab, names, critical=True)
        if slots[n].text and not cs.text and (not cs.has_where or cs.form is not None):
            raise ctx.error(f"critical.{n}", "a literal (text) slot whose bad filler is a vocabulary word needs "
                                             "where: (and takes no form:)")
        if cs.references() & literal:
            raise ctx.error(f"critical.{n}", "refers to a literal (text) slot, which has no vocabulary row")
        if not cs.has_where and cs.form is None:
            cs.base = slots[n].base
        critical[n] = cs
    for n, cs in critical.items():  # a bad filler that is a literal has no row another slot could refer to
        for m, other in critical.items():
            if cs.text and not slots[n].text and n in other.references():
                raise ctx.error(f"critical.{m}", f"refers to {n!r}, whose bad filler is a literal (text:)")
    reorder = bool(data.get("reorder", False))
    if reorder and critical:
        raise ctx.error("reorder", "a reordering paradigm changes word order only: critical must be {}")
    if not reorder and not critical:
        raise ctx.error("critical", "empty: declare the slots that differ, or reorder: true")
    if reorder and good_src == bad_src:
        raise ctx.error("bad", "reorder: true but the good and bad templates are identical")
    if not reorder and good_src != bad_src:
        raise ctx.error("bad", "a substitution paradigm uses one template for both sentences (use template:)")
    return Paradigm(uid=data["uid"], phenomenon=data["phenomenon"], field=data["field"],
                    linguistics_term=data["linguistics_term"], path=path, slots=slots, order=order,
                    critical=critical, good_template=good_t, bad_template=bad_t, good_source=good_src,
                    bad_source=bad_src, reorder=reorder, standard=data.get("standard", True),
                    description=str(data.get("description", "")), vocab=vocab, language=language.code,
                    rules=rules)


def _language(ctx: _Ctx, data: dict):
    """The paradigm's `Language` (key `language`, default en) and the surface rules it names."""
    from fairpairs.generation.languages import get_language

    code = data.get("language", "en")
    try:
        language = get_language(code)
    except GrammarError as exc:
        raise ctx.error("language", exc.reason) from None
    rules = data.get("rules") or []
    if isinstance(rules, str):
        rules = [rules]
    if not isinstance(rules, list) or not all(isinstance(r, str) for r in rules):
        raise ctx.error("rules", "must be a list of rule names")
    for r in rules:
        if r not in language.rules:
            known = ", ".join(sorted(language.rules)) or "none"
            raise ctx.error("rules", f"{r!r} is not a surface rule of {language.name} ({code}) (its rules: {known})")
    return language, tuple(rules)


def paradigm_language(path: str | Path) -> str:
    """The language code a paradigm file declares (`en` when it says none)."""
    code = read_with_includes(Path(path)).get("language", "en")
    return code if isinstance(code, str) else "en"


def grammar_files(directory: str | Path | None = None) -> list[Path]:
    """The paradigm files of a folder (default: the bundled grammars/); files whose name starts
    with _ (shared definitions such as _common.yaml) are include files, not paradigms."""
    d = Path(directory) if directory else data_dir("grammars")
    if not d.exists():
        raise GrammarNotFoundError(f"{d}: no such folder of paradigm files")
    if not d.is_dir():
        raise GrammarError(f"{d}: is a file, not a folder of paradigm files")
    files = sorted(p for p in d.glob("*.yaml") if not p.name.startswith("_"))
    if not files:
        raise GrammarError(f"{d}: no paradigm files (*.yaml) in this folder")
    return files


def language_folders(directory: str | Path | None = None) -> list[Path]:
    """The sub-folders of a grammar folder (default: the bundled grammars/) that hold paradigms of
    another language (grammars/fr/, grammars/de/): every sub-folder not starting with _ or ."""
    d = Path(directory) if directory else data_dir("grammars")
    if not d.is_dir():
        return []
    return sorted(p for p in d.iterdir() if p.is_dir() and not p.name.startswith(("_", "."))
                  and any(f.suffix == ".yaml" for f in p.iterdir()))


def paradigm_index(directory: str | Path | None = None) -> dict[str, Path]:
    """Every paradigm a name can address in a grammar folder: `uid` for the folder's own files and
    for those of its language sub-folders (a uid of the folder itself wins), and `<sub>/<uid>`."""
    index = {}
    for sub in language_folders(directory):
        for f in grammar_files(sub):
            index[f"{sub.name}/{f.stem}"] = f
            index.setdefault(f.stem, f)
    top = Path(directory) if directory else data_dir("grammars")
    if any(top.glob("*.yaml")):
        index.update({f.stem: f for f in grammar_files(directory)})
    return index


def load_all(directory: str | Path | None = None, vocab: Vocabulary | None = None) -> dict[str, Paradigm]:
    """Every paradigm of a grammar folder, by UID."""
    return {p.stem: load_paradigm(p, vocab) for p in grammar_files(directory)}


def validate(paths: Iterable[str | Path] | None = None, vocab: Vocabulary | None = None
             ) -> list[tuple[Path, Paradigm | FairpairsError]]:
    """Check paradigm files without generating: each is loaded exactly as generation loads it
    (schema, includes, vocabulary columns and values, templates, satisfiability of every slot).

    `paths`: files or folders (a folder means its paradigm files); default: the bundled
    paradigms. Returns (path, Paradigm) for a valid file and (path, error) for a broken one."""
    files: list[Path] = []
    bundled = [data_dir("grammars"), *language_folders()]   # the English paradigms, then fr/, de/ ...
    for p in bundled if paths is None else [Path(x) for x in paths]:
        files.extend(grammar_files(p) if p.is_dir() else [p])
    out: list[tuple[Path, Paradigm | FairpairsError]] = []
    for f in files:
        try:
            out.append((f, load_paradigm(f, vocab)))
        except FairpairsError as exc:
            out.append((f, exc))
    return out


def select_paradigms(spec: str | list[str] = "all", phenomenon: str | None = None,
                     grammar_dir: str | Path | None = None, *, standard_only: bool = True,
                     vocab: Vocabulary | None = None) -> tuple[Vocabulary, list[Paradigm]]:
    """The vocabulary and the paradigms named by `spec` ("uid,uid", a list of UIDs, "all" or
    "standard"), optionally only those of `phenomenon`; with "all", only the standard ones unless
    `standard_only` is False. A name may address a language sub-folder of the grammar folder:
    "fr/all" (its paradigms), "fr/<uid>", or a uid found there. Without `vocab`, the paradigms'
    language's bundled table (one language per selection). Errors name the parameters
    `paradigms` and `phenomenon`."""
    from fairpairs.errors import UsageError

    index = paradigm_index(grammar_dir)
    every = isinstance(spec, str) and spec in ("all", "standard")
    if every:
        files = {p.stem: p for p in grammar_files(grammar_dir)}
        chosen = sorted(files)
    else:
        names = spec.split(",") if isinstance(spec, str) else list(spec)
        names = [u.strip() for u in names if u.strip()]
        if not names:
            raise UsageError(Param("paradigms"), f": {spec!r} names no paradigm (give uid,uid or 'all')")
        subs = {d.name: d for d in language_folders(grammar_dir)}
        whole = {u for u in names if u.partition("/")[2] in ("all", "standard") and u.partition("/")[0] in subs}
        unknown = [u for u in names if u not in index and u not in whole]
        if unknown:
            folders = ", ".join(f"{d}/all" for d in subs)
            raise UsageError(Param("paradigms"), f": unknown paradigm(s) {', '.join(unknown)} (see `fairpairs paradigms`"
                             f"{'; language folders: ' + folders if folders else ''})")
        found = [(f.stem, f) for u in names for f in
                 (grammar_files(subs[u.partition("/")[0]]) if u in whole else [index[u]])]
        chosen = [stem for stem, _ in found]
        dupes = sorted({u for u in chosen if chosen.count(u) > 1})
        if dupes:
            raise UsageError(Param("paradigms"), f": {', '.join(dupes)} named twice")
        files = dict(found)
    if vocab is None:
        codes = sorted({paradigm_language(files[u]) for u in chosen})
        if len(codes) > 1:
            raise UsageError(Param("paradigms"), f": paradigms of several languages ({', '.join(codes)}) in one selection; "
                             f"generate each language on its own")
        vocab = default_vocabulary(codes[0] if codes else "en")
    paradigms = [load_paradigm(files[u], vocab) for u in chosen]
    if every and standard_only:
        paradigms = [p for p in paradigms if p.standard]
    if phenomenon:
        norm = phenomenon.strip().lower().replace("_", " ").replace("-", " ")
        known = sorted({p.phenomenon for p in paradigms})
        paradigms = [p for p in paradigms if p.phenomenon.lower().replace("-", " ") == norm]
        if not paradigms:
            if not every:
                lang = paradigm_language(files[chosen[0]])     # every paradigm file of the selection's language
                same = {f for f in index.values() if paradigm_language(f) == lang}
                all_phen = {load_paradigm(f, vocab).phenomenon for f in same}
                if any(ph.lower().replace("-", " ") == norm for ph in all_phen):
                    raise UsageError(Param("phenomenon"), f" {phenomenon!r}: none of the paradigms named by ",
                                     Param("paradigms", quoted=True), f" belongs to it (theirs: {', '.join(known)})", value=phenomenon)
            raise UsageError(Param("phenomenon"), f": unknown phenomenon {phenomenon!r} (known: {', '.join(known)})")
    return vocab, paradigms


def check_paradigm_names(spec, grammars) -> None:
    """A paradigm UID that is not there, with the closest known UIDs ("did you mean"); the other
    checks of `paradigms` are `select_paradigms`'s."""
    from fairpairs.errors import Param, UsageError
    from fairpairs.suggest import did_you_mean

    if not isinstance(spec, (str, list, tuple)) or spec in ("all", "standard"):
        return
    names = [u.strip() for u in (spec.split(",") if isinstance(spec, str) else spec) if isinstance(u, str) and u.strip()]
    try:
        known = set(paradigm_index(grammars))
    except Exception:     # a bad grammars folder is select_paradigms' error
        return
    for u in names:
        hint = did_you_mean(u, known) if u not in known and not u.endswith("/all") else ""
        if hint:
            raise UsageError(Param("paradigms"), f": unknown paradigm {u}{hint} (see `fairpairs paradigms`)")
