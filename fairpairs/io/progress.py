"""Progress bars, the same in a terminal, a log file and a Jupyter notebook: one helper for every
bar fairpairs shows (generation, scoring, evaluation, publishing), and one switch for all of them
(as HF datasets' `disable_progress_bars()`):

- `disable_progress_bars()`: no bar, anywhere, until `enable_progress_bars()`;
- `enable_progress_bars()`: a bar wherever stderr goes (a terminal, a log file, a notebook);
- neither called (the default): a bar where someone is watching (the stream the bar writes to,
  stderr, is a terminal, or this is a Jupyter kernel), none in logs, pipes and tests.

The environment variable FAIRPAIRS_DISABLE_PROGRESS_BARS=1 (or true, yes, on; 0, false, no, off or
empty mean unset; any other value is an error listing these) turns every bar off, whatever the
calls above say (as HF_HUB_DISABLE_PROGRESS_BARS does for huggingface_hub); it is read when a bar is
made, not at import.

`are_progress_bars_disabled()` says whether a bar made now would be hidden. `scoped(value)`
applies a value (True, False; None: no change) inside a `with` block and restores the switch
after it: the CLI's --progress / --no-progress / --quiet apply to their command, a deprecated
`progress=` argument to its call, and `suppressed()` hides the bars of inner loops under an
outer bar and of every rank but the first of a multi-process launch.

A bar starts with one plain line saying what will be done ("scoring 5,616 sentences with
SmolLM2-135M-Instruct (Q4_1 GGUF, de-quantised to float32)"). Inside `saying()` (a command that
reports what it does, as `fairpairs generate`) that line is written wherever stderr goes, a log
too, while the bar stays where someone watches: a log gets the line, not the bar's frames. In a
Jupyter kernel with ipywidgets the bar is tqdm's widget; without ipywidgets it is a plain text bar
on stderr, which the notebook shows as it updates (never tqdm's "IProgress not found" warning, see `quiet_notebook`).
"""

from __future__ import annotations

import contextlib
import sys
import warnings

from fairpairs.environment import DISABLE_PROGRESS_BARS

_switch: bool | None = None     # True: bars everywhere; False: none; None: automatic (and the variable)
_saying = False                 # the first line of long work written where no bar is drawn (`saying`)


def disable_progress_bars() -> None:
    """No progress bar from fairpairs, anywhere, until `enable_progress_bars()`."""
    global _switch
    _switch = False


def enable_progress_bars() -> None:
    """Progress bars from fairpairs wherever stderr goes (a terminal, a log file, a notebook),
    unless FAIRPAIRS_DISABLE_PROGRESS_BARS is set."""
    global _switch
    _switch = True


def are_progress_bars_disabled() -> bool:
    """Whether a progress bar made now would be hidden (by `disable_progress_bars()`, by
    FAIRPAIRS_DISABLE_PROGRESS_BARS, or because nobody watches stderr)."""
    return not wanted()


@contextlib.contextmanager
def scoped(value: bool | None):
    """Inside the block, bars as `enable_progress_bars()` (True) or `disable_progress_bars()`
    (False) would have them, or unchanged (None); the switch is restored after it."""
    global _switch
    before = _switch
    if value is not None:
        _switch = bool(value)
    try:
        yield
    finally:
        _switch = before


@contextlib.contextmanager
def saying(when: bool = True):
    """Inside the block (when `when`), the line that starts long work is written wherever stderr
    goes, a log file too, so that the log says what was done; the bar itself is drawn only where
    it would be anyway (`wanted`). Progress switched off (`disable_progress_bars`, the variable,
    `suppressed`) still hides both."""
    global _saying
    before = _saying
    _saying = bool(when) or before
    try:
        yield
    finally:
        _saying = before


def says() -> bool:
    """Whether the line that starts long work is written now: where a bar is drawn (`wanted`), and
    inside `saying()` wherever stderr goes, unless progress is switched off."""
    if _switch is False or _disabled_by_environment():
        return False
    return _saying or wanted()


def suppressed(when: bool = True):
    """No bar inside the block when `when` (an inner loop under an outer bar, a rank but the first)."""
    return scoped(False if when else None)


def takes_progress(call):
    """Decorate a public call that took `progress` in 0.1.0: it still takes it as a keyword, for
    one release (`deprecated_argument`), and no longer passes it on."""
    import functools

    @functools.wraps(call)
    def wrapper(*args, progress=None, **kwargs):
        with deprecated_argument(call.__name__, progress):
            return call(*args, **kwargs)
    return wrapper


