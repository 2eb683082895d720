"""Editing a draft with the new-study form and its checks, and duplicating any study one may see
into a new draft of one's own: who may, and what changes."""

from __future__ import annotations

import pytest
from django.test import Client

from studies.errors import StudyError
from studies.models import Participant, Study, Unit
from studies.setup.drafts import study_draft_update, study_duplicate
from studies.setup.studies import study_set_status
from tests import personas
from tests.factories import Bot, pid, small_study
from tests.studies.workflow.helpers import edit_data

pytestmark = pytest.mark.django_db


@pytest.fixture
def draft(implicature):
    return small_study(
        "editable",
        status=Study.Status.DRAFT,
        units=2,
        unit_size=3,
        per_unit=2,
        attention_checks=1,
        exclude_at=0,
        group="wave",
        no_consent_code="NOCONSENT",
        estimated_minutes=10,
        reward_pence=200,
    )


def _unchanged(study: Study) -> tuple:
    fresh = Study.objects.get(pk=study.pk)
    return (fresh.name, fresh.design, fresh.reward_pence, list(fresh.units.values_list("pk", flat=True)))


# -- editing a draft ---------------------------------------------------------------------------


def test_only_those_who_may_change_the_study_edit_it(draft):
    people = personas.personas_for(draft)
    url = f"/studies/{draft.pk}/edit/"
    before = _unchanged(draft)
    data = edit_data(personas.signed_in(people.owner), draft, name="taken over", reward="9.00")
    assert Client().get(url).status_code == 302  # to the login
    assert Client().post(url, data).status_code == 302
    assert personas.signed_in(personas.member()).post(url, data).status_code == 403
    assert personas.signed_in(people.viewer).get(url).status_code == 403  # a collaborator who only reads
    assert personas.signed_in(people.viewer).post(url, data).status_code == 403
    assert personas.signed_in(people.outsider).get(url).status_code == 404  # someone else's study
    assert personas.signed_in(people.outsider).post(url, data).status_code == 404
    assert _unchanged(draft) == before
    collaborator = personas.signed_in(people.collaborator)
    assert collaborator.get(url).status_code == 200
    assert collaborator.post(url, data).status_code == 302
    assert Study.objects.get(pk=draft.pk).name == "taken over"


def test_the_owner_edits_a_draft_its_units_built_again_for_a_new_design(draft, researcher_client, researcher):
    Study.objects.filter(pk=draft.pk).update(owner=researcher)
    link, code = draft.link, draft.completion_code
    page = researcher_client.post(
        f"/studies/{draft.pk}/edit/",
        edit_data(
            researcher_client,
            draft,
            name="edited",
            unit_size=4,
            per_unit=3,
            template="3",
            consent_text="New **consent**.",
            estimated_minutes=12,
            reward="2.50",
        ),
        follow=True,
    )
    assert page.redirect_chain == [(f"/studies/{draft.pk}/", 302)]
    assert "The draft is saved." in page.content.decode()
    study = Study.objects.get(pk=draft.pk)
    assert (study.name, study.status, study.link, study.completion_code) == ("edited", "draft", link, code)
    assert (study.consent_text, study.estimated_minutes, study.reward_pence) == ("New **consent**.", 12, 250)
    assert (study.design["unit_size"], study.design["template"], study.group) == (4, 3, "wave")
    # the template's text is resolved again from the new template
    assert study.design["human_template"] != draft.design["human_template"]
    assert [unit.unit_items.count() for unit in study.units.all()] == [4, 4]
    assert {unit.capacity for unit in study.units.all()} == {3}


def test_the_form_shows_the_drafts_own_values(draft, researcher_client, researcher):
    Study.objects.filter(pk=draft.pk).update(owner=researcher)
    page = researcher_client.get(f"/studies/{draft.pk}/edit/")
    form, html = page.context["form"], page.content.decode()
    assert (form["name"].value(), form["design_unit_size"].value(), form["no_consent_code"].value()) == (
        "editable",
        3,
        "NOCONSENT",
    )
    assert (form["estimated_minutes"].value(), str(form["reward"].value())) == (10, "2.00")
    assert 'id="save-study"' in html and f'action="/studies/{draft.pk}/edit/"' in html
    # the design's estimate is there to compare with: 3 items and 1 check at 12 s, + 2 min
    assert "4 answers × ~12 s + 2 min consent and instructions ≈ 3 min" in html


def test_an_edit_is_checked_as_a_new_study_is(draft, researcher_client, researcher):
    Study.objects.filter(pk=draft.pk).update(owner=researcher)
    small_study("other", units=1, unit_size=2)
    before = _unchanged(draft)
    url = f"/studies/{draft.pk}/edit/"
    for changes, message in [
        ({"reward": "0.10", "estimated_minutes": 30}, "below Prolific&#x27;s minimum of £6/h"),
        ({"name": "other"}, "A study named “other” already exists"),
        ({"units": 9, "unit_size": 150}, "9 units of 150 items need 1350 test items"),
        ({"attention_checks": 1, "exclude_at": 2}, "Exclusion at 2 failed checks can never happen"),
    ]:
        page = researcher_client.post(url, edit_data(researcher_client, draft, **changes))
        assert page.status_code == 400 and message in page.content.decode(), changes
        assert 'id="form-errors"' in page.content.decode()
    assert _unchanged(draft) == before
    # keeping its own name is no clash
    assert researcher_client.post(url, edit_data(researcher_client, draft, reward="3.00")).status_code == 302


