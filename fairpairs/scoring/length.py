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

Parameters are kept per model in a JSON file (format `fairpairs-length/1`, several models a file;
`fairpairs fit-length` writes them); those for `smollm2-135m` ship in
fairpairs/assets/length_params.json with the command that fitted them. Each entry records the
model's identity (content fingerprint of config and weights, and tokenizer sha256) and is used
for that model only.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

from fairpairs.errors import Param, DatasetError, ModelError, UsageTypeError
from fairpairs.io.hashing import file_sha256
from fairpairs.scoring.settings import SCORING

FORMAT = "fairpairs-length/1"
ASSET = Path(__file__).resolve().parents[1] / "assets" / "length_params.json"
KEYS = ("intercept", "delta_token", "delta_word", "beta_unigram", "slln_alpha")


def n_words(sentences) -> np.ndarray:
    """White-space separated words of each sentence."""
    return np.array([len(s.split()) for s in sentences], dtype=np.int64)


def fit_length_terms(lp, n_tokens, words, u) -> dict:
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


from fairpairs.scoring.corpus import CORPUS, corpus_sentences, wikitext_sentences  # noqa: F401  (re-exported)


def fit_length_params(scorer, corpus=None, n: int = SCORING.fit_sentences, seed: int = 0, min_words: int = 4, max_words: int = 14,
                      model: str | None = None) -> dict:
    """Fit the parameters for `scorer`'s model on sentences of the WikiText-style or plain (one
    sentence a line) file(s) `corpus` (default: the bundled excerpt of WikiText-2, `CORPUS`; see
    `wikitext_sentences`); returns the entry to store under the model's name (`model`, default the
    scorer's), with what it was fitted on (file names and sha256, selection, sentences used) and
    the model's identity: its content fingerprint (`model_sha256`, `scoring.fingerprint`) and
    its tokenizer's sha256. Warns (FairpairsWarning) when the corpus gives fewer than `n` usable
    sentences; fewer than 10 is an error."""
    from fairpairs.scoring.fingerprint import model_fingerprint
    from fairpairs.scoring.morcela import check_scorer
    from fairpairs.scoring.unigrams import WordfreqUnigrams, tokenizer_fingerprint

    check_scorer(scorer)
    files, sents = corpus_sentences(corpus, n, seed, min_words, max_words)
    df = scorer.score(sents, normalize=("slor",), unigrams=WordfreqUnigrams())
    entry = fit_length_terms(df["sum_logprob"], df["n_tokens"], n_words(sents), df["unigram_logprob"])
    names = ["fairpairs:" + CORPUS.name if Path(f).resolve() == CORPUS else Path(f).name for f in files]
    entry["fitted_on"] = {"files": {k: file_sha256(f) for k, f in zip(names, files)},
                          "sentences": len(sents), "asked": n, "selection": f"wikitext_sentences(n={n}, seed={seed}, "
                          f"min_words={min_words}, max_words={max_words})", "unigrams": "wordfreq"}
    entry["model"] = model or scorer.name
    entry["model_sha256"] = model_fingerprint(scorer)
    entry["tokenizer_sha256"] = tokenizer_fingerprint(scorer.tokenizer)
    return entry


# ---------------------------------------------------------------------------- loading


def read_params_file(path) -> dict:
    """{model name: entry} from a `fairpairs-length/1` JSON file."""
    from fairpairs.scoring.unigrams import read_json

    doc = read_json(path, (Param("length_params"), f" {path}"))
    return _models_of(doc, (Param("length_params"), f" {path}"), path)


def params_document(spec) -> dict:
    """`spec` read and checked, as a plain dict: a `fairpairs-length/1` file (a path) or document
    (a dict with `format` and `models`), or one entry of parameters (any other dict)."""
    from collections.abc import Mapping

    from fairpairs.arguments import path

    if isinstance(spec, Mapping):
        spec = json.loads(json.dumps(dict(spec), default=str))
        if isinstance(spec.get("models"), dict):
            _models_of(spec, (Param("length_params"),))
            return spec
        return _checked(spec, (Param("length_params"),))
    if isinstance(spec, (str, Path)) or hasattr(spec, "__fspath__"):
        from fairpairs.scoring.unigrams import read_json

        file = path(spec, "length_params", error=DatasetError, what="parameters file")
        doc = read_json(file, (Param("length_params"), f" {file}"))
        _models_of(doc, (Param("length_params"), f" {file}"), file)
        return doc
    raise UsageTypeError(Param("length_params"), f": expected a file path or a dict, not {type(spec).__name__}")


