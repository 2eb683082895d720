"""Reads on a participant's way through a study: the study at a link, the participants a browser
holds, the item they are at and how it is shown to them, the answers they gave."""

from __future__ import annotations

from collections.abc import Sequence

from django.db.models import QuerySet
from django.http import Http404

from annotation.models import Item
from parity.benchmarks.base import Screen
from studies.models import Participant, Response, Study


def get_study_by_link(link: str) -> Study:
    study = Study.objects.filter(link=link).first()
    if study is None:
        raise Http404("No study has this link.")
    return study


def participant_at_link(participant_ids: Sequence[int], link: str) -> Participant | None:
    """The one of `participant_ids` in the study at `link`, with the study, in one query (or None; an
    erased identity is no one's). One at most: a browser holds one participant per study, so the read
    asks for no order (`get()`, where `first()` would add an ORDER BY for a single row)."""
    if not participant_ids:
        return None
    try:
        return known_participants(participant_ids, link=link).get()
    except Participant.DoesNotExist:
        return None


def known_participants(ids: Sequence[int], *, link: str | None = None) -> QuerySet[Participant]:
    """The participants with these ids, with their study; an erased identity is no one's. With
    `link`, the one in the study at that link (in the same `filter()`: every answer builds this read,
    and each further call copies the query)."""
    lookups: dict[str, object] = {"pk__in": ids, "erased_at__isnull": True}
    if link is not None:
        lookups["study__link"] = link
    return Participant.objects.select_related("study").filter(**lookups)


def current_item(participant: Participant) -> Item | None:
    item_id = current_item_id(participant)
    return None if item_id is None else Item.objects.get(pk=item_id)


def current_item_id(participant: Participant) -> int | None:
    if participant.step != Participant.Step.ITEMS or participant.answered >= len(participant.sequence):
        return None
    return participant.sequence[participant.answered]


def answered_responses(participant: Participant) -> QuerySet[Response]:
    return Response.objects.filter(participant=participant).select_related("item").order_by("position")


def viewer_key(participant: Participant) -> str:
    """The stable token a benchmark derives per-participant presentation from (e.g. option order)."""
    return f"participant-{participant.pk}"


def screen_for(participant: Participant, item: Item) -> Screen:
    """The current item as this participant sees it; the same on every refresh."""
    study = participant.study
    return study.definition.screen(item.key, item.prompt, study.design, viewer=viewer_key(participant))