def test_an_unchanged_design_keeps_the_units(draft):
    units = list(draft.units.values_list("pk", flat=True))
    Unit.objects.filter(study=draft).update(capacity=7)  # as set in the admin
    study_draft_update(study=draft, name="renamed", design=dict(draft.design))
    assert list(Study.objects.get(pk=draft.pk).units.values_list("pk", "capacity")) == [(pk, 7) for pk in units]


def test_only_a_draft_is_edited(draft, researcher_client, researcher):
    Study.objects.filter(pk=draft.pk).update(owner=researcher)
    data = edit_data(researcher_client, draft, name="too late")
    study_set_status(study=draft, status=Study.Status.LIVE)
    url = f"/studies/{draft.pk}/edit/"
    page = researcher_client.get(url, follow=True)
    assert page.redirect_chain == [(f"/studies/{draft.pk}/", 302)]
    assert "Only a draft can be edited; this study is live." in page.content.decode()
    assert researcher_client.post(url, data).status_code == 302
    assert Study.objects.get(pk=draft.pk).name == "editable"
    with pytest.raises(StudyError, match="Only a draft can be edited"):
        study_draft_update(study=draft, name="too late")


def test_the_study_page_offers_the_edit_only_on_a_draft_to_those_who_may_change_it(draft):
    people = personas.personas_for(draft)
    url = f"/studies/{draft.pk}/"
    assert 'id="edit-study"' in personas.signed_in(people.owner).get(url).content.decode()
    assert 'id="edit-study"' not in personas.signed_in(people.viewer).get(url).content.decode()
    study_set_status(study=draft, status=Study.Status.LIVE)
    assert 'id="edit-study"' not in personas.signed_in(people.owner).get(url).content.decode()


# -- duplicating a study -----------------------------------------------------------------------


def test_only_those_who_may_create_studies_and_see_this_one_duplicate_it(draft):
    people = personas.personas_for(draft)
    url = f"/studies/{draft.pk}/duplicate/"
    assert Client().post(url).status_code == 302  # to the login
    assert personas.signed_in(personas.member()).post(url).status_code == 403
    assert personas.signed_in(people.viewer).post(url).status_code == 403  # may see it, not create
    assert personas.signed_in(people.outsider).post(url).status_code == 404  # may create, not see it
    assert personas.signed_in(people.owner).get(url).status_code == 405
    assert Study.objects.count() == 1
    page = personas.signed_in(people.viewer).get(f"/studies/{draft.pk}/").content.decode()
    assert 'id="duplicate-study"' not in page
    page = personas.signed_in(people.collaborator).get(f"/studies/{draft.pk}/").content.decode()
    assert 'id="duplicate-study"' in page


def test_a_collaborator_duplicates_a_live_study_into_a_new_draft_of_their_own(draft):
    people = personas.personas_for(draft)
    study_set_status(study=draft, status=Study.Status.LIVE)
    Unit.objects.filter(study=draft).update(capacity=9)  # raised in the admin: the copy follows the design
    Bot(draft, pid(1)).start_items()
    collaborator = personas.signed_in(people.collaborator)
    page = collaborator.post(f"/studies/{draft.pk}/duplicate/", follow=True)
    copy = Study.objects.get(name="editable (copy)")
    assert page.redirect_chain == [(f"/studies/{copy.pk}/", 302)]
    assert "“editable (copy)” is a new draft copied from “editable”" in page.content.decode()
    assert (copy.status, copy.owner, list(copy.collaborators.all())) == ("draft", people.collaborator, [])
    assert copy.link != draft.link and copy.completion_code != draft.completion_code
    assert copy.no_consent_code not in ("", "NOCONSENT")
    assert copy.failed_attention_code not in ("", draft.failed_attention_code, copy.completion_code)
    same = (
        "benchmark",
        "design",
        "group",
        "consent_text",
        "instructions_text",
        "estimated_minutes",
        "reward_pence",
        "min_answer_ms",
        "closing_questions",
    )
    assert all(getattr(copy, name) == getattr(draft, name) for name in same)
    assert (copy.attention_checks, copy.exclude_at) == (draft.attention_checks, draft.exclude_at)
    original = [list(unit.unit_items.values_list("item_id", flat=True)) for unit in draft.units.all()]
    copied = [list(unit.unit_items.values_list("item_id", flat=True)) for unit in copy.units.all()]
    assert copied == original and {unit.capacity for unit in copy.units.all()} == {2}
    assert not Participant.objects.filter(study=copy).exists()
    assert Participant.objects.filter(study=draft).count() == 1
    # a second copy takes the next free name
    assert study_duplicate(study=draft, owner=people.owner).name == "editable (copy 2)"


def test_an_imported_study_is_not_duplicated(draft, researcher_client, researcher):
    Study.objects.filter(pk=draft.pk).update(owner=researcher, is_imported=True, status="closed")
    page = researcher_client.post(f"/studies/{draft.pk}/duplicate/", follow=True)
    assert "An imported study holds a published study&#x27;s answers" in page.content.decode()
    assert Study.objects.count() == 1
