"""POST /api/studies/{id}/model-runs/start/ and .../model-runs/{run_id}/cancel/: the runs page's
service and the admin's cancel action, with `modelruns.run_model`; starting the same run again
returns the live one, cancelling a cancelled run is a no-op, a finished one a 409."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from modelruns.models import ModelRun, ModelShard
from tests.api.conftest import token_client, user_rate

pytestmark = pytest.mark.django_db


def start_url(study) -> str:
    return f"/api/studies/{study.pk}/model-runs/start/"


def cancel_url(run: ModelRun) -> str:
    return f"/api/studies/{run.study_id}/model-runs/{run.pk}/cancel/"


def test_a_researcher_starts_a_run_with_a_setting_and_its_shards_are_queued(draft, people):
    response = token_client(people.collaborator).post(
        start_url(draft), {"model": "smollm2", "setting": {"template": 3, "k": "1"}}, format="json"
    )
    assert response.status_code == 201, response.json()
    [row] = response.json()
    run = ModelRun.objects.get(pk=row["id"])
    assert (run.study_id, run.spec.model, run.status) == (draft.pk, "smollm2", ModelRun.Status.QUEUED)
    assert (run.setting["template"], run.setting["k"]) == (3, 1)  # typed as the page's k=v fields are
    assert run.progress_total == 6 and ModelShard.objects.filter(run=run).exists()
    assert (row["created"], row["status"], row["model"], row["n_answered"]) == (True, "queued", "smollm2", 0)


def test_starting_the_same_run_again_returns_the_live_one(draft, people):
    api = token_client(people.owner)
    first = api.post(start_url(draft), {"model": "smollm2"}, format="json").json()
    again = api.post(start_url(draft), {"model": "smollm2"}, format="json")
    assert again.status_code == 200 and [row["id"] for row in again.json()] == [first[0]["id"]]
    assert again.json()[0]["created"] is False and ModelRun.objects.count() == 1


def test_a_sweep_starts_one_run_per_setting_of_the_papers_grid(draft, people):
    response = token_client(people.owner).post(start_url(draft), {"model": "smollm2", "sweep": True}, format="json")
    grid = draft.definition.model_settings(sweep=True)
    assert response.status_code == 201 and len(response.json()) == len(grid) == ModelRun.objects.count() > 1


@pytest.mark.parametrize(
    "body, field, message",
    [
        ({}, "model", "This field is required"),
        ({"model": "smollm2", "setting": {"colour": "red"}}, "setting", "has no model setting 'colour'"),
        ({"model": "smollm2", "setting": {"k": "many"}}, "setting", "'k' must be a whole number"),
        ({"model": "smollm2", "setting": {"k": [1]}}, "setting", "a number, a word or true/false"),
        ({"model": "smollm2", "setting": "k=1"}, "setting", "Expected a dictionary"),
        ({"model": "smollm2", "kind": "nli"}, "kind", "takes causal or seq2seq models"),
        ({"model": "smollm2", "kind": "api"}, "kind", '"api" is not a valid choice'),
        ({"model": "someone/unknown-model"}, "non_field_errors", "is not an allowed model source"),
        # names the file system cannot take: refused in words before anything looks on the disk
        ({"model": "m" * 300}, "model", "longer than 255 bytes"),
        ({"model": "org/" + "é" * 200}, "model", "longer than 255 bytes"),
        ({"model": "m" * 501}, "model", "no more than 500 characters"),
        ({"model": "smollm2\x00"}, "model", "Null characters are not allowed"),
        ({"model": "smoll\nm2"}, "model", "control characters"),
    ],
)
def test_what_the_runs_page_refuses_is_a_400_naming_the_field(draft, people, body, field, message):
    response = token_client(people.owner).post(start_url(draft), body, format="json")
    assert response.status_code == 400
    assert any(message in text for text in response.json()[field]), response.json()
    assert not ModelRun.objects.exists()


def test_starting_needs_run_model_on_ones_own_study(draft, people):
    body = {"model": "smollm2"}
    assert token_client(people.viewer).post(start_url(draft), body, format="json").status_code == 403
    assert token_client(people.viewer).post(start_url(draft), {}, format="json").status_code == 403
    outsider = token_client(people.outsider).post(start_url(draft), body, format="json")
    assert outsider.status_code == 404 and outsider.json() == {"detail": "No study has this id."}
    assert APIClient().post(start_url(draft), body, format="json").status_code == 401
    assert not ModelRun.objects.exists()


def test_starting_is_throttled_like_every_request(draft, people, settings):
    api = token_client(people.owner)
    with user_rate(settings, "2/minute"):
        codes = [api.post(start_url(draft), {"model": "smollm2"}, format="json").status_code for _ in range(3)]
    assert codes == [201, 200, 429]


@pytest.fixture
def run(draft, people) -> ModelRun:
    return ModelRun.objects.get(
        pk=token_client(people.owner).post(start_url(draft), {"model": "smollm2"}).json()[0]["id"]
    )


def test_a_researcher_cancels_a_queued_run_and_cancelling_again_changes_nothing(run, people):
    api = token_client(people.collaborator)
    response = api.post(cancel_url(run))
    assert response.status_code == 200, response.json()
    assert (response.json()["id"], response.json()["status"], response.json()["changed"]) == (run.pk, "cancelled", True)
    run.refresh_from_db()
    assert run.status == ModelRun.Status.CANCELLED and run.finished_at is not None
    again = api.post(cancel_url(run))
    assert again.status_code == 200 and (again.json()["status"], again.json()["changed"]) == ("cancelled", False)


@pytest.mark.parametrize("status", [ModelRun.Status.DONE, ModelRun.Status.FAILED])
def test_a_finished_run_cannot_be_cancelled(run, people, status):
    ModelRun.objects.filter(pk=run.pk).update(status=status)
    response = token_client(people.owner).post(cancel_url(run))
    assert response.status_code == 409 and "only a queued or running run can be cancelled" in response.json()["detail"]
    run.refresh_from_db()
    assert run.status == status


def test_a_run_of_another_study_or_none_is_a_404(run, people, implicature):
    from tests.factories import small_study

    other = small_study("another", units=1, unit_size=3, per_unit=1, attention_checks=0, exclude_at=0)
    other.collaborators.add(people.owner)
    api = token_client(people.owner)
    assert api.post(f"/api/studies/{other.pk}/model-runs/{run.pk}/cancel/").status_code == 404
    missing = api.post(f"/api/studies/{run.study_id}/model-runs/{run.pk + 1000}/cancel/")
    assert missing.status_code == 404 and missing.json() == {"detail": "No model run of this study has this id."}
    run.refresh_from_db()
    assert run.status == ModelRun.Status.QUEUED


def test_cancelling_needs_run_model_on_ones_own_study(run, people):
    assert token_client(people.viewer).post(cancel_url(run)).status_code == 403
    outsider = token_client(people.outsider).post(cancel_url(run))
    assert outsider.status_code == 404 and outsider.json() == {"detail": "No study has this id."}
    assert APIClient().post(cancel_url(run)).status_code == 401
    run.refresh_from_db()
    assert run.status == ModelRun.Status.QUEUED


def test_cancelling_is_throttled_like_every_request(run, people, settings):
    api = token_client(people.collaborator)  # the owner's requests so far started the run
    with user_rate(settings, "2/minute"):
        codes = [api.post(cancel_url(run)).status_code for _ in range(3)]
    assert codes == [200, 200, 429]
