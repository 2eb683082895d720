from __future__ import annotations

from django import template
from django.utils.safestring import SafeString

from parity.benchmarks.base import keyboard_hint
from studies.text import render_markdown

register = template.Library()


@register.filter(name="markdown")
def markdown(text: str) -> SafeString:
    """A researcher's text for participants, rendered safely (see `studies.text`)."""
    return render_markdown(text)


# the keyboard line under an item's answer buttons
register.filter("keyboard_hint", keyboard_hint)
