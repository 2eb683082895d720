"""Writes about studies and participants: creating a study, entering, consenting, assignment."""

from __future__ import annotations

import enum
from collections import Counter
from dataclasses import dataclass
from typing import Any, Mapping

from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone

from annotation import benchmarks
from annotation.benchmarks.base import ItemData, seeded_rng
from annotation.models import Item
from studies.models import Participant, Study, Unit, UnitItem


class StudyError(ValueError):
    pass


def _item_data(item: Item) -> ItemData:
    return ItemData(key=item.key, split=item.split, prompt=item.prompt, gold=item.gold, meta=item.meta,
                    is_attention_check=item.is_attention_check)


@transaction.atomic
def study_create(*, name: str, benchmark: str, design: Mapping[str, Any] | None = None,
                 status: str = Study.Status.LIVE, group: str = "", **fields: Any) -> Study:
    """Create a study and its units from the imported items, following the benchmark's design."""
    definition = benchmarks.get(benchmark)
    merged = definition.design(design)
    if Study.objects.filter(name=name).exists():
        raise StudyError(f"a study named {name!r} already exists")
    items = list(Item.objects.filter(benchmark=benchmark, is_attention_check=False))
    if not items:
        raise StudyError(f"no {benchmark} items are imported yet: run `manage.py import_benchmark {benchmark}` first")
    attention = int(merged.get("attention_checks", 0))
    available_checks = Item.objects.filter(benchmark=benchmark, is_attention_check=True).count()
    if attention > available_checks:
        raise StudyError(f"{attention} attention checks asked for, but {benchmark} has {available_checks}")
    template = merged.get("template")
    if template is not None and "human_template" not in merged:
        templates = definition_asset(benchmark, "templates")
        if templates and str(template) in templates:
            merged["human_template"] = templates[str(template)]["example_template_text"]
    try:
        units = definition.build_units([_item_data(item) for item in items], merged)
    except (ValueError, KeyError) as exc:
        raise StudyError(str(exc)) from exc
    study = Study.objects.create(
        name=name, benchmark=benchmark, status=status, group=group, design=merged,
        consent_text=fields.pop("consent_text", None) or definition.default_consent,
        instructions_text=fields.pop("instructions_text", None) or definition.default_instructions,
        attention_checks=attention, exclude_at=int(merged.get("exclude_at", 0)), **fields,
    )
    by_key = {item.key: item for item in items}
    capacity = int(merged.get("per_unit", 1))
    for position, keys in enumerate(units, start=1):
        category = definition.unit_category([_item_data(by_key[key]) for key in keys]) if keys else ""
        unit = Unit.objects.create(study=study, label=f"U{position}", position=position, capacity=capacity,
                                   category=category)
        UnitItem.objects.bulk_create([UnitItem(unit=unit, item=by_key[key], order=order)
                                      for order, key in enumerate(keys, start=1)])
    return study


def definition_asset(benchmark: str, key: str) -> Any:
    from annotation.models import BenchmarkAsset

    asset = BenchmarkAsset.objects.filter(benchmark=benchmark, key=key).first()
    return asset.data if asset else None


# -- entering a study -----------------------------------------------------------------------


class Refusal(enum.Enum):
    NOT_LIVE = "not_live"
    FULL = "full"
    OTHER_STUDY_IN_GROUP = "group"
    RELEASED = "released"


@dataclass(frozen=True)
class Entry:
    participant: Participant | None
    refusal: Refusal | None = None
    resumed: bool = False


def participant_enter(*, study: Study, pid: str, prolific_study_id: str = "", prolific_session_id: str = "") -> Entry:
    """Admit a participant: resume the same PID, or reserve a slot in the emptiest unit."""
    with transaction.atomic():
        # Locking the study row serialises assignment within one study on PostgreSQL, so two
        # participants entering at once can never both take a unit's last slot.
        study = Study.objects.select_for_update().get(pk=study.pk)
        now = timezone.now()
        existing = Participant.objects.filter(study=study, prolific_pid=pid).first()
        if existing is not None:
            return _resume(study, existing, now)
        if study.group and Participant.objects.filter(study__group=study.group, prolific_pid=pid).exists():
            return Entry(None, Refusal.OTHER_STUDY_IN_GROUP)
        if study.status != Study.Status.LIVE:
            return Entry(None, Refusal.NOT_LIVE)
        reservations_reclaim(study=study, now=now)
        unit = _emptiest_unit(study)
        if unit is None:
            return Entry(None, Refusal.FULL)
        number = Participant.objects.filter(study=study).count() + 1
        participant = Participant.objects.create(
            study=study, unit=unit, prolific_pid=pid, prolific_study_id=prolific_study_id,
            prolific_session_id=prolific_session_id, pseudonym=f"A{number}",
            sequence=_sequence(study, unit, pid), started_at=now, last_seen_at=now,
        )
    return Entry(participant)


