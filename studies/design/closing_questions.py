"""Closing questions: what a study may ask once the items are done (the demographics it needs, free
feedback, whether an AI tool was used). Every one is optional for the participant and none stands
between them and their completion code; a study asks the ones its researcher chose, in this order."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.utils.translation import gettext_lazy as _

if TYPE_CHECKING:
    # a str or a lazy translation (what gettext_lazy returns), as Django's fields take labels
    from django_stubs_ext import StrOrPromise

    from studies.models import Study


@dataclass(frozen=True)
class ClosingQuestion:
    key: str
    #: translated lazily: the done page shows it in the study's language, the researcher's pages in English
    label: StrOrPromise
    #: "choice" (one of `choices`), "number" (`low`..`high`), "text" (a line) or "long_text"
    kind: str
    choices: tuple[tuple[str, StrOrPromise], ...] = ()
    low: int = 0
    high: int = 0
    help: StrOrPromise = ""

    @property
    def free_text(self) -> bool:
        """What a participant types in their own words: exported only when the researcher asks for it."""
        return self.kind in ("text", "long_text")


_NOT_SAY = ("prefer_not_to_say", _("Prefer not to say"))

QUESTIONS: dict[str, ClosingQuestion] = {
    question.key: question
    for question in (
        ClosingQuestion("age", _("Your age"), "number", low=18, high=120),
        ClosingQuestion(
            "gender",
            _("Your gender"),
            "choice",
            choices=(
                ("woman", _("Woman")),
                ("man", _("Man")),
                ("non_binary", _("Non-binary")),
                ("other", _("Other")),
                _NOT_SAY,
            ),
        ),
        ClosingQuestion("first_language", _("Your first language"), "text"),
        ClosingQuestion(
            "education",
            _("Your highest completed education"),
            "choice",
            choices=(
                ("secondary", _("Secondary school")),
                ("vocational", _("Vocational training")),
                ("undergraduate", _("Undergraduate degree")),
                ("graduate", _("Graduate degree")),
                _NOT_SAY,
            ),
        ),
        ClosingQuestion(
            "ai_tool",
            _("Did you use an AI tool (such as ChatGPT) for any of your answers?"),
            "choice",
            choices=(
                ("no", _("No")),
                ("some", _("Yes, for some answers")),
                ("most", _("Yes, for most answers")),
                _NOT_SAY,
            ),
            help=_("Please answer honestly: your answer does not affect your payment."),
        ),
        # whether the items were known before (contamination of the human baseline, as of a model's)
        ClosingQuestion(
            "seen_before",
            _("Had you seen any of these items before this study?"),
            "choice",
            choices=(("yes", _("Yes")), ("no", _("No"))),
        ),
        # asked by the study's explanations setting ("once at the end"), never chosen among these
        ClosingQuestion(
            "explanation",
            _("Why did you answer as you did?"),
            "long_text",
            help=_("Optional: how you chose your answers, in your own words."),
        ),
        ClosingQuestion(
            "feedback",
            _("Anything you would like to tell the researchers?"),
            "long_text",
            help=_("For example an unclear question or a technical problem."),
        ),
    )
}

#: what the new-study form ticks for a new study
DEFAULT_QUESTIONS: tuple[str, ...] = ("ai_tool", "feedback")


#: what a researcher may tick: the explanation question comes with `Study.explanations`
CHOOSABLE: tuple[str, ...] = tuple(key for key in QUESTIONS if key != "explanation")


def study_keys(study: Study) -> list[str]:
    """The keys of the closing questions `study` asks: those chosen, and the explanation when the
    study asks for one at the end."""
    keys = [key for key in study.closing_questions if key != "explanation"]
    return [*keys, "explanation"] if study.explanations == "end" else keys


def asked(keys: list[str]) -> list[ClosingQuestion]:
    """The questions of `keys` that exist, in the catalogue's order."""
    return [question for key, question in QUESTIONS.items() if key in keys]
