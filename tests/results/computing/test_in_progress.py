"""The results count as "in progress" everyone still working, as the monitor does: an AmbiBench
participant on the consent, the instructions or a first sentence is working before any answer."""

from __future__ import annotations

import pytest
from django.test import Client

from results.pipeline import study_monitor
from studies.models import Study
from tests.factories import Bot, pid

pytestmark = pytest.mark.django_db


def test_the_results_and_the_monitor_agree_on_who_is_working(ambi, researcher):
    study = Study.objects.get(pk=ambi.study_id)
    Study.objects.filter(pk=study.pk).update(owner=researcher)
    client = Client()
    client.force_login(researcher)

    def in_progress() -> str:
        return client.get(f"/studies/{study.pk}/results/").content.decode()

    assert "0 in progress" in in_progress()  # computed and kept before anyone new arrives
    working = Bot(study, pid(901)).start_items()  # on the first sentence, nothing answered yet
    assert study_monitor(study).counts.working == 1
    assert "1 in progress" in in_progress()
    working.answer_items(count=3)
    assert "1 in progress" in in_progress()
    Bot(study, pid(902)).enter()  # on the start page: counted too, the monitor counts them
    assert study_monitor(study).counts.working == 2
    assert "2 in progress" in in_progress()
