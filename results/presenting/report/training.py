"""The report's sentences on the training before the items: the practice questions and the
comprehension check, who was asked to return the study, and the time it took within the paid time.
Every number is a figure of the results tree (`methods.training`), as in `paragraphs`."""

from __future__ import annotations

from results.computing.tree import StudyResults, TrainingPhase
from results.presenting.report.figures import present
from results.presenting.report.recruitment import Writing
from results.presenting.wording import plural


def _phase(results: StudyResults) -> TrainingPhase:
    """The training, which the sentence has found the study had."""
    return present(results.methods.training)


def training(t: Writing) -> None:
    """ "Before the items, participants answered 3 practice questions, ...", when there was training."""
    phase = t.methods.training
    if phase is None:
        return

    t.add("Before the items, participants ")
    if phase.practice_questions:
        t.add(
            "answered ",
            t.f(_phase(t.tree).practice_questions),
            f" practice {plural(phase.practice_questions, 'question', 'questions')}, each followed by its right "
            "answer and the researchers' explanation and never counted in the results (",
            t.f(_phase(t.tree).practice_right),
            " of ",
            t.f(_phase(t.tree).practice_answered),
            " practice answers were right)",
        )
        if phase.comprehension_questions:
            t.add("; then they ")
    if phase.comprehension_questions:
        t.add(
            "took a comprehension check of ",
            t.f(_phase(t.tree).comprehension_questions),
            f" {plural(phase.comprehension_questions, 'question', 'questions')} on the instructions, every one to be "
            "answered right within ",
            t.f(_phase(t.tree).comprehension_tries),
            f" {plural(phase.comprehension_tries, 'try', 'tries')}: ",
            t.f(_phase(t.tree).screened_out),
            " of the ",
            t.f(_phase(t.tree).began),
            " who began the training were still wrong after the last try and were asked to return the study, as "
            "Prolific asks",
        )
    t.add(". ")
    if phase.median_minutes is not None:
        t.add(
            "The training took a median of ",
            t.f(_phase(t.tree).median_minutes, kind="one"),
            " minutes, paid within the reward (",
            t.f(t.tree.methods.pay.currency, kind="currency"),
            t.f(_phase(t.tree).median_pay_pence, kind="minor"),
            " at the study's estimated rate). ",
        )
