"""The independent references the tests compare with, and where they live.

Default run: the excerpts shipped in tests/fixtures/ (README.md there gives each file's source and
licence) and the tokenizer.json files bundled in fairpairs/assets, read with the `tokenizers` library
directly (not through fairpairs' loader) after checking their sha256 against the reference copies'.
Slow tier (`-m slow`): the full references in ../shared beside the checkout (the `shared` fixture).

Also what several test files build alike (a test module imports no other test module): a run folder
written by hand, the hand-built scored set of the analysis tests, a stub causal LM, a tiny GGUF file,
plugin distributions, and readers of a command's stderr and of a folder's files.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import types
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures"
BLIMP_SAMPLE = FIXTURES / "blimp"            # the first 20 pairs of each of public BLiMP's 67 files
BLIMP_SAMPLE_PAIRS = 20
WIKITEXT_SAMPLE = FIXTURES / "wikitext-2-valid.txt"
JUDGMENTS_SAMPLE = FIXTURES / "linguistic_inquiry_judgments.csv"
BLIMP_PARADIGMS = FIXTURES / "blimp_paradigms.tsv"
ASSETS = REPO / "fairpairs" / "assets" / "tokenizers"
VOCABULARY_TABLE = REPO / "vocab" / "blimp_vocabulary.csv"

# sha256 of the reference copies (shared/assets/tokenizers/<name>/tokenizer.json, written by
# transformers' save_pretrained from raw vocabulary files whose sha256 equal the Hub's) and of BLiMP's
# unmodified vocabulary table (shared/reference/blimp_vocabulary.csv). The slow tier checks the
# bundled files against those copies byte for byte (tests/test_references.py).
TOKENIZER_SHA256 = {
    "gpt2": "311f7262f89ffe8757683fda3c081a5cac5a885dc311264791a17d2a18499a4f",
    "roberta-base": "7b62d797c95d1563d3467f48daad0eca3e150f2d587e7e687b557c9ef1b25473",
    "bert-base-cased": "343989712a36cd8b253efeaf8baf6a08b9d2583f78e395e83832e8ee9f8d8ee1",
    "bert-base-uncased": "d241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66",
    "electra-base-generator": "d241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66",
}
VOCABULARY_SHA256 = "02235400b2d9c8a8ae56f58318f7b93accea439189d709c766d0649845d8b182"


def sha256(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def reference_tokenizer_file(name: str) -> Path:
    """The tokenizer.json of `name`, checked to be byte for byte the reference copy."""
    path = ASSETS / name / "tokenizer.json"
    assert sha256(path) == TOKENIZER_SHA256[name], f"{path} is not the reference tokenizer"
    return path


@functools.lru_cache(maxsize=None)
def reference_tokenizer(name: str):
    """`name`'s tokenizer read with the `tokenizers` library itself (not fairpairs' loader)."""
    from tokenizers import Tokenizer

    return Tokenizer.from_file(str(reference_tokenizer_file(name)))


def blimp_files(folder: Path = BLIMP_SAMPLE) -> list[Path]:
    return sorted(Path(folder).glob("*.jsonl"))


def blimp_rows(uid: str, n: int | None = None, folder: Path = BLIMP_SAMPLE) -> list[dict]:
    """The first `n` rows (all when None) of a public BLiMP file (the shipped sample by default)."""
    lines = (Path(folder) / f"{uid}.jsonl").read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in lines if line.strip()][:n]
    assert n is None or len(rows) == n, f"{uid}: fewer than {n} pairs in {folder}"
    return rows


def blimp_lines(uid: str, n: int, folder: Path = BLIMP_SAMPLE) -> list[str]:
    lines = (Path(folder) / f"{uid}.jsonl").read_text(encoding="utf-8").splitlines()[:n]
    assert len(lines) == n, f"{uid}: fewer than {n} pairs in {folder}"
    return lines


# ---------------------------------------------------------------- what a command printed or left behind
def error_line(err: str) -> str:
    """The one `fairpairs: error: ...` line of stderr (notes such as 'scoring with X ...' aside)."""
    lines = [ln for ln in err.splitlines() if ln.startswith("fairpairs: error:")]
    assert len(lines) == 1, err
    return lines[0]


def files(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` and its bytes (to show a command left a folder as it was)."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(Path(folder).rglob("*")) if p.is_file()}


# ---------------------------------------------------------------- a run folder written by hand (publish tests)
REPO_ID = "someone/Fair-BLiMP"

# Hand-written pairs: UID -> list of (good, bad, critical_good, critical_bad). Their token lengths come
# from the reference tokenizers read with the `tokenizers` library (`lengths`); both sentences of each
# pair have equal lengths under both tokenizers, so they are valid debiased pairs.
PAIRS = {
    "determiner_noun_agreement_1": [
        ("Raymond is selling this sketch.", "Raymond is selling this sketches.", "sketch", "sketches"),
        ("Craig explored that grocery store.", "Craig explored that grocery stores.", "store", "stores"),
        ("Eva has scared these children.", "Eva has scared these child.", "children", "child"),
    ],
    "anaphor_number_agreement": [
        ("Susan revealed herself.", "Susan revealed themselves.", "herself", "themselves"),
        ("The KÖLN boys hurt themselves.", "The KÖLN boys hurt himself.", "themselves", "himself"),
    ],
    "wh_vs_that_no_gap": [
        ("Cheryl thinks that the man broke a vase.", "Cheryl thinks who the man broke a vase.", "that", "who"),
    ],
}
TOKENIZERS = ("gpt2", "bert-base-cased")


def lengths(sentence: str) -> dict[str, int]:
    """Content tokens of `sentence` under each tokenizer, from the `tokenizers` library itself."""
    return {t: len(reference_tokenizer(t).encode(sentence, add_special_tokens=False).ids) for t in TOKENIZERS}

FIELD = {"determiner_noun_agreement_1": ("morphology", "determiner_noun_agreement"),
         "anaphor_number_agreement": ("morphology", "anaphor_agreement"),
         "wh_vs_that_no_gap": ("syntax", "filler_gap_dependency")}
# A manifest that agrees with the files make_run writes (publish checks it against them): the reference
# tokenizer files' and vocabulary table's sha256 (tests/references.py), each paradigm's pair counts.
MANIFEST = {
    "fairpairs_version": "0.1.0", "command": "fairpairs generate --out run --seed 7", "seed": 7,
    "pairs": 3, "max_retries": 10, "strategy": "resample", "models": list(TOKENIZERS),
    "tokenizers": {t: {"source": f"bundled:{t}", "files": {"tokenizer.json": TOKENIZER_SHA256[t]}} for t in TOKENIZERS},
    "versions": {"python": "3.11.7", "transformers": "5.23.0"},
    "vocabulary": {"file": "blimp_vocabulary.csv", "sha256": VOCABULARY_SHA256,
                   "fixes": ["row 812: 'sketchs' -> 'sketches' (plural form)"]},
    "paradigms": {
        "determiner_noun_agreement_1": {
            "phenomenon": "determiner_noun_agreement", "field": "morphology",
            "linguistics_term": "determiner_noun_agreement", "original": 3, "debiased": 3,
            "debiased_stats": {"drawn": 4, "kept": 3, "kept_as_drawn": 1, "kept_redrawn": 1, "replaced": 1,
                               "dropped": 1, "redraws": 17, "yield": 0.5, "retention": 0.6667}},
        "anaphor_number_agreement": {"phenomenon": "anaphor_agreement", "field": "morphology", "original": 2,
                                     "debiased": 2},
        "wh_vs_that_no_gap": {"phenomenon": "filler_gap_dependency", "field": "syntax", "original": 1, "debiased": 1},
    },
}


def jsonl_row(uid, i, pair, debiased):
    good, bad, cg, cb = pair
    lg, lb = lengths(good), lengths(bad)
    return {"sentence_good": good, "sentence_bad": bad, "field": FIELD[uid][0], "linguistics_term": FIELD[uid][1],
            "UID": uid, "pairID": str(i), "lexically_identical": False,
            "critical_good": {"word": cg}, "critical_bad": {"word": cb},
            "token_lengths": {t: {"good": lg[t], "bad": lb[t]} for t in TOKENIZERS},
            "redraws": i + 2 if debiased else 0}


def make_run(root: Path, pairs=PAIRS, original=None, manifest=MANIFEST) -> Path:
    """A run folder in the agreed format: `pairs` debiased; `original` (default: the same pairs in
    reverse order, to tell the sets apart) the original set."""
    original = original or {uid: rows[::-1] for uid, rows in pairs.items()}
    for set_name, sets in (("debiased", pairs), ("original", original)):
        (root / set_name).mkdir(parents=True)
        for uid, rows in sets.items():
            lines = [json.dumps(jsonl_row(uid, i, p, set_name == "debiased"), ensure_ascii=False)
                     for i, p in enumerate(rows)]
            (root / set_name / f"{uid}.jsonl").write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    listed = set(pairs) | set(original)    # the manifest of this run lists its paradigms only (a paradigm listed
    manifest = {**manifest, "paradigms": {u: e for u, e in manifest["paradigms"].items() if u in listed}} \
        if manifest.get("paradigms") else manifest   # but missing from the folder is refused)
    (root / "manifest.json").write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    return root


# ---------------------------------------------------------------- plugins (installed distributions made here)
def dist_info(site: Path, name: str, entry_points: str, module: str = "") -> Path:
    """An installed distribution `name` 0.1 in folder `site`, as importlib.metadata finds one."""
    info = site / f"{name.replace('-', '_')}-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(entry_points)
    if module:
        (site / "fp_plugin_demo.py").write_text(module)
    return site


def plugin_environment(cwd: Path, site: Path) -> dict[str, str]:
    """The environment of a `fairpairs` process that finds this checkout's fairpairs and the plugins
    installed in `site`; the demo plugin logs its calls to cwd/calls.log."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(site)]), "PLUGIN_LOG": str(cwd / "calls.log"),
            "HF_HUB_OFFLINE": "1"}


