"""The monitor's pay per hour says when it rests on too few completions to judge the pay by."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from freezegun import freeze_time

from tests.factories import Bot, pid, small_study
from tests.personas import researcher, signed_in

pytestmark = pytest.mark.django_db


def _pay(owner, study) -> str:
    html = signed_in(owner).get(f"/studies/{study.pk}/monitor/").content.decode()
    return re.sub(
        r"\s+", " ", re.sub(r"<[^>]+>", " ", re.search(r'<dd id="monitor-pay">(.*?)</dd>', html, re.S).group(1))
    )


def _complete(study, n: int, clock, seconds_an_item: float) -> None:
    Bot(study, pid(n)).start_items().answer_items(wait=lambda: clock.tick(timedelta(seconds=seconds_an_item)))


def test_one_six_second_completion_comes_with_a_caveat_and_five_without(implicature):
    owner = researcher()
    study = small_study("paid", units=1, unit_size=2, per_unit=6, attention_checks=1, reward_pence=63, owner=owner)
    with freeze_time(timezone.now() - timedelta(hours=1)) as clock:
        _complete(study, 1, clock, 2)  # 3 items in 6 s: 63p makes £378/h
    pay = _pay(owner, study)
    assert pay.startswith("£378.00 from 1 completion — too few to judge ")
    with freeze_time(timezone.now() - timedelta(minutes=30)) as clock:
        for n in range(2, 5):
            _complete(study, n, clock, 20)
    assert "from 4 completions — too few to judge" in _pay(owner, study)
    with freeze_time(timezone.now() - timedelta(minutes=10)) as clock:
        _complete(study, 5, clock, 20)
    assert "too few" not in _pay(owner, study)
