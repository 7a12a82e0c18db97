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
import itertools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fairpairs.errors import GrammarError
from fairpairs.generation.vocab import Vocabulary, default_vocabulary
from fairpairs.generation.templates import finish_sentence
from fairpairs.generation.includes import content_sha256, resolve_use, read_with_includes
from fairpairs.generation.slots import FIELDS, META_KEYS, PlainTemplate, SlotSpec, TOP_KEYS, ParseContext, check_satisfiable, compile_slot, compile_template, topological

SAMPLE_DRAWS = 3       # draws whose fillers `check_render` renders each template on
SAMPLE_VARIANTS = 64   # combinations of the literal slots' values it tries with each draw


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
    good_template: Any                    # templates.JinjaTemplate or PlainTemplate: .render(mapping) -> str
    bad_template: Any
    good_source: str
    bad_source: str
    reorder: bool = False
    standard: bool = True
    description: str = ""
    vocab: Any = dataclasses.field(default=None, repr=False, compare=False)   # the table its rows index
    language: str = "en"
    rules: tuple[str, ...] = ()           # the language's surface rules, applied in this order
    # BLiMP's per-paradigm declarations (fairpairs.generation.prefixes): its `lexically_identical`
    # (None: not declared), whether the contrast allows the one-prefix method, and the words (slots,
    # or literal words of the template) whose probability the two-prefix method compares ((): not allowed)
    lexically_identical: bool | None = None
    one_prefix: bool = False
    two_prefix: tuple[str, ...] = ()
    # the sha256 of the file as it was read (`includes.content_sha256`; "": not read from a file): a
    # run records it, not the file's content when the paradigm is done (it may have been edited since)
    read_sha256: str = ""

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


def read_paradigm_file(path: str | Path, vocab: Vocabulary | None = None) -> Paradigm:
    """Load and validate one paradigm file (what `fairpairs validate` runs, before it renders the
    templates on a few draws: `check_render`)."""
    path = Path(path)
    ctx = ParseContext(path)
    if path.name.startswith("_"):
        raise GrammarError(f"{path}: a file whose name starts with _ is an include file, not a paradigm")
    data = read_with_includes(path)
    read_sha256 = content_sha256(data)      # (before anything is checked: the file as it was read)
    language, rules = _language(ctx, data)
    vocab = vocab or default_vocabulary(language.code)
    if vocab.language not in (language.code, "*"):
        raise ctx.error("language", f"{language.code}, but the vocabulary {Path(vocab.source).name} is a "
                                    f"{'BLiMP (English)' if vocab.language == 'en' else vocab.language} table: "
                                    f"use the {language.code} table (the default) or one of your own")
    _check_top(ctx, data, path)
    slots = _compile_slots(ctx, data, vocab, language)
    order = topological(ctx, slots)
    check_satisfiable(ctx, slots, vocab)
    good_src, bad_src = (data["template"],) * 2 if "template" in data else (data.get("good"), data.get("bad"))
    if "template" in data:
        if "good" in data or "bad" in data:
            raise ctx.error("template", "give either template (same for good and bad) or good and bad")
    elif "good" not in data or "bad" not in data:
        raise ctx.error("good" if "good" not in data else "bad", "required (or a single template)")
    good_t = compile_template(ctx, "good" if "template" not in data else "template", good_src, set(slots))
    bad_t = compile_template(ctx, "bad" if "template" not in data else "template", bad_src, set(slots))
    critical = _compile_critical(ctx, data.get("critical"), slots, vocab)
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
                    rules=rules, read_sha256=read_sha256, **_methods(ctx, data, slots, critical, (good_src, bad_src)))


def check_render(p: Paradigm, draws: int = SAMPLE_DRAWS, tries: int = 50) -> Paradigm:
    """The paradigm, once each Jinja2 template has rendered on sample fillers: the good and bad
    fillers of its first `draws` draws that fill every slot (pairs 0, 1, ... of seed 0, drawn as
    generation draws them; at most `tries` tried), each with every combination of the literal slots'
    values (up to SAMPLE_VARIANTS: the values an {% if %} usually switches on). Raises the GrammarError
    (file, template key, error) of the first render that fails. What `fairpairs validate` adds to
    loading, so that a template that fails while rendering is caught before any generation."""
    from fairpairs.generation.pairs import Filler
    from fairpairs.generation.sampler import Sampler

    if isinstance(p.good_template, PlainTemplate) and isinstance(p.bad_template, PlainTemplate):
        return p      # (substitution only: renders whatever the fillers)
    sampler = Sampler(p, p.vocab, seed=0)
    literal = [n for n, spec in p.slots.items() if spec.text]
    variants = list(itertools.islice(itertools.product(*(p.slots[n].text for n in literal)), SAMPLE_VARIANTS))
    done = 0
    for k in range(tries):
        rng = sampler.rng(k)
        good = sampler.draw_good(rng)
        if good is None:
            continue
        bad = sampler.draw_bad(good, rng)
        for values in variants:
            shown = {**good, **{n: Filler(None, -1, literal=v) for n, v in zip(literal, values)}}
            p.good_template.render(shown)
            if bad is not None:
                p.bad_template.render({**shown, **bad})
        done += 1
        if done == draws:
            break
    return p


