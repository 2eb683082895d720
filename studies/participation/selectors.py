"""Reads about answers: what a participant sees, and the researcher's verification summary."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import QuerySet

from annotation import benchmarks
from annotation.benchmarks.base import Screen
from annotation.models import Item
from annotation.selectors import item_data
from studies.models import Participant, Response


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
    return [VerificationRow(study_name, category, *numbers) for (study_name, category), numbers in sorted(counts.items())]
