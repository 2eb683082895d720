"""What the results and the report say of the training: the practice and comprehension check as the
study set them up, who went through them, who was asked to return, and the time they took, each figure
held to the participants' own records; the checklist's training entries answered from them."""

from __future__ import annotations

from datetime import timedelta
from statistics import median

import pytest

from parity.reporting.checklist import Status
from results.computing.assemble import study_results_tree
from results.loading.selectors import load_study_data
from results.pipeline import study_checklist
from results.presenting.report.figures import plain
from results.presenting.report.paragraphs import methods_paragraphs
from results.presenting.report.render import render_report
from studies.models import Participant
from tests.factories import Bot, pid, small_study
from tests.participation.test_training import CHECK, PRACTICE

pytestmark = pytest.mark.django_db

RIGHT = ["Say whether the answer means yes or no", "no"]


def _train(bot: Bot, practice: list[str], tries: list[list[str]]) -> None:
    bot.enter()
    bot.post("consent", {"agree": "yes"})
    bot.post("begin", {})
    for answer in practice:
        bot.post("practice", {"answer": answer})
        bot.post("practice/next", {})
    for number, answers in enumerate(tries):
        bot.post("comprehension", {"attempt": number, **{f"q{n}": a for n, a in enumerate(answers)}})


def _study_with_training():
    study = small_study(
        "trained results",
        units=1,
        unit_size=3,
        per_unit=3,
        attention_checks=1,
        practice_questions=PRACTICE,
        comprehension_questions=CHECK,
        comprehension_tries=2,
    )
    first, second, third = (Bot(study, pid(n)) for n in (11, 12, 13))
    _train(first, ["no", "ready"], [RIGHT])
    _train(second, ["yes", "ready"], [["Write a story", "no"], RIGHT])
    _train(third, ["yes", "not ready"], [["Write a story", "no"], ["Write a story", "yes"]])
    first.answer_items()
    second.answer_items()
    # the clock: the first took 90 s of training, the second 150 s (the third's ended when screened out)
    for bot, seconds in ((first, 90), (second, 150), (third, 40)):
        person = bot.participant
        Participant.objects.filter(pk=person.pk).update(
            training_ended_at=person.training_started_at + timedelta(seconds=seconds)
        )
    return study


def test_the_methods_state_the_training_from_the_participants_records(implicature):
    study = _study_with_training()
    results = study_results_tree(load_study_data(study), n_boot=100)
    phase = results.methods.training
    people = list(Participant.objects.filter(study=study))
    assert (phase.practice_questions, phase.comprehension_questions, phase.comprehension_tries) == (2, 2, 2)
    assert phase.began == 3 and phase.finished == 3
    assert phase.screened_out == sum(p.status == Participant.Status.SCREENED_OUT for p in people) == 1
    answers = [answer for p in people for answer in p.practice_answers]
    assert phase.practice_answered == len(answers) == 6
    assert phase.practice_right == sum(answer["correct"] for answer in answers) == 3
    assert phase.median_minutes == pytest.approx(median([90, 150, 40]) / 60)
    assert phase.median_pay_pence == 23, "450p for 30 minutes: 1.5 minutes are 22.5p, to the penny half up"
    assert results.methods.participants.completed == 2, "the screened-out person is no completion"


def test_the_report_and_the_checklist_say_what_the_training_was(implicature):
    study = _study_with_training()
    results = study_results_tree(load_study_data(study), n_boot=100)
    text = " ".join(plain(paragraph) for paragraph in methods_paragraphs(results))
    assert (
        "Before the items, participants answered 2 practice questions, each followed by its right answer and the "
        "researchers' explanation and never counted in the results (3 of 6 practice answers were right); then they "
        "took a comprehension check of 2 questions on the instructions, every one to be answered right within 2 "
        "tries: 1 of the 3 who began the training were still wrong after the last try and were asked to return the "
        "study, as Prolific asks. The training took a median of 1.5 minutes, paid within the reward (£0.23 at the "
        "study's estimated rate)."
    ) in text
    assert "Before the items" in render_report(results, "latex")
    answers = {answer.entry.id: answer for answer in study_checklist(study, results)}
    assert answers["2.6"].text == (
        "Yes: 2 practice questions and a comprehension check before the items; 3 people began"
    )
    assert "2 practice questions" in answers["2.6.1"].text and "3 of 6 practice answers right" in answers["2.6.1"].text
    assert "1 of 3 were asked to return the study" in answers["2.6.1"].text
    assert answers["2.6.2"].status is Status.ANSWERED
    assert "a median 1.5 minutes" in answers["2.6.2.1"].text
