"""Paradigm files share slot definitions through `include:` and `use:` (grammars/_common.yaml)."""

import pytest

from fairpairs.errors import GrammarError
from fairpairs.generation.grammar import read_paradigm_file
from fairpairs.generation.includes import merge
from fairpairs.generation.selection import grammar_files
from fairpairs.io.paths import data_dir
from fairpairs.generation.vocab import default_vocabulary

AUX_CATEGORY = "(S\\NP)/(S[bare]\\NP)"

HEAD = """uid: {uid}
phenomenon: Subject-verb agreement
field: morphology
linguistics_term: subject_verb_agreement
"""

# the same paradigm twice: slots spelled out, and through definitions
EXPLICIT = HEAD + """slots:
  verb: {where: {category: 'S\\NP', finite: '0'}}
  subj: {where: {category: N, frequent: '1'}, fills: verb.arg_1}
  aux:
    where: {category: '(S\\NP)/(S[bare]\\NP)', negated: '0'}
    where_not: {expression: ''}
    takes: {arg_1: subj, arg_2: verb}
template: "{{ subj }} {{ aux }} {{ verb }}."
critical:
  subj: {form: other_number}
"""

SHARED_DEFS = """defs:
  aux:
    where: {category: '(S\\NP)/(S[bare]\\NP)'}
    where_not: {expression: [did]}
"""

VIA_DEFS = HEAD + """include: _defs.yaml
slots:
  verb: {where: {category: 'S\\NP', finite: '0'}}
  subj: {where: {category: N, frequent: '1'}, fills: verb.arg_1}
  aux:
    use: aux
    where: {negated: '0'}            # merged into the definition's where
    where_not: {expression: ''}      # replaces the definition's where_not value for expression
    takes: {arg_1: subj, arg_2: verb}
template: "{{ subj }} {{ aux }} {{ verb }}."
critical:
  subj: {form: other_number}
"""


def write(folder, name, text):
    p = folder / name
    p.write_text(text.replace("{uid}", p.stem), encoding="utf-8")
    return p


def test_merge_rule_by_hand():
    base = {"a": 1, "m": {"x": 1, "y": [1, 2]}, "l": [1]}
    local = {"m": {"y": [3], "z": 0}, "l": [2], "b": 2}
    assert merge(base, local) == {"a": 1, "m": {"x": 1, "y": [3], "z": 0}, "l": [2], "b": 2}
    assert list(merge(base, local)) == ["a", "m", "l", "b"]     # base order, new keys after
    assert base == {"a": 1, "m": {"x": 1, "y": [1, 2]}, "l": [1]}   # inputs untouched


def test_use_merges_local_keys_over_the_definition(tmp_path):
    write(tmp_path, "_defs.yaml", SHARED_DEFS)
    explicit = read_paradigm_file(write(tmp_path, "explicit_p.yaml", EXPLICIT))
    via = read_paradigm_file(write(tmp_path, "via_defs.yaml", VIA_DEFS))
    vocab = default_vocabulary()
    a = via.slots["aux"]
    assert a.base.tolist() == explicit.slots["aux"].base.tolist()
    # by hand from the table: the auxiliary category, not negated, not the empty auxiliary
    cat, neg, expr = vocab.column("category"), vocab.column("negated"), vocab.column("expression")
    want = [i for i in range(len(vocab)) if cat[i] == AUX_CATEGORY and neg[i] == "0" and expr[i] != ""]
    assert a.base.tolist() == want
    assert "did" in {expr[i] for i in want}        # the definition's where_not was replaced, not kept
    assert a.takes == [("arg_1", "subj"), ("arg_2", "verb")]


def test_user_paradigm_can_include_the_bundled_common_file(tmp_path):
    text = VIA_DEFS.replace("_defs.yaml", "_common.yaml").replace("    where_not: {expression: ''}      # replaces "
                                                                  "the definition's where_not value for expression\n", "")
    p = read_paradigm_file(write(tmp_path, "user_p.yaml", text))
    vocab = default_vocabulary()
    cat, neg = vocab.column("category"), vocab.column("negated")
    assert p.slots["aux"].base.tolist() == [i for i in range(len(vocab)) if cat[i] == AUX_CATEGORY and neg[i] == "0"]


