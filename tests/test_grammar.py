"""Every malformed-grammar case fails at load time with `file: key: message`."""

import textwrap

import pytest

from fairpairs.errors import GrammarError
from fairpairs.generation.grammar import read_paradigm_file

GOOD = """
uid: {uid}
phenomenon: Determiner-noun agreement
field: morphology
linguistics_term: determiner_noun_agreement
slots:
  verb:
    where: {{category: '(S\\NP)/NP'}}
  subj:
    where: {{category: N, properNoun: '1'}}
    fills: verb.arg_1
  obj:
    where: {{category: N, properNoun: '0', mass: '0'}}
    fills: verb.arg_2
  dem:
    where: {{category_2: D, expression: [this, that, these, those]}}
    takes: {{arg_1: obj}}
template: "{{{{ subj }}}} {{{{ verb }}}} {{{{ dem }}}} {{{{ obj }}}}."
critical:
  obj: {{form: other_number}}
"""


def write(tmp_path, text, uid="t_paradigm"):
    p = tmp_path / f"{uid}.yaml"
    p.write_text(textwrap.dedent(text).format(uid=uid) if "{uid}" in text else text)
    return p


def test_valid_file_loads(tmp_path):
    p = read_paradigm_file(write(tmp_path, GOOD))
    assert p.order.index("verb") < p.order.index("subj") and p.order.index("obj") < p.order.index("dem")
    assert list(p.critical) == ["obj"]


CASES = [
    # (replace this, with this, expected key in message, expected text)
    ("category: N, properNoun: '1'", "categry: N, properNoun: '1'", "slots.subj.where.categry",
     "unknown vocabulary column 'categry'"),
    ("category_2: D,", "category_2: Determiner,", "slots.dem.where.category_2", "never occurs"),
    ("fills: verb.arg_1", "fills: verbb.arg_1", "slots.subj.fills", "undefined slot 'verbb'"),
    ("fills: verb.arg_1", "fills: verb.arg_9", "slots.subj.fills", "not of the form"),
    ("takes: {arg_1: obj}", "takes: {arg_1: object}", "slots.dem.takes.arg_1", "undefined slot 'object'"),
    ("{{ dem }} {{ obj }}.", "{{ dem }} {{ obj }.", "template", "template syntax error"),
    ("{{ dem }} {{ obj }}.", "{{ dem }} {{ objekt }}.", "template", "undefined variable(s) objekt"),
    ("    where: {category: '(S\\NP)/NP'}", "    where: {category: '(S\\NP)/NP'}\n    fills: subj.arg_1",
     "slots", "cycle in slot dependencies: "),
    ("category: N, properNoun: '0', mass: '0'", "category: N, sg: '1', pl: '1'",
     "slots.obj", "no vocabulary row satisfies"),
    ("critical:\n  obj: {form: other_number}", "critical:\n  objj: {form: other_number}", "critical.objj",
     "undefined slot"),
    ("critical:\n  obj: {form: other_number}", "critical: {}", "critical", "empty"),
    ("uid: t_paradigm", "uid: other_name", "uid", "does not match the file name"),
    ("phenomenon: Determiner-noun agreement\n", "", "phenomenon", "required"),
    ("    fills: verb.arg_2", "    fils: verb.arg_2", "slots.obj.fils", "unknown key"),
]


@pytest.mark.parametrize("old,new,key,text", CASES)
def test_malformed_file_errors(tmp_path, old, new, key, text):
    src = textwrap.dedent(GOOD).format(uid="t_paradigm")
    assert old in src, old
    path = write(tmp_path, src.replace(old, new, 1))
    with pytest.raises(GrammarError) as err:
        read_paradigm_file(path)
    msg = str(err.value)
    assert msg.startswith(f"{path}: {key}: "), msg
    assert text in msg
    assert "\n" not in msg


