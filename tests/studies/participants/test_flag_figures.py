"""Flags judged on a participant's own answers show their figures wherever flags show: the
participant's admin page, the exclusion page, the live monitor and the participants' export."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from freezegun import freeze_time

from annotation.models import Item
from studies.models import Participant, Response
from studies.participants.quality import FLAGS, evidence, participant_evidence, participant_flags
from studies.setup.studies import study_create
from tests.factories import Bot, pid, small_study

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
    from results.loading.exports import load_export_records
    from results.loading.selectors import load_study_data
    from results.presenting.exports import participant_table

    study, _participant = left_tab
    data = load_study_data(study)
    _columns, rows = participant_table(data, load_export_records(data, "participants-csv"))
    assert LEFT in rows[0]["flag_evidence"]


def test_yes_to_14_of_15_items_is_flagged_with_its_figures_and_answering_right_is_not(implicature):
    study = small_study("near-constant", units=1, unit_size=15, per_unit=2, attention_checks=0)
    said_no: list[int] = []

    def yes_but_once(item: Item) -> str:
        if not said_no and item.gold == "no":
            said_no.append(item.pk)
            return "no"
        return "yes"

    Bot(study, pid(2)).complete(yes_but_once)
    Bot(study, pid(3)).complete(lambda item: item.gold)
    near, right = (Participant.objects.get(study=study, prolific_pid=pid(n)) for n in (2, 3))
    golds = list(Response.objects.filter(participant=near).values_list("item__gold", flat=True))
    gold_yes = golds.count("yes")
    # the items' gold is no reason for so many "yes": answering them right is not flagged
    assert len(golds) == 15 and said_no and gold_yes < 14
    flagged = participant_flags(Participant.objects.filter(study=study))
    assert "straight_lining" in flagged[near.pk] and "straight_lining" not in flagged.get(right.pk, [])
    figures = participant_evidence(Participant.objects.filter(pk=near.pk))[near.pk]
    assert evidence("straight_lining", near.review_signals, figures) == (
        f"{FLAGS['straight_lining']}: “yes” to 14 of 15 study items, the gold answer of {gold_yes}"
    )
