"""Reads about studies, participants and their answers: what a participant sees, and the
researcher's verification summary."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from statistics import median
from typing import TYPE_CHECKING, Any, TypedDict

from django.db.models import Case, Count, F, FloatField, Q, QuerySet, When
from django.db.models.functions import Cast
from django.http import Http404

from annotation.models import Item
from annotation.selectors import item_data
from parity import benchmarks
from parity.benchmarks.base import Screen
from studies.models import Participant, Preregistration, Response, Study, Unit
from studies.selectors_preregistration import rendered

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations


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


class UnitCounts(TypedDict):
    """What `units_with_counts` adds to each unit."""

    n_items: int
    active: int
    completed: int
    excluded: int


def units_with_counts(study: Study) -> QuerySet[WithAnnotations[Unit, UnitCounts]]:
    """Units with live counts: working now, complete and kept, excluded."""
    return (
        Unit.objects.filter(study=study)
        .annotate(
            n_items=Count("unit_items", distinct=True),
            active=Count("participants", filter=Q(participants__status=Participant.Status.ACTIVE), distinct=True),
            completed=Count(
                "participants",
                filter=Q(participants__status=Participant.Status.COMPLETED, participants__excluded=False),
                distinct=True,
            ),
            excluded=Count("participants", filter=Q(participants__excluded=True), distinct=True),
        )
        .order_by("position")
    )


def median_minutes(study: Study) -> float | None:
    """Median completion time of finished, non-imported participants (Prolific judges pay on it)."""
    rows = Participant.objects.filter(study=study, completed_at__isnull=False, is_imported=False).values_list(
        "started_at", "completed_at"
    )
    minutes = [(done - start).total_seconds() / 60 for start, done in rows if done is not None]
    return median(minutes) if minutes else None


def viewer_key(participant: Participant) -> str:
    """The stable token a benchmark derives per-participant presentation from (e.g. option order)."""
    return f"participant-{participant.pk}"


def screen_for(participant: Participant, item: Item) -> Screen:
    """The current item as this participant sees it; the same on every refresh."""
    study = participant.study
    return study.definition.screen(item.key, item.prompt, study.design, viewer=viewer_key(participant))


def verifiable_benchmarks() -> list[str]:
    return [name for name, definition in benchmarks.REGISTRY.items() if definition.manual_verification]


def verifiable_responses() -> QuerySet[Response]:
    """Answers a researcher marks by hand: not attention checks, of benchmarks that ask for it."""
    return Response.objects.filter(participant__study__benchmark__in=verifiable_benchmarks(), is_attention_check=False)


@dataclass(frozen=True)
class ParticipantScore:
    """A participant's study items (no attention check) as scored so far: a written answer verified
    by hand is scored once marked and waits, never wrong, before."""

    right: int
    scored: int
    unverified: int

    @property
    def share(self) -> float | None:
        return self.right / self.scored if self.scored else None


def with_scores(participants: QuerySet[Participant]) -> QuerySet[Participant]:
    """`participants` annotated with their score (`_right`, `_scored`, `_unverified` and their
    share `_accuracy`, None before any answer is scored), counted by the database: the participant
    list and the review page read it through `score_of`, the list sorting on `_accuracy`."""
    items = Q(responses__is_attention_check=False)
    by_hand = Q(study__benchmark__in=verifiable_benchmarks())
    valid = Q(responses__valid=True)
    marked = Q(responses__verified_correct__isnull=False)
    right = (by_hand & Q(responses__verified_correct=True)) | (~by_hand & Q(responses__correct=True))
    return participants.annotate(
        _right=Count("responses", filter=items & valid & right),
        _scored=Count("responses", filter=items & (~valid | ~by_hand | marked)),
        _unverified=Count("responses", filter=items & valid & by_hand & ~marked),
    ).annotate(
        _accuracy=Case(
            When(_scored__gt=0, then=Cast(F("_right"), FloatField()) / Cast(F("_scored"), FloatField())),
            default=None,
            output_field=FloatField(),
        )
    )


def score_of(participant: Participant) -> ParticipantScore:
    """The score of a participant read through `with_scores`."""
    annotated: Any = participant
    return ParticipantScore(annotated._right, annotated._scored, annotated._unverified)


@dataclass(frozen=True)
class VerificationRow:
    study: str
    category: str
    written: int
    verified: int
    verified_correct: int

    @property
    def share_correct(self) -> float | None:
        """Share of the verified answers marked correct (the paper's "correct instructions %")."""
        return self.verified_correct / self.verified if self.verified else None


def verification_summary(study=None, studies=None) -> list[VerificationRow]:
    """Per study and category (instruction induction: per task), over included participants; of one
    `study`, or of a queryset of `studies` (those a researcher may see)."""
    responses = verifiable_responses().filter(participant__excluded=False).select_related("participant__study", "item")
    if study is not None:
        responses = responses.filter(participant__study=study)
    if studies is not None:
        responses = responses.filter(participant__study__in=studies)
    counts: dict[tuple[str, str], list[int]] = {}
    for response in responses.order_by("participant__study__name", "item__key"):
        definition = response.participant.study.definition
        key = (response.participant.study.name, definition.item_category(item_data(response.item)))
        row = counts.setdefault(key, [0, 0, 0])
        row[0] += 1
        if response.verified_correct is not None:
            row[1] += 1
            row[2] += int(response.verified_correct)
    return [
        VerificationRow(study_name, category, *numbers) for (study_name, category), numbers in sorted(counts.items())
    ]


def participants_in_order(study: Study) -> QuerySet[Participant]:
    """The study's participants with their units, oldest first, without their Prolific identity."""
    return (
        Participant.objects.filter(study=study)
        .select_related("unit")
        .defer(*Participant.IDENTITY_FIELDS)
        .order_by("started_at", "id")
    )


def preregistration_export(study: Study) -> dict[str, Any] | None:
    """The study's preregistration for a replication bundle: its Markdown and printable HTML, its
    SHA-256 and freezing time, the frozen document, the "preregistered vs done" deviations and the
    whole audit trail; None when the study has none (an imported study, or one from before it)."""
    found = Preregistration.objects.filter(study=study).first()
    if found is None:
        return None
    shown = rendered(study, found)
    return {
        "markdown": shown["markdown"],
        "html": shown["html"],
        "sha256": shown["sha256"],
        "frozen_at": shown["frozen_at"],
        "document": shown["document"],
        "deviations": shown["deviations"],
        "audit": [
            {
                "at": event.at,
                "kind": event.kind,
                "summary": event.summary,
                "actor": event.actor,
                "data": dict(event.data),
            }
            for event in shown["events"]
        ],
    }
