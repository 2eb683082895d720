"""A study's settings checked as one (`studies.setup.settings_form`): the new-study page's form is
this form with how the page draws it, so the page and the API refuse and keep the same settings."""

from __future__ import annotations

import pytest

from studies.setup.settings_form import DESIGN_PREFIX, StudySettingsForm
from studies.workflow.forms import StudyForm
from tests.studies.workflow.helpers import form_data

pytestmark = pytest.mark.django_db


def test_the_settings_form_and_the_pages_form_keep_the_same_study(researcher_client, researcher, implicature):
    data = form_data(researcher_client, "implicature", name="alike", units=2, unit_size=5)
    settings = StudySettingsForm(data, benchmark="implicature", owner=researcher)
    page = StudyForm(data, benchmark="implicature", owner=researcher)
    assert settings.is_valid(), settings.errors
    assert page.is_valid(), page.errors
    assert settings.create_arguments() == page.create_arguments()
    assert settings.estimate == page.estimate and settings.estimate is not None


def test_the_settings_form_and_the_pages_form_refuse_in_the_same_words(researcher_client, researcher, implicature):
    data = form_data(
        researcher_client,
        "implicature",
        name="",
        units=0,
        ethics_reference="IRB-1",
        item_sampling="random",
        failed_attention_code="SAME",
        completion_code="SAME",
    )
    settings = StudySettingsForm(data, benchmark="implicature", owner=researcher)
    page = StudyForm(data, benchmark="implicature", owner=researcher)
    assert not settings.is_valid()
    assert settings.errors == page.errors
    assert {"name", "design_units", "ethics_body", "sample_size", "__all__"} <= settings.errors.keys()


def test_only_the_page_draws_its_long_texts_as_boxes_and_its_questions_as_checkboxes(implicature):
    settings, page = StudySettingsForm(benchmark="implicature"), StudyForm(benchmark="implicature")
    assert 'rows="8"' not in str(settings["consent_text"]) and 'type="checkbox"' not in str(
        settings["closing_questions"]
    )
    consent = str(page["consent_text"])
    assert consent.startswith("<textarea") and 'rows="8"' in consent and 'maxlength="' in consent
    assert 'type="checkbox"' in str(page["closing_questions"])
    assert 'rows="10"' in str(page["practice_questions"])


def test_a_design_given_is_read_within_its_fields_bounds(implicature):
    form = StudySettingsForm(benchmark="implicature")
    given = {
        DESIGN_PREFIX + option.key: form[DESIGN_PREFIX + option.key].initial
        for option in form.definition.design_options
    }
    design = form.design_given({**given, DESIGN_PREFIX + "units": "3"})
    assert design is not None and design["units"] == 3
    assert form.design_given({**given, DESIGN_PREFIX + "units": "0"}) is None  # under the field's minimum
    assert form.design_given({**given, DESIGN_PREFIX + "units": "three"}) is None
