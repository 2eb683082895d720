"""A launched study's audit trail: each change made after launch (its settings, participants
excluded or included by hand, its status, a unit's capacity) recorded as a `StudyEvent`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db.models import Sum

from parity import preregistration_plan
from studies.models import Participant, Study, StudyEvent, Unit


def launched(study: Study) -> bool:
    """A study whose changes go into the audit trail: launched (live, paused or closed), not imported."""
    return study.status != Study.Status.DRAFT and not study.is_imported


def actor_user(actor: Any) -> Any:
    return actor if actor is not None and getattr(actor, "is_authenticated", False) else None


def study_event_record(
    *, study: Study, kind: str, summary: str, data: Mapping[str, Any] | None = None, actor: Any = None
) -> StudyEvent | None:
    """Add a change to a launched study's audit trail (a draft's changes are not recorded: the plan is
    not frozen yet). `data` says what changed, from what to what; never a Prolific identity."""
    # read again: the caller's copy of the study may be older than its launch
    status, imported = Study.objects.values_list("status", "is_imported").get(pk=study.pk)
    if status == Study.Status.DRAFT or imported:
        return None
    return StudyEvent.objects.create(
        study=study, actor=actor_user(actor), kind=kind, summary=summary[:300], data=dict(data or {})
    )


def _short(value: Any) -> Any:
    """A changed setting as the trail keeps it: long texts by their SHA-256."""
    if isinstance(value, str) and len(value) > 120:
        return {"sha256": preregistration_plan.text_sha256(value)}
    return value


def settings_changed_record(*, study: Study, before: Mapping[str, Any], actor: Any = None) -> StudyEvent | None:
    """Record the fields of `study` that differ from `before` (their values read before the write)."""
    fields = {
        name: {"from": _short(old), "to": _short(getattr(study, name))}
        for name, old in before.items()
        if getattr(study, name) != old
    }
    if not fields:
        return None
    return study_event_record(
        study=study,
        kind=StudyEvent.Kind.SETTINGS,
        summary=f"Changed {', '.join(sorted(fields))}",
        data={"fields": fields},
        actor=actor,
    )


def participants_change_record(
    *,
    participant_ids: list[int],
    kind: str,
    reason: str = "",
    lifted: Mapping[int, str] | None = None,
    actor: Any = None,
) -> list[StudyEvent]:
    """Record a hand exclusion (or inclusion) of participants, one event per launched study, by
    pseudonym (never a Prolific ID). `lifted`: for an inclusion, the reason of each exclusion it
    lifts (by participant id), kept in the trail as `data["lifted"]` by pseudonym."""
    by_study: dict[int, list[tuple[int, str]]] = {}
    for pk, study_id, pseudonym in (
        Participant.objects.filter(pk__in=participant_ids).order_by("pk").values_list("pk", "study_id", "pseudonym")
    ):
        by_study.setdefault(study_id, []).append((pk, pseudonym))
    events = []
    verb = "Excluded" if kind == StudyEvent.Kind.EXCLUDED else "Included again"
    for study in Study.objects.filter(pk__in=by_study):
        names = [pseudonym for _, pseudonym in by_study[study.pk]]
        was = {pseudonym: (lifted or {}).get(pk, "") for pk, pseudonym in by_study[study.pk]} if lifted else {}
        summary = f"{verb} {', '.join(names)}" + (f": {reason}" if reason else "")
        if was:
            summary += " (excluded before: " + "; ".join(f"{n}: {r or 'no reason given'}" for n, r in was.items()) + ")"
        data: dict[str, Any] = {"participants": names, "reason": reason}
        if was:
            data["lifted"] = was
        event = study_event_record(study=study, kind=kind, summary=summary, data=data, actor=actor)
        if event is not None:
            events.append(event)
    return events


def _places(study_id: int) -> int:
    return Unit.objects.filter(study=study_id).aggregate(total=Sum("capacity"))["total"] or 0


def status_change_record(*, study: Study, before: str, actor: Any = None) -> StudyEvent | None:
    """A launched study paused, resumed or closed, with how many places were filled then."""
    kept = Participant.objects.filter(study=study, status=Participant.Status.COMPLETED, excluded=False).count()
    places = _places(study.pk)
    labels: dict[str, str] = {
        Study.Status.PAUSED: "Paused",
        Study.Status.CLOSED: "Closed",
        Study.Status.LIVE: "Resumed",
    }
    return study_event_record(
        study=study,
        kind=StudyEvent.Kind.STATUS,
        summary=f"{labels.get(study.status, study.status)} with {kept} of {places} {_places_word(places)} filled",
        data={"from": before, "to": study.status, "kept": kept, "places": places},
        actor=actor,
    )


def capacity_change_record(*, unit: Unit, before: int, actor: Any = None) -> StudyEvent | None:
    places = _places(unit.study_id)
    return study_event_record(
        study=unit.study,
        kind=StudyEvent.Kind.PLACES,
        summary=f"Unit {unit.label}: capacity {before} → {unit.capacity} ({places} {_places_word(places)} in all)",
        data={"unit": unit.label, "from": before, "to": unit.capacity, "places": places},
        actor=actor,
    )


def _places_word(n: int) -> str:
    return "place" if n == 1 else "places"
