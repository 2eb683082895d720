"""Reads of what participants wrote when asked why they answered (`studies.design.explanations`)."""

from __future__ import annotations

from dataclasses import dataclass

from studies.design.explanations import CLOSING_KEY
from studies.models import Participant, Response, Study


@dataclass(frozen=True)
class ExplanationCounts:
    #: explanations written (empty boxes not counted)
    given: int
    #: the people who wrote at least one
    people: int


def explanation_counts(study: Study) -> ExplanationCounts:
    """What the study's participants wrote, whole study (the results' filters aside); no query when
    the study asks none."""
    if study.explanations == Study.Explanations.END:
        written = (
            Participant.objects.filter(study=study, closing_answers__has_key=CLOSING_KEY)
            .values_list("closing_answers", flat=True)
            .order_by()
        )
        n = sum(1 for answers in written if str(answers.get(CLOSING_KEY, "")).strip())
        return ExplanationCounts(given=n, people=n)
    if study.explanations == Study.Explanations.OFF:
        return ExplanationCounts(given=0, people=0)
    rows = Response.objects.filter(participant__study=study).exclude(explanation="").values_list("participant_id")
    people = [person for (person,) in rows.order_by()]
    return ExplanationCounts(given=len(people), people=len(set(people)))


def explanations_by_answer(study: Study) -> dict[tuple[int, int], str]:
    """The explanations stored with the study's answers, by (participant id, item id); empty (and no
    query) when the study asks none with its items."""
    if study.explanations not in (Study.Explanations.NTH, Study.Explanations.EVERY):
        return {}
    rows = (
        Response.objects.filter(participant__study=study)
        .exclude(explanation="")
        .values_list("participant_id", "item_id", "explanation")
        .order_by()
    )
    return {(person, item): text for person, item, text in rows}


@dataclass(frozen=True)
class GivenExplanation:
    """One explanation a participant wrote: with an item, or (`position` None) the one asked at the end."""

    position: int | None
    item_key: str
    text: str


def closing_explanation(participant: Participant) -> str:
    """What `participant` wrote when asked why at the end of the study ("" when nothing)."""
    return str((participant.closing_answers or {}).get(CLOSING_KEY, "")).strip()


def participant_explanations(participant: Participant) -> list[GivenExplanation]:
    """Every explanation `participant` wrote, with the items in the order given, then the closing one."""
    rows = (
        Response.objects.filter(participant=participant)
        .exclude(explanation="")
        .order_by("position")
        .values_list("position", "item__key", "explanation")
    )
    given = [GivenExplanation(position, key, text) for position, key, text in rows]
    closing = closing_explanation(participant)
    return [*given, GivenExplanation(None, "", closing)] if closing else given
