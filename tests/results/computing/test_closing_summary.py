"""The closing questions summarised in the results: counts of each answer, the age's median and range,
the share who said they used an AI tool, and human accuracy without them; from participants who walked
a small study through the views and sent their answers."""

from __future__ import annotations

import pytest

from results.computing.assemble import study_results_tree
from results.loading.selectors import load_study_data
from tests.factories import Bot, pid, small_study

pytestmark = pytest.mark.django_db
FLIP = {"yes": "no", "no": "yes"}


def _wrong(item) -> str:
    """Wrong on every real item, right on the attention checks (so kept in the results)."""
    return item.gold if item.is_attention_check else FLIP[item.gold]


def _answered(study, number: int, closing: dict[str, str], choose=None) -> None:
    bot = Bot(study, pid(number))
    bot.complete(choose)
    assert bot.client.post(f"/s/{study.link}/closing/", closing).status_code == 302


@pytest.fixture
def study(implicature):
    study = small_study("closing summary", units=1, unit_size=4, per_unit=3, attention_checks=1)
    study.closing_questions = ["age", "gender", "first_language", "ai_tool", "feedback"]
    study.save(update_fields=["closing_questions"])
    _answered(study, 1, {"age": "30", "gender": "woman", "first_language": "English", "ai_tool": "most"})
    _answered(study, 2, {"age": "40", "gender": "man", "first_language": " english", "ai_tool": "no"}, _wrong)
    _answered(study, 3, {"age": "50", "gender": "woman", "ai_tool": "prefer_not_to_say", "feedback": "fine"})
    return study


def test_the_closing_answers_are_counted_over_the_participants_in_the_results(study):
    tree = study_results_tree(load_study_data(study), n_boot=200)
    closing = tree.closing
    assert closing is not None
    assert (closing.n_participants, closing.n_answered) == (3, 3)
    assert (closing.age.n, closing.age.median, closing.age.low, closing.age.high) == (3, 40.0, 30, 50)
    assert closing.counts["gender"] == {"man": 1, "woman": 2}
    assert closing.counts["first_language"] == {"english": 2}, "case-folded and trimmed"
    assert closing.counts["ai_tool"] == {"most": 1, "no": 1, "prefer_not_to_say": 1}
    assert "feedback" not in closing.counts, "free feedback is never summarised"
    # one yes among the two who answered other than "prefer not to say"
    assert (closing.ai_tool_yes, closing.ai_tool_answered, closing.ai_tool_yes_share) == (1, 2, 0.5)


def test_accuracy_without_those_who_said_they_used_an_ai_tool(study):
    tree = study_results_tree(load_study_data(study), n_boot=200)
    assert tree.human.accuracy.mean == pytest.approx(2 / 3), "all three in the headline"
    without = tree.closing.accuracy_without_ai_users
    # left: the participant wrong on every item and one right on every item
    assert without.n_annotators == 2
    assert without.mean == pytest.approx(0.5)
    assert without.ci95 is not None and without.ci95[0] < 0.5 < without.ci95[1]


def test_the_summary_is_in_the_json_and_read_back(study):
    tree = study_results_tree(load_study_data(study), n_boot=200)
    data = tree.to_json()
    assert data["closing"]["ai_tool_yes_share"] == 0.5
    assert data["closing"]["accuracy_without_ai_users"]["n_annotators"] == 2
    assert type(tree).from_json(data).closing == tree.closing


def test_a_study_without_closing_questions_has_no_summary(implicature):
    study = small_study("no closing", units=1, unit_size=3, per_unit=1, attention_checks=1)
    study.closing_questions = ["feedback"]
    study.save(update_fields=["closing_questions"])
    Bot(study, pid(9)).complete()
    tree = study_results_tree(load_study_data(study), n_boot=200)
    assert tree.closing is None and "closing" not in tree.to_json()


def test_the_results_page_and_every_report_format_show_the_table(study, staff_client, tmp_path):
    from results.presenting.report import render_report
    from tests.results.presenting.test_latex_compiles import PDFLATEX, compile_latex

    html = staff_client.get(f"/studies/{study.pk}/results/").content.decode()
    assert "What the participants in the results said of themselves" in html
    assert "median 40 (range 30–50)" in html and "1 of 2 (50.0%)" in html
    tree = study_results_tree(load_study_data(study), n_boot=200)
    markdown = render_report(tree, "markdown")
    assert "| Human accuracy without them | 50.0% \\[0.0%, 100.0%\\] (all: 66.7%) | 2 |" in markdown
    assert "| Gender | Woman | 2 |" in markdown
    latex = render_report(tree, "latex")
    assert "Said they used an AI tool" in latex
    if PDFLATEX is not None:
        compile_latex(latex, tmp_path)
