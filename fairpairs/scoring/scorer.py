"""`Scorer`: sentence log-probabilities from a causal LM or pseudo-log-likelihoods from a masked LM."""

from __future__ import annotations

import os

import numpy as np

from fairpairs.scoring.batching import auto_budget, batch_tensors, run_rows
from fairpairs.scoring import check_pll
from fairpairs.scoring.encoding import Encoded, causal_rows, check_sentences, encode, masked_rows, prefix_token_id
from fairpairs.scoring.heads import Forward
from fairpairs.scoring import shared_run
from fairpairs.io.progress import announce, suppressed
from fairpairs.errors import Param
from fairpairs.scoring.models import ModelError, load_model, model_identity, resolve_model_name
from fairpairs.scoring.fingerprint import config_json, model_fingerprint
from fairpairs.scoring.sentence_scores import SentenceScores
from fairpairs.scoring.settings import SCORING

PROBE = ["The quick brown fox jumps over the lazy dog.", "A souvenir."]


class Scorer(SentenceScores):
    """Scores sentences with one LM. Build it with `Scorer.from_pretrained`; its score table:
    `SentenceScores.score`."""

    def __init__(self, model, tokenizer, kind: str, name: str = "", device: str = "cpu",
                 pll: str = SCORING.pll, batch_tokens: int | None = None):
        import torch

        check_pll(pll)
        self.model, self.tokenizer, self.kind, self.name = model, tokenizer, kind, name or ""
        self.device, self.pll = device, pll
        self.dtype = next(model.parameters()).dtype
        cfg = model.config
        if kind == "causal":
            self.bos_id = prefix_token_id(tokenizer)  # BOS, else EOS: lm-eval's rule
            if self.bos_id is None:
                raise ModelError(Param("model"), f" {name}", value=name, reason=f"its tokenizer has neither a BOS nor an EOS token "
                                 f"to put before the sentence, so the first word cannot be scored")
            self.mask_id = None
        else:
            self.bos_id, self.mask_id = None, tokenizer.mask_token_id
            if self.mask_id is None:
                raise ModelError(Param("model"), f" {name}", value=name, reason=f"its tokenizer has no mask token (needed for PLL)")
        pad = getattr(cfg, "pad_token_id", None)
        self.pad_id = pad if pad is not None else (tokenizer.pad_token_id or 0)
        limits = [getattr(cfg, k, None) for k in ("max_position_embeddings", "n_positions")]
        limits = [v for v in limits if isinstance(v, int) and v > 0]
        if getattr(cfg, "model_type", "") in {"roberta", "xlm-roberta", "camembert"} and limits:
            limits = [limits[0] - 2]  # RoBERTa's positions start after the padding index
        self.max_len = min(limits) if limits else None
        self.batch_tokens = batch_tokens or auto_budget(model, device, torch.finfo(self.dtype).bits // 8)
        self.forward = Forward(model, kind, device)
        self._probe()
        self.shared_prefixes = kind == "causal" and shared_run.check(self)   # (prefixes run once: issue 49)

    @classmethod
    def from_pretrained(cls, name_or_path: str, kind: str | None = None, device: str = "auto",
                        dtype=None, pll: str = SCORING.pll, batch_tokens: int | None = None,
                        progress: bool | None = None, device_map: str | None = None) -> Scorer:
        """Load a model by Hub name, folder, `.gguf` file or alias (`smollm2-135m`).

        Under a multi-process launch (torchrun, accelerate launch) every rank loads the model, on
        ``cuda:LOCAL_RANK`` when GPUs are used, and a failure on any rank is raised on all of them.
        `device_map` ("auto", "balanced", "sequential") spreads one model over the visible GPUs
        with accelerate instead (for a model larger than one GPU). The model's real identity
        (`scorer.info`, `model_identity`) is printed when it is loaded, where progress is shown
        (`fairpairs.disable_progress_bars`). `progress`: deprecated (FutureWarning), applies to
        this call only.
        """
        from fairpairs.arguments import count, text
        from fairpairs.io.progress import deprecated_argument
        from fairpairs.scoring import launch

        if not isinstance(name_or_path, str):
            if not hasattr(name_or_path, "__fspath__"):
                from fairpairs.errors import Param, UsageTypeError

                raise UsageTypeError(Param("model"), f": expected a model name or path, not {type(name_or_path).__name__}")
            name_or_path = str(name_or_path)
        for value, param in ((kind, "kind"), (device, "device"), (device_map, "device_map")):
            text(value, param, optional=True)
        count(batch_tokens, "batch_tokens", 1, optional=True)
        check_pll(pll)

        def load():
            from fairpairs.scoring.memory import make_room

            make_room()      # (what an earlier generation step kept: issue 49, item 3)
            model, tok, k, dev, _ = load_model(str(name_or_path), kind=kind, device=device, dtype=dtype,
                                               device_map=device_map)
            scorer = cls(model, tok, k, str(name_or_path), dev, pll, batch_tokens)
            scorer.source = _resolved(str(name_or_path))
            scorer.fingerprint = model_fingerprint(str(name_or_path))   # (its files, by content: once per load)
            scorer.info = model_identity(str(name_or_path), str(scorer.dtype).replace("torch.", ""), k,
                                         parameters=sum(p.numel() for p in model.parameters()))
            with suppressed(not launch.is_main()):     # (every rank loads; rank 0 says so)
                announce(f"model {name_or_path}: {scorer.info['description']}; {k} LM, "
                         f"{scorer.info['parameters'] / 1e6:,.1f}M parameters, on {dev}")
            return scorer

        with deprecated_argument("Scorer.from_pretrained", progress):
            group = launch.init()
            return group.run(load) if group is not None else load()

    # -- core -------------------------------------------------------------------------------
    def encode(self, sentences) -> Encoded:
        """The sentences tokenised as this scorer feeds them to its model (`scoring.encoding.encode`)."""
        return encode(self.tokenizer, sentences, self.kind, self.bos_id, self.max_len)

    def _rows(self, enc: Encoded, pll: str | None = None):
        return causal_rows(enc) if self.kind == "causal" else masked_rows(enc, pll or self.pll)

    def _run(self, enc: Encoded, pll: str | None = None) -> np.ndarray:
        from fairpairs.scoring import launch

        desc = "causal" if self.kind == "causal" else f"PLL {pll or self.pll}"
        first = self._first_line(len(enc.ids), pll)
        if self.kind == "causal" and shared_run.shares_prefixes(self, enc):
            with suppressed(not launch.is_main()):
                return shared_run.run_shared(enc.ids, enc.out_ptr(), self.forward, self.batch_tokens, self.pad_id,
                                             desc, self.device, first=first)
        rows = self._rows(enc, pll)
        padded, lengths = enc.padded(self.pad_id)
        with suppressed(not launch.is_main()):
            return run_rows(rows, padded, lengths, int(enc.out_ptr()[-1]), self.forward, self.batch_tokens,
                            self.pad_id, self.mask_id, desc, self.device, first=first)

    def _probe(self) -> None:
        """Check the fast body/head split against the full model on two padded sentences."""
        import torch

        enc = self.encode(PROBE)
        rows = self._rows(enc, "original")
        padded, lengths = enc.padded(self.pad_id)
        tensors, _ = batch_tensors(rows, np.arange(rows.n), padded, lengths[rows.sent],
                                   self.pad_id, self.mask_id, self.device)
        tol = 1e-3 if self.dtype == torch.float32 else 0.15
        self.forward.probe(*tensors, tol)

    def token_logprobs(self, sentences, pll: str | None = None) -> list[np.ndarray]:
        """Per sentence, the natural-log probability of each content token (float64 arrays)."""
        sentences = check_sentences(sentences)
        if not sentences:
            return []
        enc = self.encode(sentences)
        flat = self._run(enc, pll)
        ptr = enc.out_ptr()
        return [flat[ptr[i]:ptr[i + 1]] for i in range(len(sentences))]

    def token_scores(self, sentence: str) -> list[tuple[str, float]]:
        """(token, log-probability) for every content token of one sentence."""
        enc = self.encode(check_sentences([sentence]))
        with suppressed():
            lp = self._run(enc)
        toks = self.tokenizer.convert_ids_to_tokens(enc.ids[0][enc.content[0]].tolist())
        return [(t, float(v)) for t, v in zip(toks, lp)]

    def _sums(self, enc: Encoded, sentences: list[str], pll: str, resume_dir) -> np.ndarray:
        """Sum of content-token log-probabilities per sentence, data-parallel under a launch."""
        from fairpairs.scoring.distributed import sentence_sums

        lengths = np.array([len(i) for i in enc.ids], dtype=np.int64)
        if self.kind == "causal":
            costs = lengths  # one row per sentence
        else:  # one row per content token (per word for whole_word), each the sentence's length
            from fairpairs.registry import PLL_VARIANTS

            per_word = PLL_VARIANTS.get(pll).per_word
            n_rows = [int(w[-1]) + 1 if per_word else len(w) for w in enc.words]
            costs = np.asarray(n_rows, dtype=np.int64) * lengths
        meta = {"model": self.name, "kind": self.kind, "pll": pll if self.kind == "masked" else None,
                "dtype": str(self.dtype).replace("torch.", "")}
        desc = "causal" if self.kind == "causal" else f"PLL {pll}"
        return sentence_sums(lambda idx, done: self._score_subset(enc, idx, pll, done), sentences,
                             np.diff(enc.out_ptr()), costs, resume_dir=resume_dir, meta=meta,
                             desc=desc, first=self._first_line(len(sentences), pll))

    def _first_line(self, n: int, pll: str | None = None) -> str:
        """What a progress bar of this scorer says first: how many sentences, which model (its
        real identity), and how (PLL variant for a masked LM)."""
        info = getattr(self, "info", None)
        who = info["description"] if info else f"{self.name} ({str(self.dtype).replace('torch.', '')})"
        how = "" if self.kind == "causal" else f", PLL {pll or self.pll}"
        return f"scoring {n:,} sentence{'s' if n != 1 else ''} with {who}{how}"

    def _score_subset(self, enc: Encoded, idx: np.ndarray, pll: str, on_done) -> None:
        """Score the sentences `idx` of `enc`, calling ``on_done(indices, sums)`` as batches
        complete sentences (a sentence is complete when all its rows have run)."""
        sub = enc.subset(idx)
        rows = self._rows(sub, pll)
        padded, lengths = sub.padded(self.pad_id)
        ptr = sub.out_ptr()
        left = np.bincount(rows.sent, minlength=len(idx))

        def finished(batch, out):
            sent, count = np.unique(rows.sent[batch], return_counts=True)
            left[sent] -= count
            done = sent[left[sent] == 0]
            if len(done):
                on_done(idx[done], [float(np.sum(out[ptr[i]:ptr[i + 1]])) for i in done])

        with suppressed():      # (under `sentence_sums`' bar)
            if self.kind == "causal" and shared_run.shares_prefixes(self, sub):
                shared_run.run_shared(sub.ids, ptr, self.forward, self.batch_tokens, self.pad_id, "", self.device,
                                      on_batch=finished)
                return
            run_rows(rows, padded, lengths, int(ptr[-1]), self.forward, self.batch_tokens, self.pad_id,
                     self.mask_id, "", self.device, on_batch=finished)

    # -- sentence scores ----------------------------------------------------------------------
    def identity(self, sentences: list[str], names=(), pll: str | None = None, alpha: float = 0.8, table=None,
                 params=None) -> dict:
        """What this scorer would score and how, as the ranks of a launch compare it
        (`launch.agree`): the input (count and sha256 of the unique sentences), the settings
        that change scores, the tokenizer (sha256 of its serialised form) and the model (its
        name, resolved folder and GGUF file, Hub revision, sha256 of its config, and its content
        fingerprint, `scoring.fingerprint.model_fingerprint`)."""
        import hashlib
        import json

        from fairpairs.scoring.unigrams import tokenizer_fingerprint

        if getattr(self, "_model_identity", None) is None:
            self._model_identity = self._model_digest()
        settings = {"kind": self.kind, "dtype": str(self.dtype).replace("torch.", ""),
                    "pll": (pll or self.pll) if self.kind == "masked" else None,
                    "normalize": list(names), "alpha": float(alpha) if "pen_lp" in names else None,
                    "unigrams": _unigram_digest(table), "morcela_params": params}
        data = json.dumps(list(sentences), ensure_ascii=False).encode("utf-8")
        return {"input": {"sentences": len(sentences), "sha256": hashlib.sha256(data).hexdigest()},
                "settings": settings, "tokenizer": {"sha256": tokenizer_fingerprint(self.tokenizer)},
                "model": self._model_identity}

    def _model_digest(self) -> dict:
        import hashlib

        where = getattr(self, "source", None) or self.name    # (a scorer built by hand: its name is all there is)
        return {"name": self.name, "path": where, "revision": getattr(self.model.config, "_commit_hash", None),
                "config": hashlib.sha256(config_json(self.model.config)).hexdigest(),
                "weights": model_fingerprint(self)}

    def __repr__(self) -> str:
        extra = f", pll={self.pll!r}" if self.kind == "masked" else ""
        return f"Scorer({self.name!r}, kind={self.kind!r}, device={self.device!r}{extra})"


def _resolved(name: str) -> str:
    """Where model `name` was read from: the real path of its folder (and GGUF file), or the Hub name."""
    src = resolve_model_name(name)
    where = os.path.realpath(src.path) if os.path.exists(src.path) else src.path
    return os.path.join(where, src.gguf_file) if src.gguf_file else where


def _unigram_digest(table) -> str | None:
    """What a unigram table is, for comparing ranks: wordfreq and its language, or the sha256 of a
    table's counts and tokenizer."""
    if table is None:
        return None
    counts = getattr(table, "counts", None)
    if counts is None:
        return f"wordfreq:{getattr(table, 'lang', '')}"
    import hashlib

    return hashlib.sha256(np.asarray(counts, dtype=np.int64).tobytes() + str(table.fingerprint).encode()).hexdigest()
