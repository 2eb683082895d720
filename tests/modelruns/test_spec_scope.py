"""Model specs name local paths and API servers: a researcher sees the specs of the runs of the
studies they may see and the specs they created, in the runs page's suggestions and in the admin;
another researcher's stay theirs. Superusers see every spec."""

from __future__ import annotations

import pytest
from django.urls import reverse

from modelruns.models import ModelRun, ModelSpec
from modelruns.services import ApiOptions, modelrun_start, modelspec_get_or_create
from tests.factories import small_study
from tests.personas import signed_in, superuser, user_with

pytestmark = pytest.mark.django_db

BOS_PATH = "/srv/models/bo/secret-llama"
BOS_SERVER = "http://10.0.0.7:8000/v1"
ADAS_PATH = "/srv/models/ada/llama"
SHARED_PATH = "/srv/models/lab/shared-llama"


@pytest.fixture
def lab(settings, implicature):
    """Ada's study (Bo collaborates), Bo's own study with a run of his private model, and his API server."""
    settings.PARITY_MODEL_SOURCES = ["smollm2", "/srv/models/", BOS_SERVER]
    ada, bo = user_with("ada"), user_with("bo")
    adas = small_study("ada's pilot", owner=ada)
    adas.collaborators.add(bo)
    bos = small_study("bo's pilot", owner=bo)
    mine = modelspec_get_or_create(model=ADAS_PATH, created_by=ada)
    shared = modelspec_get_or_create(model=SHARED_PATH, created_by=bo)
    modelrun_start(study=adas, spec=shared, enqueue=False)  # Bo's spec, run on Ada's study
    private = modelspec_get_or_create(model=BOS_PATH, created_by=bo)
    modelrun_start(study=bos, spec=private, enqueue=False)
    server = modelspec_get_or_create(
        model="bo-chat", kind="api", api=ApiOptions(base_url=BOS_SERVER, key_env="BO_API_KEY"), created_by=bo
    )
    return {"ada": ada, "bo": bo, "adas": adas, "mine": mine, "shared": shared, "private": private, "server": server}


def test_the_runs_page_suggests_only_the_specs_the_researcher_may_see(lab):
    page = signed_in(lab["ada"]).get(reverse("modelruns:study_runs", args=[lab["adas"].pk])).content.decode()
    assert f'<option value="{ADAS_PATH}">' in page and f'<option value="{SHARED_PATH}">' in page
    assert BOS_PATH not in page and "bo-chat" not in page and BOS_SERVER not in page
    theirs = signed_in(lab["bo"]).get(reverse("modelruns:study_runs", args=[lab["adas"].pk])).content.decode()
    assert f'<option value="{BOS_PATH}">' in theirs and f'<option value="{ADAS_PATH}">' not in theirs


def test_the_admin_lists_only_the_specs_the_researcher_may_see(lab):
    ada = signed_in(lab["ada"])
    listing = ada.get("/admin/modelruns/modelspec/").content.decode()
    assert ADAS_PATH in listing and SHARED_PATH in listing
    assert BOS_PATH not in listing and BOS_SERVER not in listing and "bo-chat" not in listing
    for query in ("secret", "10.0.0.7", "bo-chat"):
        assert "0 results" in ada.get("/admin/modelruns/modelspec/", {"q": query}).content.decode(), query
    for spec in (lab["private"], lab["server"]):
        page = ada.get(f"/admin/modelruns/modelspec/{spec.pk}/change/", follow=True)
        assert page.redirect_chain[0][1] == 302  # the admin's "does not exist"
        assert BOS_PATH not in page.content.decode() and BOS_SERVER not in page.content.decode()
    shared = ada.get(f"/admin/modelruns/modelspec/{lab['shared'].pk}/change/").content.decode()
    assert SHARED_PATH in shared and "created by" not in shared.lower(), "who made a shared spec is not shown"


def test_the_runs_admin_filters_offer_only_the_specs_of_the_runs_listed(lab):
    runs = signed_in(lab["ada"]).get("/admin/modelruns/modelrun/").content.decode()
    assert lab["shared"].name in runs and lab["private"].name not in runs
    answers = signed_in(lab["ada"]).get("/admin/modelruns/modelresponse/").content.decode()
    assert lab["private"].name not in answers


def test_the_spec_counts_only_the_runs_the_researcher_may_see(lab):
    modelrun_start(study=small_study("bo's second", owner=lab["bo"]), spec=lab["shared"], enqueue=False)
    ada = signed_in(lab["ada"]).get("/admin/modelruns/modelspec/", {"q": "shared-llama"})
    bo = signed_in(lab["bo"]).get("/admin/modelruns/modelspec/", {"q": "shared-llama"})
    assert [spec._runs for spec in ada.context["cl"].result_list] == [1]
    assert [spec._runs for spec in bo.context["cl"].result_list] == [2]


def test_a_spec_made_by_starting_a_run_is_the_starters(lab):
    url = reverse("modelruns:start", args=[lab["adas"].pk])
    form = {"model": "/srv/models/ada/new-llama", "kind": "causal", "dtype": "float32", "device": "auto", "setting": ""}
    assert signed_in(lab["ada"]).post(url, form).status_code == 302
    spec = ModelSpec.objects.get(model="/srv/models/ada/new-llama")
    assert spec.created_by == lab["ada"] and ModelRun.objects.filter(spec=spec).count() == 1


def test_a_superuser_sees_every_spec(lab):
    root = signed_in(superuser())
    listing = root.get("/admin/modelruns/modelspec/").content.decode()
    assert all(path in listing for path in (BOS_PATH, BOS_SERVER, ADAS_PATH, SHARED_PATH))
    page = root.get(reverse("modelruns:study_runs", args=[lab["adas"].pk])).content.decode()
    assert f'<option value="{BOS_PATH}">' in page
