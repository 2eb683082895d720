"""Writes about studies and participants: creating a study, entering, consenting, assignment."""

from __future__ import annotations

import enum
import hashlib
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Count, Q, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from annotation.models import Item
from parity import benchmarks
from parity.benchmarks.rows import seeded_rng
from parity.sampling import ALL, ItemSampling
from studies import closing
from studies.errors import StudyError
from studies.estimates import Training
from studies.models import Participant, Study, StudyEvent, Unit, UnitItem
from studies.results_versions import results_changed
from studies.screening import Screening
from studies.services_preregistration import (
    capacity_change_record,
    participants_change_record,
    preregistration_freeze,
    settings_changed_record,
    status_change_record,
)
from studies.services_signals import signals_refresh_queue
from studies.services_training import practice_drawn, step_after_instructions, training_fields
from studies.services_units import pay_checked, units_create, units_plan


@transaction.atomic
def study_create(
    *,
    name: str,
    benchmark: str,
    design: Mapping[str, Any] | None = None,
    status: str = Study.Status.LIVE,
    group: str = "",
    owner: Any = None,
    **fields: Any,
) -> Study:
    """Create a study and its units from the imported items, following the benchmark's design.
    `owner` (a user) sees and acts on it; without one only superusers do. One created live is
    launched at once: its preregistration (the automatic part) freezes now."""
    # imported here: the power analysis needs numpy, which commands that plan no study should not load
    from studies.power import design_power

    definition = benchmarks.get(benchmark)
    if Study.objects.filter(name=name).exists():
        raise StudyError(f"a study named {name!r} already exists")
    unknown = sorted(set(fields.get("closing_questions", ())) - set(closing.QUESTIONS))
    if unknown:
        raise StudyError(f"no closing question named {', '.join(unknown)}; known: {', '.join(closing.QUESTIONS)}")
    if fields.get("explanations", Study.Explanations.OFF) not in Study.Explanations.values:
        raise StudyError(f"explanations must be one of {', '.join(Study.Explanations.values)}")
    if int(fields.get("explanation_every", 5)) < 1:
        raise StudyError("explanation_every must be 1 or more (after every Nth item)")
    language = fields.get("language", "en")
    if language not in dict(settings.LANGUAGES):
        raise StudyError(f"no participant language {language!r}; known: {', '.join(dict(settings.LANGUAGES))}")
    screening = Screening.from_json(fields.get("prolific_filters"))
    problems = screening.errors()
    if problems:
        raise StudyError("; ".join(f"{name.replace('_', ' ')}: {message}" for name, message in problems.items()))
    fields["prolific_filters"] = screening.to_json()
    training_fields(fields)
    fields.setdefault("sample_seed", Study._meta.get_field("sample_seed").get_default())
    sample = ItemSampling(
        method=fields.get("item_sampling", ALL), size=fields.get("sample_size"), seed=fields["sample_seed"]
    )
    plan = units_plan(benchmark=benchmark, design=definition.design(design), owner=owner, sample=sample)
    fields["estimated_minutes"], fields["reward_pence"] = pay_checked(
        plan, fields.get("estimated_minutes"), fields.get("reward_pence"), Training.of_fields(fields)
    )
    capacity = int(plan.design.get("per_unit", 1))
    fields.setdefault(
        "power_analysis",
        design_power(benchmark=benchmark, places=[capacity] * len(plan.units), unit_sizes=[len(u) for u in plan.units]),
    )
    fields["sample_pool"] = plan.available
    drawn = fields.pop("practice_drawn", None)
    if drawn and not fields.get("practice_questions"):
        fields["practice_questions"] = practice_drawn(
            benchmark=benchmark, design=plan.design, size=drawn, seed=fields["sample_seed"]
        )
    study = Study.objects.create(
        name=name,
        benchmark=benchmark,
        status=status,
        group=group,
        design=plan.design,
        consent_text=fields.pop("consent_text", None) or definition.default_consent,
        instructions_text=fields.pop("instructions_text", None) or definition.default_instructions,
        attention_checks=plan.attention_checks,
        exclude_at=int(plan.design.get("exclude_at", 0)),
        owner=owner,
        **fields,
    )
    units_create(study=study, plan=plan)
    if study.status == Study.Status.LIVE and not study.is_imported:
        preregistration_freeze(study=study, actor=owner)
    return study


