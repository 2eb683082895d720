"""Reads about a study's life on Prolific, for the study page."""

from __future__ import annotations

from django.conf import settings

from prolific.currency import currency_or_default
from prolific.models import ProlificStudy, ProlificSubmission
from studies.models import Participant, Study

#: what the study page offers, by the Prolific study's status: (action, label)
ACTIONS_BY_STATUS: dict[str, tuple[tuple[str, str], ...]] = {
    ProlificStudy.Status.UNPUBLISHED: (("publish", "Publish on Prolific"),),
    ProlificStudy.Status.ACTIVE: (("pause", "Pause on Prolific"), ("stop", "Stop on Prolific")),
    ProlificStudy.Status.PAUSED: (("start", "Resume on Prolific"), ("stop", "Stop on Prolific")),
}


def prolific_study_of(study: Study) -> ProlificStudy | None:
    return ProlificStudy.objects.filter(study=study).first()


def study_currency(study_id: int) -> str:
    """The currency of the study's amounts: its Prolific workspace's, once read; Prolific's default
    until then."""
    return currency_or_default(ProlificStudy.objects.filter(study=study_id).values_list("currency", flat=True).first())


def prolific_study_of_submission(*, submission_id: str, participant_id: str = "") -> ProlificStudy | None:
    """The Parity study's Prolific study that a submission belongs to, when Parity knows the
    submission: recorded by an earlier pull or delivery, or the SESSION_ID its participant entered
    with (and, when given, their PID: served by the index on the PID). None when it knows none, or
    when two studies' participants claim it."""
    if not submission_id:
        return None
    recorded = ProlificSubmission.objects.filter(submission_id=submission_id).select_related("prolific_study__study")
    if (found := recorded.first()) is not None:
        return found.prolific_study
    entered = Participant.objects.filter(prolific_session_id=submission_id, study__prolific__isnull=False)
    if participant_id:
        entered = entered.filter(prolific_pid=participant_id.lower())
    studies = set(entered.order_by().values_list("study_id", flat=True).distinct()[:2])
    if len(studies) != 1:
        return None
    return ProlificStudy.objects.select_related("study").get(study_id=studies.pop())


def prolific_configured() -> bool:
    """Whether Parity may call Prolific's API (a token is set)."""
    return bool(settings.PROLIFIC_API_TOKEN)


def prolific_actions(found: ProlificStudy | None) -> tuple[tuple[str, str], ...]:
    if found is None:
        return (("create", "Create on Prolific"),) if prolific_configured() else ()
    return ACTIONS_BY_STATUS.get(found.status, ())
