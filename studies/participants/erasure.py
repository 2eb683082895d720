"""Data-erasure requests: `participant_erase` honours one, and erases the participant's Prolific ids
wherever they are stored.

Every model that stores an identity names the fields (`IDENTITY_FIELDS`, see `studies.participants.identity`);
the erasure reads those declarations, so a store added later, in any app, is erased too without this
module knowing it. The ids are replaced, never hashed (a hash of a known PID could be recomputed):
the PID by the participant's own replacement, so rows that carried it still agree with each other,
and each other id (a session or submission id) by a random token of its own, so a unique column
stays unique.
"""

from __future__ import annotations

import json
import re
import secrets
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import CharField, ForeignKey, Model, Q
from django.utils import timezone

from studies.models import Participant, Response, Study, StudyEvent
from studies.participants.identity import guarded_models, identity_fields
from studies.participants.quality_signals import signals_refresh_queue
from studies.participants.withholding import MIN_IDENTITY_CHARS, Withholder, shortest_identity
from studies.preregistration.events import study_event_record
from studies.results_token import results_changed

ERASED_PREFIX = "erased-"


def erased_token() -> str:
    """A random stand-in for an erased id."""
    return f"{ERASED_PREFIX}{secrets.token_hex(16)}"


def _links_to_participant(model: type[Model]) -> list[ForeignKey]:
    return [
        field
        for field in model._meta.concrete_fields
        if isinstance(field, ForeignKey) and field.related_model is Participant
    ]


def participant_identities(participant: Participant) -> set[str]:
    """The ids Prolific knows `participant` by: their PID, their session ids (the one stored and the
    ones recorded as changes), and every id stored in a row that points at them (their submissions)."""
    found: set[Any] = {participant.prolific_pid, participant.prolific_session_id}
    for change in participant.session_changes:
        found |= {change.get("from"), change.get("to")}
    for model in guarded_models():
        names = [name for name in identity_fields(model) if isinstance(model._meta.get_field(name), CharField)]
        if model is Participant or not names:
            continue
        for link in _links_to_participant(model):
            for values in model._default_manager.filter(**{link.name: participant}).values_list(*names):
                found.update(values)
    return {value for value in found if isinstance(value, str) and value.strip()}


def _whole_ids(ids: list[str]) -> re.Pattern[str]:
    """Any of `ids`, whole (never inside a longer id), in any case."""
    alternatives = "|".join(re.escape(value) for value in sorted(ids, key=len, reverse=True))
    return re.compile(f"(?<![0-9a-z])({alternatives})(?![0-9a-z])", re.IGNORECASE)


def _replaced(value: Any, pattern: re.Pattern[str], replacements: dict[str, str]) -> Any:
    """`value` (text, or JSON: lists, objects) with each id `pattern` finds replaced."""
    if isinstance(value, str):
        return pattern.sub(lambda match: replacements[match.group(0).lower()], value)
    if isinstance(value, list):
        return [_replaced(item, pattern, replacements) for item in value]
    if isinstance(value, dict):
        return {
            _replaced(key, pattern, replacements): _replaced(item, pattern, replacements) for key, item in value.items()
        }
    return value


def identities_erase(*, participant: Participant, pid_replacement: str) -> int:
    """Replace `participant`'s ids in the identity fields of every model but `Participant` (whose own
    row `participant_erase` rewrites): wherever they appear, in a column of their own, inside text or
    inside a stored JSON payload. Returns how many rows changed.

    Rows that point at another participant are left alone; so is a row that names the PID but nothing
    else of this participation while the same person still takes part in another study (a delivery
    about their submission there). Called inside `participant_erase`'s transaction; the rows are
    locked, so a sync writing the same submission meanwhile waits and is then erased with it."""
    identities = participant_identities(participant)
    if not identities:
        return 0
    pid = participant.prolific_pid.lower()
    replacements = {value.lower(): erased_token() for value in identities}
    replacements[pid] = pid_replacement
    every_id = _whole_ids(list(replacements))
    own_ids = _whole_ids([value for value in replacements if value != pid]) if len(replacements) > 1 else None
    elsewhere = (
        Participant.objects.filter(prolific_pid__iexact=pid, erased_at__isnull=True).exclude(pk=participant.pk).exists()
    )
    changed = 0
    for model in guarded_models():
        if model is Participant:
            continue
        names = identity_fields(model)
        links = _links_to_participant(model)
        holding = Q()
        for name in names:
            for value in identities:
                holding |= Q(**{f"{name}__icontains": value})
        for row in model._default_manager.select_for_update().filter(holding):
            linked = {getattr(row, link.attname) for link in links} - {None}
            if linked - {participant.pk}:
                continue  # another participant's row: their ids, not these
            values = {name: getattr(row, name) for name in names}
            if elsewhere and not linked and not (own_ids and own_ids.search(json.dumps(list(values.values())))):
                continue  # the same person's row in another study
            fields = [name for name, value in values.items() if _replaced(value, every_id, replacements) != value]
            for name in fields:
                setattr(row, name, _replaced(values[name], every_id, replacements))
            if fields:
                row.save(update_fields=fields)
                changed += 1
    return changed