def _check_top(ctx: ParseContext, data: dict, path: Path) -> None:
    """The file's top level: `use:` resolved in slots and critical, known keys, the metadata."""
    defs = data.get("defs") or {}
    if not isinstance(defs, dict):
        raise ctx.error("defs", "must map definition names to slot constraints")
    for part in ("slots", "critical"):
        if isinstance(data.get(part), dict):
            data[part] = {n: resolve_use(ctx, f"{part}.{n}", s, defs) for n, s in data[part].items()}
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


def _compile_slots(ctx: ParseContext, data: dict, vocab: Vocabulary, language) -> dict[str, SlotSpec]:
    raw_slots = data.get("slots")
    if not isinstance(raw_slots, dict) or not raw_slots:
        raise ctx.error("slots", "required: a mapping of slot names to constraints")
    names = set(raw_slots)
    for n in names:
        if not re.match(r"^[A-Za-z_]\w*$", str(n)):
            raise ctx.error(f"slots.{n}", "slot names must be identifiers (letters, digits, _)")
    slots = {n: compile_slot(ctx, n, f"slots.{n}", s, vocab, names, critical=False, language=language)
             for n, s in raw_slots.items()}
    literal = {n for n, sp in slots.items() if sp.text}
    for n, sp in slots.items():
        bad_refs = sp.references() & literal
        if bad_refs:
            raise ctx.error(f"slots.{n}", f"refers to literal (text) slot {sorted(bad_refs)[0]!r}, which has no vocabulary row")
    return slots


def _compile_critical(ctx: ParseContext, raw_crit, slots: dict[str, SlotSpec], vocab: Vocabulary) -> dict[str, SlotSpec]:
    """The critical slots (`critical:`): each one's bad-sentence constraints."""
    names = set(slots)
    literal = {n for n, sp in slots.items() if sp.text}
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
        cs = compile_slot(ctx, n, f"critical.{n}", spec, vocab, names, critical=True)
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
    return critical


def _methods(ctx: ParseContext, data: dict, slots: dict[str, SlotSpec], critical: dict[str, SlotSpec],
             sources: tuple[str, str]) -> dict[str, Any]:
    """The paradigm's BLiMP declarations (keys `lexically_identical`, `one_prefix`, `two_prefix`), checked:
    the one-prefix method needs slots that differ (the word is the critical slot the pair shows); each
    two-prefix word is a slot the bad sentence keeps (not critical) or a literal word of both templates."""
    for key in ("lexically_identical", "one_prefix"):
        if key in data and not isinstance(data[key], bool):
            raise ctx.error(key, f"expected true or false, not {data[key]!r}")
    if data.get("one_prefix") and not critical:
        raise ctx.error("one_prefix", "needs critical slots: the one-prefix word is the slot that differs")
    two = data.get("two_prefix", [])
    two = [] if two is False or two is None else [two] if isinstance(two, str) else two   # (false: not allowed)
    if not isinstance(two, list) or not all(isinstance(w, str) and w.strip() for w in two):
        raise ctx.error("two_prefix", "expected a slot name, a literal word of the template, or a list of them")
    for w in two:
        if w in critical:
            raise ctx.error("two_prefix", f"{w!r} is critical: the two-prefix word is the same in both sentences")
        literal = [re.sub(r"\{\{.*?\}\}|\{%.*?%\}", " ", src) for src in sources]
        if w not in slots and not all(re.search(rf"(?<![\w']){re.escape(w)}(?![\w'])", t) for t in literal):
            raise ctx.error("two_prefix", f"{w!r} is neither a slot nor a word written in both templates")
    return {"lexically_identical": data.get("lexically_identical"), "one_prefix": bool(data.get("one_prefix")),
            "two_prefix": tuple(two)}


def _language(ctx: ParseContext, data: dict):
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


