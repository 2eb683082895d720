"""The study page's "On Prolific" panel: the studies app renders it without importing this app."""

from __future__ import annotations

from typing import Any

from django import template

from prolific.selectors import prolific_actions, prolific_configured, prolific_study_of

register = template.Library()


@register.inclusion_tag("prolific/partials/_study_panel.html", takes_context=True)
def prolific_panel(context: template.Context) -> dict[str, Any]:
    """The Prolific study of the page's `study`, and the moves `may_change` allows there."""
    found = prolific_study_of(context["study"])
    return {
        "study": context["study"],
        "may_change": context.get("may_change", False),
        "csrf_token": context.get("csrf_token"),
        "prolific_study": found,
        "prolific_actions": prolific_actions(found),
        "prolific_ready": prolific_configured(),
    }
