"""A results page request is a read: it issues no INSERT, UPDATE or DELETE, though the model-likeness
flags kept on the participants are out of date (they are kept current where results are computed off
a page request: the results task and `manage.py study_results`)."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

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
    with CaptureQueriesContext(connection) as captured:
        page = researcher_client.get(f"/studies/{study.pk}/results/")
    assert page.status_code == 200
    assert [q["sql"] for q in captured if WRITE.match(q["sql"])] == []
    assert Participant.objects.get(study=study).review_signals != {}


def test_the_study_results_command_keeps_the_flags_current(implicature, researcher):
    study = _study_with_a_stale_flag(researcher)
    call_command("study_results", study.name, "--json", stdout=StringIO())
    assert Participant.objects.get(study=study).review_signals == {}
