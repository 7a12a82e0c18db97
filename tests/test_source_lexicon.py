"""Two lexicons (issue 47, item 1): the original sets of fr, de, ru and he draw only the benchmark's
own words (the rows of vocab/<lang>.csv whose `source` is `clams`); length control may also draw
the extension (every other `source`); the share of debiased pairs that show an extension word is
reported; English sets are byte for byte what they were before the change (b4812b2).

Every check of a word's lexicon here reads the csv file's `source` column with the csv module,
not fairpairs' loader."""

from __future__ import annotations

import csv
import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

import fairpairs as fp
from fairpairs.errors import GrammarError
from fairpairs.generation.grammar import read_paradigm_file
from fairpairs.generation.sampler import Sampler
from fairpairs.generation.vocab import Vocabulary, read_vocabulary

ROOT = Path(__file__).resolve().parents[1]
LANGUAGES = ("fr", "de", "ru", "he")


def _csv_rows(code: str) -> list[dict]:
    with open(ROOT / "vocab" / f"{code}.csv", encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def _clams(code: str) -> tuple[set[str], set[str]]:
    """(expressions of the clams rows, expressions only non-clams rows have), read from the csv."""
    rows = _csv_rows(code)
    own = {r["expression"] for r in rows if r["source"] == "clams"}
    return own, {r["expression"] for r in rows if r["source"] != "clams"} - own


@pytest.mark.parametrize("code", LANGUAGES)
def test_first_draws_use_only_clams_rows(code):
    """Every row a first draw (what an original set is made of) fills a slot, a bad critical slot or
    a determiner with is a `clams` row of the csv, in every paradigm of the language. Fails on the
    old code: 78% of Russian and 51% of Hebrew original pairs showed a `fairpairs` word (issue 47),
    and the French and German tables' added verbs were drawn as often as CLAMS' own."""
    source = [r["source"] for r in _csv_rows(code)]
    bad_rows = []
    for path in sorted((ROOT / "grammars" / code).glob("*.yaml")):
        p = read_paradigm_file(path)
        s = Sampler(p, p.vocab, seed=1)
        for k in range(60):
            pair = s.draw(k, will_change=False)
            if pair is None:
                continue
            for f in [*pair.good.values(), *pair.bad.values()]:
                for row in (f.row, getattr(f, "det", -1)):
                    if row is not None and row >= 0 and source[row] != "clams":
                        bad_rows.append((p.uid, k, p.vocab.expressions[row], source[row]))
    assert bad_rows == []


def test_a_run_writes_clams_words_only_in_its_original_set_and_reports_the_extension_share(tmp_path):
    """A Russian run with a bundled tokenizer: no original pair shows a word only non-clams rows
    have; the debiased set does (length control drew the extension: the share is above 0), and
    the manifest's extension_share is the share counted here from the written rows."""
    own, ext = _clams("ru")
    out = tmp_path / "run"
    fp.generate_run(out, paradigms=["ru_subj_rel_n1sg_n2pl", "ru_simple_agrmt_n1pl"], models=["gpt2"], pairs=40,
                    seed=0, grammars=ROOT / "grammars" / "ru")
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    for uid, entry in manifest["paradigms"].items():
        shown = {}
        for which in ("original", "debiased"):
            rows = [json.loads(line) for line in (out / which / f"{uid}.jsonl").read_text(encoding="utf-8").splitlines()]
            shown[which] = [set(r["fillers"].values()) | set(r["critical_bad"].values()) for r in rows]
        assert not any(w & ext for w in shown["original"])
        assert all(w - {""} <= own | set(_literals(uid)) for w in shown["original"])
        share = sum(bool(w & ext) for w in shown["debiased"]) / len(shown["debiased"])
        assert share > 0
        assert entry["balance"]["extension_share"] == pytest.approx(share, abs=1e-4)


def _literals(uid: str) -> list[str]:
    """The literal (`text:`) values of a Russian paradigm's slots (words outside the table)."""
    p = read_paradigm_file(ROOT / "grammars" / "ru" / f"{uid}.yaml")
    return [t for spec in (*p.slots.values(), *p.critical.values()) for t in spec.text]


def test_the_card_lists_the_extension_share(tmp_path, fairpairs_cli):
    """The dataset card (`fairpairs publish --dry-run`) names every paradigm whose debiased pairs
    show an extension word, with its share as the manifest has it."""
    out = tmp_path / "run"
    fp.generate_run(out, paradigms=["ru_subj_rel_n1sg_n2pl"], models=["gpt2"], pairs=30, seed=0,
                    grammars=ROOT / "grammars" / "ru")
    share = json.loads((out / "manifest.json").read_text(encoding="utf-8"))["paradigms"][
        "ru_subj_rel_n1sg_n2pl"]["balance"]["extension_share"]
    assert fairpairs_cli("publish", str(out), "--repo-id", "me/ru-test", "--dry-run", "--out",
                         str(tmp_path / "hub")).returncode == 0
    text = (tmp_path / "hub" / "README.md").read_text(encoding="utf-8")
    assert "Words from outside the benchmark's lexicon" in text
    assert share > 0 and f"- `ru_subj_rel_n1sg_n2pl`: {100 * share:.0f}%" in text


def test_a_slot_without_a_source_word_is_one_error_naming_it():
    """A table whose verb phrases are all extension rows: the Russian paradigm's `vp` slot has no
    word an original set may draw, and the sampler says so (file and slot) instead of drawing
    nothing. (Before the change every row was drawn, so there was no such error.)"""
    v = read_vocabulary(language="ru")
    table = {c: v.column(c).copy() for c in v.column_names}
    table["source"][table["category"] == "VP"] = "fairpairs"
    mine = Vocabulary(table, language="ru", source="mine.csv")
    p = read_paradigm_file(ROOT / "grammars" / "ru" / "ru_simple_agrmt_n1sg.yaml", mine)
    with pytest.raises(GrammarError, match=r"ru_simple_agrmt_n1sg\.yaml: slots\.vp: no candidate word of the source lexicon"):
        Sampler(p, mine, 0)


def test_source_rows_and_extension_words_follow_the_source_column():
    """Vocabulary.source_rows is the csv's `source == clams` (for English: BLiMP's rows, then the
    rows of vocab/blimp_extension.csv, which are not); extension_words are the expressions only
    the other rows have."""
    for code in LANGUAGES:
        v = read_vocabulary(language=code)
        rows = _csv_rows(code)
        assert v.source_rows().tolist() == [r["source"] == "clams" for r in rows]
        assert v.extension_words() == _clams(code)[1]
    en, blimp = read_vocabulary(), Vocabulary.load()      # (BLiMP's fixed table alone)
    with open(ROOT / "vocab" / "blimp_extension.csv", encoding="utf-8", newline="") as fh:
        ext = [r["expression"] for r in csv.DictReader(fh)]
    assert en.source_rows().tolist() == [True] * len(blimp) + [False] * len(ext)
    assert en.extension_words() == frozenset(ext) - frozenset(blimp.expressions.tolist())
    assert en.extension_share() == pytest.approx(len(ext) / (len(blimp) + len(ext)))


def test_extension_share_of_rows_is_the_share_of_non_clams_rows():
    """Vocabulary.extension_share(rows): counted here from the csv for the Russian VP rows."""
    v = read_vocabulary(language="ru")
    rows = _csv_rows("ru")
    vp = [i for i, r in enumerate(rows) if r["category"] == "VP"]
    assert v.extension_share(vp) == pytest.approx(sum(rows[i]["source"] != "clams" for i in vp) / len(vp))
    assert v.extension_share() == pytest.approx(sum(r["source"] != "clams" for r in rows) / len(rows))
    assert v.extension_share([]) == 0.0


# ---------------------------------------------------------------------------- English original sets are unchanged
# SHA-256 of the files of this run, made at b4812b2 (the commit before the two lexicons) with
#   git worktree add --detach /tmp/fp-b481 b4812b2 && cd /tmp/fp-b481 &&
#   python -m fairpairs.cli generate --models gpt2 --pairs 30 --seed 3 --out OUT --quiet \
#       --paradigms regular_plural_subject_verb_agreement_1,principle_A_case_2
# (test_english_sets_are_those_of_b4812b2 below recomputes them from that commit).
EN_PARADIGMS = ["regular_plural_subject_verb_agreement_1", "principle_A_case_2"]
EN_B4812B2 = {       # (every field but BLiMP's, `_canonical`; from b4812b2's own run, see the slow test)
    "original/principle_A_case_2.jsonl": "3c297fba98224ee70368c73f96af1ee3adcbc7452eea585537f0f257b6606a57",
    "original/regular_plural_subject_verb_agreement_1.jsonl": "1fcc140533d227e1ff01c5bfb30f5fe1e702d8c1af7c0b6228983ffdd5d0194f",
}


# BLiMP's fields (issue 48, item 6) came with the same change: every English row gained them and
# b4812b2's `lexically_identical` (same multiset of words) is now `same_words`. The comparison is on
# every other field, byte for byte, and on the old flag under its new name.
BLIMP_FIELDS = {"simple_LM_method", "one_prefix_method", "two_prefix_method", "lexically_identical", "same_words",
                "one_prefix_prefix", "one_prefix_word_good", "one_prefix_word_bad", "two_prefix_prefix_good",
                "two_prefix_prefix_bad", "two_prefix_word"}


def _canonical(line: str) -> str:
    row = json.loads(line)
    words = row.get("same_words") if "simple_LM_method" in row else row.get("lexically_identical")
    kept = {k: v for k, v in row.items() if k not in BLIMP_FIELDS}
    return json.dumps({**kept, "same_words": words}, ensure_ascii=False)


def _hashes(out: Path) -> dict[str, str]:
    return {f"{which}/{f.name}": hashlib.sha256("\n".join(
                _canonical(ln) for ln in f.read_text(encoding="utf-8").splitlines()).encode()).hexdigest()
            for which in ("original",) for f in sorted((out / which).glob("*.jsonl"))}


def test_english_sets_are_byte_identical_to_b4812b2(tmp_path):
    """English's original sets draw BLiMP's rows alone (its extension, vocab/blimp_extension.csv,
    comes after them and only length control draws it): they are what b4812b2 wrote (the hashes above
    of every field but BLiMP's, recorded from that commit's run: the slow test below recomputes
    them). Its debiased sets move by design: frequency-matched control (issue 47, item 3) draws
    replacements differently."""
    fp.generate_run(tmp_path / "run", paradigms=EN_PARADIGMS, models=["gpt2"], pairs=30, seed=3)
    assert _hashes(tmp_path / "run") == EN_B4812B2


@pytest.mark.slow
def test_english_sets_are_those_of_b4812b2(tmp_path):
    """The recorded hashes, recomputed: b4812b2 checked out beside the repository (git worktree)
    and run with this interpreter; its files are the ones this code writes."""
    old = tmp_path / "b4812b2"
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(old), "b4812b2"], check=True,
                   capture_output=True)
    try:
        subprocess.run([sys.executable, "-m", "fairpairs.cli", "generate", "--models", "gpt2", "--pairs", "30",
                        "--seed", "3", "--out", str(tmp_path / "old"), "--quiet", "--paradigms", ",".join(EN_PARADIGMS)],
                       check=True, cwd=old, env={"PYTHONPATH": str(old), "PATH": "/usr/bin:/bin"})
        assert _hashes(tmp_path / "old") == EN_B4812B2
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(old)], capture_output=True)
    fp.generate_run(tmp_path / "new", paradigms=EN_PARADIGMS, models=["gpt2"], pairs=30, seed=3)
    assert _hashes(tmp_path / "new") == EN_B4812B2
