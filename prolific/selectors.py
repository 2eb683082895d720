"""Reads about a study's life on Prolific, for the study page."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from django.conf import settings
from django.db.models import QuerySet

from prolific.currency import currency_or_default, money
from prolific.models import BonusLine, ProlificFlag, ProlificStudy, ProlificSubmission
from studies.models import Participant, Study

#: what the study page offers, by the Prolific study's status: (action, label)
ACTIONS_BY_STATUS: dict[str, tuple[tuple[str, str], ...]] = {
    ProlificStudy.Status.UNPUBLISHED: (("publish", "Publish on Prolific"),),
    ProlificStudy.Status.ACTIVE: (("pause", "Pause on Prolific"), ("stop", "Stop on Prolific")),
    ProlificStudy.Status.PAUSED: (("start", "Resume on Prolific"), ("stop", "Stop on Prolific")),
}


def prolific_study_of(study: Study) -> ProlificStudy | None:
    """The study's Prolific study, its `.study` the instance given (one read, no join, for a page
    that shows several things of it, as the monitor does); None when the study is not on Prolific."""
    found = ProlificStudy.objects.filter(study=study).first()
    if found is not None:
        found.study = study
    return found


def study_currency(study_id: int) -> str:
    """The currency of the study's amounts: its Prolific workspace's, once read; Prolific's default
    until then."""
    return currency_or_default(ProlificStudy.objects.filter(study=study_id).values_list("currency", flat=True).first())


def prolific_study_of_submission(*, submission_id: str, participant_id: str = "") -> ProlificStudy | None:
    """The Parity study's Prolific study that a submission belongs to, when Parity knows the
    submission: recorded by an earlier pull or delivery, or the SESSION_ID its participant entered
    with (and, when given, their PID: served by the index on the PID). None when it knows none, or
    when two studies' participants claim it."""
    if not submission_id:
        return None
    recorded = ProlificSubmission.objects.filter(submission_id=submission_id).select_related("prolific_study__study")
    if (found := recorded.first()) is not None:
        return found.prolific_study
    entered = Participant.objects.filter(prolific_session_id=submission_id, study__prolific__isnull=False)
    if participant_id:
        entered = entered.filter(prolific_pid=participant_id.lower())
    studies = set(entered.order_by().values_list("study_id", flat=True).distinct()[:2])
    if len(studies) != 1:
        return None
    return ProlificStudy.objects.select_related("study").get(study_id=studies.pop())


@dataclass(frozen=True)
class Follow:
    """What Prolific should do after a move in Parity, with who and what it affects: the action (a key of
    `prolific.services.TRANSITIONS`), its button's label, and the sentence shown before it is pressed."""

    action: str
    label: str
    preview: str


def prolific_follow(found: ProlificStudy | None) -> Follow | None:
    """The Prolific move that would follow Parity's status, when the two disagree: a study paused or
    closed in Parity while Prolific keeps sending people (whom Parity turns away), or live again in Parity
    while paused on Prolific. None when they agree or there is nothing to do on Prolific."""
    if found is None:
        return None
    study, status = found.study, found.status
    people = Participant.objects.filter(study=study, is_imported=False)
    working = people.filter(status=Participant.Status.ACTIVE).count()
    completed = people.filter(status=Participant.Status.COMPLETED).count()
    open_places = max(found.places - completed - working, 0)
    figures = (
        f"{open_places} of {found.places} places open, {working} "
        + ("person" if working == 1 else "people")
        + " working, "
        + f"{completed} completed"
    )
    recruiting = status == ProlificStudy.Status.ACTIVE
    if study.status == Study.Status.PAUSED and recruiting:
        return Follow(
            "pause",
            "Pause on Prolific too",
            f"Paused here, still recruiting on Prolific ({figures}): Prolific keeps sending people whom Parity "
            "turns away. Pausing it on Prolific stops new arrivals; those working may finish.",
        )
    if study.status == Study.Status.CLOSED and status in (ProlificStudy.Status.ACTIVE, ProlificStudy.Status.PAUSED):
        return Follow(
            "stop",
            "Stop on Prolific too",
            f"Closed here, {found.get_status_display().lower()} on Prolific ({figures}). Stopping it on Prolific "
            "ends its recruitment for good: it goes to awaiting review, and no place reopens.",
        )
    if study.status == Study.Status.LIVE and status == ProlificStudy.Status.PAUSED:
        return Follow(
            "start",
            "Resume on Prolific too",
            f"Live here, paused on Prolific ({figures}). Resuming it on Prolific sends people to the "
            f"{open_places} open places again.",
        )
    return None


