"""The study's runs page and partial, and the start form, through HTTP."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from modelruns import services, shards
from modelruns.models import ModelRun, ModelShard
from tests import personas

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def urls(small_implicature_study):
    study = small_implicature_study
    return reverse("modelruns:study_runs", args=[study.pk]), reverse("modelruns:start", args=[study.pk])


def test_anonymous_visitors_are_sent_to_the_login(client, urls):
    for url in urls:
        response = client.get(url) if url == urls[0] else client.post(url, {"model": "smollm2"})
        assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
    assert not ModelRun.objects.exists()


def test_logged_in_non_researchers_are_refused(client, django_user_model, urls):
    user = personas.member("participant-ish")
    client.force_login(user)
    assert client.get(urls[0]).status_code == 403
    assert client.post(urls[1], {"model": "smollm2"}).status_code == 403
    assert not ModelRun.objects.exists()


def test_an_unknown_study_is_404_and_start_takes_only_post(researcher_client, urls):
    assert researcher_client.get(reverse("modelruns:study_runs", args=[99999])).status_code == 404
    assert researcher_client.get(urls[1]).status_code == 405


def test_the_page_and_the_partial_share_the_runs_block(researcher_client, urls):
    page = researcher_client.get(urls[0])
    html = page.content.decode()
    assert page.status_code == 200 and "<html" in html and 'id="model-runs"' in html
    partial = researcher_client.get(urls[0], **HTMX).content.decode()
    assert "<html" not in partial and partial.strip().startswith('<section class="card" id="model-runs">')
    assert "No model has been run" in partial and 'hx-trigger="every 2s"' not in partial
    assert f'action="{urls[1]}"' in partial and 'name="csrfmiddlewaretoken"' in partial


def test_the_runs_form_loaded_into_the_results_page_keeps_its_own_ids(researcher_client, urls, small_implicature_study):
    """The results page's filters are named model and setting too: each label must find its own field."""
    ids = re.compile(r'\bid="([^"]+)"')
    results = researcher_client.get(reverse("results:study", args=[small_implicature_study.pk])).content.decode()
    partial = researcher_client.get(urls[0], **HTMX).content.decode()
    assert 'id="id_model"' in results and 'for="run_model"' in partial and 'id="run_model"' in partial
    assert set(ids.findall(results)) & set(ids.findall(partial)) == {"model-runs"}  # the one htmx swaps


def test_starting_a_run_from_the_form_queues_it_and_the_partial_polls(
    researcher_client, urls, django_capture_on_commit_callbacks
):
    from django_tasks_db.models import DBTaskResult

    with django_capture_on_commit_callbacks(execute=True):
        response = researcher_client.post(
            urls[1],
            {
                "model": "smollm2",
                "kind": "causal",
                "dtype": "float32",
                "device": "auto",
                "setting_template": "5",
                "setting_k": "1",
            },
        )
    assert response.status_code == 302 and response["Location"] == urls[0]
    run = ModelRun.objects.get()
    assert run.setting["template"] == 5 and run.setting["k"] == 1 and run.spec.model == "smollm2"
    assert DBTaskResult.objects.filter(task_path="modelruns.tasks.run_shard").count() == run.shards.count() == 1
    partial = researcher_client.get(urls[0], **HTMX).content.decode()
    assert 'hx-trigger="every 2s"' in partial and f'id="model-run-{run.pk}"' in partial
    assert "template 5, k=1" in partial and "0 / 10" in partial and "Queued" in partial


def test_a_finished_run_shows_its_accuracy_and_polling_stops(
    researcher_client, urls, small_implicature_study, tiny_spec
):
    run = services.modelrun_start(study=small_implicature_study, spec=tiny_spec, enqueue=False).run
    shards.modelrun_work(run=run, worker="w1")
    run.refresh_from_db()
    correct = run.responses.filter(correct=True).count()
    partial = researcher_client.get(urls[0], **HTMX).content.decode()
    assert 'hx-trigger="every 2s"' not in partial and "Done" in partial
    assert f"{round(100 * correct / 10)}% " in partial and f"({correct}/10)" in partial


def test_the_htmx_form_swaps_in_the_partial_and_shows_errors(researcher_client, urls):
    response = researcher_client.post(
        urls[1], {"model": "smollm2", "kind": "causal", "dtype": "float32", "setting_template": "99"}, **HTMX
    )
    html = response.content.decode()
    assert response.status_code == 200 and 'id="model-runs"' in html and "template must be one of" in html
    response = researcher_client.post(urls[1], {"model": "smollm2", "kind": "nli", "dtype": "float32"})
    assert response.status_code == 400 and "takes causal or seq2seq models" in response.content.decode()
    assert not ModelRun.objects.exists()
    response = researcher_client.post(urls[1], {"model": "smollm2", "kind": "causal", "dtype": "float32"}, **HTMX)
    assert response.status_code == 200 and "template 2, k=0" in response.content.decode()
    assert ModelRun.objects.count() == 1


