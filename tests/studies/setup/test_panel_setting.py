"""The panel is a setting of the study, given through the same checks by the new-study form, the
API's create and `create_study`; Prolific is the default; only the chosen panel's settings are kept;
a launched study keeps its panel; the preregistration and the study page say which panel recruits."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from parity import panels
from studies.errors import StudyError
from studies.models import Study
from studies.preregistration.document import study_document
from studies.setup.drafts import study_draft_update
from studies.setup.settings_form import StudySettingsForm
from studies.setup.validation import panel_problems
from tests.api.conftest import token_client
from tests.factories import small_study
from tests.participation.test_panels import CONNECT_SETTINGS, SONA_SETTINGS
from tests.personas import personas_for, researcher, signed_in

pytestmark = pytest.mark.django_db

DESIGN = {"units": 1, "unit_size": 3, "per_unit": 2, "attention_checks": 2, "exclude_at": 2}


def test_a_study_recruits_on_prolific_unless_told_otherwise(implicature):
    study = small_study("default panel")
    assert (study.panel, study.panel_settings) == (panels.PROLIFIC, {})
    assert "?PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}" in (
        study.participant_url()
    )


def test_the_api_creates_a_connect_study_and_refuses_one_without_its_redirects(implicature):
    client = token_client(researcher())
    base = {"benchmark": "implicature", "design": DESIGN, "panel": "connect"}
    refused = client.post("/api/studies/create/", {**base, "name": "connect no urls"}, format="json")
    assert refused.status_code == 400
    assert set(refused.json()) >= {"panel_settings.complete_url", "panel_settings.partial_url"}
    made = client.post(
        "/api/studies/create/",
        {**base, "name": "connect api", "panel_settings": {**CONNECT_SETTINGS, "credit_url": "https://x.example/"}},
        format="json",
    )
    assert made.status_code == 201, made.json()
    study = Study.objects.get(name="connect api")
    assert (study.panel, study.panel_settings) == ("connect", CONNECT_SETTINGS)  # SONA's setting not kept


def test_the_form_puts_a_sonas_problem_beside_its_field(implicature):
    data = {name: field.initial for name, field in StudySettingsForm(benchmark="implicature").fields.items()}
    data |= {"name": "sona form", "panel": "sona", "sona_credit_url": "https://u.sona-systems.com/credit.aspx"}
    form = StudySettingsForm({key: value for key, value in data.items() if value is not None}, benchmark="implicature")
    assert not form.is_valid()
    assert "survey_code" in " ".join(form.errors["sona_credit_url"])


def test_create_study_takes_a_panel_and_its_settings(implicature):
    out = io.StringIO()
    call_command(
        "create_study",
        "--benchmark",
        "implicature",
        "--name",
        "sona command",
        "--panel",
        "sona",
        "--panel-setting",
        f"credit_url={SONA_SETTINGS['credit_url']}",
        "--set",
        "units=1",
        "--set",
        "unit_size=3",
        stdout=out,
    )
    study = Study.objects.get(name="sona command")
    assert study.panel == "sona" and study.panel_settings == SONA_SETTINGS
    assert out.getvalue().strip().splitlines()[-1].endswith("?id=%SURVEY_CODE%")
    with pytest.raises(CommandError, match="SONA needs"):
        call_command(
            "create_study", "--benchmark", "implicature", "--name", "sona bare", "--panel", "sona", stdout=io.StringIO()
        )


def test_a_draft_may_switch_panel_and_a_launched_study_may_not(implicature):
    study = small_study("switching", status=Study.Status.DRAFT, **DESIGN)
    study_draft_update(study=study, panel="mturk", panel_settings={"sandbox": True})
    study.refresh_from_db()
    assert (study.panel, study.panel_settings) == ("mturk", {"sandbox": True})
    Study.objects.filter(pk=study.pk).update(status=Study.Status.LIVE)
    study.refresh_from_db()
    assert [p.message for p in panel_problems(panel="lab", panel_settings={}, study=study)] == [
        "The panel can be changed only before launch."
    ]
    with pytest.raises(StudyError, match="Only a draft"):
        study_draft_update(study=study, panel="lab")


def test_the_preregistration_names_the_panel(implicature):
    study = small_study("prereg panel", panel="sona", panel_settings=SONA_SETTINGS, **DESIGN)
    recruitment = study_document(study)["recruitment"]
    assert recruitment["panel"] == "SONA" and recruitment["panel_settings"] == SONA_SETTINGS


@pytest.mark.parametrize(
    ("panel", "given", "shown"),
    [
        ("connect", CONNECT_SETTINGS, "participantId={{participantId}}"),
        ("mturk", {"sandbox": True}, "https://workersandbox.mturk.com/mturk/externalSubmit"),
        ("sona", SONA_SETTINGS, "?id=%SURVEY_CODE%"),
        ("lab", {}, "?participant="),
    ],
)
def test_the_study_page_shows_the_panels_link_and_its_steps(implicature, panel, given, shown):
    study = small_study(f"page {panel}", panel=panel, panel_settings=given, **DESIGN)
    html = signed_in(personas_for(study).owner).get(f"/studies/{study.pk}/").content.decode()
    assert 'id="panel-settings"' in html and shown in html
    assert 'id="prolific-settings"' not in html and "Create on Prolific" not in html
    assert study.completion_code in html
