"""A results page request is a read: it writes nothing, not even a row of the task queue, though the
model-likeness flags kept on the participants are out of date. The services that change what the
flags are computed from (here a participant finishing) queue the task that brings them up to date,
once their transaction commits; the results task and `manage.py study_results` keep them too."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django_tasks_db.models import DBTaskResult

from results.computing.tasks import review_signals_task
from results.loading.filters import ResultFilters
from results.presenting.cache import results_lookup
from studies.models import Participant
from tests.factories import Bot, pid, small_study

pytestmark = pytest.mark.django_db

WRITE = re.compile(r"^\s*(INSERT|UPDATE|DELETE)\b", re.IGNORECASE)


def _study_with_a_stale_flag(owner):
    """A study with no model run, whose one participant still carries a model-likeness flag: computed
    now, the flags would clear it."""
    study = small_study("reads only", units=1, unit_size=3, per_unit=2, attention_checks=1, owner=owner)
    Bot(study, pid(4200)).complete()
    Participant.objects.filter(study=study).update(review_signals={"model_like": {"evidence": "from before"}})
    return study


def _writes_of_a_get(client, url: str) -> list[str]:
    with CaptureQueriesContext(connection) as captured:
        page = client.get(url)
    assert page.status_code == 200
    return [query["sql"] for query in captured if WRITE.match(query["sql"])]


def test_a_small_studys_results_page_get_writes_nothing(implicature, researcher, researcher_client):
    study = _study_with_a_stale_flag(researcher)
    url = f"/studies/{study.pk}/results/"
    assert _writes_of_a_get(researcher_client, url) == []
    assert _writes_of_a_get(researcher_client, url) == []  # nor the second time
    assert Participant.objects.get(study=study).review_signals != {}
    assert not DBTaskResult.objects.exists()


def test_a_large_studys_results_page_get_writes_nothing(implicature, researcher, researcher_client, settings):
    """A large study's results are computed in the task queue; its page reads what is kept."""
    settings.RESULTS_INLINE_ANSWERS = 0
    study = _study_with_a_stale_flag(researcher)
    results_lookup(study, ResultFilters())  # queues the computation, run at once here by the task itself
    (queued,) = DBTaskResult.objects.all()
    queued.task.call(*queued.args_kwargs["args"])
    DBTaskResult.objects.all().delete()
    assert _writes_of_a_get(researcher_client, f"/studies/{study.pk}/results/") == []
    assert not DBTaskResult.objects.exists()


def test_a_participant_finishing_queues_fresh_flags(implicature, researcher, django_capture_on_commit_callbacks):
    study = _study_with_a_stale_flag(researcher)
    with django_capture_on_commit_callbacks(execute=True):
        Bot(study, pid(4201)).complete()
    (queued,) = DBTaskResult.objects.filter(task_path=review_signals_task.module_path)
    assert queued.args_kwargs["args"] == [study.pk]
    review_signals_task.call(study.pk)
    assert list(Participant.objects.filter(study=study).values_list("review_signals", flat=True)) == [{}, {}]


def test_the_study_results_command_keeps_the_flags_current(implicature, researcher):
    study = _study_with_a_stale_flag(researcher)
    call_command("study_results", study.name, "--json", stdout=StringIO())
    assert Participant.objects.get(study=study).review_signals == {}
