"""The bound on a study's answers that decides, after each committed change, whether its results are
queued (`results.loading.answer_bound`): never below the committed answers, counted once, and the
results queued by the answer that takes the study past the inline limit, not before."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django_tasks_db.models import DBTaskResult

from results.loading.answer_bound import answers_at_most
from results.pipeline import study_results_task
from studies.models import Participant, Response
from studies.participants.decisions import participants_exclude
from tests.factories import Bot, pid, small_study

pytestmark = pytest.mark.django_db


def _results_tasks() -> int:
    return DBTaskResult.objects.filter(task_path=study_results_task.module_path).count()


def test_the_bound_is_counted_once_then_raised_and_never_below_the_answers(implicature, researcher):
    study = small_study("bounded", units=1, unit_size=3, per_unit=3, attention_checks=1, owner=researcher)
    Bot(study, pid(7100)).complete()  # the hooks wait for a commit that never comes: nothing counted yet
    with CaptureQueriesContext(connection) as counted:
        first = answers_at_most(study.pk)
    assert first == Response.objects.filter(participant__study=study).count() == 4 and len(counted) == 1
    with CaptureQueriesContext(connection) as raised:
        assert answers_at_most(study.pk) == 5
    assert len(raised) == 0


def test_the_answer_that_passes_the_inline_limit_queues_the_results(
    implicature, researcher, settings, django_capture_on_commit_callbacks
):
    """A limit of 5 answers: the first participant's 4 answers and an exclusion queue nothing; the
    second participant's answers pass it, and the first of them queues the results."""
    settings.RESULTS_INLINE_ANSWERS = 5
    study = small_study("crossing", units=1, unit_size=3, per_unit=3, attention_checks=1, owner=researcher)
    with django_capture_on_commit_callbacks(execute=True):
        Bot(study, pid(7200)).complete()
    with django_capture_on_commit_callbacks(execute=True):
        participants_exclude(participant_ids=[Participant.objects.get(study=study).pk], reason="checked by hand")
    assert _results_tasks() == 0
    second = Bot(study, pid(7201))
    second.start_items()
    with django_capture_on_commit_callbacks(execute=True):
        second.answer_current()
    # the bound (4 answers counted, raised by the exclusion and this answer) is past the limit, though
    # the answers are not: the exact count decides, and queues nothing yet
    assert Response.objects.filter(participant__study=study).count() == 5 and _results_tasks() == 0
    with django_capture_on_commit_callbacks(execute=True):
        second.answer_current()
    assert Response.objects.filter(participant__study=study).count() == 6 and _results_tasks() == 1
