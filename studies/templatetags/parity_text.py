from __future__ import annotations

from django import template
from django.utils.safestring import SafeString

from annotation.benchmarks.base import keyboard_hint as choice_hint
from studies.text import render_markdown

register = template.Library()


@register.filter(name="markdown")
def markdown(text: str) -> SafeString:
    """A researcher's text for participants, rendered safely (see `studies.text`)."""
    return render_markdown(text)


@register.filter(name="keyboard_hint")
def keyboard_hint(choices) -> str:
    """The keyboard line under an item's answer buttons (see `annotation.benchmarks.base.keyboard_hint`)."""
    return choice_hint(choices)