def _resume(study: Study, participant: Participant, now) -> Entry:
    if participant.status == Participant.Status.TIMED_OUT:
        # Prolific lets a timed-out participant finish: give the slot back if the unit still has one.
        holding = Participant.objects.filter(unit=participant.unit).holding_slot().count()
        if holding >= participant.unit.capacity:
            participant.step = Participant.Step.RELEASED
            participant.save(update_fields=["step"])
            return Entry(participant, Refusal.RELEASED, resumed=True)
        participant.status = Participant.Status.ACTIVE
    participant.last_seen_at = now
    participant.save(update_fields=["status", "last_seen_at"])
    return Entry(participant, resumed=True)


def _emptiest_unit(study: Study) -> Unit | None:
    """The open unit whose balancing category holds the fewest slots, then the emptiest, then the
    first by position. Units without a category (implicature) share one, so this is the emptiest.
    Called under the study's row lock, so the counts cannot change before the slot is taken."""
    units = list(
        Unit.objects.filter(study=study)
        .annotate(held=Count("participants", filter=Q(participants__status=Participant.Status.ACTIVE)
                             | Q(participants__status=Participant.Status.COMPLETED, participants__excluded=False)))
        .order_by("position")
    )
    held_by_category: Counter[str] = Counter()
    for unit in units:
        held_by_category[unit.category] += unit.held
    open_units = [unit for unit in units if unit.held < unit.capacity]
    if not open_units:
        return None
    return min(open_units, key=lambda unit: (held_by_category[unit.category], unit.held, unit.position))


def _sequence(study: Study, unit: Unit, pid: str) -> list[int]:
    """The unit's items in order, with the study's attention checks at random positions."""
    rng = seeded_rng("sequence", study.pk, pid)
    items = list(UnitItem.objects.filter(unit=unit).order_by("order").values_list("item_id", flat=True))
    if study.design.get("shuffle_items"):
        rng.shuffle(items)
    checks = list(Item.objects.filter(benchmark=study.benchmark, is_attention_check=True)
                  .order_by("key").values_list("id", flat=True))
    chosen = rng.sample(checks, study.attention_checks) if study.attention_checks else []
    total = len(items) + len(chosen)
    positions = sorted(rng.sample(range(total), len(chosen)))
    sequence: list[int] = []
    remaining = iter(items)
    check_iter = iter(chosen)
    for index in range(total):
        sequence.append(next(check_iter) if index in positions else next(remaining))
    return sequence


def reservations_reclaim(*, study: Study, now=None) -> int:
    """Free the slots of participants inactive longer than the study's reservation timeout."""
    return Participant.objects.stale(study).update(status=Participant.Status.TIMED_OUT)


# -- the participant's steps ------------------------------------------------------------------


def _locked(participant: Participant) -> Participant:
    return Participant.objects.select_for_update().select_related("study").get(pk=participant.pk)


@transaction.atomic
def participant_consent(*, participant: Participant, agree: bool) -> Participant:
    participant = _locked(participant)
    if participant.step != Participant.Step.CONSENT:
        return participant
    participant.last_seen_at = timezone.now()
    if agree:
        participant.step = Participant.Step.INSTRUCTIONS
    else:
        participant.step = Participant.Step.DECLINED
        participant.status = Participant.Status.DECLINED
    participant.save(update_fields=["step", "status", "last_seen_at"])
    return participant


@transaction.atomic
def participant_begin(*, participant: Participant) -> Participant:
    participant = _locked(participant)
    if participant.step == Participant.Step.INSTRUCTIONS:
        participant.step = Participant.Step.ITEMS if participant.sequence else Participant.Step.DONE
        participant.last_seen_at = timezone.now()
        participant.save(update_fields=["step", "last_seen_at"])
    return participant


@transaction.atomic
def item_mark_shown(*, participant: Participant) -> Participant:
    """Record (once) when the current item was first shown: the start of its response time."""
    participant = _locked(participant)
    now = timezone.now()
    participant.last_seen_at = now
    fields = ["last_seen_at"]
    if participant.step == Participant.Step.ITEMS and participant.current_shown_at is None:
        participant.current_shown_at = now
        fields.append("current_shown_at")
    participant.save(update_fields=fields)
    return participant


def participants_exclude(*, participant_ids: list[int], reason: str) -> int:
    return Participant.objects.filter(pk__in=participant_ids).update(excluded=True, exclusion_reason=reason)


def participants_include(*, participant_ids: list[int]) -> int:
    return Participant.objects.filter(pk__in=participant_ids).update(excluded=False, exclusion_reason="")


def participants_mark_returned(*, participant_ids: list[int]) -> int:
    """Prolific says they returned the study: their reserved slot reopens."""
    return (Participant.objects.filter(pk__in=participant_ids, status=Participant.Status.ACTIVE)
            .update(status=Participant.Status.RETURNED, step=Participant.Step.RELEASED))
