"""Length terms estimated from unlabelled text: the parameters of `slln_lp`, `tc_lp` and `tcf_lp`
(docs/robustness.md).

On plain sentences of a corpus (never on minimal pairs) the model's sentence log-probability is
regressed by ordinary least squares on the sentence's length and frequency:

    LP = a + delta_token * n_tokens + delta_word * n_words + beta_unigram * U + e

(n_tokens: content tokens; n_words: white-space words; U: the sentence's wordfreq unigram
log-probability, `unigrams.WordfreqUnigrams`). delta_token is the model's expected log-probability
cost of one more token at equal word count and word frequency; `tc_lp` subtracts the two length
terms, `tcf_lp` the frequency term too. The exponent of `slln_lp` is the slope of
log(-LP) on log(n_tokens) on the same sentences: the power of the length that -LP grows with, so
LP / n_tokens ** alpha does not grow or shrink with length on that text.

Parameters are kept per model in a JSON file (format `fairpairs-length/1`); those for
`smollm2-135m` ship in fairpairs/assets/length_params.json with the command that fitted them. They
are valid only for the model (and tokenizer) they were fitted with.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import numpy as np

from fairpairs.errors import Param, DatasetError, ModelError, UsageTypeError

FORMAT = "fairpairs-length/1"
ASSET = Path(__file__).resolve().parents[1] / "assets" / "length_params.json"
KEYS = ("intercept", "delta_token", "delta_word", "beta_unigram", "slln_alpha")


def n_words(sentences) -> np.ndarray:
    """White-space separated words of each sentence."""
    return np.array([len(s.split()) for s in sentences], dtype=np.int64)


def fit(lp, n_tokens, words, u) -> dict:
    """The regression of the module docstring: coefficients, their standard errors, R^2 and the
    log-log exponent. Needs at least 10 sentences and varying lengths."""
    lp, nt, nw, u = (np.asarray(x, dtype=float) for x in (lp, n_tokens, words, u))
    n = len(lp)
    if n < 10:
        raise DatasetError(f"length fit: {n} sentences; need at least 10")
    x = np.column_stack([np.ones(n), nt, nw, u])
    if np.linalg.matrix_rank(x) < x.shape[1]:
        raise DatasetError("length fit: token count, word count and unigram log-probability are collinear "
                           "on these sentences (lengths do not vary enough)")
    coef, *_ = np.linalg.lstsq(x, lp, rcond=None)
    resid = lp - x @ coef
    sigma2 = float(resid @ resid) / max(n - x.shape[1], 1)
    se = np.sqrt(np.diag(sigma2 * np.linalg.inv(x.T @ x)))
    r2 = 1.0 - float(resid @ resid) / float(((lp - lp.mean()) ** 2).sum())
    ok = lp < 0
    alpha, _ = np.polyfit(np.log(nt[ok]), np.log(-lp[ok]), 1)
    names = ("intercept", "delta_token", "delta_word", "beta_unigram")
    out = {k: float(v) for k, v in zip(names, coef)}
    out["slln_alpha"] = float(alpha)
    out["std_errors"] = {k: float(v) for k, v in zip(names, se)}
    out["r2"] = r2
    out["n_sentences"] = int(n)
    return out


# ---------------------------------------------------------------------------- corpus sentences

_DETOK = [(" @-@ ", "-"), (" @,@ ", ","), (" @.@ ", "."), (" n't", "n't"), (" 's", "'s"), (" 're", "'re"),
          (" 've", "'ve"), (" 'm", "'m"), (" 'd", "'d"), (" 'll", "'ll"), (" ,", ","), (" ;", ";"), (" :", ":")]


def wikitext_sentences(path, n: int = 1000, seed: int = 0, min_words: int = 4, max_words: int = 14) -> list[str]:
    """Up to `n` plain sentences from WikiText files (`path`: one or a list; word-tokenised, `= heading =` lines, `<unk>`):
    split at " . ", detokenised (" @-@ " -> "-", " , " -> ", ", " 's" -> "'s", ...), kept when they
    have no <unk>, quotes, brackets or other sentence-internal full stops, start with a capital
    letter and have `min_words` to `max_words` words; a seeded sample, in corpus order."""
    paths = [path] if isinstance(path, (str, Path)) else list(path)
    lines = [ln for p in paths for ln in Path(p).read_text(encoding="utf-8").splitlines()]
    found = []
    for line in lines:
        line = line.strip()
        if not line or line.startswith("="):
            continue
        for part in line.split(" . "):
            part = part.strip().rstrip(" .").strip()
            if not part or "<unk>" in part:
                continue
            for a, b in _DETOK:
                part = part.replace(a, b)
            if re.search(r"[\"()\[\]{}?!@=|$%&]", part):
                continue
            sent = part + "."
            words = sent.split()
            if not (min_words <= len(words) <= max_words) or not sent[0].isupper() or " ." in sent[:-1] \
                    or re.search(r"\s'|'\s", sent):
                continue
            found.append(sent)
    found = list(dict.fromkeys(found))
    if len(found) > n:
        keep = np.sort(np.random.default_rng(seed).choice(len(found), size=n, replace=False))
        found = [found[i] for i in keep]
    return found


def fit_length_params(scorer, corpus, n: int = 1000, seed: int = 0, min_words: int = 4, max_words: int = 14,
                      model: str | None = None) -> dict:
    """Fit the parameters for `scorer`'s model on sentences of the WikiText file(s) `corpus` (see
    `wikitext_sentences`); returns the entry to store under the model's name, with what it was
    fitted on (file names and sha256, selection) and the tokenizer's sha256."""
    from fairpairs.arguments import count, path
    from fairpairs.scoring.morcela import check_scorer
    from fairpairs.scoring.unigrams import WordfreqUnigrams, tokenizer_fingerprint

    check_scorer(scorer)
    for value, name, least in ((n, "n", 10), (seed, "seed", 0), (min_words, "min_words", 1),
                               (max_words, "max_words", 1)):
        count(value, name, least)
    if isinstance(corpus, (bytes, int, float)) or corpus is None or not (isinstance(corpus, (str, Path))
                                                                         or hasattr(corpus, "__iter__")):
        raise UsageTypeError(Param("corpus"), f": expected a file path or a list of them, not {type(corpus).__name__}")
    for f in ([corpus] if isinstance(corpus, (str, Path)) else list(corpus)):
        path(f, "corpus", what="file", error=DatasetError)
    sents = wikitext_sentences(corpus, n, seed, min_words, max_words)
    if len(sents) < 10:
        raise DatasetError(Param("corpus"), f": {len(sents)} usable sentences (WikiText-style text with 4-14 word "
                           f"sentences expected); need at least 10")
    df = scorer.score(sents, normalize=("slor",), unigrams=WordfreqUnigrams())
    entry = fit(df["sum_logprob"], df["n_tokens"], n_words(sents), df["unigram_logprob"])
    files = [corpus] if isinstance(corpus, (str, Path)) else list(corpus)
    entry["fitted_on"] = {"files": {Path(f).name: hashlib.sha256(Path(f).read_bytes()).hexdigest() for f in files},
                          "sentences": len(sents), "selection": f"wikitext_sentences(n={n}, seed={seed}, "
                          f"min_words={min_words}, max_words={max_words})", "unigrams": "wordfreq"}
    entry["model"] = model or scorer.name
    entry["tokenizer_sha256"] = tokenizer_fingerprint(scorer.tokenizer)
    return entry


