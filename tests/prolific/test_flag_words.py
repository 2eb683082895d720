"""A flag about a submission names Parity's number for it, never its Prolific ids, and flags stored
before that are rewritten by the migration that made it so."""

from __future__ import annotations

import importlib

from django.apps import apps

from prolific.models import ProlificFlag, ProlificStudy, ProlificSubmission
from tests.prolific.helpers import PROLIFIC_PID, SUBMISSION_ID, prolific_study, through_prolific

migration = importlib.import_module("prolific.migrations.0002_flag_names_its_submission")


def test_flags_about_a_submission_point_at_it_and_their_words_name_no_prolific_id(implicature):
    trace = through_prolific(prolific_study())
    record = ProlificSubmission.objects.get(submission_id=SUBMISSION_ID)
    flags = ProlificFlag.objects.filter(submission=record)
    assert {flag.kind for flag in flags} == {ProlificFlag.Kind.NO_PARTICIPANT, ProlificFlag.Kind.UNFINISHED}
    for flag in flags:
        assert flag.subject == f"submission #{record.pk}"
        assert SUBMISSION_ID not in flag.detail and PROLIFIC_PID not in flag.detail
    assert flags.get(kind=ProlificFlag.Kind.NO_PARTICIPANT).resolved  # the participant turned up
    assert trace.participant.pseudonym in flags.get(kind=ProlificFlag.Kind.UNFINISHED).detail


def test_the_migration_rewrites_the_flags_stored_with_a_submission_id(implicature):
    found = ProlificStudy.objects.create(study=prolific_study(), prolific_id="p-1", places=2)
    record = ProlificSubmission.objects.create(
        prolific_study=found, submission_id=SUBMISSION_ID, prolific_pid=PROLIFIC_PID, status="AWAITING REVIEW"
    )
    stored = ProlificFlag.objects.create(
        prolific_study=found,
        kind=ProlificFlag.Kind.NO_PARTICIPANT,
        subject=SUBMISSION_ID,
        detail=f"Prolific submission {SUBMISSION_ID} (AWAITING REVIEW) has no participant in Parity",
    )
    other = ProlificFlag.objects.create(
        prolific_study=found, kind=ProlificFlag.Kind.NO_SUBMISSION, subject="A1", detail="A1 completed"
    )
    migration.point_flags_at_their_submissions(apps, None)
    stored.refresh_from_db()
    assert stored.submission == record and stored.subject == f"submission #{record.pk}"
    assert stored.detail == f"Prolific submission #{record.pk} (AWAITING REVIEW) has no participant in Parity"
    other.refresh_from_db()
    assert (other.subject, other.detail, other.submission) == ("A1", "A1 completed", None)
