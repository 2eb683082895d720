"""A participant entering a study: admitted to the emptiest unit, resumed, or refused (and why);
a timed-out participant taking their slot back; stale reservations freed."""

from __future__ import annotations

import enum
import hashlib
from collections import Counter
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone

from annotation.models import Item
from parity.benchmarks.rows import seeded_rng
from studies.models import Participant, Study, Unit, UnitItem
from studies.results_token import results_changed


class Refusal(enum.Enum):
    NOT_LIVE = "not_live"
    PAUSED = "paused"  # come back later, or return the study
    FULL = "full"
    OTHER_STUDY_IN_GROUP = "group"
    RELEASED = "released"
    OTHER_SESSION = "other_session"  # this PID is taking part from another browser and Prolific session


@dataclass(frozen=True)
class Entry:
    participant: Participant | None
    refusal: Refusal | None = None
    resumed: bool = False


def participant_enter(
    *, study: Study, pid: str, prolific_study_id: str = "", prolific_session_id: str = "", same_browser: bool = False
) -> Entry:
    """Admit a participant: resume the same PID, or reserve a slot in the emptiest unit.

    A PID alone does not resume someone's place: the request must come from the browser session
    that entered as this PID (`same_browser`), or carry the SESSION_ID stored for it (the same
    Prolific submission, opened again from Prolific). Every entry with another SESSION_ID is
    recorded on the participant; only the same browser may move them to a new one."""
    with transaction.atomic():
        # Locking the study row serialises assignment within one study on PostgreSQL, so two
        # participants entering at once can never both take a unit's last slot.
        study = Study.objects.select_for_update().get(pk=study.pk)
        now = timezone.now()
        existing = Participant.objects.filter(study=study, prolific_pid=pid).first()
        if existing is not None:
            if not _may_resume(existing, prolific_session_id, same_browser, now):
                return Entry(None, Refusal.OTHER_SESSION)
            return _resume(study, existing, now)
        if study.group and Participant.objects.filter(study__group=study.group, prolific_pid=pid).exists():
            _refused_earlier_record(study, pid)
            return Entry(None, Refusal.OTHER_STUDY_IN_GROUP)
        if study.status != Study.Status.LIVE:
            return Entry(None, Refusal.PAUSED if study.status == Study.Status.PAUSED else Refusal.NOT_LIVE)
        reservations_reclaim(study=study, now=now)
        unit = _emptiest_unit(study)
        if unit is None:
            return Entry(None, Refusal.FULL)
        participant = Participant.objects.create(
            study=study,
            unit=unit,
            prolific_pid=pid,
            prolific_study_id=prolific_study_id,
            prolific_session_id=prolific_session_id,
            pseudonym=_next_pseudonym(study),
            sequence=_sequence(study, unit, pid),
            started_at=now,
            last_seen_at=now,
        )
        # the results count who is still working, answers or not
        results_changed(study_ids=[study.pk])
    return Entry(participant)


def _refused_earlier_record(study: Study, pid: str) -> None:
    """Count a person refused for an earlier study of the group once, however often they come back
    (the methods report how many): a digest of the ID, under the study's row lock, never the ID."""
    digest = hashlib.sha256(f"{study.pk}:{pid}".encode()).hexdigest()[:16]
    if digest not in study.refused_earlier:
        study.refused_earlier = [*study.refused_earlier, digest]
        study.save(update_fields=["refused_earlier"])


def _next_pseudonym(study: Study) -> str:
    """A1, A2, ... from the study's own counter, never from a count of the rows: a deleted or
    erased participant leaves a gap instead of a number the next entrant would collide with.
    Called under the study's row lock, so two entrants can never draw the same number."""
    study.pseudonyms_issued += 1
    study.save(update_fields=["pseudonyms_issued"])
    return f"A{study.pseudonyms_issued}"


#: session changes kept per participant (the newest), so a stream of refused entries stays bounded
MAX_SESSION_CHANGES = 50


def _may_resume(participant: Participant, session_id: str, same_browser: bool, now) -> bool:
    stored = participant.prolific_session_id
    if session_id and session_id != stored:
        allowed = same_browser
        participant.session_changes = [
            *participant.session_changes,
            {
                "at": now.isoformat(),
                "from": stored,
                "to": session_id,
                "resumed": allowed,
            },
        ][-MAX_SESSION_CHANGES:]
        fields = ["session_changes"]
        if allowed:
            participant.prolific_session_id = session_id
            fields.append("prolific_session_id")
        participant.save(update_fields=fields)
        return allowed
    return same_browser or bool(stored and session_id == stored)


def _resume(study: Study, participant: Participant, now) -> Entry:
    if participant.status == Participant.Status.TIMED_OUT:
        # taking the slot back writes the status and the time seen
        if not slot_take_back(participant=participant, now=now):
            return Entry(participant, Refusal.RELEASED, resumed=True)
        return Entry(participant, resumed=True)
    participant.last_seen_at = now
    participant.save(update_fields=["last_seen_at"])
    return Entry(participant, resumed=True)


def slot_take_back(*, participant: Participant, now=None) -> bool:
    """A timed-out participant is back (Prolific lets them finish): they hold their slot again if
    their unit still has room; if it was given to someone else, their step becomes RELEASED and
    nothing more of theirs is stored. Call it holding the study's and the participant's row locks."""
    if participant.status != Participant.Status.TIMED_OUT:
        return participant.status == Participant.Status.ACTIVE
    if participant.unit is None or (
        Participant.objects.filter(unit=participant.unit_id).holding_slot().exclude(pk=participant.pk).count()
        >= participant.unit.capacity
    ):
        participant.step = Participant.Step.RELEASED
        participant.save(update_fields=["step"])
        return False
    participant.status = Participant.Status.ACTIVE
    participant.last_seen_at = now or timezone.now()
    participant.save(update_fields=["status", "last_seen_at"])
    return True


def _emptiest_unit(study: Study) -> Unit | None:
    """The open unit whose balancing category holds the fewest slots, then the emptiest, then the
    first by position. Units without a category (implicature) share one, so this is the emptiest.
    Called under the study's row lock, so the counts cannot change before the slot is taken."""
    units = list(
        Unit.objects.filter(study=study)
        .annotate(
            held=Count(
                "participants",
                filter=Q(participants__status=Participant.Status.ACTIVE)
                | Q(participants__status=Participant.Status.COMPLETED, participants__excluded=False),
            )
        )
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
    checks = list(
        Item.objects.filter(
            benchmark=study.benchmark,
            is_attention_check=True,
            key__startswith=study.definition.item_scope(study.design),
        )
        .order_by("key")
        .values_list("id", flat=True)
    )
    chosen = rng.sample(checks, study.attention_checks) if study.attention_checks else []
    total = len(items) + len(chosen)
    positions = sorted(rng.sample(range(total), len(chosen)))
    sequence: list[int] = []
    remaining = iter(items)
    check_iter = iter(chosen)
    for index in range(total):
        sequence.append(next(check_iter) if index in positions else next(remaining))
    return sequence


def participant_sequence(*, study: Study, unit: Unit, seed: str) -> list[int]:
    """The item ids someone entering as `seed` would be shown in `unit`, attention checks included
    (the researcher's preview walks such a sequence without storing anything)."""
    return _sequence(study, unit, seed)


def reservations_reclaim(*, study: Study, now=None) -> int:
    """Free the slots of participants inactive longer than the study's reservation timeout."""
    freed = Participant.objects.stale(study).update(status=Participant.Status.TIMED_OUT)
    if freed:
        results_changed(study_ids=[study.pk])  # no longer working
    return freed
