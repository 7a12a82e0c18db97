"""Behaviour check for a refactoring (issue 24): run the CLI on fixed inputs and record what it
writes, so that two commits can be compared byte for byte.

    python tools/golden.py capture DIR [--pairs 300]   # run everything, write DIR/
    python tools/golden.py capture DIR --errors-only   # only the error cases
    python tools/golden.py compare A B                  # list every file that differs (beyond RENAMES)

What it runs (each from an empty scratch folder, with the checkout's `fairpairs`):

* `fairpairs generate --paradigms <every paradigm `fairpairs paradigms` lists> --pairs N --models gpt2,bert-base-cased --seed 0` , then `fairpairs publish RUN --dry-run --repo-id me/fairpairs --set both`; every file
  they write, and their stdout/stderr (the progress bar is off: --quiet is not used, stderr is not
  a terminal);
* `CASES`: error cases across every command (bad options, bad files, bad values); for each, the
  exit code, stdout and stderr.

Absolute scratch paths in outputs are replaced by `<TMP>`, so captures from two checkouts compare.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import re
import tempfile
from pathlib import Path

PROGRESS = re.compile(r"\d+(?:\.\d+)?\s*(?:s/it|it/s|pair/s|pairs/s|sentence/s|sentences/s)|\d+%\|")

# name -> argv after `fairpairs` (files named here are created by `_fixtures` in the scratch folder)
CASES = {
    "generate_unknown_model": ["generate", "--models", "gpt3", "--paradigms", "causative", "--pairs", "5"],
    "generate_unknown_paradigm": ["generate", "--paradigms", "causatives", "--pairs", "5"],
    "generate_bad_strategy": ["generate", "--strategy", "greedy", "--pairs", "5"],
    "generate_empty_models": ["generate", "--models", ",", "--paradigms", "causative", "--pairs", "5"],
    "generate_bad_vocab": ["generate", "--paradigms", "causative", "--pairs", "5", "--vocab", "bad.csv"],
    "generate_tiny_budget": ["generate", "--paradigms", "causative", "--pairs", "500", "--max-draws", "10"],
    "generate_unknown_phenomenon": ["generate", "--phenomenon", "Islandz"],
    "generate_min_count_alone": ["generate", "--paradigms", "causative", "--pairs", "5", "--min-count", "3"],
    "generate_missing_corpus": ["generate", "--paradigms", "causative", "--pairs", "5", "--lexicon-from", "nope.txt"],
    "generate_out_not_ours": ["generate", "--paradigms", "causative", "--pairs", "5", "--out", "notarun"],
    "validate_bad_yaml": ["validate", "bad.yaml"],
    "audit_missing": ["audit", "missing.jsonl", "--models", "gpt2"],
    "audit_bad_jsonl": ["audit", "broken.jsonl", "--models", "gpt2"],
    "audit_bad_format": ["audit", "broken.jsonl", "--models", "gpt2", "--format", "clams"],
    "audit_select_file": ["audit", "pairs.jsonl", "--models", "gpt2", "--select", "afile.txt"],
    "score_missing_input": ["score", "--model", "gpt2", "--input", "missing.txt", "--out", "o.csv"],
    "score_bad_normalize": ["score", "--model", "gpt2", "--input", "sents.txt", "--out", "o.csv", "--normalize", "lp,nope"],
    "score_slor_no_unigrams": ["score", "--model", "gpt2", "--input", "sents.txt", "--out", "o.csv", "--normalize", "slor",
                               "--unigrams", "missing.json"],
    "evaluate_missing_data": ["evaluate", "--models", "gpt2", "--data", "missing_run"],
    "evaluate_unknown_model": ["evaluate", "--models", "gpt3", "--data", "pairs.jsonl"],
    "evaluate_bad_pll": ["evaluate", "--models", "gpt2", "--data", "pairs.jsonl", "--pll", "diagonal"],
    "evaluate_bad_figures": ["evaluate", "--models", "gpt2", "--data", "pairs.jsonl", "--figures", "gif"],
    "evaluate_bad_split": ["evaluate", "--models", "gpt2", "--data", "pairs.jsonl", "--split-tokenizer", "gpt3"],
    "evaluate_data_and_pairs": ["evaluate", "--models", "gpt2", "--data", "pairs.jsonl", "--pairs", "5"],
    "publish_not_a_run": ["publish", "notarun", "--repo-id", "me/x", "--dry-run"],
    "publish_bad_repo": ["publish", "RUN", "--repo-id", "not a repo", "--dry-run"],
    "balance_not_a_run": ["balance", "notarun"],
    "robustness_bad_params": ["robustness", "--models", "gpt2", "--data", "pairs.jsonl", "--length-params", "nope.json"],
    "robustness_bad_pll": ["robustness", "--models", "gpt2", "--data", "pairs.jsonl", "--pll", "diagonal"],
    "morcela_missing": ["morcela", "fit", "--model", "gpt2", "--judgments", "missing.csv", "--out", "p.json"],
    "unigrams_missing": ["unigrams", "--corpus", "missing.txt", "--model", "gpt2", "--out", "u.json"],
}


def _fixtures(folder: Path, run: Path | None) -> None:
    (folder / "afile.txt").write_text("not a folder\n")
    (folder / "bad.csv").write_text("expression,category\nfoo\n")
    (folder / "bad.yaml").write_text("uid: x\ntemplates: [\n")
    (folder / "broken.jsonl").write_text('{"sentence_good": "A dog barks."}\nnot json\n')
    (folder / "sents.txt").write_text("A dog barks.\n")
    (folder / "notarun").mkdir()
    (folder / "notarun" / "keep.txt").write_text("a file fairpairs did not write\n")
    (folder / "pairs.jsonl").write_text(json.dumps({"sentence_good": "The dog barks.", "sentence_bad": "The dog bark.",
                                                    "UID": "x", "pairID": "0"}) + "\n")
    if run is not None:
        shutil.copytree(run, folder / "RUN")


def _run(argv, cwd: Path, tmp: Path) -> dict:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "COLUMNS": "100", "NO_COLOR": "1", "TQDM_DISABLE": "1"}
    proc = subprocess.run([sys.executable, "-m", "fairpairs.cli", *argv], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=3600)
    def clean(text: str) -> str:    # scratch paths, and progress bars (their rates and times vary)
        lines = text.replace(str(tmp), "<TMP>").replace("\r", "\n").split("\n")
        return "\n".join(line for line in lines if not PROGRESS.search(line))
    return {"argv": argv, "exit": proc.returncode, "stdout": clean(proc.stdout), "stderr": clean(proc.stderr)}


# The intended renames of 0.2.0 (CHANGELOG: one pair schema): pair fields UID -> uid, pairID -> pair_id
# (a string), and in the parquet UID -> uid with pair_id a string. `_canonical` applies them, so two
# captures compare equal when their outputs differ by these renames only.
RENAMES = {"UID": "uid", "pairID": "pair_id"}


def _tree(folder: Path) -> dict:
    """Each file's sha256, and the sha256 of its canonical form (see RENAMES); text files under
    64 KB (card, yaml, manifest) also in full, so that a difference can be shown."""
    out = {}
    for p in sorted(folder.rglob("*")):
        if p.is_file():
            data = p.read_bytes()
            entry = {"sha256": hashlib.sha256(data).hexdigest(), "canonical": hashlib.sha256(_canonical(p)).hexdigest()}
            if p.suffix in (".md", ".yaml", ".json") and len(data) < 65536:
                entry["text"] = data.decode("utf-8")
            out[str(p.relative_to(folder))] = entry
    return out


def _canonical(p: Path) -> bytes:
    """A jsonl file's rows, or a parquet file's rows and column types, with the RENAMES applied;
    any other file's bytes."""
    def renamed(row: dict) -> dict:
        return {RENAMES.get(k, k): (str(v) if RENAMES.get(k, k) == "pair_id" else v) for k, v in row.items()}

    if p.suffix == ".jsonl":
        rows = [renamed(json.loads(line)) for line in p.read_text(encoding="utf-8").splitlines()]
        return json.dumps(rows, ensure_ascii=False).encode("utf-8")
    if p.suffix == ".parquet":
        import pyarrow.parquet as pq

        table = pq.read_table(p)
        types = {RENAMES.get(f.name, f.name): ("string" if f.name == "pair_id" else str(f.type)) for f in table.schema}
        return json.dumps([types, [renamed(r) for r in table.to_pylist()]], ensure_ascii=False).encode("utf-8")
    return p.read_bytes()


