from __future__ import annotations

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString

from parity.benchmarks.base import keyboard_hint
from studies.design.languages import ForeignText, direction, study_foreign_texts, study_text_language
from studies.design.markdown import render_markdown
from studies.models import Study

register = template.Library()


@register.filter(name="markdown")
def markdown(text: str) -> SafeString:
    """A researcher's text for participants, rendered safely (see `studies.design.markdown`)."""
    return render_markdown(text)


# the keyboard line under an item's answer buttons
register.filter("keyboard_hint", keyboard_hint)


@register.filter(name="lang_of")
def lang_of(study: Study, text: str) -> SafeString:
    """` lang="en" dir="ltr"` for an element holding `text` of `study` (see `studies.design.languages.TEXTS`)
    when it is written in another language than the page's; nothing when it is the page's."""
    if not isinstance(study, Study):  # a partial rendered without its study: nothing to compare with
        return SafeString("")
    language = study_text_language(study, text)
    if language == study.language:
        return SafeString("")
    return format_html(' lang="{}" dir="{}"', language, direction(language))


@register.filter(name="foreign_texts")
def foreign_texts(study: Study) -> list[ForeignText]:
    """The texts of `study` its participants read in another language than the study's."""
    return study_foreign_texts(study)
