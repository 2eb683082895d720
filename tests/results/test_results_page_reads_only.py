"""A results page request is a read: it writes nothing, not even a row of the task queue, though the
model-likeness flags kept on the participants are out of date, or a large study's results are. The
services that change what they are computed from (here a participant finishing, an exclusion) queue
the tasks that bring them up to date, once their transaction commits; the results task and
`manage.py study_results` keep the flags too."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django_tasks_db.models import DBTaskResult

from results.loading.filters import ResultFilters
from results.pipeline import review_signals_task, study_results_task
from studies.models import Participant
from studies.participants.decisions import participants_exclude
from studies.results_token import results_changed
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


def _results_tasks() -> list[DBTaskResult]:
    return list(DBTaskResult.objects.filter(task_path=study_results_task.module_path))


def test_a_large_studys_results_page_get_writes_nothing(
    implicature, researcher, researcher_client, settings, django_capture_on_commit_callbacks
):
    """A large study's results are computed in the task queue; its page reads what is kept, stale or
    not, and queues nothing: the write that left them stale did."""
    settings.RESULTS_INLINE_ANSWERS = 0
    study = _study_with_a_stale_flag(researcher)
    study_results_task.call(study.pk, {})
    url = f"/studies/{study.pk}/results/"
    assert _writes_of_a_get(researcher_client, url) == []
    with django_capture_on_commit_callbacks(execute=True):
        participants_exclude(participant_ids=[Participant.objects.get(study=study).pk], reason="checked by hand")
    (queued,) = _results_tasks()
    with CaptureQueriesContext(connection) as captured:
        page = researcher_client.get(url).content.decode()
    assert [query["sql"] for query in captured if WRITE.match(query["sql"])] == []
    assert 'id="results-computing"' in page and "These figures were computed at" in page
    assert list(DBTaskResult.objects.all()) == [queued]
    assert _writes_of_a_get(researcher_client, url) == []  # nor when it asks again
    assert list(DBTaskResult.objects.all()) == [queued]


def test_a_large_studys_stale_results_nothing_is_computing_are_computed_by_the_read(
    implicature, researcher, researcher_client, settings
):
    """Stale results that no queued task brings up to date (filters not asked for lately, a lost
    task) are computed in the request, writing nothing."""
    settings.RESULTS_INLINE_ANSWERS = 0
    study = _study_with_a_stale_flag(researcher)
    study_results_task.call(study.pk, {})
    results_changed(study_ids=[study.pk])  # the hooks that would queue wait for a commit that never comes
    with CaptureQueriesContext(connection) as captured:
        page = researcher_client.get(f"/studies/{study.pk}/results/").content.decode()
    assert [query["sql"] for query in captured if WRITE.match(query["sql"])] == []
    assert 'id="results-computing"' not in page and 'id="study-results"' in page
    assert not DBTaskResult.objects.exists()


@pytest.mark.parametrize(("inline_answers", "queued"), [(0, 1), (10_000, 0)], ids=["large", "small"])
def test_a_write_queues_one_results_computation_for_a_large_study(
    implicature, researcher, settings, django_capture_on_commit_callbacks, inline_answers, queued
):
    settings.RESULTS_INLINE_ANSWERS = inline_answers
    study = small_study("queued by writes", units=1, unit_size=3, per_unit=2, attention_checks=0, owner=researcher)
    with django_capture_on_commit_callbacks(execute=True):
        Bot(study, pid(4300)).complete()  # an answer stored per item, then finishing: one computation
    assert len(_results_tasks()) == queued
    someone = Participant.objects.get(study=study)
    with django_capture_on_commit_callbacks(execute=True):
        participants_exclude(participant_ids=[someone.pk], reason="checked by hand")
    # the one queued still holds its place: it reads the data when it runs
    assert [task.args_kwargs["args"] for task in _results_tasks()] == [[study.pk, {}]] * queued


def test_a_change_after_a_computation_queues_the_next_after_its_rest(
    implicature, researcher, settings, django_capture_on_commit_callbacks
):
    settings.RESULTS_INLINE_ANSWERS = 0
    study = _study_with_a_stale_flag(researcher)
    study_results_task.call(study.pk, {})
    with django_capture_on_commit_callbacks(execute=True):
        participants_exclude(participant_ids=[Participant.objects.get(study=study).pk], reason="checked by hand")
    (queued,) = _results_tasks()
    assert queued.run_after is not None and queued.run_after > queued.enqueued_at


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


def test_a_change_during_a_computation_queues_the_next_when_it_ends(
    implicature, researcher, settings, monkeypatch, django_capture_on_commit_callbacks
):
    from results import pipeline
    from results.presenting import cache

    settings.RESULTS_INLINE_ANSWERS = 0
    study = _study_with_a_stale_flag(researcher)
    keep = pipeline.study_results_keep

    def keep_while_a_participant_is_excluded(*args, **kwargs):
        computed = keep(*args, **kwargs)
        # committed while this computation runs: the place it holds stops the write queueing another
        with django_capture_on_commit_callbacks(execute=True):
            participants_exclude(participant_ids=[Participant.objects.get(study=study).pk], reason="checked")
        assert _results_tasks() == []
        return computed

    monkeypatch.setattr(pipeline, "study_results_keep", keep_while_a_participant_is_excluded)
    cache.caches[cache.RESULTS_CACHE].add(f"{cache._key(study, ResultFilters())}:queued", True)
    study_results_task.call(study.pk, {})
    (queued,) = _results_tasks()
    assert queued.args_kwargs["args"] == [study.pk, {}] and queued.run_after is not None
