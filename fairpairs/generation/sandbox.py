"""The sandbox paradigm templates render in: Jinja2's `ImmutableSandboxedEnvironment` with every
render bounded in work (issue 45: a template of a shared grammar folder ran shell commands, hung
generation, or failed with a traceback).

`TemplateSandbox` refuses private and internal attributes, methods that change a value, `%`
formatting and `str.format`; has no `lipsum`, `namespace`, `random` or `format`; and bounds one
render: `range`, repetition, sums, `~` and the values calls and filters take or make hold at most
MAX_SIZE items, loops, calls and filters take at most MAX_STEPS steps, calls nest at most MAX_DEPTH
deep, and loop and macro bodies write at most MAX_OUTPUT characters. `unsafe_use` refuses at load
what the sandbox would refuse while rendering; `instrument` adds the budget's checks to a parsed
template; `render_bounded` turns any failure of a render into a one-line `TemplateFailure`.
grammars/README.md (*What a template may use*) says all this to the authors of paradigm files.
"""

from __future__ import annotations

import contextlib
import functools
import threading
from typing import Any, Iterator

import jinja2
import jinja2.nodes as jn
from jinja2.exceptions import SecurityError
from jinja2.sandbox import ImmutableSandboxedEnvironment
from jinja2.visitor import NodeTransformer

MAX_STEPS = 10_000     # loop iterations, macro and call-block runs, calls, filters and numbers of a range
MAX_OUTPUT = 10_000    # characters loop, macro and call-block bodies write (their text and their {{ }})
MAX_SIZE = 1_000       # characters or items of a string or list an operation takes or makes
MAX_DEPTH = 50         # calls (macros, methods, filters) running inside one another
MAX_INT_BITS = 4_096   # bits of an integer a product or a power makes

REMOVED_GLOBALS = ("lipsum", "namespace")   # random text; the one value a loop could grow without bound
REMOVED_FILTERS = ("random", "format")      # not reproducible; printf widths of any size
WIDTH_ARGUMENTS = frozenset({"center", "ljust", "rjust", "zfill", "expandtabs", "indent", "batch", "slice"})
CHANGING_METHODS = frozenset({"append", "appendleft", "extend", "extendleft", "insert", "pop", "popleft", "popitem",
                              "remove", "reverse", "rotate", "sort", "clear", "update", "setdefault", "add",
                              "discard", "difference_update", "intersection_update", "symmetric_difference_update"})
UNSAFE_ATTRIBUTES = frozenset({"mro", "format", "format_map"})
UNSAFE_PREFIXES = ("_", "gi_", "cr_", "ag_", "tb_", "f_", "co_", "func_")
ATTRIBUTE_FILTERS = frozenset({"attr", "selectattr", "rejectattr", "map", "groupby", "sort", "unique", "min",
                               "max", "sum", "dictsort"})   # filters whose arguments may name an attribute
_SIZED = (str, bytes, list, tuple, dict, set, frozenset)


class TemplateFailure(Exception):
    """A template the sandbox refuses, or one whose render failed: the message (one line) says why."""


# ---------------------------------------------------------------------------- the budget of one render
class _Budget:
    __slots__ = ("steps", "output", "depth")

    def __init__(self):
        self.steps = self.output = self.depth = 0


_LOCAL = threading.local()


def _budget() -> _Budget:
    """The running render's budget (one per thread). Outside `render_bounded`, one the thread keeps
    and never renews: a compiled template rendered some other way is still bounded."""
    budget = getattr(_LOCAL, "budget", None) or getattr(_LOCAL, "stray", None)
    if budget is None:
        budget = _LOCAL.stray = _Budget()
    return budget


def _spend(steps: int = 1, output: int = 0) -> _Budget:
    budget = _budget()
    budget.steps += steps
    budget.output += output
    if budget.steps > MAX_STEPS:
        raise SecurityError(f"more than {MAX_STEPS} steps (loop iterations, calls, range numbers) in one render")
    if budget.output > MAX_OUTPUT:
        raise SecurityError(f"more than {MAX_OUTPUT} characters written in one render")
    return budget


def _check_size(value: Any, what: str) -> Any:
    if isinstance(value, _SIZED) and len(value) > MAX_SIZE:
        raise SecurityError(f"{what} of {len(value)} items or characters (at most {MAX_SIZE})")
    return value


def _check_call(name: str, args: tuple, kwargs: dict) -> None:
    """The arguments of a call or filter: no string or list over MAX_SIZE, and a width or count no
    larger (what `center`, `zfill`, `batch`... make grows with it before it could be checked)."""
    for value in (*args, *kwargs.values()):
        _check_size(value, f"{name}() given a value")
        if name in WIDTH_ARGUMENTS and isinstance(value, int) and abs(value) > MAX_SIZE:
            raise SecurityError(f"{name}({value}): a width or count is at most {MAX_SIZE}")


