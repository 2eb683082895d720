from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.db import connection
from django.test.utils import CaptureQueriesContext

from studies.models import Study, Unit
from tests import personas
from tests.factories import Bot, pid, small_study

pytestmark = pytest.mark.django_db


@pytest.fixture
def finished(implicature, researcher):
    study = small_study(owner=researcher)
    bot = Bot(study, pid(0xABC))
    bot.complete()
    return study, bot.participant


@pytest.mark.parametrize(
    "url",
    [
        "/admin/studies/study/",
        "/admin/studies/participant/",
        "/admin/studies/response/",
        "/admin/annotation/item/",
        "/admin/studies/unit/",
    ],
)
def test_the_researcher_sees_every_list(researcher_client, finished, url):
    page = researcher_client.get(url)
    assert page.status_code == 200


def test_the_study_page_shows_live_counts_per_unit_and_the_pay_rate(researcher_client, finished):
    study, participant = finished
    html = researcher_client.get(f"/admin/studies/study/{study.pk}/change/").content.decode()
    assert "1 complete" in html and "0 working" in html and "/h on median completion" in html
    assert study.participant_url().split("?")[0] in html


def test_answers_are_listed_and_filterable_but_not_editable(researcher_client, finished):
    study, participant = finished
    html = researcher_client.get(
        f"/admin/studies/response/?participant__study__id__exact={study.pk}&correct=yes"
    ).content.decode()
    assert participant.pseudonym in html
    response = participant.responses.first()
    page = researcher_client.post(f"/admin/studies/response/{response.pk}/change/", {"raw_answer": "no"})
    assert page.status_code == 403
    assert participant.responses.get(pk=response.pk).raw_answer == response.raw_answer


def test_prolific_ids_are_shown_only_with_the_identity_permission(client, django_user_model, finished):
    study, participant = finished
    staff = personas.assistant("assistant", ["studies.view_participant", "studies.view_response"], on=[study])
    client.force_login(staff)
    listing = client.get("/admin/studies/participant/").content.decode()
    detail = client.get(f"/admin/studies/participant/{participant.pk}/change/").content.decode()
    assert participant.pseudonym in listing
    assert participant.prolific_pid not in listing and participant.prolific_pid not in detail
    staff.user_permissions.add(Permission.objects.get(codename="view_identity"))
    client.force_login(django_user_model.objects.get(pk=staff.pk))
    assert participant.prolific_pid in client.get("/admin/studies/participant/").content.decode()


def test_exclude_and_include_actions(researcher_client, finished):
    study, participant = finished
    researcher_client.post(
        "/admin/studies/participant/", {"action": "exclude_participants", "_selected_action": [participant.pk]}
    )
    participant.refresh_from_db()
    assert participant.excluded and "researcher" in participant.exclusion_reason
    researcher_client.post(
        "/admin/studies/participant/", {"action": "include_participants", "_selected_action": [participant.pk]}
    )
    participant.refresh_from_db()
    assert not participant.excluded and participant.exclusion_reason == ""


def test_anonymous_visitors_are_sent_to_the_login(client, finished):
    page = client.get("/admin/studies/participant/")
    assert page.status_code == 302 and "/admin/login/" in page["Location"]


@pytest.mark.parametrize("method", ["get", "post"])
def test_adding_a_study_in_the_admin_leads_to_the_researchers_form_and_creates_nothing(
    researcher_client, implicature, method
):
    """A study is created from the benchmark's declared design options on `/studies/new/`, never from
    design JSON typed into the admin (which could build a study nobody can enter)."""
    page = getattr(researcher_client, method)(
        "/admin/studies/study/add/",
        {
            "name": "added here",
            "benchmark": "implicature",
            "status": "live",
            "group": "",
            "design": '{"units": 2, "unit_size": 5, "per_unit": 3, "attention_checks": 1}',
            "pid_format": "prolific",
        },
    )
    assert page.status_code == 302 and page["Location"] == "/studies/new/"
    assert not Study.objects.filter(name="added here").exists() and not Unit.objects.exists()


def test_a_studys_design_and_status_are_not_edited_in_the_admin(researcher_client, finished):
    study, participant = finished
    form = researcher_client.get(f"/admin/studies/study/{study.pk}/change/").context["adminform"].form
    assert not {"benchmark", "design", "attention_checks", "exclude_at", "status"} & set(form.fields)
    data = {name: value for name, value in form.initial.items() if name in form.fields and value is not None}
    data.update(collaborators=[], design='{"units": 0}', status="closed", attention_checks=99)
    assert researcher_client.post(f"/admin/studies/study/{study.pk}/change/", data).status_code == 302
    fresh = Study.objects.get(pk=study.pk)
    assert (fresh.design, fresh.status, fresh.attention_checks) == (study.design, study.status, study.attention_checks)


def test_exclusion_is_not_edited_by_hand_only_through_the_actions(superuser_client, finished):
    study, participant = finished
    page = superuser_client.post(
        f"/admin/studies/participant/{participant.pk}/change/", {"excluded": "on", "exclusion_reason": "by hand"}
    )
    assert page.status_code == 403
    participant.refresh_from_db()
    assert not participant.excluded and participant.exclusion_reason == ""


def test_a_unit_changes_only_its_capacity_and_none_is_added_by_hand(superuser_client, finished):
    study, participant = finished
    unit = study.units.get(position=1)
    page = superuser_client.post(f"/admin/studies/unit/{unit.pk}/change/", {"capacity": 7, "label": "renamed"})
    assert page.status_code == 302
    unit.refresh_from_db()
    assert (unit.capacity, unit.label) == (7, "U1")
    assert superuser_client.get("/admin/studies/unit/add/").status_code == 403


@pytest.mark.parametrize(
    "url",
    [
        "/admin/annotation/item/add/",
        "/admin/annotation/benchmarkasset/add/",
        "/admin/modelruns/modelspec/add/",
        "/admin/modelruns/modelrun/add/",
    ],
)
def test_rows_written_by_imports_and_runs_are_not_added_in_the_admin(superuser_client, url):
    assert superuser_client.get(url).status_code == 403


def test_items_and_runs_are_not_changed_in_the_admin(superuser_client, finished):
    study, participant = finished
    item = participant.responses.first().item
    page = superuser_client.post(f"/admin/annotation/item/{item.pk}/change/", {"gold": "maybe"})
    assert page.status_code == 403
    item.refresh_from_db()
    assert item.gold in {"yes", "no"}


def test_saving_a_study_in_the_admin_writes_only_what_was_edited(researcher_client, finished):
    """The entering participants' counter (`pseudonyms_issued`) lives on the same row: a full-row save
    from the admin could write back a stale count."""
    study, participant = finished
    form = researcher_client.get(f"/admin/studies/study/{study.pk}/change/").context["adminform"].form
    data = {name: value for name, value in form.initial.items() if name in form.fields and value is not None}
    data.update(collaborators=[], name="renamed pilot")
    with CaptureQueriesContext(connection) as queries:
        page = researcher_client.post(f"/admin/studies/study/{study.pk}/change/", data)
    assert page.status_code == 302
    [update] = [q["sql"] for q in queries.captured_queries if q["sql"].startswith('UPDATE "studies_study"')]
    assert '"name"' in update and '"pseudonyms_issued"' not in update and '"consent_text"' not in update
    study.refresh_from_db()
    assert study.name == "renamed pilot"
