"""The study page's Prolific buttons: create the study on Prolific, then publish, pause, start, stop."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from prolific.client import ProlificError
from prolific.selectors import prolific_study_of
from prolific.services import ProlificStudyError, prolific_study_create, prolific_study_transition
from studies.access import get_study_for_researcher
from studies.models import Study

CHANGE_STUDY = "studies.change_study"


@login_required
@require_POST
def study_prolific(request: HttpRequest, study_id: int) -> HttpResponse:
    """The owner and collaborators holding `studies.change_study` move the study on Prolific."""
    study = get_study_for_researcher(request.user, study_id, CHANGE_STUDY)
    try:
        messages.success(request, _act(study, request.POST.get("action", ""), request.user))
    except (ProlificError, ProlificStudyError) as exc:
        messages.error(request, f"Prolific: {exc}")
    return redirect("studies:detail", study.pk)


def _act(study: Study, action: str, actor: Any) -> str:
    if action == "create":
        created = prolific_study_create(study=study, actor=actor)
        return (
            f"Created on Prolific as a draft ({created.prolific_id}, {created.places} places): publish it when ready."
        )
    found = prolific_study_of(study)
    if found is None:
        raise ProlificStudyError("the study is not on Prolific yet: create it there first")
    moved = prolific_study_transition(prolific_study=found, action=action, actor=actor)
    return f"On Prolific: {moved.get_status_display().lower()}."
