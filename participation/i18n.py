"""The participant's language: a study's pages are shown in `Study.language`, whatever the browser
asks for (the researcher wrote the consent, instructions and items in that language); a page that
knows no study yet answers in the browser's language among those shipped (`settings.LANGUAGES`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from django.http import HttpRequest
from django.utils import translation

from parity.benchmarks.base import Choice
from parity.messages import Message
from studies.models import Study


def study_language(study: Study) -> translation.override:
    """`with study_language(study):` renders in the study's language, and restores the one before."""
    return translation.override(study.language)


def browser_language(request: HttpRequest) -> translation.override:
    """For a page that knows no study: the first language of the browser's Accept-Language that
    ships (English when none does)."""
    return translation.override(translation.get_language_from_request(request))


def translated(message: str) -> str:
    """A message from the pure library or a service in the active language: a `Message` is
    translated from its template and filled in again; any other string is looked up as it is."""
    if not message:
        return message
    if isinstance(message, Message):
        return translation.gettext(message.template).format(**message.params)
    return translation.gettext(message)


def translated_choices(choices: Sequence[Choice]) -> list[Choice]:
    """The answer buttons in the active language: a benchmark's own labels ("Yes", "Correct") are
    `Message`s and are translated; a researcher's options are shown as written."""
    return [
        replace(choice, label=translated(choice.label)) if isinstance(choice.label, Message) else choice
        for choice in choices
    ]