def _models_of(doc, where: tuple, value=None) -> dict:
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or not isinstance(doc.get("models"), dict):
        raise DatasetError(*where, value=value, reason=f"not a {FORMAT} file (fields 'format', 'models')")
    return doc["models"]


def _checked(entry, where: tuple) -> dict:
    if not isinstance(entry, dict):
        raise DatasetError(*where, ": expected an object of parameters")
    for k in KEYS:
        v = entry.get(k)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not np.isfinite(v):
            raise DatasetError(*where, f": field {k!r} must be a finite number")
    return entry


def length_identity(model) -> dict:
    """What a length-parameter entry must record to be used for `model` (a name or path, or a
    loaded Scorer): its name, content fingerprint (`scoring.fingerprint.model_fingerprint`) and
    tokenizer sha256. For a name nothing is loaded but its tokenizer (the weights are hashed)."""
    from fairpairs.errors import FairpairsError
    from fairpairs.scoring.fingerprint import model_fingerprint
    from fairpairs.scoring.unigrams import tokenizer_fingerprint

    if isinstance(model, (str, Path)):
        from fairpairs.tokenization.lengths import load_tokenizer

        name, fingerprint = str(model), model_fingerprint(model)
        tokenizer = load_tokenizer(name)
    else:
        name = str(getattr(model, "name", "") or type(model).__name__)
        if getattr(model, "model", None) is None and getattr(model, "fingerprint", None) is None and name:
            try:     # (a stand-in without weights, e.g. a tokenizer holder: the model its name names)
                fingerprint = model_fingerprint(name)
            except FairpairsError:
                fingerprint = f"name:{name}"
        else:
            fingerprint = model_fingerprint(model)
        tokenizer = model.tokenizer
    return {"model": name, "model_sha256": fingerprint, "tokenizer_sha256": tokenizer_fingerprint(tokenizer)}


def load_length_params(spec, model=None) -> dict:
    """The parameters for `model` (a name or path, or a loaded Scorer). `spec`: None -> the bundled
    file; a path -> that `fairpairs-length/1` file; a dict holding `format` and `models` -> the same
    document in memory; any other dict -> parameters given as they are (when it records a
    `model_sha256`, it must be `model`'s).

    An entry of a file is used only for the model it was fitted for: the one whose recorded
    `model_sha256` is `model`'s content fingerprint and whose `tokenizer_sha256` (when recorded)
    is its tokenizer's. Any other model gets one error naming both (no entry is taken by its name
    alone, nor because it is the only one)."""
    from fairpairs.scoring.fingerprint import short

    if isinstance(spec, dict) and not isinstance(spec.get("models"), dict):
        entry, where = _checked(spec, (Param("length_params"),)), (Param("length_params"),)
        if model is not None and entry.get("model_sha256"):
            _check_identity(entry, length_identity(model), where)
        return entry
    if spec is None:
        models, where = read_params_file(ASSET), (f"bundled length parameters ({ASSET.name})",)
    elif isinstance(spec, (str, os.PathLike)):
        models, where = read_params_file(spec), (Param("length_params"), f" {spec}")
    elif isinstance(spec, dict):
        models, where = _models_of(spec, (Param("length_params"),)), (Param("length_params"),)
    else:
        raise UsageTypeError(Param("length_params"), f": expected a file path or a dict, not {type(spec).__name__}")
    if model is None:
        raise UsageTypeError(Param("model"), ": length parameters of a file are chosen by the model they were fitted for; "
                             "give the model")
    me = length_identity(model)
    for key in sorted(models):
        entry = models[key]
        if isinstance(entry, dict) and entry.get("model_sha256") == me["model_sha256"]:
            entry = _checked(entry, (*where, f", model {key!r}"))
            _check_identity(entry, me, (*where, f", model {key!r}"))
            return entry
    fitted = [f"{k!r} ({short(str(e['model_sha256']))})" if isinstance(e, dict) and e.get("model_sha256")
              else f"{k!r} (no model fingerprint recorded: refit it)" for k, e in sorted(models.items())]
    raise ModelError(*where, f": fitted for model {', '.join(fitted) or '(none)'}, not for model {me['model']!r} "
                     f"({short(me['model_sha256'])}); fit them for it with `fairpairs fit-length --models "
                     f"{me['model']} --out FILE`")