def test_yaml_syntax_error_names_line(tmp_path):
    path = write(tmp_path, "uid: t_paradigm\nslots: {a: [\n")
    with pytest.raises(GrammarError, match=r"t_paradigm.yaml: YAML syntax error \(line \d+\)"):
        read_paradigm_file(path)


def test_unsatisfiable_paradigm_is_an_error_not_a_hang(tmp_path):
    """Each slot has candidates, but no object can ever agree: generation must stop with an error."""
    from fairpairs.control.loop import generate_original
    from fairpairs.generation.sampler import Sampler
    from fairpairs.generation.vocab import default_vocabulary

    src = textwrap.dedent(GOOD).format(uid="t_paradigm").replace(
        "takes: {arg_1: obj}", "takes: {arg_1: obj}\n    rejects: {arg_1: obj}")
    p = read_paradigm_file(write(tmp_path, src))
    with pytest.raises(GrammarError, match=r"slots.dem: unsatisfiable: \d+ draws gave no valid pair"):
        generate_original(Sampler(p, default_vocabulary(), 0), 10, [])


def test_reorder_declaration_checked(tmp_path):
    src = textwrap.dedent(GOOD).format(uid="t_paradigm").replace("critical:\n  obj: {form: other_number}", "critical: {}\nreorder: true")
    with pytest.raises(GrammarError, match="reorder: true but the good and bad templates are identical"):
        read_paradigm_file(write(tmp_path, src))
    src2 = src.replace('template: "', 'good: "').replace('.\"\n', '."\nbad: "{{ dem }} {{ subj }} {{ verb }} {{ obj }}."\n', 1)
    p = read_paradigm_file(write(tmp_path, src2))
    assert p.reorder and not p.critical


def test_literal_slots(tmp_path):
    src = textwrap.dedent(GOOD).format(uid="t_paradigm")
    src = src.replace("slots:\n", "slots:\n  adv:\n    text: [often, '']\n", 1)
    src = src.replace('template: "', 'template: "{{ adv }} ')
    src = src.replace("critical:\n  obj: {form: other_number}", "critical:\n  adv: {text: [seldom]}")
    p = read_paradigm_file(write(tmp_path, src))
    from fairpairs.generation.sampler import Sampler
    from fairpairs.generation.vocab import default_vocabulary

    s = Sampler(p, default_vocabulary(), 0)
    pairs = [x for x in (s.draw(k) for k in range(40)) if x]
    assert pairs
    for x in pairs:
        assert x.sentence_bad.startswith("Seldom ")
        rest = x.sentence_good[len("Often "):] if x.sentence_good.startswith("Often ") else x.sentence_good
        assert x.sentence_bad[len("Seldom "):].lower() == rest.lower()
    for spec in ("{fills: verb.arg_2}", "{where: {category: N}, form: other_number}"):
        bad = src.replace("critical:\n  adv: {text: [seldom]}", f"critical:\n  adv: {spec}")
        with pytest.raises(GrammarError, match=r"critical.adv: a literal \(text\) slot whose bad filler"):
            read_paradigm_file(write(tmp_path, bad))