def deprecated_argument(call: str, progress):
    """The deprecated `progress` argument of a public call (a parameter of 0.1.0; issue 37): None
    (not given) changes nothing; True or False warns with a `FairpairsDeprecationWarning` naming
    the switch and applies to this call only. Returns the context manager (`scoped`) to run the
    call's work in."""
    from fairpairs.errors import FairpairsDeprecationWarning, Param, UsageTypeError

    if progress is not None:
        if not isinstance(progress, bool):
            raise UsageTypeError(Param("progress"), f": expected True, False or None, not {type(progress).__name__}",
                                 value=progress, expected="True, False or None")
        warnings.warn(FairpairsDeprecationWarning(
            f"{call}(): `progress` is deprecated and applies to this call only; use "
            f"fp.{'enable' if progress else 'disable'}_progress_bars() (or {DISABLE_PROGRESS_BARS.name}=1)"),
            stacklevel=_outside_fairpairs())
    return scoped(progress)


def _outside_fairpairs() -> int:
    """The `stacklevel` of the first caller outside the fairpairs package (the user's line)."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_globals.get("__name__", "").partition(".")[0] == "fairpairs":
        frame, level = frame.f_back, level + 1
    return level


def _disabled_by_environment() -> bool:
    """FAIRPAIRS_DISABLE_PROGRESS_BARS, read now; a value it does not take is a `VariableError`
    listing every value it takes (exit 2 in the CLI)."""
    return DISABLE_PROGRESS_BARS.read()


def in_notebook() -> bool:
    """Whether this process is a Jupyter kernel (the test tqdm.autonotebook makes)."""
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return False
    try:
        shell = ipython.get_ipython()
    except Exception:
        return False
    return shell is not None and "IPKernelApp" in getattr(shell, "config", {})


def _is_terminal(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def wanted() -> bool:
    """Whether to show progress now (the module docstring's rule)."""
    if _switch is False or _disabled_by_environment():
        return False
    return _switch or in_notebook() or _is_terminal(sys.stderr)


def quiet_notebook() -> None:
    """In a Jupyter kernel without ipywidgets, import `tqdm.autonotebook` once with its
    "IProgress not found" warning silenced: libraries that import `tqdm.auto` (transformers,
    huggingface_hub, datasets) then get the plain text bar without the warning. Elsewhere nothing."""
    if "tqdm.autonotebook" in sys.modules or not in_notebook():
        return
    from tqdm import TqdmWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TqdmWarning)
        import tqdm.autonotebook  # noqa: F401


def announce(line: str) -> None:
    """Print the first line of long work to stderr (when it is said: `says`)."""
    if says():
        print(line, file=sys.stderr, flush=True)


class _Off:
    """The bar when progress is off: every call does nothing."""

    n = 0
    total = 0

    def update(self, n=1):
        self.n += n

    def set_postfix_str(self, *a, **k):
        pass

    def refresh(self):
        pass

    def close(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def bar(total: int, desc: str, unit: str = "it", *, first: str | None = None, initial: int = 0,
        leave: bool = False):
    """A progress bar over `total` steps (`update(n)`, `set_postfix_str`, `close`; a context
    manager), or a bar that does nothing when progress is off (`wanted`). `first`: the line printed
    before the bar (also where no bar is drawn, inside `saying`). `leave`: keep the finished bar
    in a terminal (in a notebook, or a log it is forced into, it always stays, so the output shows
    what was done)."""
    if not wanted():
        if first and says():
            print(first, file=sys.stderr, flush=True)
        return _Off()
    if first:
        print(first, file=sys.stderr, flush=True)
    quiet_notebook()
    if in_notebook():
        made = _notebook_bar(total, desc, unit, initial)
        if made is not None:
            return made
    from tqdm.std import tqdm

    terminal = _is_terminal(sys.stderr)
    return tqdm(total=total, desc=desc, unit=unit, initial=initial, file=sys.stderr, leave=leave or not terminal,
                dynamic_ncols=terminal, mininterval=0.1 if terminal else 1.0, disable=False)


def _notebook_bar(total, desc, unit, initial):
    """tqdm's widget bar, or None when ipywidgets is not there (no warning either way)."""
    import importlib.util

    if importlib.util.find_spec("ipywidgets") is None:
        return None
    from tqdm import TqdmWarning

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", TqdmWarning)
            from tqdm.notebook import tqdm

            return tqdm(total=total, desc=desc, unit=unit, initial=initial, leave=True, disable=False)
    except (ImportError, TqdmWarning, AttributeError):
        return None
