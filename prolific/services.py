"""Writes about a study's life on Prolific: creating it, moving it through its states, raising its
places, and keeping Parity's participants in step with Prolific's submissions (webhooks and pulls).

A call to Prolific that fails raises `ProlificError` and leaves Parity's rows as they were.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q, Sum
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from prolific.client import ProlificClient, ProlificError, Submission
from prolific.models import ProlificEvent, ProlificFlag, ProlificStudy, ProlificSubmission
from prolific.preregistration import prolific_change_record
from prolific.reconcile import approvals_resend, completer_reconcile, flag_once, flag_settle, submission_subject
from prolific.selectors import earlier_prolific_ids, prolific_study_of_submission
from studies.design.screening import Screening
from studies.models import Participant, Study
from studies.participants.decisions import participants_mark_returned

__all__ = ["ProlificError", "ProlificStudyError"]


class ProlificStudyError(ValueError):
    """Parity refuses the operation (before any call to Prolific)."""


#: submissions that were sent in: one with no Parity participant is flagged
SUBMITTED = {"AWAITING REVIEW", "APPROVED", "REJECTED"}
#: our action → (Prolific's transition, the status Prolific moves the study to)
TRANSITIONS = {
    "publish": ("PUBLISH", ProlificStudy.Status.ACTIVE),
    "pause": ("PAUSE", ProlificStudy.Status.PAUSED),
    "start": ("START", ProlificStudy.Status.ACTIVE),
    "stop": ("STOP", ProlificStudy.Status.AWAITING_REVIEW),
}
#: our action → the statuses that show Prolific took it (a publish goes through PUBLISHING, or waits
#: SCHEDULED; a stopped study whose submissions are all approved is COMPLETED:
#: https://docs.prolific.com/api-reference/studies/the-study-object)
TAKEN = {
    "publish": {ProlificStudy.Status.PUBLISHING, ProlificStudy.Status.SCHEDULED, ProlificStudy.Status.ACTIVE},
    "pause": {ProlificStudy.Status.PAUSED},
    "start": {ProlificStudy.Status.ACTIVE},
    "stop": {ProlificStudy.Status.AWAITING_REVIEW, ProlificStudy.Status.COMPLETED},
}


def client_default(client: ProlificClient | None) -> ProlificClient:
    return client if client is not None else ProlificClient()


# -- the study on Prolific ------------------------------------------------------------------------


def study_places(study: Study) -> int:
    return study.units.aggregate(total=Sum("capacity"))["total"] or 0


def study_fields(study: Study, places: int) -> dict[str, Any]:
    """What `POST /studies/` takes for this study: its link with Prolific's placeholders, its time,
    reward and places, and a completion code per outcome the study configures."""
    codes = [
        {"code": study.completion_code, "code_type": "COMPLETED", "actions": [{"action": "MANUALLY_REVIEW"}]},
        # every study has its own code for excluded participants (failed attention checks), reviewed by
        # hand: Prolific allows rejecting for failed checks only under its rules (several in 5+ minutes)
        {
            "code": study.failed_attention_code,
            "code_type": "FAILED_ATTENTION_CHECK",
            "actions": [{"action": "MANUALLY_REVIEW"}],
        },
    ]
    if study.no_consent_code:
        # declining consent: the participant is asked to return the study, never rejected
        codes.append(
            {
                "code": study.no_consent_code,
                "code_type": "NO_CONSENT",
                "actions": [{"action": "REQUEST_RETURN", "return_reason": "declined consent"}],
            }
        )
    return {
        "name": study.name,
        "internal_name": f"parity:{study.link}",
        "description": f"{study.name} ({study.get_benchmark_display()}): answer questions one at a time.",
        "external_study_url": study.participant_url(),
        "prolific_id_option": "url_parameters",
        "estimated_completion_time": study.estimated_minutes,
        "reward": study.reward_pence,
        "total_available_places": places,
        "completion_codes": codes,
        "device_compatibility": ["desktop"],
        # required by the study object (https://docs.prolific.com/api-reference/studies/the-study-object)
        # and always sent by the official clients ([]: everyone may take part); each of the researcher's
        # prescreening filters as Prolific takes it (https://docs.prolific.com/api-reference/filters)
        "filters": Screening.from_json(study.prolific_filters).prolific_filters(earlier_prolific_ids(study)),
    }


def workspace_currency(client: ProlificClient, study_answer: dict[str, Any] | None = None) -> str:
    """The workspace's currency: the `currency_code` of its balance
    (https://docs.prolific.com/api-reference/workspaces/get-workspace-balance) when
    PROLIFIC_WORKSPACE_ID is set, else the study's own `currency_code` (which the official CLI reads,
    prolific-oss/cli model/study.go); "" when neither says."""
    if settings.PROLIFIC_WORKSPACE_ID:
        answer = client.workspace_balance(settings.PROLIFIC_WORKSPACE_ID)
        if isinstance(answer, dict) and answer.get("currency_code"):
            return str(answer["currency_code"]).upper()[:3]
    return str((study_answer or {}).get("currency_code") or "").upper()[:3]


def workspace_project(client: ProlificClient) -> str:
    """The project a study is created in, so that it lands in the workspace whose webhooks and currency
    Parity reads: `PROLIFIC_PROJECT_ID`, checked to belong to `PROLIFIC_WORKSPACE_ID`
    (https://docs.prolific.com/api-reference/projects/get-project names its `workspace`), or, when only
    the workspace is set, its one project
    (https://docs.prolific.com/api-reference/projects/get-projects). "" when neither is set: the study
    goes where Prolific puts it. Refused, before anything is created, when it can't be told."""
    workspace_id, project_id = settings.PROLIFIC_WORKSPACE_ID, settings.PROLIFIC_PROJECT_ID
    if project_id:
        project = client.project_get(project_id)
        owner = str(project.get("workspace") or "") if isinstance(project, dict) else ""
        if workspace_id and owner != workspace_id:
            raise ProlificStudyError(
                f"PROLIFIC_PROJECT_ID {project_id} is a project of workspace {owner or '(none named)'}, not of "
                f"PROLIFIC_WORKSPACE_ID {workspace_id}: a study created there would send its webhooks and "
                "spend its currency elsewhere; nothing was created"
            )
        return project_id
    if not workspace_id:
        return ""
    projects = client.workspace_projects(workspace_id)
    if len(projects) != 1:
        named = ", ".join(f"{row.get('title', '')} ({row.get('id')})" for row in projects) or "none"
        raise ProlificStudyError(
            f"workspace {workspace_id} has {len(projects)} projects ({named}): set PROLIFIC_PROJECT_ID to the "
            "one to create studies in; nothing was created"
        )
    return str(projects[0]["id"])


#: the select filters whose values are Prolific's choice ids, checked against its list before a study is created
_CHOICE_ID = "ChoiceID"


def prescreening_refusals(catalogue: list[dict[str, Any]], filters: list[dict[str, Any]]) -> list[str]:
    """What Prolific would not read in the study's select `filters`, against its own list of filters
    (`ProlificClient.filters`): a filter it does not have, or a value not among its choice ids, each
    said with the choices it allows (a value that is a choice's label is pointed to that choice's id)."""
    known = {str(row.get("filter_id")): row for row in catalogue}
    refused = []
    for entry in filters:
        values = entry.get("selected_values")
        if values is None:
            continue
        row = known.get(entry["filter_id"])
        if row is None:
            refused.append(f"Prolific has no filter {entry['filter_id']!r}")
            continue
        if row.get("data_type", _CHOICE_ID) != _CHOICE_ID or not isinstance(row.get("choices"), dict):
            continue  # study ids, participant ids: the researcher's own, not a list of Prolific's
        choices = {str(key): str(label) for key, label in row["choices"].items()}
        wrong = [value for value in values if value not in choices]
        if not wrong:
            continue
        labels = {label.casefold(): key for key, label in choices.items()}
        said = ", ".join(
            f"{value!r}" + (f" (the label of choice {labels[value.casefold()]})" if value.casefold() in labels else "")
            for value in wrong
        )
        allowed = ", ".join(f"{key} ({label})" for key, label in choices.items())
        refused.append(
            f"{row.get('title') or entry['filter_id']} ({entry['filter_id']}): {said} "
            f"{'is' if len(wrong) == 1 else 'are'} not among Prolific's choices; give choice ids from: {allowed}"
        )
    return refused


def prolific_study_create(
    *, study: Study, places: int | None = None, client: ProlificClient | None = None, actor: Any = None
) -> ProlificStudy:
    """Create the study as a draft on Prolific (not yet published) and remember its id.

    The study's row is locked meanwhile, so two clicks make one draft."""
    with transaction.atomic():
        Study.objects.select_for_update().only("pk").get(pk=study.pk)
        if ProlificStudy.objects.filter(study=study).exists():
            raise ProlificStudyError(f"{study.name!r} already has a Prolific study")
        places = places if places is not None else study_places(study)
        if places < 1:
            raise ProlificStudyError(f"{study.name!r} has no places to offer (its units hold no one)")
        fields = study_fields(study, places)
        refused = prescreening_refusals(client_default(client).filters(), fields["filters"])
        if refused:
            raise ProlificStudyError(
                f"{study.name!r}'s prescreening is not Prolific's: " + "; ".join(refused) + ". Nothing was created; "
                "correct the prescreening on the study's form"
            )
        project = workspace_project(client_default(client))
        if project:
            fields["project"] = project
        try:
            answer = client_default(client).study_create(fields)
        except ProlificError as exc:
            if not exc.sent:
                raise
            # the draft may exist on Prolific without Parity knowing its id: say where to look
            raise ProlificError(
                f"{exc}. Look on Prolific for a draft named {study.name!r} (internal name "
                f"parity:{study.link}) and delete it before creating the study again",
                status=exc.status,
                sent=True,
            ) from None
        if not isinstance(answer, dict) or not answer.get("id"):
            raise ProlificError(f"Prolific created no study for {study.name!r} (its answer names no id)")
        try:
            currency = workspace_currency(client_default(client), answer)
        except ProlificError:
            currency = str(answer.get("currency_code") or "").upper()[:3]  # the next sync reads it again
        created = ProlificStudy.objects.create(
            study=study,
            prolific_id=str(answer["id"]),
            places=places,
            status=answer.get("status") or ProlificStudy.Status.UNPUBLISHED,
            currency=currency,
        )
        prolific_change_record(
            prolific_study=created,
            summary=f"Created on Prolific with {places} places",
            data={"action": "create", "places": places},
            actor=actor,
        )
        return created


def prolific_study_transition(
    *, prolific_study: ProlificStudy, action: str, client: ProlificClient | None = None, actor: Any = None
) -> ProlificStudy:
    """Publish, pause, start (resume) or stop the study on Prolific."""
    if action not in TRANSITIONS:
        raise ProlificStudyError(f"unknown action {action!r}: use one of {', '.join(TRANSITIONS)}")
    if action == "publish" and prolific_study.study.status != Study.Status.LIVE:
        raise ProlificStudyError(
            f"{prolific_study.study.name!r} is not open in Parity (status "
            f"{prolific_study.study.status}): participants sent now would be turned away"
        )
    transition, expected = TRANSITIONS[action]
    client = client_default(client)
    try:
        answer = client.study_transition(prolific_study.prolific_id, transition)
    except ProlificError as exc:
        answer = _transition_taken(prolific_study, action, client, exc)
    status = answer.get("status") if isinstance(answer, dict) else None
    prolific_study.status = status if status in ProlificStudy.Status.values else expected
    prolific_study.status_at = timezone.now()
    prolific_study.save(update_fields=["status", "status_at"])
    prolific_change_record(
        prolific_study=prolific_study,
        summary=f"On Prolific: {action} ({prolific_study.get_status_display().lower()})",
        data={"action": action, "status": prolific_study.status},
        actor=actor,
    )
    return prolific_study


def _transition_taken(
    prolific_study: ProlificStudy, action: str, client: ProlificClient, exc: ProlificError
) -> dict[str, Any]:
    """The study as Prolific holds it, when it shows that the transition whose answer was lost (a
    time-out, a 5xx) or refused (it was taken already: a publish that timed out after Prolific acted,
    then tried again) took effect; else `exc` is raised. A 429 is a refusal before anything was done
    (https://docs.prolific.com/documentation/core-concepts/managing-high-loads): nothing to read."""
    if exc.rate_limited or not (exc.sent or exc.status == 400):
        raise exc
    try:
        answer = client.study_get(prolific_study.prolific_id)
    except ProlificError:
        raise exc from None
    if not isinstance(answer, dict) or answer.get("status") not in TAKEN[action]:
        raise exc
    return answer


def prolific_study_read(*, prolific_study: ProlificStudy, client: ProlificClient | None = None) -> ProlificStudy:
    """Read the study back (https://docs.prolific.com/api-reference/studies/get-study): Parity's copy
    of its status follows Prolific's (Prolific moves a study on its own: publishing, awaiting review
    once its places are filled, completed once every submission is approved,
    https://docs.prolific.com/api-reference/studies/the-study-object), and so do its places where
    Prolific holds more (a raise whose answer was lost after Prolific applied it). A status the
    documentation does not list is left aside: Parity keeps the one it had."""
    answer = client_default(client).study_get(prolific_study.prolific_id)
    if not isinstance(answer, dict):
        raise ProlificError(f"Prolific's answer to GET studies/{prolific_study.prolific_id}/ is not a study")
    status, places = answer.get("status"), answer.get("total_available_places")
    before = (prolific_study.get_status_display().lower(), prolific_study.places)
    fields = ["status_at"]
    if status in ProlificStudy.Status.values and status != prolific_study.status:
        prolific_study.status = status
        fields.append("status")
    if isinstance(places, int) and places > prolific_study.places:
        prolific_study.places = places
        fields.append("places")
    if status in ProlificStudy.Status.values:
        prolific_study.status_at = timezone.now()
    prolific_study.save(update_fields=fields)
    if len(fields) > 1:
        prolific_change_record(
            prolific_study=prolific_study,
            summary=f"Read back from Prolific: {prolific_study.get_status_display().lower()}, "
            f"{prolific_study.places} places (Parity had {before[0]}, {before[1]} places)",
            data={"action": "read", "status": prolific_study.status, "places": prolific_study.places},
        )
    return prolific_study


def prolific_places_raise(
    *, prolific_study: ProlificStudy, places: int, client: ProlificClient | None = None, actor: Any = None
) -> ProlificStudy:
    """Raise `total_available_places` (Prolific never lowers it)."""
    if places <= prolific_study.places:
        raise ProlificStudyError(
            f"Prolific's places can only be raised: the study has {prolific_study.places}, {places} asked"
        )
    client_default(client).study_update(prolific_study.prolific_id, {"total_available_places": places})
    before, prolific_study.places = prolific_study.places, places
    prolific_study.save(update_fields=["places"])
    prolific_change_record(
        prolific_study=prolific_study,
        summary=f"Places on Prolific raised from {before} to {places}",
        data={"action": "raise", "from": before, "places": places},
        actor=actor,
    )
    return prolific_study


# -- keeping participants in step -----------------------------------------------------------------


def participants_mark_timed_out(*, participant_ids: list[int]) -> int:
    """Prolific timed them out: their reserved slot reopens at once. If they come back, they take it
    back while their unit has room (`slot_take_back`), as after Parity's own time-out."""
    return Participant.objects.filter(pk__in=participant_ids, status=Participant.Status.ACTIVE).update(
        status=Participant.Status.TIMED_OUT
    )


def _when(value: str | None):
    return parse_datetime(value) if value else None


def submission_record(*, prolific_study: ProlificStudy, submission: Submission) -> ProlificSubmission:
    """Store what Prolific says about one submission and act on it: a return or a time-out frees the
    participant's slot at once; a submission sent in with no Parity participant is flagged."""
    with transaction.atomic():
        participant = (
            Participant.objects.filter(
                study=prolific_study.study_id, prolific_pid=submission.participant_id.lower()
            ).first()
            if submission.participant_id
            else None
        )
        record, _ = ProlificSubmission.objects.select_for_update().get_or_create(
            submission_id=submission.id,
            defaults={
                "prolific_study": prolific_study,
                "status": submission.status,
                "prolific_pid": submission.participant_id,
            },
        )
        record.status = submission.status
        record.prolific_pid = submission.participant_id or record.prolific_pid
        record.participant = participant or record.participant
        record.study_code = submission.study_code or record.study_code
        record.started_at = _when(submission.started_at) or record.started_at
        record.completed_at = _when(submission.completed_at) or record.completed_at
        record.save()
        if record.participant is not None:
            if record.participant.status == Participant.Status.COMPLETED:
                completer_reconcile(prolific_study=prolific_study, record=record)
            elif submission.status == "RETURNED":
                participants_mark_returned(participant_ids=[record.participant.pk])
            elif submission.status == "TIMED-OUT":
                participants_mark_timed_out(participant_ids=[record.participant.pk])
            flag_settle(prolific_study, ProlificFlag.Kind.NO_PARTICIPANT, submission_subject(record))
            flag_settle(prolific_study, ProlificFlag.Kind.NO_SUBMISSION, record.participant.pseudonym)
        elif submission.status in SUBMITTED:
            flag_once(
                prolific_study,
                ProlificFlag.Kind.NO_PARTICIPANT,
                submission_subject(record),
                f"Prolific {submission_subject(record)} ({submission.status}) has no participant in Parity: "
                "the person never started the study here, or opened it under another ID",
                submission=record,
            )
        return record


@dataclass(frozen=True)
class SyncResult:
    submissions: int
    events_applied: int
    flagged: int
    resent: int = 0  # approvals sent again (accepted by Prolific earlier, not applied)


def prolific_sync(
    *, prolific_study: ProlificStudy, client: ProlificClient | None = None, resend: bool = True
) -> SyncResult:
    """The periodic pull: every submission Prolific lists is recorded (returns and time-outs free
    their slots, completers Prolific timed out or who returned are flagged), webhook deliveries whose
    application failed are applied again, Parity completions with no submission are flagged, and
    (with `resend`; a preview's pull sends nothing) approvals accepted but not applied are sent again."""
    applied = events_apply_pending()
    client = client_default(client)
    if not prolific_study.currency and settings.PROLIFIC_WORKSPACE_ID:
        # created before Parity read it, or its read failed: the sync need not wait for it
        try:
            prolific_study.currency = workspace_currency(client)
        except ProlificError:
            pass
        prolific_study.save(update_fields=["currency"])
    try:
        prolific_study_read(prolific_study=prolific_study, client=client)
        submissions = client.submissions(prolific_study.prolific_id)
    except ProlificError as exc:
        raise ProlificError(
            f"{prolific_study.study.name!r} was not synced: {exc}", status=exc.status, sent=exc.sent
        ) from None
    for submission in submissions:
        submission_record(prolific_study=prolific_study, submission=submission)
    listed = {submission.participant_id.lower() for submission in submissions}
    # an erased participant's PID is gone: Prolific's listing can no longer be matched to them
    completed = Participant.objects.filter(
        study=prolific_study.study_id, status=Participant.Status.COMPLETED, is_imported=False, erased_at__isnull=True
    )
    for participant in completed:
        if participant.prolific_pid not in listed:
            flag_once(
                prolific_study,
                ProlificFlag.Kind.NO_SUBMISSION,
                participant.pseudonym,
                f"{participant.pseudonym} completed the study in Parity, but Prolific lists no submission for "
                "them in this study (a pilot, a shared link, or a submission not yet made)",
                participant,
            )
    prolific_study.synced_at = timezone.now()
    prolific_study.save(update_fields=["synced_at"])
    resent = approvals_resend(prolific_study=prolific_study, client=client) if resend else 0
    flagged = ProlificFlag.objects.filter(prolific_study=prolific_study, resolved=False).count()
    return SyncResult(submissions=len(submissions), events_applied=applied, flagged=flagged, resent=resent)


# -- webhook deliveries ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Delivery:
    event: ProlificEvent
    duplicate: bool


def event_receive(
    *, event_id: str, signed_digest: str, payload: dict[str, Any], sent_at: datetime | None = None
) -> Delivery:
    """Store a verified delivery (committed before it is acknowledged), then apply it.

    A delivery whose event id or signed digest is already stored changes nothing: the first is
    Prolific's retry of one event, the second the same signed delivery sent again (under any event
    id). A delivery that names no event id is known by its digest. If applying fails, the stored
    event is applied again by the next sync."""
    event_id = event_id or f"sha256:{signed_digest}"
    known = ProlificEvent.objects.filter(Q(event_id=event_id) | Q(signed_digest=signed_digest)).first()
    if known is not None:
        return Delivery(known, duplicate=True)
    try:
        with transaction.atomic():
            event = ProlificEvent.objects.create(
                event_id=event_id,
                signed_digest=signed_digest,
                event_type=str(payload.get("event_type", "")),
                payload=payload,
                sent_at=sent_at,
            )
    except IntegrityError:
        # the same delivery, stored by a concurrent request a moment ago
        known = ProlificEvent.objects.filter(Q(event_id=event_id) | Q(signed_digest=signed_digest)).first()
        if known is None:
            raise
        return Delivery(known, duplicate=True)
    try:
        event_apply(event=event)
    except Exception as exc:  # the delivery is stored: the next sync applies it again
        ProlificEvent.objects.filter(pk=event.pk).update(error=f"{type(exc).__name__}: {exc}")
    return Delivery(event, duplicate=False)


def _event_study_id(payload: dict[str, Any], event_type: str) -> str:
    """The Prolific study a delivery names. Prolific's documented bodies carry no `study_id`: a
    study's event names it as its `resource_id`; a submission's does not name it at all."""
    if payload.get("study_id"):
        return str(payload["study_id"])
    return str(payload.get("resource_id") or "") if event_type.startswith("study.") else ""


def event_apply(*, event: ProlificEvent) -> ProlificEvent:
    """Apply one stored delivery, once (its row is locked and marked processed).

    A submission's delivery is placed by the study it names, else by the submission Parity already
    holds, else by the participant who entered with it as SESSION_ID (never by the PID alone: the
    workspace's webhooks also report its other studies, which the same person may take). One that
    cannot be placed changes nothing: it is someone who has not opened the study link (yet), or a
    study that is not Parity's, and the next sync records every submission of Parity's studies."""
    with transaction.atomic():
        event = ProlificEvent.objects.select_for_update().get(pk=event.pk)
        if event.processed_at is not None:
            return event
        payload = event.payload
        study_id = _event_study_id(payload, event.event_type)
        if event.event_type == "submission.status.change" and not study_id:
            prolific_study = prolific_study_of_submission(
                submission_id=str(payload.get("resource_id") or ""),
                participant_id=str(payload.get("participant_id") or ""),
            )
        else:
            prolific_study = ProlificStudy.objects.select_related("study").filter(prolific_id=study_id).first()
            if prolific_study is None:
                flag_once(
                    None,
                    ProlificFlag.Kind.UNKNOWN_STUDY,
                    study_id or event.event_id,
                    f"webhook {event.event_id} ({event.event_type}) names Prolific study {study_id!r}, "
                    "which no Parity study is linked to",
                )
        if prolific_study is not None and event.event_type == "submission.status.change":
            known = ProlificSubmission.objects.filter(submission_id=str(payload.get("resource_id", ""))).first()
            submission_record(
                prolific_study=prolific_study,
                submission=Submission(
                    id=str(payload["resource_id"]),
                    status=str(payload["status"]),
                    participant_id=str(payload.get("participant_id") or (known.prolific_pid if known else "")),
                ),
            )
        elif prolific_study is not None and event.event_type == "study.status.change":
            status = str(payload.get("status", ""))
            event.superseded = _older(event, prolific_study)
            if status in ProlificStudy.Status.values and not event.superseded:
                prolific_study.status = status
                prolific_study.status_at = event.sent_at or timezone.now()
                prolific_study.save(update_fields=["status", "status_at"])
        event.processed_at = timezone.now()
        event.error = ""
        event.save(update_fields=["processed_at", "error", "superseded"])
        return event


def _older(event: ProlificEvent, prolific_study: ProlificStudy) -> bool:
    """Whether the delivery was sent before what Parity already holds of the study's status (the study
    read back, or a later delivery). Prolific does not deliver in order and offers `X-Timestamp`, the
    time an event was sent, to ignore the older ones
    (https://docs.prolific.com/api-reference/webhooks/handling-event-order-with-x-timestamp). It counts
    whole seconds: a delivery sent in the second of the last read is applied (the next sync reads the
    study again), one sent in an earlier second is not."""
    if event.sent_at is None or prolific_study.status_at is None:
        return False
    return event.sent_at < prolific_study.status_at.replace(microsecond=0)


def events_apply_pending() -> int:
    pending = list(ProlificEvent.objects.filter(processed_at__isnull=True).order_by("received_at"))
    for event in pending:
        try:
            event_apply(event=event)
        except Exception as exc:
            ProlificEvent.objects.filter(pk=event.pk).update(error=f"{type(exc).__name__}: {exc}")
    return sum(1 for event in pending if ProlificEvent.objects.filter(pk=event.pk, processed_at__isnull=False).exists())


def prolific_study_configure(
    *, prolific_study: ProlificStudy, bonus_per_correct_pence: int | None = None, reject_excluded: bool | None = None
) -> ProlificStudy:
    """Set the study's bonus rule and its policy for excluded participants."""
    fields = []
    if bonus_per_correct_pence is not None:
        if prolific_study.bonus_batches.exists() and bonus_per_correct_pence != prolific_study.bonus_per_correct_pence:
            raise ProlificStudyError("bonuses were already computed under the current rule; it cannot change now")
        prolific_study.bonus_per_correct_pence = bonus_per_correct_pence
        fields.append("bonus_per_correct_pence")
    if reject_excluded is not None:
        prolific_study.reject_excluded = reject_excluded
        fields.append("reject_excluded")
    if fields:
        prolific_study.save(update_fields=fields)
    return prolific_study


def flags_resolve(*, flag_ids: list[int]) -> int:
    """A researcher looked into them."""
    return ProlificFlag.objects.filter(pk__in=flag_ids, resolved=False).update(resolved=True)
