"""A bundle of another benchmark than implicature: an AmbiBench study (episodes of 20 items, units
balanced over salient features, feedback after each answer), with an answer an older database kept
as invalid, is drawn as participants saw it and reproduced in a fresh database."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from replication.archive import read_bundle
from tests.factories import pid

pytestmark = [pytest.mark.slow, pytest.mark.django_db]


def _answer_all(study, prolific_pid: str, answer_for) -> None:
    from annotation.models import Item
    from studies.participants.answers import response_submit
    from studies.participants.entry import participant_enter
    from studies.participants.steps import item_mark_shown, participant_begin, participant_consent

    participant = participant_enter(study=study, pid=prolific_pid, prolific_session_id=prolific_pid[::-1]).participant
    participant_consent(participant=participant, agree=True)
    participant = participant_begin(participant=participant)
    items = Item.objects.in_bulk(participant.sequence)
    for position, item_id in enumerate(participant.sequence, start=1):
        item_mark_shown(participant=participant)
        item = items[item_id]
        response_submit(
            participant_id=participant.pk, item_id=item_id, position=position, raw_answer=answer_for(position, item)
        )


def test_an_ambibench_study_is_bundled_as_seen_and_reproduced(tmp_path: Path) -> None:
    from annotation.services import benchmark_import
    from studies.models import Response
    from studies.setup.studies import study_create

    benchmark_import(name="ambibench", source=None, options={"episodes": 12, "instruction_prompts": 12})
    study = study_create(name="ambi bundle", benchmark="ambibench", design={"per_feature": 1})
    _answer_all(
        study, pid(0xA1B1), lambda position, item: ("Y" if item.gold == "X" else "X") if position < 3 else item.gold
    )
    _answer_all(study, pid(0xA1B2), lambda position, item: item.gold.lower())
    # today "maybe" is asked again and never stored; an older study's database still holds it
    Response.objects.filter(participant__study=study, participant__prolific_pid=pid(0xA1B1), position=1).update(
        raw_answer="maybe", answer="", valid=False, correct=False
    )
    path = tmp_path / "ambi.zip"
    call_command("bundle", "ambi bundle", "--out", str(path), stdout=StringIO())
    bundle = read_bundle(path)
    seen = bundle.jsonl("items/as_participants_saw.jsonl")
    assert seen and all(row["html"].strip() for row in seen)
    assert [row["valid"] for row in bundle.jsonl("humans/answers.jsonl")][:2] == [False, True]
    out = StringIO()
    call_command("reanalyse", str(path), stdout=out)
    assert out.getvalue().startswith("reproduced:")
