"""Flags judged on a participant's own answers show their figures wherever flags show: the
participant's admin page, the exclusion page, the live monitor and the participants' export."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from freezegun import freeze_time

from studies.services import study_create
from tests.factories import Bot, pid

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)
WRITTEN = "Write the word that means the opposite of the input."
LEFT = "the page was hidden during 1 of 3 answers, 12.0 s in all; 2 focus losses"


def _figures(**given: int) -> dict[str, str]:
    figures = {"pastes": 0, "blurs": 0, "hidden": 0, "hidden_ms": 0, "keys": 60, "first_input_ms": 800, **given}
    return {f"behaviour-{name}": str(value) for name, value in figures.items()}


@pytest.fixture
def left_tab(instruction_induction, researcher):
    study = study_create(
        name="figures",
        benchmark="instruction_induction",
        owner=researcher,
        design={"tasks_per_participant": 3, "annotators_per_task": 1},
    )
    with freeze_time(T0) as clock:
        bot = Bot(study, pid(1)).start_items()
        for n in range(3):
            item_id, position = bot.current_form(bot.step().content.decode())
            clock.tick(timedelta(seconds=30))
            away = _figures(hidden=1, hidden_ms=12000, blurs=2) if n == 0 else _figures()
            bot.post("answer", {"item": item_id, "position": position, "answer": WRITTEN, **away})
    return study, bot.participant


def test_the_participant_admin_page_shows_the_page_behaviour_figures(left_tab, researcher_client):
    study, participant = left_tab
    page = researcher_client.get(f"/admin/studies/participant/{participant.pk}/change/").content.decode()
    assert LEFT in page


def test_the_exclusion_page_shows_the_figures(left_tab, researcher_client):
    study, participant = left_tab
    page = researcher_client.post(
        "/admin/studies/participant/", {"action": "exclude_with_reason", "_selected_action": [participant.pk]}
    ).content.decode()
    assert LEFT in page


def test_the_monitor_shows_the_figures(left_tab, researcher_client):
    study, _participant = left_tab
    page = researcher_client.get(f"/studies/{study.pk}/monitor/").content.decode()
    assert LEFT in page


def test_the_participants_export_carries_the_figures(left_tab, researcher_client):
    from results.loading.selectors import load_study_data
    from results.presenting.exports import participant_table

    study, _participant = left_tab
    _columns, rows = participant_table(load_study_data(study))
    assert LEFT in rows[0]["flag_evidence"]
