"""The report's sentences on the training before the items: the practice questions and the
comprehension check, who was asked to return the study, and the time it took within the paid time.
Every number is a figure of the results tree (`methods.training`), as in `paragraphs`."""

from __future__ import annotations

from results.presenting.report.figures import Part
from results.presenting.report.recruiting import Writing

ROOT = ("methods", "training")


def _plural(n: int, one: str, many: str) -> str:
    return one if n == 1 else many


def training(t: Writing) -> None:
    """ "Before the items, participants answered 3 practice questions, ...", when there was training."""
    phase = t.methods.training
    if phase is None:
        return

    def f(key: str, kind: str = "int") -> Part:
        return t.f(*ROOT, key, kind=kind)

    t.add("Before the items, participants ")
    if phase.practice_questions:
        t.add(
            "answered ",
            f("practice_questions"),
            f" practice {_plural(phase.practice_questions, 'question', 'questions')}, each followed by its right "
            "answer and the researchers' explanation and never counted in the results (",
            f("practice_right"),
            " of ",
            f("practice_answered"),
            " practice answers were right)",
        )
        if phase.comprehension_questions:
            t.add("; then they ")
    if phase.comprehension_questions:
        t.add(
            "took a comprehension check of ",
            f("comprehension_questions"),
            f" {_plural(phase.comprehension_questions, 'question', 'questions')} on the instructions, every one to be "
            "answered right within ",
            f("comprehension_tries"),
            f" {_plural(phase.comprehension_tries, 'try', 'tries')}: ",
            f("screened_out"),
            " of the ",
            f("began"),
            " who began the training were still wrong after the last try and were asked to return the study, as "
            "Prolific asks",
        )
    t.add(". ")
    if phase.median_minutes is not None:
        t.add(
            "The training took a median of ",
            f("median_minutes", "one"),
            " minutes, paid within the reward (",
            t.f("methods", "pay", "currency", kind="currency"),
            f("median_pay_pence", "minor"),
            " at the study's estimated rate). ",
        )
