"""Progress bars, the same in a terminal, a log file and a Jupyter notebook: one helper for every
bar fairpairs shows (generation, scoring, evaluation, publishing).

`progress` arguments mean:

- True: a bar, wherever stderr goes (a terminal, a log file, a notebook);
- None: a bar where someone is watching (stderr is a terminal, or a Jupyter kernel), none in
  logs, pipes and tests;
- False: no bar.

A bar starts with one plain line saying what will be done ("scoring 5,616 sentences with
SmolLM2-135M-Instruct (Q4_1 GGUF, de-quantised to float32)"). In a Jupyter kernel with ipywidgets
the bar is tqdm's widget; without ipywidgets it is a plain text bar on stderr, which the notebook
shows as it updates (never tqdm's "IProgress not found" warning, see `quiet_notebook`).
"""

from __future__ import annotations

import sys
import warnings


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


def wanted(progress: bool | None) -> bool:
    """Whether to show progress for a `progress` argument (True, False, or None: automatic)."""
    if progress is None:
        return in_notebook() or _is_terminal(sys.stderr)
    return bool(progress)


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


def announce(line: str, progress: bool | None = True) -> None:
    """Print the first line of long work to stderr (when progress is shown)."""
    if wanted(progress):
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


def bar(total: int, desc: str, unit: str = "it", *, progress: bool | None = True, first: str | None = None,
        initial: int = 0, leave: bool = False):
    """A progress bar over `total` steps (`update(n)`, `set_postfix_str`, `close`; a context
    manager), or a bar that does nothing when progress is off. `first`: the line printed before
    the bar. `leave`: keep the finished bar in a terminal (in a notebook or a log it always stays,
    so the output shows what was done)."""
    if not wanted(progress):
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
