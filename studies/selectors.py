"""Reads about studies and participants, and the one access helper per object."""

from __future__ import annotations

from statistics import median

from django.db.models import Count, Q, QuerySet
from django.http import Http404, HttpRequest, HttpResponse

from annotation.models import Item
from studies.models import Participant, Response, Study, Unit
from studies.participation import cookie


def get_study_by_link(link: str) -> Study:
    study = Study.objects.filter(link=link).first()
    if study is None:
        raise Http404("No study has this link.")
    return study


def get_participant_for_request(request: HttpRequest, study: Study) -> Participant | None:
    """The participant this browser entered `study` as, or None (the only place that decides)."""
    participant_id = cookie.known(request).get(study.pk)
    if participant_id is None:
        return None
    # an erased identity is no longer anyone's: the browser that entered as it cannot resume it
    return _known_participants([participant_id]).filter(study=study).first()


def get_participant_by_link(request: HttpRequest, link: str) -> Participant | None:
    """This browser's participant in the study at `link`, with the study, in one query (or None:
    the study does not exist, or this browser has not entered it)."""
    return participant_at_link(known_participant_ids(request), link)


def known_participant_ids(request: HttpRequest) -> list[int]:
    """The participants this browser entered, in any study."""
    return list(cookie.known(request).values())


def participant_at_link(participant_ids: list[int], link: str) -> Participant | None:
    """The one of `participant_ids` in the study at `link`, with the study, in one query (or None; an
    erased identity is no one's)."""
    if not participant_ids:
        return None
    return _known_participants(participant_ids).filter(study__link=link).first()


def _known_participants(ids: list[int]) -> QuerySet[Participant]:
    return Participant.objects.select_related("study").filter(pk__in=ids, erased_at__isnull=True)


def remember_participant(request: HttpRequest, response: HttpResponse, participant: Participant) -> HttpResponse:
    """`response`, which tells this browser it is `participant` in their study from now on."""
    cookie.remember(request, response, participant.study_id, participant.pk)
    return response


def current_item(participant: Participant) -> Item | None:
    item_id = current_item_id(participant)
    return None if item_id is None else Item.objects.get(pk=item_id)


def current_item_id(participant: Participant) -> int | None:
    if participant.step != Participant.Step.ITEMS or participant.answered >= len(participant.sequence):
        return None
    return participant.sequence[participant.answered]


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
