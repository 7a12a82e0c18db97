"""The preflight (issue 47, item 4): before generating, the share of each paradigm's contexts that
length control can keep, from the control lexicon and the tokenizers; a run that can keep none is
refused in seconds.

Independent references: token counts of a hand-built paradigm read with the `tokenizers` library on
the bundled reference files (tests/references.py); the run's own outcome (what the search kept, a
different code path: fairpairs.control.loop) for the share; `fp.paradigms` and `fp.languages` for
what the refusal must name. Before this change `generate --paradigms he/all` under gpt2 +
bert-base-cased generated every paradigm for a minute or more before failing (`kept no pair`), so
the refusal test's CPU bound and message fail on the old code.
"""

from __future__ import annotations

import re
import time

import numpy as np
import pytest

import fairpairs as fp
from fairpairs.control.preflight import PREFLIGHT_DRAWS, forecast_paradigm
from fairpairs.control.search import Searcher
from fairpairs.errors import NotComparableError
from fairpairs.generation.sampler import Sampler
from fairpairs.tokenization.lengths import LengthMeter
from references import reference_tokenizer

SHORT, LONG = ["Bill", "Steve", "Matt"], ["Curtis", "Clyde", "Cindy"]
NAMES = """uid: names
phenomenon: Test
field: syntax
linguistics_term: test
slots:
  subj: {{where: {{category: N, expression: {good}}}}}
template: "{{{{ subj }}}} left early."
critical:
  subj: {{where: {{category: N, expression: {bad}}}}}
"""
MODELS = ["gpt2", "bert-base-cased"]


def gpt2_count(name: str) -> int:
    return len(reference_tokenizer("gpt2").encode(f"{name} left early.", add_special_tokens=False).ids)


@pytest.fixture(scope="module")
def names(tmp_path_factory):
    """A paradigm whose good subject is any of SHORT + Curtis and whose bad subject is Clyde or Cindy:
    under gpt2 only a context whose good subject is Curtis can be equalised (counts checked here)."""
    assert {gpt2_count(w) for w in SHORT} == {4} and {gpt2_count(w) for w in LONG} == {6}
    path = tmp_path_factory.mktemp("grammars") / "names.yaml"
    path.write_text(NAMES.format(good=SHORT + ["Curtis"], bad=["Clyde", "Cindy"]), encoding="utf-8")
    return fp.load_paradigm(path)


def test_the_share_is_the_hand_counted_one(names):
    """Keepable contexts = the draws whose good subject is Curtis (the only good name with a bad name
    of its token count), counted over the same draws."""
    p = names
    s = Sampler(p, p.vocab, 0)
    curtis = sum(s.draw(k).good["subj"].word == "Curtis" for k in range(PREFLIGHT_DRAWS))
    cell = forecast_paradigm(p, p.vocab, [LengthMeter("gpt2")], 0)
    assert cell.contexts == PREFLIGHT_DRAWS and 0 < curtis < PREFLIGHT_DRAWS
    assert cell.keepable == curtis


def test_the_control_lexicon_bounds_what_control_may_draw(names, tmp_path):
    """With Mark (a name of Bill's token count) among the bad names every context can be kept; with
    Mark outside the rows control may draw, only the contexts whose good name is Curtis or whose
    first-drawn bad name is already Mark (kept as drawn: the original set drew it) can; and the
    search's pick does not take Mark."""
    assert gpt2_count("Mark") == 4
    path = tmp_path / "names.yaml"
    path.write_text(NAMES.format(good=SHORT + ["Curtis"], bad=["Clyde", "Cindy", "Mark"]), encoding="utf-8")
    p = fp.load_paradigm(path)
    gpt2 = [LengthMeter("gpt2")]
    rows = np.array([str(e) != "Mark" for e in p.vocab.expressions])
    s = Sampler(p, p.vocab, 0)
    first = [s.draw(k) for k in range(PREFLIGHT_DRAWS)]
    expected = sum(q.good["subj"].word == "Curtis" or q.bad["subj"].word == "Mark" for q in first)
    assert 0 < expected < PREFLIGHT_DRAWS
    assert forecast_paradigm(p, p.vocab, gpt2, 0).keepable == PREFLIGHT_DRAWS
    assert forecast_paradigm(p, p.vocab, gpt2, 0, control_rows=rows).keepable == expected
    q = next(q for q in first if q.good["subj"].word == "Bill" and q.bad["subj"].word != "Mark")
    lengths = lambda t: (gpt2[0].length(t),)
    assert not Searcher(s, gpt2, control_rows=rows).pick(q.copy(), lengths(q.sentence_good), lengths(q.sentence_bad))
    picked = q.copy()
    assert Searcher(s, gpt2).pick(picked, lengths(q.sentence_good), lengths(q.sentence_bad))
    assert picked.bad["subj"].word == "Mark"