# ---------------------------------------------------------------- a scored original and debiased set (analysis)
# The length/selection decomposition's hand-built set (tests/test_effects.py works out every figure
# from these rows; tests/test_report.py draws its report).
# Every good sentence scores -10 (lp); a pair is correct when its bad sentence scores lower,
# wrong when higher, a tie (not correct, in the denominator) when equal.
# (set, uid, draw, good, bad, bad score, good tokens, bad tokens)
ROWS = [
    # paradigm p: draws 0-2 keep their context (1 and 2 with the bad sentence redrawn), draw 3's context
    # is replaced by one whose good sentence equals original draw 4's ("g4"), draw 4 is dropped and the
    # debiased set takes draw 5 instead.
    ("original", "p", 0, "g0", "b0", -12, 5, 5),   # correct, A=U
    ("original", "p", 1, "g1", "b1", -8, 6, 5),    # wrong,   A>U
    ("original", "p", 2, "g2", "b2", -10, 5, 6),   # tie,     A<U
    ("original", "p", 3, "g3", "b3", -12, 5, 5),   # correct, A=U
    ("original", "p", 4, "g4", "b4", -11, 5, 5),   # correct, A=U
    ("debiased", "p", 0, "g0", "b0", -12, 5, 5),   # correct (the same pair)
    ("debiased", "p", 1, "g1", "c1", -12, 6, 6),   # correct
    ("debiased", "p", 2, "g2", "c2", -9, 5, 5),    # wrong
    ("debiased", "p", 3, "g4", "c3", -9, 5, 5),    # wrong   (replaced context)
    ("debiased", "p", 5, "h5", "c5", -13, 5, 5),   # correct (a new draw)
    # paradigm q: both contexts kept, both bad sentences redrawn
    ("original", "q", 0, "k0", "l0", -11, 4, 4),   # correct, A=U
    ("original", "q", 1, "k1", "l1", -9, 4, 5),    # wrong,   A<U
    ("debiased", "q", 0, "k0", "m0", -12, 4, 4),   # correct
    ("debiased", "q", 1, "k1", "m1", -11, 4, 4),   # correct
]


