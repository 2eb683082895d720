"""A study's results are kept until what they are computed from changes: an answer stored, a
participant excluded or included, a run finished or cancelled; the next read then computes them
again. A large study's are computed in the task queue (the database queue and a worker's step here)
while the page says so and asks again (htmx), and the API answers 202 until they are ready."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from annotation.models import Item
from modelruns.models import ModelRun, ModelShard, ModelSpec
from modelruns.services import modelrun_cancel, setting_key
from modelruns.shards import shard_complete
from parity.benchmarks.base import ModelAnswer
from results.computing.tree import Participants
from results.loading.filters import ResultFilters
from results.pipeline import results_lookup
from results.presenting.cache import asked_lately, asked_note
from studies.models import Participant, Study
from studies.participants.decisions import participants_exclude, participants_include
from tests.factories import Bot, pid, small_study

pytestmark = pytest.mark.django_db

COMPUTING = 'id="results-computing"'


def _study(researcher, name: str = "kept") -> Study:
    """Two units of three items, one participant complete in each."""
    study = small_study(name, units=2, unit_size=3, per_unit=2, attention_checks=0, exclude_at=0, owner=researcher)
    for n in range(2):
        Bot(study, pid(0x500 + n)).complete()
    return study


def _read(study: Study, filters: ResultFilters | None = None):
    return results_lookup(Study.objects.get(pk=study.pk), filters or ResultFilters())


def _run(study: Study, template: int) -> tuple[ModelRun, ModelShard]:
    spec, _ = ModelSpec.objects.get_or_create(name="tiny-lm", defaults={"model": "local/tiny-lm"})
    setting = {"variant": "ranking", "k": 0, "seed": 0, "template": template}
    items = [link.item for unit in study.units.all() for link in unit.unit_items.select_related("item")]
    run = ModelRun.objects.create(
        study=study,
        spec=spec,
        setting=setting,
        setting_key=setting_key(setting),
        status=ModelRun.Status.RUNNING,
        progress_total=len(items),
    )
    shard = ModelShard.objects.create(
        run=run, index=0, item_ids=[item.pk for item in items], size=len(items), status=ModelShard.Status.RUNNING
    )
    return run, shard


def test_a_second_read_takes_the_kept_results(implicature, researcher):
    study = _study(researcher)
    first, second = _read(study), _read(study)
    assert first.current and second.current
    assert second.computed.computed_at == first.computed.computed_at
    assert second.computed.results == first.computed.results


def test_an_answer_stored_makes_the_next_read_compute_them_again(implicature, researcher):
    study = _study(researcher)
    before = _read(study).computed
    assert before.results.participants.in_progress == 0
    Bot(study, pid(0x600)).start_items().answer_items(count=1)
    after = _read(study).computed
    assert after.computed_at > before.computed_at
    assert after.results.participants.in_progress == 1


def test_an_exclusion_and_an_inclusion_each_make_the_next_read_compute_them_again(implicature, researcher):
    study = _study(researcher)
    assert _read(study).computed.results.participants == Participants(included=2, excluded=0, in_progress=0, imported=0)
    someone = Participant.objects.filter(study=study).first()
    participants_exclude(participant_ids=[someone.pk], reason="checked by hand")
    assert _read(study).computed.results.participants.excluded == 1
    participants_include(participant_ids=[someone.pk])
    assert _read(study).computed.results.participants.excluded == 0


def test_a_run_finished_enters_the_next_read(implicature, researcher):
    study = _study(researcher)
    run, shard = _run(study, template=2)
    assert _read(study).computed.results.models == []
    golds = dict(Item.objects.filter(pk__in=shard.item_ids).values_list("pk", "gold"))
    shard_complete(
        shard=shard,
        worker="test",
        answers={pk: ModelAnswer(gold, f" {gold}", True, True) for pk, gold in golds.items()},
    )
    run.refresh_from_db()
    assert run.status == ModelRun.Status.DONE
    models = _read(study).computed.results.models
    assert [model.run for model in models] == [run.pk] and models[0].accuracy == 1.0


def test_a_run_cancelled_makes_the_next_read_compute_them_again(implicature, researcher):
    study = _study(researcher)
    run, _ = _run(study, template=3)
    ModelRun.objects.filter(pk=run.pk).update(status=ModelRun.Status.QUEUED)
    before = _read(study).computed
    modelrun_cancel(run=run)
    after = _read(study).computed
    assert after.computed_at > before.computed_at
    # only finished runs are in the results: a cancelled one never is
    assert after.results.models == before.results.models == []


def test_each_filter_is_kept_apart(implicature, researcher):
    study = _study(researcher)
    whole, first_unit = _read(study), _read(study, ResultFilters(unit="U1"))
    assert whole.computed.results.participants.included == 2
    assert first_unit.computed.results.participants.included == 1
    assert _read(study).computed.computed_at == whole.computed.computed_at


# -- a large study: computed in the task queue ------------------------------------------------------


@pytest.fixture
def large(settings):
    """Every study counts as large: its results are computed in the task queue."""
    settings.RESULTS_INLINE_ANSWERS = 0


def _worker_step() -> None:
    call_command(
        "db_worker", "--queue-name", "default", "--batch", "--no-startup-delay", stdout=StringIO(), stderr=StringIO()
    )


@pytest.mark.django_db(transaction=True)  # the database worker closes its connection between tasks
def test_a_large_studys_page_says_computing_then_shows_the_results(implicature, researcher, client, large):
    from django_tasks_db.models import DBTaskResult

    from results.pipeline import study_results_task

    study = _study(researcher, "large")
    client.force_login(researcher)
    url = f"/studies/{study.pk}/results/"
    page = client.get(url).content.decode()
    assert COMPUTING in page and "being computed" in page
    assert f'hx-get="{url}" hx-trigger="every 3s"' in page
    assert '<noscript><meta http-equiv="refresh" content="3"></noscript>' in page
    assert DBTaskResult.objects.filter(task_path=study_results_task.module_path).count() == 1
    # polling again before a worker ran queues nothing more
    assert COMPUTING in client.get(url, headers={"HX-Request": "true"}).content.decode()
    assert DBTaskResult.objects.filter(task_path=study_results_task.module_path).count() == 1
    _worker_step()
    fragment = client.get(url, headers={"HX-Request": "true"}).content.decode()
    assert COMPUTING not in fragment and "hx-trigger" not in fragment.split(">", 1)[0]
    assert 'id="study-results"' in fragment and "Accuracy" in fragment


@pytest.mark.django_db(transaction=True)
def test_a_changed_large_study_shows_its_earlier_figures_while_the_new_ones_are_computed(
    implicature, researcher, client, large
):
    study = _study(researcher, "large live")
    client.force_login(researcher)
    url = f"/studies/{study.pk}/results/"
    client.get(url)
    _worker_step()
    assert COMPUTING not in client.get(url).content.decode()
    Bot(study, pid(0x700)).start_items().answer_items(count=1)
    page = client.get(url).content.decode()
    # the figures of before the answer, said to be so, and the page asks again
    assert COMPUTING in page and "These figures were computed at" in page and "hx-trigger" in page
    assert "Accuracy" in page


@pytest.mark.django_db(transaction=True)
def test_the_api_answers_202_until_a_large_studys_results_are_ready(implicature, researcher, client, large):
    study = _study(researcher, "large api")
    client.force_login(researcher)
    url = f"/api/studies/{study.pk}/results/"
    waiting = client.get(url)
    assert waiting.status_code == 202 and waiting["Retry-After"] == "5"
    assert "being computed" in waiting.json()["detail"]
    _worker_step()
    ready = client.get(url)
    assert ready.status_code == 200 and ready.json()["participants"]["included"] == 2


def test_results_kept_by_code_with_another_tree_layout_are_not_read(implicature, researcher, monkeypatch):
    """An entry is the pickled tree: a node gaining a field (a deploy) changes the layout, and with it
    the key under which the results are kept."""
    from dataclasses import dataclass

    from results.presenting import cache

    class Root:
        pass

    @dataclass(frozen=True)
    class Leaf(Root):
        kept: int

    before = cache.layout_of(Root)

    @dataclass(frozen=True)
    class Grown(Root):
        added: str

    assert cache.layout_of(Root) != before
    study = _study(researcher)
    key = cache._key(study, ResultFilters())
    monkeypatch.setattr(cache, "TREE_LAYOUT", "another")
    assert cache._key(study, ResultFilters()) != key


def test_the_filters_asked_lately_come_back_as_filters_newest_first_once_each(researcher):
    study = small_study("asked", units=2, unit_size=3, per_unit=2, attention_checks=0, exclude_at=0, owner=researcher)
    for filters in (ResultFilters(unit="U1"), ResultFilters(category="Generalised", flagged="exclude")):
        asked_note(study, filters)
    asked_note(study, ResultFilters(unit="U1"))
    assert asked_lately(study) == [ResultFilters(unit="U1"), ResultFilters(category="Generalised", flagged="exclude")]