def capture(out: Path, pairs: int, errors_only: bool = False) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t).resolve()
        if not errors_only:
            _capture_main(out, tmp, pairs)
        _capture_errors(out, tmp)


def _capture_main(out: Path, tmp: Path, pairs: int) -> None:
    listed = _run(["paradigms"], tmp, tmp)["stdout"].split()
    main = {"paradigms": listed,
            "generate": _run(["generate", "--paradigms", ",".join(listed), "--pairs", str(pairs), "--models",
                              "gpt2,bert-base-cased", "--seed", "0", "--out", "run"], tmp, tmp)}
    main["generate_files"] = _tree(tmp / "run")
    main["publish"] = _run(["publish", "run", "--dry-run", "--repo-id", "me/fairpairs", "--set", "both",
                            "--out", "hub"], tmp, tmp)
    main["publish_files"] = _tree(tmp / "hub")
    (out / "main.json").write_text(json.dumps(main, indent=1, sort_keys=True) + "\n")


def _capture_errors(out: Path, tmp: Path) -> None:
    small = tmp / "small"
    small.mkdir()
    _run(["generate", "--paradigms", "causative", "--pairs", "5", "--out", "small/run"], tmp, tmp)
    errors = {}
    for name, argv in CASES.items():
        case = tmp / "cases" / name
        case.mkdir(parents=True)
        _fixtures(case, small / "run")
        errors[name] = _run(argv, case, case)
        print(f"{name}: exit {errors[name]['exit']}: {errors[name]['stderr'].strip()[-160:]}", file=sys.stderr)
    (out / "errors.json").write_text(json.dumps(errors, indent=1, sort_keys=True) + "\n")


