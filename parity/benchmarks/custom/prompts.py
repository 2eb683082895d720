"""What people and models read of a researcher's own items: the default consent and instructions
(the researcher edits both when creating a study) and the default context a model reads."""

from __future__ import annotations

from collections.abc import Sequence

from ..consent import RECORDED_ON_THE_PAGE

CONSENT = (
    "You are invited to take part in a research study. You will read short texts and answer a question "
    "about each. Taking part is voluntary; you may stop at any time by returning the study on Prolific. "
    "Your answers are stored under a pseudonym and used only for research; your Prolific ID is kept "
    "only to pay you and is never published." + RECORDED_ON_THE_PAGE
)
INSTRUCTIONS = (
    "Each screen shows a text and asks for an answer: choose one of the buttons (or press its key), or type "
    "your answer in the box and press Enter. You cannot go back to change an answer."
)

#: the context a model reads when a record gives neither `model_context` nor `prompt_template`
DEFAULT_TEMPLATE_DOC = "{context}\\n\\n{text}\\nOptions: {options}\\nAnswer:"


def default_model_context(text: str, context: str, options: Sequence[str]) -> str:
    """`DEFAULT_TEMPLATE_DOC`, leaving out the context and the options line when there are none;
    the continuation (" " + option) or the generated answer follows "Answer:"."""
    lines = [f"{context}\n"] if context else []
    lines.append(text)
    if options:
        lines.append("Options: " + ", ".join(options))
    lines.append("Answer:")
    return "\n".join(lines)