def bounded_range(*args: int) -> range:
    """`range` as a template sees it: at most MAX_SIZE numbers, each one a step of the budget."""
    numbers = range(*args)
    if len(numbers) > MAX_SIZE:
        raise SecurityError(f"range of {len(numbers)} numbers (at most {MAX_SIZE})")
    _spend(len(numbers))
    return numbers


def _bounded_filter(name: str, function):
    """A filter that counts as a step and checks its arguments and result (`_check_call`)."""
    @functools.wraps(function)   # (keeps jinja_pass_arg: context- and environment-taking filters)
    def bounded(*args, **kwargs):
        _spend()
        _check_call(name, args, kwargs)
        return _check_size(function(*args, **kwargs), f"|{name} made a value")
    return bounded


# ---------------------------------------------------------------------------- the sandbox
class TemplateSandbox(ImmutableSandboxedEnvironment):
    """Jinja2's immutable sandbox with the bounds above (module docstring)."""

    intercepted_binops = frozenset({"+", "*", "**", "%"})

    def __init__(self, filters: dict[str, Any] | None = None):
        """`filters`: filters of our own, beside Jinja2's (bounded like them)."""
        super().__init__(undefined=jinja2.StrictUndefined, autoescape=False, keep_trailing_newline=False)
        for name in REMOVED_GLOBALS:
            self.globals.pop(name, None)
        for name in REMOVED_FILTERS:
            self.filters.pop(name, None)
        self.globals["range"] = bounded_range
        self.filters.update(filters or {})
        self.filters = {name: _bounded_filter(name, f) for name, f in self.filters.items()}
        self.safe_attributes: dict[tuple[type, str], bool] = {}

    def is_safe_attribute(self, obj: Any, attr: str, value: Any) -> bool:
        """Jinja2's answer (a function of the object's type and the name alone), remembered."""
        key = (type(obj), attr)
        safe = self.safe_attributes.get(key)
        if safe is None:
            if len(self.safe_attributes) > MAX_STEPS:
                self.safe_attributes.clear()
            safe = self.safe_attributes[key] = (attr not in UNSAFE_ATTRIBUTES
                                                and super().is_safe_attribute(obj, attr, value))
        return safe

    def wrap_str_format(self, value: Any):
        return None     # str.format and format_map are refused (is_safe_attribute), not sandboxed

    def call(__self, __context, __obj, *args, **kwargs):  # noqa: N805 (Jinja2's signature)
        """A call from the template: a step, its arguments and result checked, at most MAX_DEPTH deep."""
        if not __self.is_safe_callable(__obj):
            raise SecurityError(f"{__obj!r} is not safely callable")
        budget = _spend()
        _check_call(getattr(__obj, "__name__", "call"), (getattr(__obj, "__self__", None), *args), kwargs)
        if budget.depth >= MAX_DEPTH:
            raise SecurityError(f"calls nested more than {MAX_DEPTH} deep (a macro that calls itself?)")
        budget.depth += 1
        try:
            result = __context.call(__obj, *args, **kwargs)
        finally:
            budget.depth -= 1
        return _check_size(result, f"{getattr(__obj, '__name__', 'a call')}() made a value")

    def call_binop(self, context, operator: str, left: Any, right: Any) -> Any:
        """`+`, `*`, `**` and `%` with their results' sizes checked before they are made."""
        _spend()
        ints = isinstance(left, int) and isinstance(right, int)
        if operator == "%" and isinstance(left, (str, bytes)):
            raise SecurityError("'%' formatting of a string is not available in a template (use ~ or a filter)")
        if operator == "*" and ints and left.bit_length() + right.bit_length() > MAX_INT_BITS:
            raise SecurityError(f"a product of more than {MAX_INT_BITS} bits")
        if operator == "*" and not ints:
            seq, n = (left, right) if isinstance(right, int) else (right, left)
            if isinstance(seq, _SIZED) and isinstance(n, int) and len(seq) * n > MAX_SIZE:
                raise SecurityError(f"a repetition of {len(seq)} items {n} times (at most {MAX_SIZE} in all)")
        if operator == "**" and ints and abs(left) > 1 and right > 0 and left.bit_length() * right > MAX_INT_BITS:
            raise SecurityError(f"a power of more than {MAX_INT_BITS} bits")
        if operator == "+" and isinstance(left, _SIZED) and isinstance(right, _SIZED):
            _check_size(range(len(left) + len(right)), "a sum")
        return self.binop_table[operator](left, right)

    def fairpairs_concat(self, parts: tuple) -> str:
        """`a ~ b ~ ...` (Jinja2's Concat), its result no longer than MAX_SIZE."""
        return _check_size("".join(map(str, parts)), "a ~ concatenation")

    def fairpairs_body(self, text: int) -> None:
        """A loop, macro or call-block body starts: a step, and its text counted as written."""
        _spend(1, text)

    def fairpairs_written(self, value: Any) -> str:
        """A {{ }} inside such a body: its text (what Jinja2 writes) counted as written."""
        text = str(value)
        _spend(0, len(text))
        return text