def test_words_that_appear_or_disappear(tmp_path):
    """Empty fillers: an adjective absent from the good sentence appears in the bad one, and an
    adverb present in the good sentence vanishes; the other words are untouched."""
    from fairpairs.generation.sampler import Sampler
    from fairpairs.generation.vocab import default_vocabulary

    vocab = default_vocabulary()
    src = textwrap.dedent(GOOD).format(uid="t_paradigm")
    src = src.replace("slots:\n", "slots:\n  adj:\n    text: ['']\n  adv:\n    where: {category_2: Adv}\n", 1)
    src = src.replace('template: "{{ subj }} {{ verb }} {{ dem }} {{ obj }}."',
                      'template: "{{ subj }} {{ adv }} {{ verb }} {{ dem }} {{ adj }} {{ obj }}."')
    src = src.replace("critical:\n  obj: {form: other_number}",
                      "critical:\n  adj: {where: {category: N/N, category_2: Adj}, takes: {arg_1: obj}}\n"
                      "  adv: {text: ['']}")
    p = read_paradigm_file(write(tmp_path, src))
    s = Sampler(p, vocab, 0)
    pairs = [x for x in (s.draw(k) for k in range(60)) if x]
    assert len(pairs) > 30
    adjectives = set(vocab.expressions[vocab.select({"category": "N/N", "category_2": "Adj"})])
    for x in pairs:
        adv, adj = x.good["adv"].word, x.bad["adj"].word
        assert x.good["adj"].word == "" and x.bad["adv"].word == ""
        assert adj in adjectives and adv and adv != adj
        # the good sentence without the adverb = the bad one without the adjective
        assert f" {adv} " in x.sentence_good and f" {adj} " in x.sentence_bad
        assert x.sentence_good.replace(f" {adv} ", " ", 1) == x.sentence_bad.replace(f" {adj} ", " ", 1)
    # no other critical slot may refer to a slot whose bad filler is a literal
    bad = src.replace("  adv: {text: ['']}", "  adv: {text: ['']}\n  obj: {form: other_number, differ: {adv: [sg]}}")
    with pytest.raises(GrammarError, match=r"critical.obj: refers to 'adv', whose bad filler is a literal"):
        read_paradigm_file(write(tmp_path, bad))


def test_plain_templates_render_like_jinja():
    """Templates without Jinja logic skip Jinja2 at render time: same output as Jinja2 itself."""
    import jinja2

    from fairpairs.generation.grammar import read_paradigm_file
    from fairpairs.generation.slots import PlainTemplate
    from fairpairs.generation.selection import grammar_files

    env = jinja2.Environment(undefined=jinja2.StrictUndefined)
    plain = 0
    for path in grammar_files():
        p = read_paradigm_file(path)
        for tpl, src in ((p.good_template, p.good_source), (p.bad_template, p.bad_source)):
            if isinstance(tpl, PlainTemplate):
                plain += 1
                values = {n: f"<{n} x>" for n in p.slots}
                assert tpl.render(values) == env.from_string(src).render(values)
    assert plain >= 40


def test_paradigm_set_matches_blimp():
    """The 67 standard UIDs are BLiMP's (its paradigm table), each with BLiMP's phenomenon; the two
    paradigms BLiMP dropped are shipped as non-standard; field and term are normalised: one term
    per phenomenon, fields from a fixed set, BLiMP's 'syntax/semantics' spelt syntax_semantics."""
    import csv

    from fairpairs.generation.grammar import read_paradigm_file
    from fairpairs.generation.selection import grammar_files
    from references import BLIMP_PARADIGMS

    with open(BLIMP_PARADIGMS, newline="", encoding="utf-8") as fh:
        table = {r["uid"]: r for r in csv.DictReader(fh, delimiter="\t")}
    assert len(table) == 67
    ps = {p.stem: read_paradigm_file(p) for p in grammar_files()}     # every bundled English paradigm, by UID
    standard = {u for u, p in ps.items() if p.standard}
    assert standard == set(table)
    assert set(ps) - standard == {"coordinate_structure_constraint_subject_extraction",
                                  "wh_questions_object_gap_long_distance"}
    terms: dict[str, set[str]] = {}
    for uid, p in ps.items():
        assert p.field in {"morphology", "syntax", "semantics", "syntax_semantics"}, uid
        terms.setdefault(p.phenomenon, set()).add(p.linguistics_term)
        if uid in table:
            assert p.phenomenon == table[uid]["phenomenon"], uid
            blimp_term, blimp_field = [x.strip() for x in table[uid]["term_field"].split(" / ")]
            assert p.field == blimp_field.replace("/", "_"), uid
            if not uid.startswith("animate_subject"):
                assert p.linguistics_term == blimp_term, uid
    assert all(len(t) == 1 for t in terms.values()), terms
    assert ps["animate_subject_trans"].linguistics_term == "argument_structure"