# the paradigms of the default run whose share is furthest from 1 (benchmarks/results/balance.md), and one near 1
UIDS = ["animate_subject_trans", "determiner_noun_agreement_irregular_1", "left_branch_island_echo_question",
        "principle_A_domain_3", "causative", "transitive"]
SAME_DRAWS = 0.05     # on the run's own contexts the prediction is what `search` keeps (exact for these tokenizers)
DEFAULT_DRAWS = 0.15  # the printed prediction (first 64 draws) against a 30-pair run: two binomial SDs at 30


def test_the_prediction_is_the_share_the_run_keeps(tmp_path):
    result = fp.generate_run(tmp_path / "run", UIDS, MODELS, pairs=30)
    meters = [LengthMeter(m) for m in MODELS]
    for uid in UIDS:
        p = fp.load_paradigm(uid)
        st = result.stats[uid]["debiased"]
        kept_own = (st.kept_as_drawn + st.kept_redrawn) / st.drawn
        same = forecast_paradigm(p, p.vocab, meters, 0, draws=st.draws, more=0)
        printed = forecast_paradigm(p, p.vocab, meters, 0)
        assert abs(same.share - kept_own) <= SAME_DRAWS, (uid, same, kept_own)
        assert abs(printed.share - kept_own) <= DEFAULT_DRAWS, (uid, printed, kept_own)
    assert min(result.stats[u]["debiased"].yield_ for u in UIDS) < 0.5     # (the test sees shares far from 1)


def test_hebrew_under_the_bundled_tokenizers_is_refused_in_seconds(tmp_path, fairpairs_cli):
    hebrew = [p["uid"] for p in fp.paradigms(language="he")]
    suits = {r["code"]: r["tokenizers"] for r in fp.languages()}["he"]
    out = tmp_path / "run"
    cpu = time.process_time()
    with pytest.raises(NotComparableError) as info:
        fp.generate_run(out, "he/all", MODELS, pairs=50)
    assert time.process_time() - cpu < 10
    message = str(info.value)
    assert message.startswith("models gpt2,bert-base-cased: length control can keep no pair under these tokenizers")
    assert all(uid in message for uid in hebrew) and f"suit Hebrew (he; `fairpairs languages`): {', '.join(suits)}" \
        in message and not out.exists()
    r = fairpairs_cli("generate", "--paradigms", "he/all", "--models", ",".join(MODELS), "--pairs", "50", "--out", out)
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 1 and len(lines) == 1 and lines[0].startswith("fairpairs: error: --models gpt2,bert-base-cased:")
    assert not out.exists()


def test_the_prediction_is_printed_before_the_run(tmp_path, fairpairs_cli):
    r = fairpairs_cli("generate", "--paradigms", "animate_subject_trans,determiner_noun_agreement_2", "--models", ",".join(MODELS),
                      "--pairs", "5", "--out", tmp_path / "run")
    assert r.returncode == 0, r.stderr
    err = r.stderr
    head = re.search(r"preflight \(gpt2, bert-base-cased\): (\d) of 2 paradigm\(s\) can keep", err)
    low = re.search(r"  animate_subject_trans: (\d+) of (\d+) contexts can be kept", err)
    assert head and low and head.group(1) == "1" and 0 < int(low.group(1)) < int(low.group(2)), err
    assert err.index("preflight (") < err.index("generating 2 paradigms")


def test_a_run_that_keeps_few_contexts_is_warned_and_told_the_tokenizers_that_suit(capsys):
    """French under gpt2 + bert-base-cased (a 14-minute `fr/all` run ended NOT comparable, issue 47):
    the run still starts, but the prediction says which cells keep few contexts and what suits French."""
    from fairpairs.control.preflight import LOW_SHARE, preflight
    from fairpairs.generation.selection import select_paradigms
    from fairpairs.io.progress import saying

    suits = {r["code"]: r["tokenizers"] for r in fp.languages()}["fr"]
    vocab, ps = select_paradigms("fr/fr_simple_agrmt_n1pl", None, None)
    with saying():
        cells = preflight(ps, vocab, MODELS, 0)
    err = capsys.readouterr().err
    assert 0 < cells[0].share < LOW_SHARE
    assert f"1 under {LOW_SHARE:.0%}" in err and f"suit the language: {', '.join(suits)} (French" in err
    assert "fr_simple_agrmt_n1pl: " in err and "may end short" in err
