"""A study in full swing for the monitor's tests, walked by Bots over HTTP on a test clock.

`busy_study` (2 units × 5 items, 1 attention check, excluded at 1 failure, 4 places per unit,
reward 10p). Times from T0; every answer takes the seconds given:
  A1   answers 1 item at T0 (20 s), then silent: timed out when A2 enters 90 minutes later
  A2, A3, A4  complete, 20 s per item (6 items: 2 minutes each)
  A5   straight-lines: "yes" to every study item (10 s each)
  A6   answers in 0.5 s per item (a fast responder by item time)
  A7   fails the attention check (excluded), 20 s per item
  A8   still working: 2 items answered
  A9   answered 1 item, then returned (marked so, as Prolific tells the researcher)
  A10  declined consent
The monitor is read at T0 + 90 min + 30 min.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from freezegun import freeze_time

from studies.models import Participant, Study
from studies.participants.decisions import participants_mark_returned
from tests.factories import Bot, pid, small_study

T0 = datetime(2026, 1, 5, 10, 0, tzinfo=UTC)
READ_AT = T0 + timedelta(minutes=120)


def _yes_to_items(item) -> str:
    return item.gold if item.is_attention_check else "yes"


def _fail_checks(item) -> str:
    return ("no" if item.gold == "yes" else "yes") if item.is_attention_check else item.gold


def busy_study(name: str = "busy study", owner=None) -> Study:
    with freeze_time(T0) as clock:

        def wait(seconds: float):
            return lambda: clock.tick(timedelta(seconds=seconds))

        study = small_study(
            name, units=2, unit_size=5, per_unit=4, attention_checks=1, exclude_at=1, reward_pence=10, owner=owner
        )
        Bot(study, pid(1)).start_items().answer_items(count=1, wait=wait(20))
        clock.tick(timedelta(minutes=90))
        for n in (2, 3, 4):
            Bot(study, pid(n)).start_items().answer_items(wait=wait(20))
        Bot(study, pid(5)).start_items().answer_items(_yes_to_items, wait=wait(10))
        Bot(study, pid(6)).start_items().answer_items(wait=wait(0.5))
        Bot(study, pid(7)).start_items().answer_items(_fail_checks, wait=wait(20))
        Bot(study, pid(8)).start_items().answer_items(count=2, wait=wait(20))
        leaver = Bot(study, pid(9)).start_items().answer_items(count=1, wait=wait(20))
        participants_mark_returned(participant_ids=[leaver.participant.pk])
        decliner = Bot(study, pid(10))
        decliner.enter()
        decliner.post("consent", {"agree": "no"})
    return study


def pseudonym(study: Study, n: int) -> str:
    return Participant.objects.get(study=study, prolific_pid=pid(n)).pseudonym
