"""Reads about studies, participants and their answers: the units and their counts,
the time taken, the participants' scores, the answers a researcher verifies and their summary:
the reads several wings of this app and the apps above share. A participant's own way through a
study is read in `studies.participants.reads`."""

from __future__ import annotations

from dataclasses import dataclass
from statistics import median
from typing import TYPE_CHECKING, Any, TypedDict

from django.db.models import Case, Count, F, FloatField, Q, QuerySet, When
from django.db.models.functions import Cast

from annotation.selectors import item_data
from parity import benchmarks
from studies.models import Participant, Response, Study, Unit

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations


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
