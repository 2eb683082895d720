"""Reads about studies and participants, and the one access helper per object."""

from __future__ import annotations

from statistics import median

from django.db.models import Count, Q, QuerySet
from django.http import Http404, HttpRequest

from annotation.models import Item, Response
from studies.models import Participant, Study, Unit

SESSION_KEY = "parity:participants"


def get_study_by_link(link: str) -> Study:
    study = Study.objects.filter(link=link).first()
    if study is None:
        raise Http404("No study has this link.")
    return study


def get_participant_for_request(request: HttpRequest, study: Study) -> Participant | None:
    """The participant this browser entered `study` as, or None (the only place that decides)."""
    participant_id = request.session.get(SESSION_KEY, {}).get(str(study.pk))
    if participant_id is None:
        return None
    return Participant.objects.select_related("study", "unit").filter(pk=participant_id, study=study).first()


def remember_participant(request: HttpRequest, participant: Participant) -> None:
    known = dict(request.session.get(SESSION_KEY, {}))
    known[str(participant.study_id)] = participant.pk
    request.session[SESSION_KEY] = known


def current_item(participant: Participant) -> Item | None:
    if participant.step != Participant.Step.ITEMS or participant.answered >= len(participant.sequence):
        return None
    return Item.objects.get(pk=participant.sequence[participant.answered])


def answered_responses(participant: Participant) -> QuerySet[Response]:
    return Response.objects.filter(participant=participant).select_related("item").order_by("position")


def units_with_counts(study: Study) -> QuerySet[Unit]:
    """Units with live counts: working now, complete and kept, excluded."""
    return (
        Unit.objects.filter(study=study)
        .annotate(
            n_items=Count("unit_items", distinct=True),
            active=Count("participants", filter=Q(participants__status=Participant.Status.ACTIVE), distinct=True),
            completed=Count("participants", filter=Q(participants__status=Participant.Status.COMPLETED,
                                                     participants__excluded=False), distinct=True),
            excluded=Count("participants", filter=Q(participants__excluded=True), distinct=True),
        )
        .order_by("position")
    )


def median_minutes(study: Study) -> float | None:
    """Median completion time of finished, non-imported participants (Prolific judges pay on it)."""
    rows = Participant.objects.filter(study=study, completed_at__isnull=False, is_imported=False).values_list(
        "started_at", "completed_at")
    minutes = [(done - start).total_seconds() / 60 for start, done in rows]
    return median(minutes) if minutes else None