def test_the_partial_costs_a_fixed_number_of_queries(
    researcher_client, urls, small_implicature_study, tiny_spec, django_assert_max_num_queries
):
    for template in (1, 2, 3):
        services.modelrun_start(
            study=small_implicature_study, spec=tiny_spec, setting={"template": template}, enqueue=False
        )
    with django_assert_max_num_queries(9):  # the queue positions are one query more
        researcher_client.get(urls[0], **HTMX)


def test_the_admin_lists_runs_responses_and_specs(researcher_client, small_implicature_study, tiny_spec):
    run = services.modelrun_start(study=small_implicature_study, spec=tiny_spec, enqueue=False).run
    shards.modelrun_work(run=run, worker="w1")
    for url in (
        "/admin/modelruns/modelrun/",
        "/admin/modelruns/modelresponse/",
        "/admin/modelruns/modelspec/",
        f"/admin/modelruns/modelrun/{run.pk}/change/",
        "/admin/modelruns/modelrun/?status__exact=done",
    ):
        assert researcher_client.get(url).status_code == 200, url
    assert ModelShard.objects.filter(run=run, status=ModelShard.Status.DONE).count() == 1


def test_the_runs_page_says_when_a_shard_was_reclaimed(researcher_client, urls, small_implicature_study, tiny_spec):
    from datetime import timedelta

    from django.utils import timezone

    run = services.modelrun_start(
        study=small_implicature_study, spec=tiny_spec, shard_size=4, lease_seconds=30, enqueue=False
    ).run
    held = shards.shard_claim(run=run, worker="silent")
    ModelShard.objects.filter(pk=held.pk).update(heartbeat_at=timezone.now() - timedelta(seconds=31))
    services.modelrun_sweep()
    html = researcher_client.get(urls[0], **HTMX).content.decode()
    reclaimed_at = ModelShard.objects.get(pk=held.pk).reclaimed_at
    assert (
        f"Shard 0 (4 items) was reclaimed at {reclaimed_at:%Y-%m-%d %H:%M:%S} UTC from a worker whose lease ran out; "
        "it is queued again."
    ) in " ".join(html.split())
    shards.modelrun_work(run=run, worker="fresh")
    html = researcher_client.get(urls[0]).content.decode()
    assert "Shard 0 (4 items) was reclaimed at" in html and "it has finished since." in " ".join(html.split())
    assert "Shard 1 " not in html


# -- queue places, elapsed time, cancelling ------------------------------------------------------


def _cancel_url(run) -> str:
    return reverse("modelruns:cancel", args=[run.study_id, run.pk])


def test_queued_runs_show_their_place_and_a_cancel_button(researcher_client, urls, small_implicature_study, tiny_spec):
    first, second = (
        services.modelrun_start(
            study=small_implicature_study, spec=tiny_spec, setting={"template": t}, enqueue=False
        ).run
        for t in (1, 2)
    )
    html = " ".join(researcher_client.get(urls[0], **HTMX).content.decode().split())
    assert f'<span class="meta" id="model-run-{first.pk}-queue">1st in queue</span>' in html
    assert f'<span class="meta" id="model-run-{second.pk}-queue">2nd in queue</span>' in html
    for run in (first, second):
        assert f'hx-post="{_cancel_url(run)}"' in html and f'action="{_cancel_url(run)}"' in html
    assert 'hx-trigger="every 2s"' in html


def test_a_running_run_shows_its_elapsed_time_and_stops_when_cancelled(
    researcher_client, urls, small_implicature_study, tiny_spec
):
    from datetime import timedelta

    from django.utils import timezone

    run = services.modelrun_start(study=small_implicature_study, spec=tiny_spec, shard_size=4, enqueue=False).run
    pages: list[str] = []

    def look_and_cancel(done: float, total: int) -> None:
        if pages:
            return
        # as if it had started 75 s ago: the page counts from then to now
        ModelRun.objects.filter(pk=run.pk).update(started_at=timezone.now() - timedelta(seconds=75))
        pages.append(researcher_client.get(urls[0], **HTMX).content.decode())
        for _ in range(2):  # a double click
            answer = researcher_client.post(_cancel_url(run), **HTMX)
            assert answer.status_code == 200
            pages.append(answer.content.decode())

    shards.modelrun_work(run=run, worker="w1", on_progress=look_and_cancel)
    running, *cancelling = (" ".join(page.split()) for page in pages)
    assert f'<td id="model-run-{run.pk}-time">1 min 15 s <span class="meta">so far</span>' in running
    assert f'id="cancel-run-{run.pk}"' in running and 'hx-trigger="every 2s"' in running
    for page in cancelling:
        assert 'data-stopping="true"' in page and "Stopping <span" in page
        assert f'id="cancel-run-{run.pk}"' not in page and 'hx-trigger="every 2s"' in page
    run.refresh_from_db()
    assert run.status == ModelRun.Status.CANCELLED
    done = " ".join(researcher_client.get(urls[0], **HTMX).content.decode().split())
    assert 'data-status="cancelled"' in done and 'hx-trigger="every 2s"' not in done  # nothing left to poll
    took = (run.finished_at - run.started_at).total_seconds()
    assert f'<td id="model-run-{run.pk}-time">{int(took) // 60} min {int(took) % 60:02d} s' in done