def study_update(*, study: Study, fields: list[str], actor: Any = None) -> Study:
    """Write a researcher's edits of `fields` only: the counters other services write on the same row
    (`pseudonyms_issued`, as participants enter) are never written back from a stale copy. A launched
    study's changes go into its audit trail, from the values stored before."""
    if fields:
        with transaction.atomic():
            before = Study.objects.filter(pk=study.pk).values(*fields).first() or {}
            study.save(update_fields=fields)
            settings_changed_record(study=study, before=before, actor=actor)
        results_changed(study_ids=[study.pk])
    return study


@transaction.atomic
def unit_set_capacity(*, unit: Unit, capacity: int, actor: Any = None) -> Unit:
    """How many participants complete `unit`; those already assigned keep their place."""
    before = Unit.objects.values_list("capacity", flat=True).get(pk=unit.pk)
    unit.capacity = capacity
    unit.save(update_fields=["capacity"])
    results_changed(study_ids=[unit.study_id])
    if before != capacity:
        capacity_change_record(unit=unit, before=before, actor=actor)
    return unit


def study_assign_owner(*, study: Study, owner: Any) -> Study:
    """Give the study to `owner` (who then sees and acts on it)."""
    study.owner = owner
    study.save(update_fields=["owner"])
    return study


#: where a study may go from each status: launched, paused and resumed, closed for good
STATUS_MOVES: dict[str, tuple[str, ...]] = {
    Study.Status.DRAFT: (Study.Status.LIVE,),
    Study.Status.LIVE: (Study.Status.PAUSED, Study.Status.CLOSED),
    Study.Status.PAUSED: (Study.Status.LIVE, Study.Status.CLOSED),
    Study.Status.CLOSED: (),
}


def study_set_status(*, study: Study, status: str, actor: Any = None) -> Study:
    """Launch, pause, resume or close a study. Paused or closed, it lets nobody new in; those already
    working may finish (Prolific lets a participant who started complete their submission). Launching
    freezes the preregistration; every later move goes into the audit trail."""
    # imported here: the power analysis needs numpy, which commands that plan no study should not load
    from studies.power import study_power

    with transaction.atomic():
        # the row lock orders this with `participant_enter`, which reads the status under the same lock
        locked = Study.objects.select_for_update().get(pk=study.pk)
        if locked.is_imported:
            raise StudyError("An imported study has no participants to recruit; its status cannot change.")
        if status not in STATUS_MOVES.get(locked.status, ()):
            wanted = Study.Status(status).label.lower() if status in Study.Status.values else repr(status)
            raise StudyError(f"A {locked.get_status_display().lower()} study cannot become {wanted}.")
        before, locked.status = locked.status, status
        locked.save(update_fields=["status"])
        results_changed(study_ids=[study.pk])
        if before == Study.Status.DRAFT:
            # the analysis as of the launch (a pilot may have closed since the draft was made) freezes with the plan
            locked.power_analysis = study_power(locked)
            locked.save(update_fields=["power_analysis"])
            preregistration_freeze(study=locked, actor=actor)
        else:
            status_change_record(study=locked, before=before, actor=actor)
    study.status = status
    return study


# -- entering a study -----------------------------------------------------------------------


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


def participant_lock(*, participant_id: int) -> Participant:
    """The participant's row, locked for a write, with its study and unit; the study's row is locked
    first, in the order `participant_enter` takes them: a timed-out participant taking back their
    slot is then serialised with assignment, so a unit never goes past its capacity."""
    study_id = Participant.objects.values_list("study_id", flat=True).get(pk=participant_id)
    Study.objects.select_for_update().only("pk").get(pk=study_id)
    # `of`: only the participant's row (the study's is locked above)
    return Participant.objects.select_for_update(of=("self",)).select_related("study", "unit").get(pk=participant_id)


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
        results_changed(study_ids=[participant.study_id])  # no longer working
    participant.save(update_fields=["step", "status", "last_seen_at"])
    return participant


