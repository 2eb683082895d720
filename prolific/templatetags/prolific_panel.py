"""The study page's "On Prolific" panel: the studies app renders it without importing this app."""

from __future__ import annotations

from typing import Any

from django import template

from prolific.selectors import prolific_actions, prolific_configured, prolific_follow, prolific_study_of
from prolific.services import study_places

register = template.Library()


@register.inclusion_tag("prolific/partials/_study_panel.html", takes_context=True)
def prolific_panel(context: template.Context) -> dict[str, Any]:
    """The Prolific study of the page's `study`, and the moves `may_change` allows there; "below" is
    said only when the page lists the settings to paste (`prolific`)."""
    found = prolific_study_of(context["study"])
    return {
        "study": context["study"],
        "may_change": context.get("may_change", False),
        "csrf_token": context.get("csrf_token"),
        "prolific_study": found,
        "prolific_actions": prolific_actions(found),
        # Parity paused, closed or resumed the study and Prolific does not follow yet: what it would do
        "follow": prolific_follow(found),
        "prolific_ready": prolific_configured(),
        "places": study_places(context["study"]) if found is None else found.places,
        "has_settings": bool(context.get("prolific")),
    }
