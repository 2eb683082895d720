"""A new study's training settings: practice questions and a comprehension check, written as plain
text (`parity.training`), and the check's tries; the fields of the study's settings form
(`studies.setup.settings_form`), read alike from the new-study page and the API."""

from __future__ import annotations

from typing import Any

from django import forms

from parity.training import MAX_QUESTIONS, TrainingQuestion, parse, written
from studies.bounds import MAX_TEXT
from studies.models import Study
from studies.setup.training import MAX_TRIES

TRAINING_FIELDS = ("practice_questions", "practice_drawn", "comprehension_questions", "comprehension_tries")

_FORMAT = (
    'one question per block, blocks apart by an empty line: the question, its choices on lines that begin with "- " '
    '(none: a text box), the right answer on a line that begins with "= "'
)


class TrainingFields(forms.Form):
    practice_questions = forms.CharField(
        required=False,
        max_length=MAX_TEXT,
        label="Practice questions",
        help_text=f"shown one at a time after the instructions, each followed by its right answer and the lines you "
        f"write after it; never counted in the results; {_FORMAT}",
    )
    comprehension_questions = forms.CharField(
        required=False,
        max_length=MAX_TEXT,
        label="Comprehension check",
        help_text=f"questions on the instructions that must all be answered right before the items; whoever is still "
        f"wrong after the tries below is asked to return the study (Prolific's rule); {_FORMAT}",
    )
    practice_drawn = forms.IntegerField(
        min_value=1,
        max_value=MAX_QUESTIONS,
        required=False,
        label="Or draw practice questions from the benchmark",
        help_text="this many of the benchmark's own practice items (implicature: its dev set, never the study's "
        "items), drawn with the seed below and written out above when the study is saved; only while the "
        "practice questions are empty",
    )
    comprehension_tries = forms.IntegerField(
        min_value=1,
        max_value=MAX_TRIES,
        initial=2,
        required=False,
        label="Tries at the check",
        help_text="Prolific asks for two (empty: two)",
    )

    def _questions(self, name: str, *, feedback: bool) -> list[dict[str, Any]]:
        parsed = parse(self.cleaned_data.get(name) or "", feedback=feedback)
        if parsed.errors:
            raise forms.ValidationError(parsed.errors)
        return [question.as_json() for question in parsed.questions]

    def clean_practice_questions(self) -> list[dict[str, Any]]:
        return self._questions("practice_questions", feedback=True)

    def clean_comprehension_questions(self) -> list[dict[str, Any]]:
        return self._questions("comprehension_questions", feedback=False)

    def clean_comprehension_tries(self) -> int:
        tries = self.cleaned_data.get("comprehension_tries")
        return tries if tries is not None else 2

    def training_arguments(self) -> dict[str, Any]:
        """The draw asked for, where the practice questions are left empty (`study_create` draws them)."""
        drawn = self.cleaned_data.get("practice_drawn")
        return {"practice_drawn": drawn} if drawn and not self.cleaned_data.get("practice_questions") else {}


def training_initial(study: Study) -> dict[str, Any]:
    """A study's training as its form shows it: the questions written out again."""
    return {
        "practice_questions": written([TrainingQuestion.from_json(q) for q in study.practice_questions]),
        "comprehension_questions": written([TrainingQuestion.from_json(q) for q in study.comprehension_questions]),
        "comprehension_tries": study.comprehension_tries,
    }