@transaction.atomic
def participant_begin(*, participant: Participant) -> Participant:
    participant = _locked(participant)
    if participant.step == Participant.Step.INSTRUCTIONS:
        participant.step = step_after_instructions(participant)
        participant.last_seen_at = timezone.now()
        fields = ["step", "last_seen_at"]
        if participant.step in (Participant.Step.PRACTICE, Participant.Step.COMPREHENSION):
            participant.training_started_at = participant.last_seen_at
            fields.append("training_started_at")
        participant.save(update_fields=fields)
    return participant


@transaction.atomic
def participant_answer_closing(*, participant: Participant, answers: Mapping[str, Any]) -> Participant:
    """Store a participant's answers to the study's closing questions, once, after their last item.

    Only the questions the study asks are kept, and only those answered; a second send (a double
    click, a replay) changes nothing. Nothing here touches the completion code, which the participant
    already has."""
    participant = _locked(participant)
    if participant.step != Participant.Step.DONE or participant.closing_answered_at is not None:
        return participant
    keys = set(closing.study_keys(participant.study))
    participant.closing_answers = {
        key: value for key, value in answers.items() if key in keys and value not in ("", None)
    }
    participant.closing_answered_at = timezone.now()
    participant.save(update_fields=["closing_answers", "closing_answered_at"])
    return participant


def item_mark_shown(*, participant: Participant) -> Participant:
    """Record (once) when the current item was first shown: the start of its response time.

    A working participant costs one UPDATE, row-locked by the database itself; a timed-out one
    takes their slot back first under the study's and their own row locks, or learns that it was
    given away."""
    now = timezone.now()
    if participant.status == Participant.Status.ACTIVE and participant.step == Participant.Step.ITEMS:
        marked = Participant.objects.filter(
            pk=participant.pk,
            status=Participant.Status.ACTIVE,
            step=Participant.Step.ITEMS,
            answered=participant.answered,
        ).update(last_seen_at=now, current_shown_at=Coalesce("current_shown_at", Value(now)))
        if marked:
            participant.last_seen_at = now
            participant.current_shown_at = participant.current_shown_at or now
            return participant
    with transaction.atomic():
        participant = participant_lock(participant_id=participant.pk)
        if not slot_take_back(participant=participant):
            return participant
        participant.last_seen_at = now
        fields = ["last_seen_at"]
        if participant.step == Participant.Step.ITEMS and participant.current_shown_at is None:
            participant.current_shown_at = now
            fields.append("current_shown_at")
        participant.save(update_fields=fields)
    return participant


@transaction.atomic
def participants_exclude(*, participant_ids: list[int], reason: str, actor: Any = None) -> int:
    """A researcher's exclusion (the attention-check rule excludes in `response_submit`); a launched
    study's goes into its audit trail."""
    chosen = Participant.objects.filter(pk__in=participant_ids)
    results_changed(study_ids=chosen.values_list("study_id", flat=True).distinct())
    changed = list(chosen.filter(excluded=False).values_list("pk", flat=True))
    participants_change_record(participant_ids=changed, kind=StudyEvent.Kind.EXCLUDED, reason=reason, actor=actor)
    return chosen.update(excluded=True, exclusion_reason=reason)


@transaction.atomic
def participants_include(*, participant_ids: list[int], actor: Any = None) -> int:
    chosen = Participant.objects.filter(pk__in=participant_ids)
    results_changed(study_ids=chosen.values_list("study_id", flat=True).distinct())
    lifted = dict(chosen.filter(excluded=True).values_list("pk", "exclusion_reason"))
    # the exclusion lifted stays in the audit trail with its reason, the automatic ones included
    # (the attention-check rule excludes in `response_submit` and records nothing there itself)
    participants_change_record(participant_ids=list(lifted), kind=StudyEvent.Kind.INCLUDED, lifted=lifted, actor=actor)
    return chosen.update(excluded=False, exclusion_reason="")


def participants_mark_returned(*, participant_ids: list[int]) -> int:
    """Prolific says they returned the study: their reserved slot reopens."""
    chosen = Participant.objects.filter(pk__in=participant_ids, status=Participant.Status.ACTIVE)
    studies = list(chosen.values_list("study_id", flat=True).distinct())
    results_changed(study_ids=studies)  # no longer working
    signals_refresh_queue(study_ids=studies)  # the answers they gave are all they give
    return chosen.update(status=Participant.Status.RETURNED, step=Participant.Step.RELEASED)