def pairs_frame(with_draw: bool = True):
    """ROWS as a pairs frame (one row per pair; with or without the `draw` column)."""
    import pandas as pd

    df = pd.DataFrame([(s, u, str(i), d, g, b) for i, (s, u, d, g, b, *_) in enumerate(ROWS)],
                      columns=["set", "uid", "pair_id", "draw", "sentence_good", "sentence_bad"])
    return df if with_draw else df.drop(columns="draw")


def scores_frame():
    """Each sentence of ROWS with its token count and score (every good sentence -10)."""
    import pandas as pd

    table = {}
    for _, _, _, g, b, bad_score, n_good, n_bad in ROWS:
        table[g] = (n_good, -10.0)
        table[b] = (n_bad, float(bad_score))
    return pd.DataFrame([{"sentence": s, "n_tokens": n, "sum_logprob": lp} for s, (n, lp) in sorted(table.items())])


def scored(with_draw: bool = True):
    """ROWS scored by model "A" under `lp`: fairpairs' pair table, as evaluate builds it."""
    from fairpairs.analysis.evaluation import pair_scores

    return pair_scores(pairs_frame(with_draw), scores_frame(), "A", ("lp",))


# ---------------------------------------------------------------- a stub causal LM, its logits set by hand
# The logits at a position depend only on the token there; every logit is 0 except those listed, so with
# V tokens and one listed logit L the probability of that token is e^L / (V - 1 + e^L), of any other
# 1 / (V - 1 + e^L) (tests/test_robustness_scores.py, tests/test_robustness.py).
class BigramLM:
    """Built lazily (torch is imported inside the tests)."""

    @staticmethod
    def make(vocab: int, table: dict[int, dict[int, float]]):
        import torch

        class Stub(torch.nn.Module):
            base_model_prefix = ""

            def __init__(self):
                super().__init__()
                self.dummy = torch.nn.Parameter(torch.zeros(1))
                self.config = types.SimpleNamespace(vocab_size=vocab, pad_token_id=0, max_position_embeddings=64,
                                                    model_type="stub")

            def get_output_embeddings(self):
                return None

            def forward(self, input_ids, attention_mask=None, use_cache=None):
                logits = torch.zeros(*input_ids.shape, vocab)
                for prev, row in table.items():
                    where = input_ids == prev
                    for nxt, val in row.items():
                        logits[..., nxt] = torch.where(where, torch.tensor(float(val)), logits[..., nxt])
                return types.SimpleNamespace(logits=logits)

        return Stub().eval()


