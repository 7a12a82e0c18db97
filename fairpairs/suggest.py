""""Did you mean ...?" for names a user types: tokenizers, models, paradigms (difflib).

Only the standard library is imported here; the candidate lists are built by the stage that knows
them (`fairpairs.tokenization.catalogue.tokenizer_names`, `model_names`;
`fairpairs.generation.selection.check_paradigm_names`) when an error is being reported, never on the
normal path.
"""

from __future__ import annotations

import difflib


def _squeeze(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isalnum())


def did_you_mean(name: str, candidates, n: int = 3) -> str:
    """" (did you mean X?)" with the candidates closest to `name` (case-insensitive), or ""."""
    shown = {}
    for c in candidates:
        shown.setdefault(str(c).lower(), str(c))
    key = str(name).lower()
    hits = [h for h in difflib.get_close_matches(key, list(shown), n=n, cutoff=0.6) if h != key]
    if hits:   # only the closest ones: a far second guess is noise
        best = difflib.SequenceMatcher(None, key, hits[0]).ratio()
        hits = [h for h in hits if difflib.SequenceMatcher(None, key, h).ratio() >= best - 0.03]
    longer = [c for c in shown if c.startswith(key) and c != key]     # "bert-base" -> bert-base-cased, -uncased
    # a name as typed inside a longer one, punctuation and case aside: llama3 / Llama-3 ->
    # meta-llama/Meta-Llama-3-8B, qwen2.5 -> Qwen/Qwen2.5-7B
    squeezed = _squeeze(key)
    within = [c for c in shown if len(squeezed) >= 4 and squeezed in _squeeze(c.rsplit("/", 1)[-1]) and c != key]
    hits = [shown[h] for h in dict.fromkeys(sorted(longer, key=len)[:n] + sorted(within, key=len)[:n] + hits)][:n]
    return f" (did you mean {' or '.join(hits)}?)" if hits else ""