def typed_identities_withhold(*, participant: Participant, identities: set[str]) -> bool:
    """Replace `identities` (the participant's ids, read before their erasure) wherever the participant
    typed one into an answer, an explanation or a closing answer, by `[withheld]`, whatever its case. Once erased,
    their ids are no longer known, so the exports and the bundle could not withhold them any more.
    Writes the answers; sets `participant.closing_answers` (the caller saves it) and says whether
    it changed."""
    shortest = shortest_identity(participant.study)
    withholder = Withholder.of(
        {value for value in identities if len(value.strip()) >= shortest},
        short_words=shortest < MIN_IDENTITY_CHARS,
    )
    if withholder.empty:
        return False
    typed = Q()
    for value in identities:
        typed |= Q(raw_answer__icontains=value) | Q(answer__icontains=value) | Q(explanation__icontains=value)
    for response in Response.objects.select_for_update().filter(typed, participant=participant):
        response.raw_answer, response.answer = withholder.text(response.raw_answer), withholder.text(response.answer)
        response.explanation = withholder.text(response.explanation)
        response.save(update_fields=["raw_answer", "answer", "explanation"])
    closing = {key: withholder.cell(value) for key, value in (participant.closing_answers or {}).items()}
    if closing == (participant.closing_answers or {}):
        return False
    participant.closing_answers = closing
    return True


class ErasureError(ValueError):
    """The erasure cannot be done (no such participant); nothing was written."""


@dataclass(frozen=True)
class Erasure:
    study: str
    pseudonym: str
    answers_deleted: int
    participant_deleted: bool
    dry_run: bool

    @property
    def message(self) -> str:
        done = "would be" if self.dry_run else "was"
        if self.participant_deleted:
            return (
                f"{self.pseudonym} of {self.study!r} {done} deleted with {self.answers_deleted} answer(s); "
                "the pseudonym is not reused."
            )
        return f"The Prolific identity of {self.pseudonym} of {self.study!r} {done} erased; answers kept."


def participant_erase(
    *, study: Study, prolific_pid: str, delete_answers: bool = False, dry_run: bool = False
) -> Erasure:
    """Honour a data-erasure request for one Prolific ID in one study.

    The Prolific, study and session ids are replaced by a random token (no hash: a hash of a
    known PID could be recomputed), so nothing links the answers back to the person and the same
    PID can neither find nor resume the old session; a reserved slot is released. The PID and the
    person's session and submission ids go from every other store too (`identities_erase`: their
    submissions, bonus lines, stored webhook deliveries, ...). With `delete_answers` the participant
    and every answer go (their pseudonym is never handed out again).
    """
    with transaction.atomic():
        participant = (
            Participant.objects.select_for_update()
            .select_related("study")
            .filter(study=study, prolific_pid__in={prolific_pid, prolific_pid.lower()})
            .first()
        )
        if participant is None:
            raise ErasureError(f"no participant of {study.name!r} has this Prolific ID (already erased?)")
        answers = participant.responses.count()
        result = Erasure(
            study=study.name,
            pseudonym=participant.pseudonym,
            answers_deleted=answers if delete_answers else 0,
            participant_deleted=delete_answers,
            dry_run=dry_run,
        )
        if dry_run:
            return result
        replacement = erased_token()
        known = participant_identities(participant)  # before their stores are erased
        identities_erase(participant=participant, pid_replacement=replacement)
        results_changed(study_ids=[study.pk])
        signals_refresh_queue(study_ids=[study.pk])
        study_event_record(
            study=participant.study,
            kind=StudyEvent.Kind.ERASED,
            summary=f"{participant.pseudonym} erased on request" + (" with their answers" if delete_answers else ""),
            data={"participant": participant.pseudonym, "answers_deleted": result.answers_deleted},
        )
        if delete_answers:
            participant.delete()
            return result
        participant.prolific_pid = replacement
        participant.prolific_study_id = participant.prolific_session_id = ""
        participant.session_changes = []
        participant.erased_at = timezone.now()
        fields = ["prolific_pid", "prolific_study_id", "prolific_session_id", "session_changes", "erased_at"]
        if typed_identities_withhold(participant=participant, identities=known):
            fields.append("closing_answers")
        if participant.status == Participant.Status.ACTIVE:
            participant.status, participant.step = Participant.Status.RETURNED, Participant.Step.RELEASED
            fields += ["status", "step"]
        participant.save(update_fields=fields)
    return result