def stub_scorer(tokenizer, table):
    from fairpairs.scoring.scorer import Scorer

    return Scorer(BigramLM.make(len(tokenizer), table), tokenizer, "causal", name="stub", device="cpu")


# ---------------------------------------------------------------- a tiny GGUF file (model loading)
def write_gguf(path, blocks: int) -> None:
    """A tiny llama GGUF file at `path` with `blocks` layers, 3 tokens and one tensor (gguf's own writer)."""
    import gguf
    import numpy as np

    w = gguf.GGUFWriter(str(path), "llama")
    w.add_block_count(blocks)
    w.add_context_length(64)
    w.add_embedding_length(8)
    w.add_feed_forward_length(16)
    w.add_head_count(2)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_tokenizer_model("gpt2")
    w.add_token_list(["a", "b", "ab"])
    w.add_token_merges(["a b"])
    w.add_token_types([1, 1, 1])
    w.add_tensor("token_embd.weight", np.zeros((3, 8), np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def write_tiny_llama(path, seed: int = 0) -> None:
    """A whole tiny llama model as a GGUF file at `path` (gguf's own writer): 2 blocks, width 32, random
    weights (Q8_0 for the matrices, so loading it de-quantises), and a byte-level BPE vocabulary (the
    256 byte characters, 3 merges, BOS and EOS), so transformers loads it as a model and a tokenizer."""
    import gguf
    import numpy as np
    from transformers.convert_slow_tokenizer import bytes_to_unicode

    rng = np.random.default_rng(seed)
    tokens = list(bytes_to_unicode().values()) + ["\u0120t", "he", "\u0120the", "<s>", "</s>"]
    vocab, width, ffn = len(tokens), 32, 64
    w = gguf.GGUFWriter(str(path), "llama")
    w.add_block_count(2)
    w.add_context_length(64)
    w.add_embedding_length(width)
    w.add_feed_forward_length(ffn)
    w.add_head_count(2)
    w.add_head_count_kv(2)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_rope_dimension_count(16)
    w.add_tokenizer_model("gpt2")
    w.add_token_list(tokens)
    w.add_token_merges(["\u0120 t", "h e", "\u0120t he"])
    w.add_token_types([1] * vocab)
    w.add_bos_token_id(vocab - 2)
    w.add_eos_token_id(vocab - 1)

    def tensor(name, shape, quantised=True):
        data = rng.standard_normal(shape).astype(np.float32) * 0.2
        if quantised:
            w.add_tensor(name, gguf.quants.quantize(data, gguf.GGMLQuantizationType.Q8_0),
                         raw_dtype=gguf.GGMLQuantizationType.Q8_0)
        else:
            w.add_tensor(name, data)

    tensor("token_embd.weight", (vocab, width), quantised=False)
    tensor("output_norm.weight", (width,), quantised=False)
    tensor("output.weight", (vocab, width))
    for b in range(2):
        for part, shape in (("attn_q", (width, width)), ("attn_k", (width, width)), ("attn_v", (width, width)),
                            ("attn_output", (width, width)), ("ffn_gate", (ffn, width)), ("ffn_up", (ffn, width)),
                            ("ffn_down", (width, ffn))):
            tensor(f"blk.{b}.{part}.weight", shape)
        tensor(f"blk.{b}.attn_norm.weight", (width,), quantised=False)
        tensor(f"blk.{b}.ffn_norm.weight", (width,), quantised=False)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def toy_vocabulary(rows: list[dict], source: str = "toy"):
    """A hand-built vocabulary table: `rows` (expression, category and the feature columns a test
    needs), the table's other columns empty and each word its own root."""
    import pandas as pd

    from fairpairs.generation.vocab import Vocabulary

    df = pd.DataFrame(rows).fillna("")
    for col in ("root", "category_2", "arg_1", "arg_2", "arg_3", "arg_clause"):
        if col not in df:
            df[col] = ""
    df["root"] = df["expression"]
    return Vocabulary(df, source=source)


def toy_paradigm(folder: Path, vocab, src: str):
    """The paradigm of YAML text `src` (dedented) over `vocab`, written to `folder` as `<uid>.yaml`."""
    import textwrap

    from fairpairs.generation.grammar import read_paradigm_file

    src = textwrap.dedent(src)
    path = folder / f"{src.split()[1]}.yaml"          # (the file is named after its uid)
    path.write_text(src)
    return read_paradigm_file(path, vocab)
