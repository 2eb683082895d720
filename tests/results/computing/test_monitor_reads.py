"""The monitor's reads (`monitor`) on studies walked by Bots over HTTP on a test clock."""

from __future__ import annotations

from dataclasses import asdict
from datetime import timedelta

import pytest
from freezegun import freeze_time

from results.pipeline import study_monitor
from studies.models import Participant, Response, Study
from studies.participants.quality import FLAGS, participant_flags, participants_flagged
from tests.conftest import committed_world_wipe, dataset
from tests.factories import Bot, pid, small_study
from tests.studies.monitoring import READ_AT, T0, busy_study, pseudonym

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def _busy_world(django_db_setup, django_db_blocker):
    """The busy study, built once for the module and committed: walking its ten participants over
    HTTP took 5-10 s per test. Each test still runs in a transaction of its own (rolled back)."""
    dataset("implicature")
    with django_db_blocker.unblock():
        yield busy_study().pk
        committed_world_wipe()


@pytest.fixture
def busy(_busy_world, implicature):
    return Study.objects.get(pk=_busy_world)


def test_it_counts_every_kind_of_participant(busy):
    data = study_monitor(busy, now=READ_AT)
    assert asdict(data.counts) == {
        "arrivals": 10,
        "working": 1,
        "completed": 6,
        "timed_out": 1,
        "returned": 1,
        "declined": 1,
        "screened_out": 0,
        "excluded": 1,
    }
    assert [(u.label, u.completed, u.working, u.excluded, u.filled, u.capacity) for u in data.units] == [
        ("U1", 3, 0, 0, 3, 4),
        ("U2", 2, 1, 1, 3, 4),
    ]
    assert data.categories == [], "implicature units have no balancing category"
    assert asdict(data.attention) == {
        "checks_per_participant": 1,
        "exclude_at": 1,
        "participants_failing": 1,
        "failures": 1,
    }


def test_an_active_participant_silent_past_the_timeout_counts_as_timed_out_before_the_sweep(busy):
    working = Participant.objects.get(study=busy, prolific_pid=pid(8))
    later = working.last_seen_at + timedelta(minutes=busy.reservation_timeout_minutes, seconds=1)
    counts = study_monitor(busy, now=later).counts
    assert (counts.working, counts.timed_out) == (0, 2)
    assert Participant.objects.get(pk=working.pk).status == Participant.Status.ACTIVE, "the monitor never writes"


def test_pay_is_judged_on_the_median_completion_time(busy):
    # completions of 2, 2, 2, 1 (A5), 0.05 (A6) and 2 (A7) minutes: median 2 min; 10p in 2 min is £3/h
    assert asdict(study_monitor(busy, now=READ_AT).pay) == {
        "reward_pence": 10,
        "currency": "GBP",  # no Prolific study: Prolific's default
        "completions": 6,
        "median_minutes": 2.0,
        "hourly_pence": 300.0,
        "minimum_pence": 600,
        "recommended_pence": 900,
        "verdict": "below_minimum",
        "too_few_completions": False,
    }


def test_drop_off_counts_who_reached_each_position_and_who_left_there(busy):
    # A1 (timed out) and A9 (returned) left with one item answered; A8 works at position 3
    rows = study_monitor(busy, now=READ_AT).drop_off
    assert [(r.position, r.reached, r.left) for r in rows] == [
        (1, 9, 0),
        (2, 9, 2),
        (3, 7, 0),
        (4, 6, 0),
        (5, 6, 0),
        (6, 6, 0),
    ]


def test_flags_and_warnings_name_the_straight_liner_and_the_fast_responder(busy):
    data = study_monitor(busy, now=READ_AT)
    assert [(row.pseudonym, row.flags) for row in data.flagged] == [
        (pseudonym(busy, 5), ["straight_lining"]),
        # the scripted fast responder posts without the page's script, sooner than its items can be read
        (pseudonym(busy, 6), ["fast_items", "bot_speed"]),
    ]
    assert data.flag_counts == {**dict.fromkeys(FLAGS, 0), "fast_items": 1, "straight_lining": 1, "bot_speed": 1}
    assert data.warnings == [
        "Pay is below Prolific's minimum: £3.00/h at the median completion time of 2.0 min (minimum £6.00/h). "
        "Raise the reward or shorten the study.",
        "Flagged for review: 1 fast, 1 straight-lining, 1 bot-like (hidden field or no-script speed) "
        "(see the list below).",
    ]


