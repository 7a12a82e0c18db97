"""`fairpairs validate` checks paradigm files as load does, without generating."""

import pytest

from fairpairs.io.paths import data_dir
from fairpairs.errors import GrammarError
from fairpairs.generation.grammar import Paradigm, read_paradigm_file
from fairpairs.generation.selection import validate_paradigms

GOOD = """uid: {uid}
phenomenon: Determiner-noun agreement
field: morphology
linguistics_term: determiner_noun_agreement
slots:
  verb: {where: {category: '(S\\NP)/NP', expression: ate}}
  subj: {where: {category: N, properNoun: '1', animate: '1'}, fills: verb.arg_1}
  obj: {where: {category: N, properNoun: '0', mass: '0'}, fills: verb.arg_2}
  dem:
    where: {category_2: D, expression: [this, that, these, those]}
    takes: {arg_1: obj}
template: "{{ subj }} {{ verb }} {{ dem }} {{ obj }}."
critical:
  obj: {form: other_number}
"""

# each broken copy and the (key, message) its one line must name
BROKEN = {
    "bad_column": (GOOD.replace("properNoun: '1', animate", "propernoun: '1', animate"),
                   "slots.subj.where.propernoun: unknown vocabulary column 'propernoun'"),
    # 'ate' asks for an animate subject (arg_1 animate=1): an inanimate one can never fill it
    "bad_fills": (GOOD.replace("animate: '1'}", "animate: '0'}"),
                  "slots.subj.fills: no candidate of 'subj' satisfies verb.arg_1"),
    # 'ate' asks for food as its object (arg_2 food=1)
    "bad_fills_obj": (GOOD.replace("mass: '0'}, fills", "mass: '0'}, where_not: {food: '1'}, fills"),
                      "slots.obj.fills: no candidate of 'obj' satisfies verb.arg_2"),
    # no noun has the expression 'this': the bad-sentence spec has no candidate
    "bad_critical": (GOOD.replace("obj: {form: other_number}", "obj: {where: {category: N, expression: this}}"),
                     "critical.obj: no vocabulary row satisfies where/where_not"),
    "bad_template": (GOOD.replace("{{ obj }}.", "{{ objj }}."), "template: undefined variable(s) objj"),
    "bad_uid": (GOOD.replace("uid: {uid}", "uid: other"), "uid: 'other' does not match the file name"),
}


def write(folder, uid, text):
    p = folder / f"{uid}.yaml"
    p.write_text(text.replace("{uid}", uid), encoding="utf-8")
    return p


def test_good_file_is_valid(tmp_path):
    [(path, result)] = validate_paradigms([write(tmp_path, "good_p", GOOD)])
    assert isinstance(result, Paradigm) and result.uid == "good_p"


@pytest.mark.parametrize("uid", sorted(BROKEN))
def test_each_broken_file_names_its_field_and_matches_load(tmp_path, uid):
    text, expected = BROKEN[uid]
    p = write(tmp_path, uid, text)
    [(path, err)] = validate_paradigms([p])
    assert isinstance(err, GrammarError)
    assert str(err).startswith(f"{p}: ") and expected in str(err)
    with pytest.raises(GrammarError) as loaded:
        read_paradigm_file(p)
    assert str(loaded.value) == str(err)      # the same error as load, word for word


def test_cli_lists_one_line_per_broken_file_and_exits_1(tmp_path, fairpairs_cli):
    for uid, (text, _) in BROKEN.items():
        write(tmp_path, uid, text)
    write(tmp_path, "good_p", GOOD)
    code, out, err = fairpairs_cli("validate", tmp_path)
    lines = out.strip().splitlines()
    assert code == 1
    assert len(lines) == len(BROKEN)
    for uid, (_, expected) in BROKEN.items():
        assert sum(f"{uid}.yaml: " in ln and expected in ln for ln in lines) == 1
    assert "good_p" not in out and "Traceback" not in out + err
    assert f"{len(BROKEN)} of {len(BROKEN) + 1}" in err


def test_cli_ok_summary_for_the_bundled_paradigms(fairpairs_cli):
    code, out, err = fairpairs_cli("validate")
    assert code == 0
    # BLiMP's 69 English paradigm files and the language folders (de: 22, fr: 28, he: 22, ru: 24:
    # one per CLAMS S[] line)
    assert out.startswith("OK: 165 paradigm file(s)") and out.count("\n") == 1
    # (BLiMP's table, 4196 rows with fixes, and its extension: vocab/blimp_extension.csv)
    extension = (data_dir("vocab") / "blimp_extension.csv").read_text(encoding="utf-8").count("\n") - 1
    assert f"blimp_vocabulary.csv ({4196 + extension} rows), de.csv" in out and "fr.csv" in out


def test_cli_missing_file_is_one_line(tmp_path, fairpairs_cli):
    code, out, _ = fairpairs_cli("validate", tmp_path / "nope.yaml")
    assert code == 1 and out.strip() == f"{tmp_path / 'nope.yaml'}: file not found"