# ---------------------------------------------------------------------------- loading


def _canonical(name: str) -> str:
    from fairpairs.control.sources import SMOLLM2_ALIASES

    return "smollm2-135m" if name.lower() in SMOLLM2_ALIASES else name


def read_params_file(path) -> dict:
    """{model name: entry} from a `fairpairs-length/1` JSON file."""
    from fairpairs.scoring.unigrams import read_json

    doc = read_json(path, (Param("length_params"), f" {path}"))
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or not isinstance(doc.get("models"), dict):
        raise DatasetError(Param("length_params"), f" {path}", value=path, reason=f"not a {FORMAT} file (fields 'format', 'models')")
    return doc["models"]


def _checked(entry, where: tuple) -> dict:
    if not isinstance(entry, dict):
        raise DatasetError(*where, ": expected an object of parameters")
    for k in KEYS:
        v = entry.get(k)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not np.isfinite(v):
            raise DatasetError(*where, f": field {k!r} must be a finite number")
    return entry


def load_length_params(spec, scorer=None) -> dict:
    """The parameters for `scorer`'s model: `spec` None -> the bundled file's entry for the model's
    name; a dict -> itself (checked); a path -> that file's entry for the model (or its only entry).
    An entry that records a tokenizer hash is refused for another tokenizer."""
    name = _canonical(getattr(scorer, "name", "") or "")
    if isinstance(spec, dict) and not isinstance(spec.get("models"), dict):
        entry, where = spec, (Param("length_params"),)
    else:
        if spec is None:
            models, where = read_params_file(ASSET), (f"bundled length parameters ({ASSET.name})",)
        elif isinstance(spec, (str, Path)):
            models, where = read_params_file(spec), (Param("length_params"), f" {spec}")
        else:
            raise UsageTypeError(Param("length_params"), f": expected a file path or a dict, not {type(spec).__name__}")
        if name in models:
            entry = models[name]
        elif spec is not None and len(models) == 1:
            entry = next(iter(models.values()))
        else:
            raise ModelError(*where, f": no parameters for model {name!r} (fitted: {', '.join(models) or 'none'}); "
                             f"fit them on unlabelled text with fairpairs.scoring.length.fit_length_params")
        where = (*where, f", model {name!r}")
    entry = _checked(entry, where)
    want = entry.get("tokenizer_sha256")
    if want and scorer is not None:
        from fairpairs.scoring.unigrams import tokenizer_fingerprint

        if tokenizer_fingerprint(scorer.tokenizer) != want:
            raise ModelError(*where, f": fitted with another tokenizer than model {name!r} has")
    return entry


def save_params_file(path, models: dict) -> None:
    """Write {model: entry} as a `fairpairs-length/1` file (atomically)."""
    from fairpairs.io.files import atomic_write

    atomic_write(path, json.dumps({"format": FORMAT, "models": models}, indent=1, sort_keys=True) + "\n")
