"""A results page request is a read: it writes nothing of the study's data, though the model-likeness
flags kept on the participants are out of date. It queues, once per state of the study, the task that
brings them up to date (its only write, a row of the task queue's own table); the results task and
`manage.py study_results` keep them too."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django_tasks_db.models import DBTaskResult

from results.computing.tasks import review_signals_task
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


def test_a_results_page_get_writes_nothing(implicature, researcher, researcher_client):
    study = _study_with_a_stale_flag(researcher)
    queue = DBTaskResult._meta.db_table
    with CaptureQueriesContext(connection) as captured:
        page = researcher_client.get(f"/studies/{study.pk}/results/")
    assert page.status_code == 200
    writes = [q["sql"] for q in captured if WRITE.match(q["sql"])]
    assert [sql for sql in writes if queue not in sql] == []
    assert Participant.objects.get(study=study).review_signals != {}
    # the refresh is queued once for this state of the study; run, it clears the stale flag
    assert researcher_client.get(f"/studies/{study.pk}/results/").status_code == 200
    (queued,) = DBTaskResult.objects.filter(task_path=review_signals_task.module_path)
    assert queued.args_kwargs["args"] == [study.pk]
    review_signals_task.call(study.pk)
    assert Participant.objects.get(study=study).review_signals == {}


def test_the_study_results_command_keeps_the_flags_current(implicature, researcher):
    study = _study_with_a_stale_flag(researcher)
    call_command("study_results", study.name, "--json", stdout=StringIO())
    assert Participant.objects.get(study=study).review_signals == {}
