"""Closing questions: what a study may ask once the items are done (the demographics it needs, free
feedback, whether an AI tool was used). Every one is optional for the participant and none stands
between them and their completion code; a study asks the ones its researcher chose, in this order."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ClosingQuestion:
    key: str
    label: str
    #: "choice" (one of `choices`), "number" (`low`..`high`), "text" (a line) or "long_text"
    kind: str
    choices: tuple[tuple[str, str], ...] = ()
    low: int = 0
    high: int = 0
    help: str = ""

    @property
    def free_text(self) -> bool:
        """What a participant types in their own words: exported only when the researcher asks for it."""
        return self.kind in ("text", "long_text")


_NOT_SAY = ("prefer_not_to_say", "Prefer not to say")

QUESTIONS: dict[str, ClosingQuestion] = {
    question.key: question
    for question in (
        ClosingQuestion("age", "Your age", "number", low=18, high=120),
        ClosingQuestion(
            "gender",
            "Your gender",
            "choice",
            choices=(("woman", "Woman"), ("man", "Man"), ("non_binary", "Non-binary"), ("other", "Other"), _NOT_SAY),
        ),
        ClosingQuestion("first_language", "Your first language", "text"),
        ClosingQuestion(
            "education",
            "Your highest completed education",
            "choice",
            choices=(
                ("secondary", "Secondary school"),
                ("vocational", "Vocational training"),
                ("undergraduate", "Undergraduate degree"),
                ("graduate", "Graduate degree"),
                _NOT_SAY,
            ),
        ),
        ClosingQuestion(
            "ai_tool",
            "Did you use an AI tool (such as ChatGPT) for any of your answers?",
            "choice",
            choices=(("no", "No"), ("some", "Yes, for some answers"), ("most", "Yes, for most answers"), _NOT_SAY),
            help="Please answer honestly: your answer does not affect your payment.",
        ),
        ClosingQuestion(
            "feedback",
            "Anything you would like to tell the researchers?",
            "long_text",
            help="For example an unclear question or a technical problem.",
        ),
    )
}

#: what the new-study form ticks for a new study
DEFAULT_QUESTIONS: tuple[str, ...] = ("ai_tool", "feedback")


def asked(keys: list[str]) -> list[ClosingQuestion]:
    """The questions of `keys` that exist, in the catalogue's order."""
    return [question for key, question in QUESTIONS.items() if key in keys]
