"""The explanations setting ("why?") is taken by the new-study form, a draft's edit, the
`create_study` command and `POST /api/studies/create/`, and kept by a duplicate."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from studies.models import Study
from studies.setup.drafts import study_duplicate
from tests.api.conftest import token_client
from tests.personas import researcher
from tests.studies.workflow.helpers import create, edit_data

pytestmark = pytest.mark.django_db


def _setting(study: Study) -> tuple[str, int, str]:
    return study.explanations, study.explanation_every, study.explanation_prompt


def test_the_form_takes_the_setting_and_a_draft_edit_changes_it(researcher_client, implicature):
    page = create(
        researcher_client,
        "implicature",
        name="why by form",
        units=1,
        unit_size=4,
        explanations="nth",
        explanation_every=3,
        explanation_prompt="What made you sure?",
    )
    assert page.status_code == 302, page.context["form"].errors
    study = Study.objects.get(name="why by form")
    assert _setting(study) == ("nth", 3, "What made you sure?")
    data = edit_data(researcher_client, study, explanations="end", explanation_prompt="")
    assert researcher_client.post(f"/studies/{study.pk}/edit/", data).status_code == 302
    study.refresh_from_db()
    assert _setting(study) == ("end", 3, "")
    copy = study_duplicate(study=study, owner=study.owner)
    assert _setting(copy) == ("end", 3, "")


def test_the_form_offers_no_explanation_among_the_closing_questions(researcher_client, implicature):
    form = researcher_client.get("/studies/new/?benchmark=implicature").context["form"]
    assert "explanation" not in dict(form.fields["closing_questions"].choices)
    assert form["explanations"].value() == "off"


def test_the_command_takes_the_setting_and_refuses_an_unknown_one(implicature):
    call_command(
        "create_study",
        "--benchmark=implicature",
        "--name=why by command",
        "--units=1",
        "--unit-size=4",
        "--explanations=every",
        "--explanation-prompt=Why?",
        stdout=StringIO(),
    )
    assert _setting(Study.objects.get(name="why by command")) == ("every", 5, "Why?")
    with pytest.raises(CommandError):
        call_command("create_study", "--benchmark=implicature", "--name=bad", "--explanations=some", stdout=StringIO())


def test_the_api_takes_the_setting(implicature):
    api = token_client(researcher())
    response = api.post(
        "/api/studies/create/",
        {
            "name": "why by api",
            "benchmark": "implicature",
            "design": {"units": 1, "unit_size": 4},
            "explanations": "nth",
            "explanation_every": 2,
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    assert _setting(Study.objects.get(name="why by api")) == ("nth", 2, "")
    refused = api.post(
        "/api/studies/create/",
        {"name": "why bad", "benchmark": "implicature", "design": {"units": 1}, "explanations": "sometimes"},
        format="json",
    )
    assert refused.status_code == 400


def test_the_frozen_preregistration_states_what_was_asked(implicature):
    from studies.preregistration.document import preregistration_export
    from tests.factories import small_study

    study = small_study("why preregistered", units=1, unit_size=3, explanations="nth", explanation_every=3)
    found = preregistration_export(study)
    assert found is not None
    assert found["document"]["texts"]["explanations"]["mode"] == "nth"
    assert "- **Participants asked why they answered:** after every 3rd item" in found["markdown"]