def test_cancel_without_htmx_goes_back_to_the_runs_page(researcher_client, urls, small_implicature_study, tiny_spec):
    run = services.modelrun_start(study=small_implicature_study, spec=tiny_spec, enqueue=False).run
    response = researcher_client.post(_cancel_url(run))
    assert response.status_code == 302 and response["Location"] == urls[0]
    assert ModelRun.objects.get(pk=run.pk).status == ModelRun.Status.CANCELLED


def test_who_may_cancel_is_who_may_start(client, small_implicature_study, tiny_spec):
    from tests.personas import member, personas_for, signed_in

    people = personas_for(small_implicature_study)
    run = services.modelrun_start(study=small_implicature_study, spec=tiny_spec, enqueue=False).run
    url = _cancel_url(run)
    assert client.post(url).status_code == 302 and client.post(url)["Location"].startswith(reverse("login"))
    assert signed_in(member("nobody")).post(url).status_code == 403
    assert signed_in(people.outsider).post(url).status_code == 404
    viewer = signed_in(people.viewer)
    assert viewer.post(url).status_code == 403  # a view-only collaborator sees the run, not the button
    page = viewer.get(reverse("modelruns:study_runs", args=[small_implicature_study.pk]), **HTMX).content.decode()
    assert f'id="model-run-{run.pk}"' in page and f'id="cancel-run-{run.pk}"' not in page
    assert signed_in(people.collaborator).get(url).status_code == 405
    assert ModelRun.objects.get(pk=run.pk).status == ModelRun.Status.QUEUED
    assert signed_in(people.collaborator).post(url).status_code == 302
    assert ModelRun.objects.get(pk=run.pk).status == ModelRun.Status.CANCELLED


def test_cancel_needs_the_csrf_token_and_a_run_of_this_study(
    researcher_client, researcher, small_implicature_study, tiny_spec
):
    from django.test import Client

    from tests.factories import small_study

    run = services.modelrun_start(study=small_implicature_study, spec=tiny_spec, enqueue=False).run
    guarded = Client(enforce_csrf_checks=True)
    guarded.force_login(researcher)
    assert guarded.post(_cancel_url(run)).status_code == 403
    other = small_study("other pilot", unit_size=5, units=1, per_unit=1, attention_checks=0, owner=researcher)
    assert researcher_client.post(reverse("modelruns:cancel", args=[other.pk, run.pk])).status_code == 404
    assert ModelRun.objects.get(pk=run.pk).status == ModelRun.Status.QUEUED


def test_the_admins_run_list_says_when_a_run_answers_each_item_twice(researcher_client, small_implicature_study):
    """MiQA's language models answer each question in both presentations: the list read "300/300"
    beside "47.2% (283/600)" with nothing to say the 600 were answers to the 300 items."""
    from annotation.models import Item
    from modelruns.models import ModelResponse, ModelRun, ModelSpec

    spec = ModelSpec.objects.create(name="two-presentations", model="local/two")
    items = list(Item.objects.filter(units__study=small_implicature_study, is_attention_check=False)[:3])
    run = ModelRun.objects.create(
        study=small_implicature_study,
        spec=spec,
        setting={"template": 2, "k": 0},
        setting_key="twice",
        status=ModelRun.Status.DONE,
        progress_done=3,
        progress_total=3,
    )
    ModelResponse.objects.bulk_create(
        ModelResponse(
            run=run,
            item=item,
            variant=variant,
            raw_answer=item.gold,
            answer=item.gold,
            valid=True,
            correct=variant == "ab",
            scores={},
        )
        for item in items
        for variant in ("ab", "ba")
    )
    html = researcher_client.get("/admin/modelruns/modelrun/").content.decode()
    assert "50.0% (3/6 answers to 3 items)" in html
    assert "Items done" in html and "3/3" in html
