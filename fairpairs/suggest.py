""""Did you mean ...?" for names a user types: tokenizers, models, paradigms (difflib).

Only the standard library is imported here; the candidate lists are built when an error is being
reported, never on the normal path.
"""

from __future__ import annotations

import difflib


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
    hits = [shown[h] for h in dict.fromkeys(sorted(longer, key=len)[:n] + hits)][:n]
    return f" (did you mean {' or '.join(hits)}?)" if hits else ""


def tokenizer_names() -> list[str]:
    """Every tokenizer name that resolves without the Hub: bundled names and aliases, files of
    pinned packages, the SmolLM2 aliases, presets and the names of the local tokenizer map."""
    from fairpairs.control.packaged import PACKAGED
    from fairpairs.control.sources import BUNDLED, PRESET_PREFIX, PRESETS, SMOLLM2_ALIASES, _load_map

    names = [*BUNDLED, *(row.name for row in PACKAGED.values()), *sorted(SMOLLM2_ALIASES),
             *(PRESET_PREFIX + p for p in PRESETS)]
    try:
        mapping, _ = _load_map()
    except Exception:     # a broken map is reported by its own error
        mapping = None
    return names + list(mapping or {})


def model_names() -> list[str]:
    """Model names that load without the network: the SmolLM2 aliases and the Hub cache's models."""
    from fairpairs.control.sources import SMOLLM2_ALIASES

    names = sorted(SMOLLM2_ALIASES)
    try:
        from huggingface_hub import scan_cache_dir

        names += [r.repo_id for r in scan_cache_dir().repos if r.repo_type == "model"]
    except Exception:     # no cache: nothing cached to suggest
        pass
    return names


def check_paradigm_names(spec, grammars) -> None:
    """A paradigm UID that is not there, with the closest known UIDs ("did you mean"); the other
    checks of `paradigms` are `select_paradigms`'s."""
    from fairpairs.errors import Param, UsageError
    from fairpairs.generation.grammar import paradigm_index

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
