"""`manage.py checklist_audit NAME`: every entry's answer, its source and the records it rests on,
each record's value the one the study's database holds, so that a reviewer (or this test) can check
an answer against the study."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from annotation.models import Item
from parity.reporting.checklist import ENTRIES
from studies.models import Participant, Study
from studies.setup.checklist import study_checklist_correction_set, study_checklist_notes_set

pytestmark = pytest.mark.django_db


def _audit(*args: str) -> str:
    out = StringIO()
    call_command("checklist_audit", *args, stdout=out)
    return out.getvalue()


def _entry(text: str, entry_id: str) -> list[str]:
    """The lines of one entry: its heading, then its indented lines."""
    lines = text.splitlines()
    start = next(n for n, line in enumerate(lines) if line.startswith(f"{entry_id} "))
    block = [lines[start]]
    for line in lines[start + 1 :]:
        if not line.startswith("    "):
            break
        block.append(line.strip())
    return block


def test_the_audit_prints_each_answer_its_source_and_the_records_it_rests_on(pilot) -> None:
    study = Study.objects.get(pk=pilot.study_id)
    study_checklist_notes_set(study=study, notes={"3.2.2": "1 of 6 excluded"})
    study_checklist_correction_set(study=study, entry_id="1.2", text="10 items, all of the study's", reason="wording")
    text = _audit(study.name)
    assert text.startswith(f"Reporting checklist of {study.name!r} (Wei, Paskov et al.")
    assert sum(1 for line in text.splitlines() if line.startswith("    answer: ")) == len(ENTRIES) == 71
    # the records are the database's
    people = Participant.objects.filter(study=study)
    test_items = Item.objects.filter(benchmark="implicature", split="test", is_attention_check=False).count()
    assert _entry(text, "0.8")[3] == (
        f"records: items in the study's item set = {test_items}; study.design.split = 'test'"
    )
    assert _entry(text, "5.1.5")[3] == (
        f"records: participants.entered = {people.count()}; "
        f"participants.completed = {people.filter(status='completed').count()}; participants.screened_out = 0; "
        "participants.declined = 0; participants.returned = 0; participants.timed_out = 0; participants.in_progress = 0"
    )
    assert _entry(text, "3.1.1")[3] == (
        f"records: study.design.shuffle_items = {study.design['shuffle_items']}; "
        f"study.attention_checks = {study.attention_checks}"
    )
    # a contradiction and a correction, as such
    excluded = _entry(text, "3.2.2")
    assert excluded[1] == "answer: 1 of 5 excluded (1 failed 2 attention checks (threshold 2))"
    assert excluded[3] == "CONTRADICTION: the researcher's note says '1 of 6 excluded'"
    assert f"participants.excluded = {people.filter(excluded=True).count()}" in excluded[4]
    assert _entry(text, "1.2")[1:4] == [
        "answer: 10 items, all of the study's",
        "source: corrected by the researcher: wording",
        "Parity computed: 10 items",
    ]
    # an entry Parity leaves open rests on the researcher's note, none yet, and the field it would read
    assert _entry(text, "0.1")[3] == "records: study.paper_title = ''; checklist note 0.1 = none"
    assert "not itemised" not in text
    found = json.loads(_audit(study.name, "--json"))
    assert [row["id"] for row in found["entries"]] == [entry.id for entry in ENTRIES]
    assert found["entries"][[row["id"] for row in found["entries"]].index("0.8")]["records"] == {
        "items in the study's item set": test_items,
        "study.design.split": "test",
    }


def test_an_unknown_study_is_refused_by_name() -> None:
    with pytest.raises(CommandError, match="no study named 'nobody'"):
        _audit("nobody")
