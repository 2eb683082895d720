"""Permissions, not `is_staff`: each persona (tests/personas.py) through the pages, the admin, the
API and the exports. A researcher sees and acts on their own studies only; superusers on all."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from modelruns.models import ModelRun
from studies.models import Participant, Study
from tests.factories import Bot, pid, small_study
from tests.personas import personas_for, user_with

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(implicature):
    study = small_study("owned pilot")
    Bot(study, pid(0xA1)).complete()
    Bot(study, pid(0xA2)).complete()
    return study, personas_for(study)


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _api(user) -> APIClient:
    api = APIClient()
    api.force_authenticate(user)
    return api


def test_pages_answer_each_persona_by_permission_and_ownership(world):
    study, people = world
    pages = {
        "results": f"/studies/{study.pk}/results/",
        "export": f"/studies/{study.pk}/export/csv/",
        "runs": reverse("modelruns:study_runs", args=[study.pk]),
    }
    expected = {
        "superuser": {"results": 200, "export": 200, "runs": 200},
        "owner": {"results": 200, "export": 200, "runs": 200},
        "collaborator": {"results": 200, "export": 200, "runs": 200},
        "viewer": {"results": 200, "export": 403, "runs": 200},
        "outsider": {"results": 404, "export": 404, "runs": 404},
    }
    for name, user in people.all().items():
        client = _client(user)
        got = {page: client.get(url).status_code for page, url in pages.items()}
        assert got == expected[name], name
        listing = client.get("/studies/").content.decode()
        assert (study.name in listing) == (name != "outsider"), name
    viewer_page = _client(people.viewer).get(pages["results"]).content.decode()
    assert 'id="exports"' not in viewer_page
    assert "Start a run" not in _client(people.viewer).get(pages["runs"]).content.decode()
    assert "Start a run" in _client(people.owner).get(pages["runs"]).content.decode()


def test_only_a_researcher_with_run_model_on_their_own_study_starts_a_run(world):
    study, people = world
    url = reverse("modelruns:start", args=[study.pk])
    form = {"model": "smollm2", "kind": "causal", "dtype": "float32", "device": "auto", "setting": ""}
    assert _client(people.viewer).post(url, form).status_code == 403
    assert _client(people.outsider).post(url, form).status_code == 404
    assert not ModelRun.objects.exists()
    assert _client(people.collaborator).post(url, form).status_code == 302
    assert ModelRun.objects.get().study == study


def test_a_signed_in_account_without_permissions_is_refused_even_when_staff(world):
    study, people = world
    staff = user_with("staff-only", [], is_staff=True)
    study.collaborators.add(staff)
    client = _client(staff)
    for url in ("/studies/", f"/studies/{study.pk}/results/", f"/studies/{study.pk}/export/csv/"):
        assert client.get(url).status_code == 403
    assert _api(staff).get(f"/api/studies/{study.pk}/").status_code == 403


def test_the_admin_lists_and_acts_on_the_researchers_own_studies_only(world):
    study, people = world
    other = small_study("someone else's pilot")
    Bot(other, pid(0xB1)).complete()
    theirs = Participant.objects.get(study=other)
    mine = Participant.objects.filter(study=study).first()
    owner = _client(people.owner)
    listing = owner.get("/admin/studies/participant/").content.decode()
    assert f"/admin/studies/participant/{mine.pk}/change/" in listing
    assert f"/admin/studies/participant/{theirs.pk}/change/" not in listing and other.name not in listing
    for url in ("/admin/studies/study/", "/admin/studies/unit/", "/admin/studies/response/"):
        assert other.name not in owner.get(url).content.decode(), url
    assert owner.get(f"/admin/studies/participant/{theirs.pk}/change/").status_code == 302  # "does not exist"
    assert owner.get(f"/admin/studies/study/{other.pk}/change/").status_code == 302
    # an action on a participant of someone else's study does nothing
    owner.post("/admin/studies/participant/", {"action": "exclude_participants", "_selected_action": [theirs.pk]})
    theirs.refresh_from_db()
    assert not theirs.excluded
    root = _client(people.superuser).get("/admin/studies/participant/").content.decode()
    assert f"/admin/studies/participant/{theirs.pk}/change/" in root


def test_admin_actions_need_their_permission(world):
    study, people = world
    participant = Participant.objects.filter(study=study).first()
    action = {"action": "exclude_participants", "_selected_action": [participant.pk]}
    viewer = _client(people.viewer)
    assert "exclude_participants" not in viewer.get("/admin/studies/participant/").content.decode()
    viewer.post("/admin/studies/participant/", action)
    viewer.post("/admin/studies/participant/", {**action, "action": "mark_returned"})
    participant.refresh_from_db()
    assert not participant.excluded and participant.status == Participant.Status.COMPLETED
    _client(people.collaborator).post("/admin/studies/participant/", action)
    participant.refresh_from_db()
    assert participant.excluded and "collaborator" in participant.exclusion_reason


def test_only_the_owner_chooses_the_collaborators_and_new_studies_belong_to_their_creator(world):
    study, people = world
    owner_form = _client(people.owner).get(f"/admin/studies/study/{study.pk}/change/").content.decode()
    collaborator_form = _client(people.collaborator).get(f"/admin/studies/study/{study.pk}/change/").content.decode()
    assert 'name="collaborators"' in owner_form and 'name="owner"' not in owner_form
    assert 'name="collaborators"' not in collaborator_form
    assert 'name="owner"' in _client(people.superuser).get(f"/admin/studies/study/{study.pk}/change/").content.decode()


def test_the_api_follows_the_same_rules(world):
    study, people = world
    base = f"/api/studies/{study.pk}"
    exclusion = f"{base}/participants/A1/exclusion/"
    listed = {
        name: [row["id"] for row in _api(user).get("/api/studies/").json()["results"]]
        for name, user in people.all().items()
    }
    assert listed["outsider"] == [] and all(listed[name] == [study.pk] for name in listed if name != "outsider")
    for url in (f"{base}/", f"{base}/participants/", f"{base}/responses/", f"{base}/model-runs/", f"{base}/results/"):
        assert _api(people.viewer).get(url).status_code == 200, url
        assert _api(people.outsider).get(url).status_code == 404, url
    assert _api(people.viewer).get(f"{base}/exports/csv/").status_code == 403
    assert _api(people.outsider).get(f"{base}/exports/csv/").status_code == 404
    assert _api(people.owner).get(f"{base}/exports/csv/").status_code == 200
    assert _api(people.viewer).post(exclusion, {"excluded": True}, format="json").status_code == 403
    assert _api(people.outsider).post(exclusion, {"excluded": True}, format="json").status_code == 404
    assert not Participant.objects.filter(study=study, excluded=True).exists()
    assert _api(people.collaborator).post(exclusion, {"excluded": True}, format="json").status_code == 200
    assert Participant.objects.get(study=study, pseudonym="A1").excluded


def test_create_study_gives_the_study_to_its_owner(implicature, capsys):
    owner = user_with("ada")
    call_command(
        "create_study",
        "--benchmark",
        "implicature",
        "--name",
        "Owned",
        "--units",
        "2",
        "--unit-size",
        "5",
        "--per-unit",
        "1",
        "--owner",
        "ada",
    )
    assert Study.objects.get(name="Owned").owner == owner
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="no user has this username"):
        call_command("create_study", "--benchmark", "implicature", "--name", "Orphan", "--owner", "nobody")
    assert not Study.objects.filter(name="Orphan").exists()


def test_the_demo_studies_belong_to_the_demo_researcher(settings, tmp_path, monkeypatch):
    from results.demo import BASELINE_STUDY, DEMO_USERNAME, DemoReport, demo_human_baseline, demo_researcher, demo_step
    from tests.conftest import datasets_dir

    monkeypatch.setenv("DATASETS_DIR", str(datasets_dir()))
    settings.VAR_DIR = tmp_path
    demo_implicature = demo_step("implicature")
    report = DemoReport()
    demo_researcher(report)
    demo_implicature(report)
    demo_human_baseline(report)
    owners = dict(Study.objects.values_list("name", "owner__username"))
    assert owners == {"Implicature demo": DEMO_USERNAME, BASELINE_STUDY: DEMO_USERNAME}
