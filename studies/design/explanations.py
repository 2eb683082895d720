"""When a study asks participants why they answered as they did (`Study.explanations`).

Whether an item asks depends only on its position in the participant's sequence, never on the item
itself: a box that came and went with the attention checks (or with anything about the item) would
tell the participant something about the item before they answer."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.utils.translation import gettext_lazy, gettext_noop

from parity.messages import Message

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

    from studies.models import Study

#: the longest explanation stored; a longer one is refused with the text given back
MAX_CHARS = 1000

#: the box's label when the researcher wrote none, in the study's language
DEFAULT_PROMPT: StrOrPromise = gettext_lazy("Why did you choose this answer?")

#: the key of the closing question that "once at the end" asks (`studies.design.closing_questions`)
CLOSING_KEY = "explanation"


def asked_at(study: Study, position: int) -> bool:
    """Whether the item at `position` (1-based, in the participant's sequence) asks for an explanation."""
    mode = study.explanations
    if mode == "every":
        return True
    if mode == "nth":
        every = max(study.explanation_every, 1)
        return position % every == 0
    return False


def asked_per_item(study: Study) -> bool:
    return study.explanations in ("every", "nth")


def prompt(study: Study) -> StrOrPromise:
    return study.explanation_prompt or DEFAULT_PROMPT


def box_context(study: Study, position: int, typed: str = "") -> dict[str, object]:
    """What the item form's explanation box needs (`_explanation.html`): its label where the item at
    `position` asks, else None; `typed`: a refused answer's explanation, given back."""
    asked = asked_at(study, position)
    return {
        "explanation_prompt": prompt(study) if asked else None,
        "explanation_max": MAX_CHARS,
        "typed_explanation": typed,
    }


def describe(study: Study) -> str:
    """The setting in a methods section's words: "after every 5th item", "after every item", ..."""
    match study.explanations:
        case "every":
            return "after every item"
        case "nth":
            every = max(study.explanation_every, 1)
            return "after every item" if every == 1 else f"after every {_ordinal(every)} item"
        case "end":
            return "once, after the last item"
        case _:
            return "not asked"


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


#: an explanation over `MAX_CHARS`: the item comes back with what was typed, nothing stored
TOO_LONG_MESSAGE = Message(
    gettext_noop(
        "Your explanation is longer than {limit} characters, so your answer was not saved yet. "
        "Please shorten it and answer again."
    ),
    limit=MAX_CHARS,
)
