"""Generating imports no pandas (nor pyarrow): ~80 MB and a third of a second of start-up that the
main job does not need, in the command's process and in every worker forked from it. pandas stays
the library of the frames users ask for (`Vocabulary.df`, `Run.summary`, reading pair files)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

# An audit hook (inherited by forked workers) notes every process that imports pandas or pyarrow;
# the run is the CLI's, in this process, with two workers.
CODE = """
import json, os, sys
seen = []
def hook(event, args):
    if event == "import" and args[0].split(".")[0] in ("pandas", "pyarrow"):
        with open(sys.argv[1], "a") as fh:
            fh.write(json.dumps([os.getpid(), args[0]]) + "\\n")
sys.addaudithook(hook)
from fairpairs.cli import main
try:
    main(["generate", "--models", "gpt2,bert-base-cased", "--paradigms",
          "determiner_noun_agreement_1,regular_plural_subject_verb_agreement_1,anaphor_gender_agreement",
          "--pairs", "12", "--out", sys.argv[2]])
except SystemExit as exc:
    assert not exc.code, exc.code
print(json.dumps([os.getpid(), sorted(m for m in ("pandas", "pyarrow") if m in sys.modules)]))
"""


def test_generate_imports_no_pandas_in_the_command_or_its_workers(tmp_path):
    log = tmp_path / "imports.log"
    env = {**os.environ, "FAIRPAIRS_WORKERS": "2", "TQDM_DISABLE": "1"}
    out = subprocess.run([sys.executable, "-c", CODE, str(log), str(tmp_path / "run")], capture_output=True,
                         text=True, env=env, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    pid, loaded = json.loads(out.stdout.strip().splitlines()[-1])
    assert loaded == []
    # the workers wrote their paradigms (so the hook watched them too), and none imported pandas
    assert len(list((tmp_path / "run" / "debiased").glob("*.jsonl"))) == 3
    assert not log.exists(), log.read_text()
