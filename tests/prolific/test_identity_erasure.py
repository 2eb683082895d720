"""A data-erasure request removes a Prolific identity from every table, not only from the participant:
submissions, bonus lines, flags and stored webhook deliveries too. Each table is read whole, through
the ORM, so a store added later is searched as well."""

from __future__ import annotations

import json

import pytest
from django.apps import apps
from django.core.management import call_command
from django.db import models

from prolific.bonuses import csv_bonuses
from prolific.models import BonusLine, ProlificEvent, ProlificSubmission
from studies.participants.erasure import participant_erase
from tests.factories import pid
from tests.prolific.helpers import PROLIFIC_PID, Footprint, prolific_study, through_prolific

pytestmark = pytest.mark.django_db

TEXT = (models.CharField, models.TextField, models.JSONField)


def where_stored(needles: tuple[str, ...]) -> list[str]:
    """`app.Model.field` of every text or JSON column holding any of `needles` in any row (any case)."""
    found = []
    for model in apps.get_models():
        for field in model._meta.concrete_fields:
            if not isinstance(field, TEXT):
                continue
            for value in model.objects.values_list(field.attname, flat=True).iterator():
                text = (value if isinstance(value, str) else json.dumps(value)).lower()
                if any(needle.lower() in text for needle in needles):
                    found.append(f"{model._meta.label}.{field.name}")
                    break
    return found


@pytest.fixture
def two(implicature) -> tuple[Footprint, Footprint]:
    study = prolific_study()
    first = through_prolific(study, bonus=False)
    return first, through_prolific(study, pid(0xB0B), "64b1c2d3e4f5a6b7c8d9e0ff")  # one batch for both


def test_the_footprint_holds_the_ids_in_every_kind_of_store_before_erasure(two):
    erased, _ = two
    assert set(where_stored(erased.identities)) >= {
        "studies.Participant.prolific_pid",
        "studies.Participant.prolific_session_id",
        "prolific.ProlificSubmission.submission_id",
        "prolific.ProlificSubmission.prolific_pid",
        "prolific.BonusLine.prolific_pid",
        "prolific.ProlificEvent.payload",
    }


def test_the_erase_command_leaves_the_pid_and_submission_id_in_no_table(two, capsys):
    erased, kept = two
    call_command("erase_participant", erased.participant.study.name, erased.pid)
    assert "erased; answers kept" in capsys.readouterr().out
    assert where_stored(erased.identities) == []
    # the rows stay (a decision and a bonus are never taken twice), no longer naming the person
    submission = ProlificSubmission.objects.get(participant=erased.participant)
    assert submission.submission_id.startswith("erased-") and submission.decision_sent_at is None
    line = BonusLine.objects.get(participant=erased.participant)
    erased.participant.refresh_from_db()
    assert line.prolific_pid == erased.participant.prolific_pid  # the participant's own replacement
    # the other participant keeps every id, and still gets their bonus
    assert set(where_stored(kept.identities)) >= {
        "prolific.ProlificSubmission.submission_id",
        "prolific.BonusLine.prolific_pid",
        "prolific.ProlificEvent.payload",
    }
    kept_line = BonusLine.objects.get(prolific_pid=kept.pid)
    assert csv_bonuses(line.batch).splitlines() == [f"{kept.pid},{kept_line.amount_pence / 100:.2f}"]


def test_erasing_with_the_answers_leaves_the_ids_in_no_table(two):
    erased, kept = two
    participant_erase(study=erased.participant.study, prolific_pid=erased.pid, delete_answers=True)
    assert where_stored(erased.identities) == []
    assert "prolific.ProlificSubmission.prolific_pid" in where_stored(kept.identities)


def test_a_dry_run_erases_nothing(two):
    erased, _ = two
    participant_erase(study=erased.participant.study, prolific_pid=erased.pid, dry_run=True)
    assert "prolific.ProlificEvent.payload" in where_stored(erased.identities)


def test_the_same_person_in_another_study_keeps_their_ids_there(implicature):
    first = through_prolific(prolific_study("first"))
    second = through_prolific(prolific_study("second"), PROLIFIC_PID, "64b1c2d3e4f5a6b7c8d9e0aa")
    participant_erase(study=first.participant.study, prolific_pid=PROLIFIC_PID)
    first.participant.refresh_from_db()
    assert where_stored((first.submission_id,)) == []
    erased = ProlificSubmission.objects.get(participant=first.participant)
    assert erased.prolific_pid == first.participant.prolific_pid != PROLIFIC_PID
    # no delivery about the erased submission names the PID; those about the other one still do
    about = {event.payload["resource_id"]: json.dumps(event.payload) for event in ProlificEvent.objects.all()}
    assert [PROLIFIC_PID in text for key, text in about.items() if key.startswith("erased-")] == [False]
    assert PROLIFIC_PID in about[second.submission_id]
    assert ProlificSubmission.objects.get(submission_id=second.submission_id).prolific_pid == PROLIFIC_PID
    assert BonusLine.objects.get(participant=second.participant).prolific_pid == PROLIFIC_PID