def _check_identity(entry: dict, me: dict, where: tuple) -> None:
    from fairpairs.scoring.fingerprint import short

    want = entry.get("model_sha256")
    if want and want != me["model_sha256"]:
        raise ModelError(*where, f": fitted for model {entry.get('model', '?')!r} ({short(str(want))}), not for model "
                         f"{me['model']!r} ({short(me['model_sha256'])}); fit them for it with `fairpairs fit-length`")
    tok = entry.get("tokenizer_sha256")
    if tok and tok != me["tokenizer_sha256"]:
        raise ModelError(*where, f": fitted for model {entry.get('model', '?')!r} with another tokenizer than model "
                         f"{me['model']!r} has")


def check_params_out(path) -> dict:
    """The entries of `path` that a new entry is added to: none when it does not exist; an
    existing file must be a `fairpairs-length/1` file (never overwrite a file fairpairs did not
    write)."""
    from fairpairs.errors import OutputError
    from fairpairs.scoring.unigrams import read_json

    p = Path(path)
    if not p.exists():
        return {}
    try:
        return _models_of(read_json(p, (Param("out"), f" {p}")), (Param("out"), f" {p}"), p)
    except DatasetError:
        raise OutputError(Param("out"), f" {p}", value=p, reason=f"exists and is not a {FORMAT} file; refusing to "
                          "overwrite it") from None


def add_entry(path, name: str, entry: dict, *, replace: bool = False) -> bool:
    """Add the entry `name` to the parameters file `path` (created when missing); True when it
    replaced one. The file is read, changed and written back under its lock (`io.locks.locked`:
    writers finishing together, as the jobs of a cluster's array do, each keep their entry) and
    written atomically. An entry `name` of the same model (its `model_sha256`) is replaced, a
    refit; one of another model, or that records none, only when `replace` (else OutputError,
    the file unchanged): a name says nothing of what it holds, and a later run would lose it."""
    from fairpairs.io.locks import locked

    check_params_out(path)      # (no lock file beside a file that is not ours)
    with locked(path, what=(Param("out"), f" {path}")):
        models = check_params_out(path)
        check_replacement(models, path, name, entry.get("model_sha256"), replace=replace)
        replaced = name in models
        models[name] = entry
        save_params_file(path, models)
    return replaced


def check_replacement(models: dict, path, name: str, fingerprint, *, replace: bool = False) -> None:
    """Refuse (OutputError) to replace the entry `name` of `models` (the file `path`'s) with one
    for the model of content fingerprint `fingerprint` when it was fitted for another model, or
    records none, unless `replace`."""
    from fairpairs.errors import OutputError
    from fairpairs.scoring.fingerprint import short

    old = models.get(name)
    theirs = old.get("model_sha256") if isinstance(old, dict) else None
    if old is None or replace or (theirs and theirs == fingerprint):
        return
    held = (f"another model's parameters (model_sha256 {short(str(theirs))})" if theirs
            else "the parameters of a model it does not identify (no model_sha256)")
    raise OutputError(Param("out"), f" {path}: its entry {name!r} holds {held}, not this model's "
                      f"({short(str(fingerprint))}); not replaced without ", Param("replace"),
                      " (or give another ", Param("name"), ")", value=path)


def save_params_file(path, models: dict) -> None:
    """Write {model: entry} as a `fairpairs-length/1` file (atomically)."""
    from fairpairs.io.files import atomic_write

    atomic_write(path, json.dumps({"format": FORMAT, "models": models}, indent=1, sort_keys=True) + "\n")
