"""The runs panel's Inspect log upload through HTTP: a log Inspect wrote becomes a run the panel lists,
the same log again changes nothing, a log that does not match is refused with the service's sentence,
and who may not start runs may not import one."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from annotation.services import benchmark_records_import
from modelruns.models import ModelResponse, ModelRun
from studies.models import Study
from studies.setup.studies import study_create
from tests import personas
from tests.inspect_logs import MC, MC_REPLIES, MC_TASK, records, write_log

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def study(researcher) -> Study:
    benchmark_records_import(name="custom", records=records(MC, MC_TASK), options={"name": MC_TASK})
    design = {"item_set": MC_TASK, "unit_size": 0, "per_unit": 3, "attention_checks": 0, "exclude_at": 0}
    return study_create(name="Capitals", benchmark="custom", design=design, owner=researcher)


def _upload(path: Path, name: str | None = None) -> dict[str, object]:
    return {"log": SimpleUploadedFile(name or path.name, path.read_bytes()), "scorer": ""}


def _url(study: Study) -> str:
    return reverse("modelruns:import_inspect_log", args=[study.pk])


def test_the_panel_offers_the_upload_and_a_log_becomes_a_listed_run(researcher_client, study, tmp_path) -> None:
    panel = researcher_client.get(reverse("modelruns:study_runs", args=[study.pk]), **HTMX).content.decode()
    assert f'action="{_url(study)}"' in panel and 'enctype="multipart/form-data"' in panel
    assert 'id="inspect_log"' in panel and 'hx-encoding="multipart/form-data"' in panel

    path = write_log(tmp_path, MC, MC_REPLIES)
    html = researcher_client.post(_url(study), _upload(path), **HTMX).content.decode()
    run = ModelRun.objects.get(study=study)
    assert f"Imported 3 answers of mockllm/model (Inspect log of {MC_TASK}) as run #{run.pk}." in html
    assert f'id="model-run-{run.pk}" data-status="done"' in html and f"Inspect log of {MC_TASK}</td>" in html
    assert "67% <span" in html  # two of three right, as the scorer said

    again = researcher_client.post(_url(study), _upload(path), **HTMX).content.decode()
    assert f"{path.name} was imported before, as run #{run.pk}: nothing changed." in again
    assert ModelResponse.objects.filter(run=run).count() == 3


def test_without_htmx_the_import_redirects_to_the_page_that_says_what_was_imported(
    researcher_client, study, tmp_path
) -> None:
    response = researcher_client.post(_url(study), _upload(write_log(tmp_path, MC, MC_REPLIES)), follow=True)
    run = ModelRun.objects.get(study=study)
    assert response.redirect_chain == [(reverse("modelruns:study_runs", args=[study.pk]), 302)]
    assert f"Imported 3 answers of mockllm/model (Inspect log of {MC_TASK}) as run #{run.pk}." in (
        response.content.decode()
    )


def test_a_log_that_does_not_match_is_refused_with_its_reason_and_nothing_is_written(
    researcher_client, study, tmp_path
) -> None:
    path = write_log(tmp_path, MC, MC_REPLIES, task="capitals_v2")
    html = researcher_client.post(_url(study), _upload(path), **HTMX).content.decode()
    assert 'id="inspect-log-refused"' in html
    said = html.replace("&#x27;", "'")
    assert f"{path.name}: the log is of task 'capitals_v2'; the study's items are of task {MC_TASK}" in said
    response = researcher_client.post(_url(study), _upload(path, "answers.txt"))
    assert response.status_code == 400 and "Upload the .eval or .json file Inspect wrote." in response.content.decode()
    response = researcher_client.post(_url(study), {"scorer": ""})
    assert response.status_code == 400 and "This field is required." in response.content.decode()
    assert not ModelRun.objects.exists()


def test_who_may_not_start_runs_may_not_import_one(client, study, tmp_path) -> None:
    path = write_log(tmp_path, MC, MC_REPLIES)
    response = client.post(_url(study), _upload(path))
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
    viewer = personas.assistant("viewer", ["modelruns.view_modelrun"], on=[study])
    client.force_login(viewer)
    assert client.post(_url(study), _upload(path)).status_code == 403
    panel = client.get(reverse("modelruns:study_runs", args=[study.pk]), **HTMX)
    assert panel.status_code == 200 and _url(study) not in panel.content.decode()
    outsider = personas.researcher("outsider")
    client.force_login(outsider)
    assert client.post(_url(study), _upload(path)).status_code == 404
    assert client.get(_url(study)).status_code == 405
    assert not ModelRun.objects.exists()
