"""Reads about a study's life on Prolific, for the study page."""

from __future__ import annotations

from django.conf import settings

from prolific.models import ProlificStudy
from studies.models import Study

#: what the study page offers, by the Prolific study's status: (action, label)
ACTIONS_BY_STATUS: dict[str, tuple[tuple[str, str], ...]] = {
    ProlificStudy.Status.UNPUBLISHED: (("publish", "Publish on Prolific"),),
    ProlificStudy.Status.ACTIVE: (("pause", "Pause on Prolific"), ("stop", "Stop on Prolific")),
    ProlificStudy.Status.PAUSED: (("start", "Resume on Prolific"), ("stop", "Stop on Prolific")),
}


def prolific_study_of(study: Study) -> ProlificStudy | None:
    return ProlificStudy.objects.filter(study=study).first()


def prolific_configured() -> bool:
    """Whether Parity may call Prolific's API (a token is set)."""
    return bool(settings.PROLIFIC_API_TOKEN)


def prolific_actions(found: ProlificStudy | None) -> tuple[tuple[str, str], ...]:
    if found is None:
        return (("create", "Create on Prolific"),) if prolific_configured() else ()
    return ACTIONS_BY_STATUS.get(found.status, ())