# ---------------------------------------------------------------------------- load-time checks
def _refused_name(name: Any) -> str | None:
    if not isinstance(name, str):
        return None
    for part in name.split("."):
        if part.startswith(UNSAFE_PREFIXES) or part in UNSAFE_ATTRIBUTES:
            return f"uses the attribute {part!r}: a template may not use private or internal attributes"
        if part in CHANGING_METHODS:
            return f"uses the method {part!r}: a template may not change a value"
    return None


def unsafe_use(tree: jn.Template) -> str | None:
    """What the sandbox would refuse in a parsed template, said before any render (None: nothing):
    an attribute (`x.y`, `x['y']`, `|attr('y')`, `attribute='y'`) that is private, internal or a
    method that changes a value, and `{% include %}`, `{% import %}` or `{% extends %}`."""
    other = next(tree.find_all((jn.Include, jn.Import, jn.FromImport, jn.Extends)), None)
    if other is not None:
        return f"line {other.lineno}: a template may not include, import or extend other templates"
    for node in tree.find_all((jn.Getattr, jn.Getitem, jn.Filter)):
        if isinstance(node, jn.Getattr):
            names = [node.attr]
        elif isinstance(node, jn.Getitem):
            names = [node.arg.value] if isinstance(node.arg, jn.Const) else []
        elif node.name in ATTRIBUTE_FILTERS:
            names = [a.value for a in node.args[:1] if isinstance(a, jn.Const)]
            names += [k.value.value for k in node.kwargs if k.key == "attribute" and isinstance(k.value, jn.Const)]
        else:
            names = []
        for name in names:
            problem = _refused_name(name)
            if problem:
                return f"line {node.lineno}: {problem}"
    return None


def _call(name: str, *args: jn.Expr, lineno: int) -> jn.Call:
    return jn.Call(jn.EnvironmentAttribute(name, lineno=lineno), list(args), [], None, None, lineno=lineno)


class _Instrument(NodeTransformer):
    """Gives a parsed template its budget's checks: every loop, macro and call-block body first
    counts a step and its text (`fairpairs_body`), every {{ }} inside one counts what it writes
    (`fairpairs_written`; outside, each runs once), and every `~` goes through `fairpairs_concat`."""

    def __init__(self):
        self.depth = 0     # bodies the visit is inside

    def visit_Concat(self, node: jn.Concat) -> jn.Call:
        node = self.generic_visit(node)
        return _call("fairpairs_concat", jn.Tuple(node.nodes, "load", lineno=node.lineno), lineno=node.lineno)

    def visit_Output(self, node: jn.Output) -> jn.Output:
        node = self.generic_visit(node)
        if self.depth:
            node.nodes = [n if isinstance(n, jn.TemplateData) else _call("fairpairs_written", n, lineno=n.lineno)
                          for n in node.nodes]
        return node

    def _body(self, node):
        self.depth += 1
        node = self.generic_visit(node)
        self.depth -= 1
        text = sum(len(d.data) for d in node.find_all(jn.TemplateData))
        node.body.insert(0, jn.ExprStmt(_call("fairpairs_body", jn.Const(text), lineno=node.lineno), lineno=node.lineno))
        return node

    visit_For = visit_Macro = visit_CallBlock = _body


def instrument(tree: jn.Template) -> jn.Template:
    """A parsed template with its budget's checks (`_Instrument`; changes `tree`)."""
    return _Instrument().visit(tree)


@contextlib.contextmanager
def fresh_budget() -> Iterator[None]:
    """A budget of its own for the work inside (a render; the constant expressions Jinja2 computes
    while compiling), the thread's previous one restored after."""
    previous, _LOCAL.budget = getattr(_LOCAL, "budget", None), _Budget()
    try:
        yield
    finally:
        _LOCAL.budget = previous


def render_bounded(template: jinja2.Template, values: dict) -> str:
    """The template rendered with `values` under a fresh budget. Raises TemplateFailure (one line:
    the template's line and the error) for any failure of the render."""
    previous, _LOCAL.budget = getattr(_LOCAL, "budget", None), _Budget()   # (fresh_budget, inline: hot)
    try:
        return template.render(values)
    except Exception as exc:     # anything the template's code raised: the template's error
        raise TemplateFailure(_describe(exc)) from None
    finally:
        _LOCAL.budget = previous


def _describe(exc: BaseException) -> str:
    line, tb = None, exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == "<template>":
            line = tb.tb_lineno
        tb = tb.tb_next
    text = (exc.message or "") if isinstance(exc, jinja2.TemplateError) else f"{type(exc).__name__}: {exc}"
    text = " ".join(str(text).split()) or type(exc).__name__
    return f"fails to render{f' (line {line})' if line else ''}: {text}"