def test_answers_per_minute_count_the_recent_window(busy):
    # the last answers: A8's second at 11:40:03 and A9's at 11:40:23; nothing since
    rate = study_monitor(busy, now=T0 + timedelta(minutes=105)).rate
    assert (rate.answers, rate.per_minute, rate.window_minutes) == (2, 0.4, 5)
    assert study_monitor(busy, now=READ_AT).rate.answers == 0


def test_the_timeline_is_cumulative_arrivals_and_completions(busy):
    timeline = study_monitor(busy, now=READ_AT).timeline
    assert asdict(timeline[0]) == {"at": T0, "arrivals": 1, "completions": 0}
    assert (timeline[-1].arrivals, timeline[-1].completions) == (10, 6)
    assert [p.at for p in timeline] == sorted(p.at for p in timeline)


def test_prolifics_3_sd_rule_flags_one_much_faster_completion_among_eleven(implicature):
    study = small_study("eleven", units=1, unit_size=2, per_unit=11, attention_checks=0)
    with freeze_time(T0) as clock:
        for n in range(11):
            seconds = 2 if n == 10 else 300  # ten take 10 minutes, one 4 seconds (2 s per item: not under 1.5)
            Bot(study, pid(n)).start_items().answer_items(
                wait=lambda seconds=seconds: clock.tick(timedelta(seconds=seconds))
            )
    data = study_monitor(study, now=T0 + timedelta(hours=2))
    # its 2 s per item, without the page's script, is also under the items' reading floor
    assert [(row.pseudonym, row.flags) for row in data.flagged] == [("A11", ["fast_completion", "bot_speed"])]
    assert participants_flagged(Participant.objects.all(), "fast_completion").get().pseudonym == "A11"


def test_a_pasted_written_answer_is_flagged(instruction_induction):
    from studies.setup.studies import study_create

    study = study_create(
        name="written", benchmark="instruction_induction", design={"tasks_per_participant": 3, "annotators_per_task": 1}
    )
    typed, pasting = Bot(study, pid(1)), Bot(study, pid(2))
    written = "Write the word that means the opposite of the input."
    with freeze_time(T0) as clock:
        typed.start_items().answer_items(lambda item: written, wait=lambda: clock.tick(timedelta(seconds=40)))
        pasting.start_items()
        item_id, position = pasting.current_form(pasting.step().content.decode())
        pasting.post("answer", {"item": item_id, "position": position, "answer": written, "pasted": "true"})
    # the pasting participant posted at once, without the page's script: a bot's speed too
    assert participant_flags(Participant.objects.filter(study=study)) == {
        pasting.participant.pk: ["pasted", "bot_speed"]
    }
    assert study_monitor(study).flag_counts["pasted"] == 1


def test_invalid_answers_and_balancing_categories_are_reported(db):
    from annotation.services import benchmark_import
    from studies.setup.studies import study_create

    benchmark_import(name="ambibench", source=None, options={"episodes": 12, "instruction_prompts": 12})
    study = study_create(name="ambi monitored", benchmark="ambibench", design={"per_feature": 1})
    bot = Bot(study, pid(1)).start_items()
    bot.answer_items(lambda item: "x", count=1)
    # today "maybe" is asked again and never stored; an older study's database still holds it
    Response.objects.filter(participant=bot.participant).update(raw_answer="maybe", answer="", valid=False)
    data = study_monitor(study)
    assert len(data.items_with_invalid_answers) == 1
    assert data.items_with_invalid_answers[0].invalid == data.items_with_invalid_answers[0].answers == 1
    categories = {unit.category for unit in study.units.all()}
    assert {row.category for row in data.categories} == categories and len(categories) > 1
    assert sum(row.working for row in data.categories) == 1
    assert sum(row.capacity for row in data.categories) == sum(u.capacity for u in study.units.all())