def compare(a: Path, b: Path) -> int:
    """Every entry of the two captures; output files by their canonical form (RENAMES), listing
    the files whose bytes differ only by the renames; text files' differences shown as a diff."""
    import difflib

    differ, renamed = 0, []
    for name in ("main.json", "errors.json"):
        if not (a / name).exists() or not (b / name).exists():
            print(f"{name}: not in both captures, not compared")
            continue
        x, y = json.loads((a / name).read_text()), json.loads((b / name).read_text())
        for key in sorted(set(x) | set(y)):
            if key.endswith("_files") and isinstance(x.get(key), dict) and isinstance(y.get(key), dict):
                for f in sorted(set(x[key]) | set(y[key])):
                    fx, fy = x[key].get(f), y[key].get(f)
                    if fx is None or fy is None or fx["canonical"] != fy["canonical"]:
                        differ += 1
                        print(f"{name}: {key}/{f} differs" + ("" if fx and fy else " (in one capture only)"))
                        if fx and fy and "text" in fx and "text" in fy:
                            print("".join(difflib.unified_diff(fx["text"].splitlines(True), fy["text"].splitlines(True),
                                                               "before", "after", n=1))[:3000])
                    elif fx["sha256"] != fy["sha256"]:
                        renamed.append(f)
            elif x.get(key) != y.get(key):
                differ += 1
                print(f"{name}: {key} differs:\n  before: {json.dumps(x.get(key))[:600]}\n  after:  "
                      f"{json.dumps(y.get(key))[:600]}")
    if renamed:
        print(f"{len(renamed)} files differ only by the renames {RENAMES} (e.g. {', '.join(renamed[:3])})")
    print("identical" if not differ else f"{differ} entries differ")
    return 1 if differ else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("capture")
    c.add_argument("out", type=Path)
    c.add_argument("--pairs", type=int, default=300)
    c.add_argument("--errors-only", action="store_true", help="only the error cases (seconds, not minutes)")
    d = sub.add_parser("compare")
    d.add_argument("a", type=Path)
    d.add_argument("b", type=Path)
    args = parser.parse_args()
    if args.cmd == "capture":
        capture(args.out, args.pairs, args.errors_only)
    else:
        sys.exit(compare(args.a, args.b))


if __name__ == "__main__":
    main()