def test_include_cycle_is_one_error_naming_the_files(tmp_path):
    write(tmp_path, "_a.yaml", "include: _b.yaml\ndefs: {}\n")
    write(tmp_path, "_b.yaml", "include: _a.yaml\n")
    p = write(tmp_path, "cyc.yaml", VIA_DEFS.replace("_defs.yaml", "_a.yaml"))
    with pytest.raises(GrammarError, match=r"include: cycle _a\.yaml -> _b\.yaml -> _a\.yaml"):
        read_paradigm_file(p)


def test_self_include_is_a_cycle(tmp_path):
    p = write(tmp_path, "selfinc.yaml", VIA_DEFS.replace("_defs.yaml", "selfinc.yaml"))
    with pytest.raises(GrammarError, match=r"selfinc\.yaml: include: cycle selfinc\.yaml -> selfinc\.yaml"):
        read_paradigm_file(p)


def test_missing_include_names_both_files(tmp_path):
    p = write(tmp_path, "miss.yaml", VIA_DEFS.replace("_defs.yaml", "_nowhere.yaml"))
    with pytest.raises(GrammarError, match=r"miss\.yaml: include: _nowhere\.yaml not found"):
        read_paradigm_file(p)


def test_broken_included_file_is_named(tmp_path):
    write(tmp_path, "_defs.yaml", "defs: {aux: [unclosed\n")
    p = write(tmp_path, "brk.yaml", VIA_DEFS)
    with pytest.raises(GrammarError, match=r"_defs\.yaml: YAML syntax error"):
        read_paradigm_file(p)


def test_unknown_definition(tmp_path):
    write(tmp_path, "_defs.yaml", SHARED_DEFS)
    p = write(tmp_path, "unk.yaml", VIA_DEFS.replace("use: aux", "use: auxx"))
    with pytest.raises(GrammarError, match=r"unk\.yaml: slots\.aux\.use: unknown definition 'auxx' \(defs: aux\)"):
        read_paradigm_file(p)


def test_include_file_is_not_a_paradigm(tmp_path):
    write(tmp_path, "_defs.yaml", SHARED_DEFS)
    write(tmp_path, "via_defs.yaml", VIA_DEFS)
    assert [p.name for p in grammar_files(tmp_path)] == ["via_defs.yaml"]
    with pytest.raises(GrammarError, match="include file, not a paradigm"):
        read_paradigm_file(tmp_path / "_defs.yaml")


def test_bundled_grammars_share_the_auxiliary_definition():
    files = grammar_files()
    assert len(files) == 69 and all(not p.name.startswith("_") for p in files)
    assert (data_dir("grammars") / "_common.yaml").is_file()
    spelled = [p.name for p in files if AUX_CATEGORY in p.read_text(encoding="utf-8")]
    assert spelled == []   # written once, in _common.yaml


def test_paradigms_command_does_not_list_the_include_file(fairpairs_cli):
    code, out, _ = fairpairs_cli("paradigms")
    out = out.split()
    assert code == 0
    assert len(out) == 69 and "_common" not in out and "determiner_noun_agreement_1" in out


def test_cli_reports_an_include_cycle_in_one_line(tmp_path, fairpairs_cli):
    write(tmp_path, "_a.yaml", "include: _a.yaml\n")
    write(tmp_path, "cyc.yaml", VIA_DEFS.replace("_defs.yaml", "_a.yaml"))
    code, _, err = fairpairs_cli("paradigms", "--grammars", str(tmp_path))
    err = err.strip()
    assert code == 1
    assert err.count("\n") == 0 and "include: cycle _a.yaml -> _a.yaml" in err and "Traceback" not in err