def prolific_flags_open(found: ProlificStudy | None) -> str:
    """The flags of the study's Prolific side still waiting for the reviewer, by kind with their
    counts, as the monitor warns of them ("" when none, or not on Prolific): a completer Prolific
    timed out is owed the reward, and the monitor's own figures say nothing of them."""
    if found is None:
        return ""
    kinds = Counter(ProlificFlag.objects.filter(prolific_study=found, resolved=False).values_list("kind", flat=True))
    if not kinds:
        return ""
    labels = dict(ProlificFlag.Kind.choices)
    said = "; ".join(f"{labels.get(kind, kind)}: {n}" for kind, n in sorted(kinds.items()))
    total = sum(kinds.values())
    return f"{total} Prolific flag{'s' if total != 1 else ''} open for the reviewer ({said}): see Prolific flags."


def prolific_configured() -> bool:
    """Whether Parity may call Prolific's API (a token is set)."""
    return bool(settings.PROLIFIC_API_TOKEN)


def prolific_actions(found: ProlificStudy | None) -> tuple[tuple[str, str], ...]:
    if found is None:
        return (("create", "Create on Prolific"),) if prolific_configured() else ()
    return ACTIONS_BY_STATUS.get(found.status, ())


@dataclass
class Decided:
    """What Prolific was told (or is about to be told) of one participant, and what they were paid."""

    rejected: bool = False  # a rejection taken (sent or not) or Prolific's status says so
    approved_as_kept: bool = False  # approved as a participant kept in the results
    approved_excluded: bool = False  # approved although excluded (the policy's "approve and flag")
    bonus: str = ""  # the bonus computed or paid, in the workspace's currency
    submission: ProlificSubmission | None = None


def decisions_of(participant_ids: Iterable[int]) -> dict[int, Decided]:
    """Per participant id: the review decision and bonus they have (only those with one)."""
    ids = list(participant_ids)
    found: dict[int, Decided] = defaultdict(Decided)
    submissions = ProlificSubmission.objects.filter(participant__in=ids).select_related("prolific_study")
    for record in submissions:
        assert record.participant_id is not None  # the filter above matched it by its participant
        said = found[record.participant_id]
        said.submission = record
        decision = record.decision or {"APPROVED": "approve", "REJECTED": "reject"}.get(record.status, "")
        if decision == ProlificSubmission.Decision.REJECT:
            said.rejected = True
        elif decision == ProlificSubmission.Decision.APPROVE:
            if record.decision_reason:
                said.approved_excluded = True
            else:
                said.approved_as_kept = True
    for line in BonusLine.objects.filter(participant__in=ids).select_related("batch__prolific_study"):
        found[line.participant_id].bonus = money(line.amount_pence, line.batch.prolific_study.currency)
    return dict(found)


def open_flags_of(participant: Participant) -> list[ProlificFlag]:
    """The flags about `participant` still waiting for the reviewer, oldest first."""
    return list(ProlificFlag.objects.filter(participant=participant, resolved=False).order_by("created_at", "pk"))


def decision_conflicts(decided: Decided, *, excluded: bool) -> list[str]:
    """Where a participant excluded (or not) would disagree with what Prolific was told or paid."""
    said = []
    if excluded and decided.approved_as_kept:
        said.append("approved on Prolific as a kept participant")
    if excluded and decided.bonus:
        said.append(f"given a bonus of {decided.bonus}")
    if not excluded and decided.rejected:
        said.append("rejected on Prolific")
    return said


def participants_mismatched(participants: QuerySet[Participant]) -> dict[int, list[str]]:
    """Participants whose exclusion disagrees with their Prolific decision or bonus, with the sentences."""
    excluded = dict(participants.values_list("pk", "excluded"))
    return {
        pk: conflicts
        for pk, decided in decisions_of(excluded).items()
        if (conflicts := decision_conflicts(decided, excluded=excluded[pk]))
    }


def earlier_prolific_ids(study: Study) -> list[str]:
    """The Prolific ids of the researcher's other studies created on Prolific from Parity, oldest first:
    whose participants "exclude participants of earlier studies" keeps out (Prolific's previous-studies
    blocklist). A study with no owner has none."""
    if study.owner_id is None:
        return []
    return list(
        ProlificStudy.objects.filter(study__owner_id=study.owner_id)
        .exclude(study=study)
        .order_by("created_at", "pk")
        .values_list("prolific_id", flat=True)
    )
