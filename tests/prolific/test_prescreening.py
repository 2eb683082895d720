"""The study's prescreening sent to Prolific with the study, in the `filters` shape Prolific documents
(https://docs.prolific.com/api-reference/filters): `filter_id` with `selected_values` or `selected_range`."""

from __future__ import annotations

import pytest

from prolific.client import ProlificClient, ProlificError
from prolific.models import ProlificStudy
from prolific.services import ProlificStudyError, prolific_study_create, study_fields
from tests.prolific.helpers import prolific_study
from tests.prolific.standin_rules import filter_problems

pytestmark = pytest.mark.django_db

SCREENING = {
    "age_min": 25,
    "age_max": 60,
    "sex": ["0"],
    "first_languages": ["19"],
    "fluent_languages": ["19", "40"],
    "countries": ["1"],
    "approval_rate_min": 95,
    "exclude_earlier": True,
}


def test_the_filters_reach_prolific_in_its_documented_shape(implicature, standin, researcher):
    earlier = prolific_study("earlier", owner=researcher)
    earlier_id = prolific_study_create(study=earlier).prolific_id
    someone_elses = prolific_study("someone else's")
    prolific_study_create(study=someone_elses)
    study = prolific_study("screened", owner=researcher, prolific_filters=SCREENING)
    draft = standin.studies[prolific_study_create(study=study).prolific_id]
    assert draft["filters"] == [
        {"filter_id": "age", "selected_range": {"lower": 25, "upper": 60}},
        {"filter_id": "sex", "selected_values": ["0"]},
        {"filter_id": "first-language", "selected_values": ["19"]},
        {"filter_id": "fluent-languages", "selected_values": ["19", "40"]},
        {"filter_id": "current-country-of-residence", "selected_values": ["1"]},
        {"filter_id": "approval_rate", "selected_range": {"lower": 95, "upper": 100}},
        # only the researcher's own earlier studies on Prolific
        {"filter_id": "previous_studies_blocklist", "selected_values": [earlier_id]},
    ]
    assert standin.studies[earlier_id]["filters"] == []  # no prescreening: everyone may take part


def test_the_stand_in_refuses_filters_prolific_would_not_read(implicature, standin):
    study = prolific_study("wrong shape")
    fields = study_fields(study, 4)
    for wrong in (
        [{"selected_values": ["1"]}],
        [{"filter_id": "age", "selected_values": ["1"], "selected_range": {"lower": 1}}],
        [{"filter_id": "age", "selected_range": {"min": 18}}],
        [{"filter_id": "sex", "selected_values": [0]}],
    ):
        assert filter_problems(wrong)
        with pytest.raises(ProlificError, match="400"):
            ProlificClient().study_create({**fields, "filters": wrong})
    assert filter_problems(study_fields(prolific_study("right shape", prolific_filters=SCREENING), 4)["filters"]) == []


def test_a_value_not_among_prolifics_choices_is_refused_naming_them_and_nothing_is_created(implicature, standin):
    study = prolific_study("labelled", prolific_filters={**SCREENING, "first_languages": ["English"]})
    catalogue = {row["filter_id"]: row for row in ProlificClient().filters()}
    choices = catalogue["first-language"]["choices"]
    english = next(key for key, label in choices.items() if label == "English")
    allowed = ", ".join(f"{key} ({label})" for key, label in choices.items())
    with pytest.raises(ProlificStudyError) as refused:
        prolific_study_create(study=study)
    said = str(refused.value)
    assert (
        f"First language (first-language): 'English' (the label of choice {english}) is not among Prolific's "
        f"choices; give choice ids from: {allowed}"
    ) in said
    assert "Nothing was created" in said
    assert standin.studies == {} and not ProlificStudy.objects.filter(study=study).exists()
    # Prolific itself would refuse it: the stand-in does
    with pytest.raises(ProlificError, match="400"):
        ProlificClient().study_create({**study_fields(study, 4)})
    # with the choice's id, the study is created
    study.prolific_filters = {**SCREENING, "first_languages": [english]}
    study.save(update_fields=["prolific_filters"])
    assert prolific_study_create(study=study).prolific_id in standin.studies
