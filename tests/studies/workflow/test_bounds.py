"""Every number and text the study form, its edit page and `POST /api/studies/create/` take is
bounded where it enters (`studies.bounds`): an infinite reward, an integer past what the database
holds, a design of 1e400 or a 100,000-character item set is refused with a message naming the field,
never a server error, and nothing is saved."""

from __future__ import annotations

import json

import pytest

from studies.bounds import MAX_DESIGN_TEXT, MAX_INTEGER, MAX_PENCE
from studies.models import Study
from tests.api.conftest import token_client
from tests.factories import small_study
from tests.studies.workflow.helpers import edit_data, form_data

pytestmark = pytest.mark.django_db

HUGE = 2**63
#: (the form's field, what is typed, the words of the refusal)
TYPED = [
    ("reward", "inf", "Enter a number"),
    ("reward", "-inf", "Enter a number"),
    ("reward", "1e309", "no more than 6 digits"),
    ("reward", "NaN", "Enter a number"),
    ("reward", "99999999", "no more than 6 digits"),
    ("sample_seed", str(HUGE), f"less than or equal to {MAX_INTEGER}"),
    ("sample_size", str(HUGE), f"less than or equal to {MAX_INTEGER}"),
    ("estimated_minutes", str(HUGE), f"less than or equal to {MAX_INTEGER}"),
    ("design_per_unit", str(HUGE), f"can be at most {MAX_INTEGER}"),
    ("design_unit_size", "1e400", "must be a whole number"),
    ("design_attention_checks", "1e400", "must be a whole number"),
    ("design_units", str(HUGE), f"can be at most {MAX_INTEGER}"),
    ("explanation_every", str(HUGE), "less than or equal to 1000"),
]


def _refused(page, field: str, words: str) -> None:
    assert page.status_code == 400
    errors = page.context["form"].errors
    assert field in errors, errors
    assert words in " ".join(errors[field])


@pytest.mark.parametrize("field, typed, words", TYPED)
def test_the_new_study_form_refuses_an_unbounded_number_by_its_field(
    researcher_client, implicature, field, typed, words
):
    data = {**form_data(researcher_client, "implicature", name="bounded", item_sampling="random"), field: typed}
    page = researcher_client.post("/studies/new/?benchmark=implicature", data)
    _refused(page, field, words)
    assert not Study.objects.filter(name="bounded").exists()


@pytest.mark.parametrize("field, typed, words", TYPED)
def test_the_edit_page_refuses_an_unbounded_number_by_its_field(
    researcher_client, researcher, implicature, field, typed, words
):
    draft = small_study("bounded draft", status=Study.Status.DRAFT, units=2, unit_size=3, per_unit=2)
    Study.objects.filter(pk=draft.pk).update(owner=researcher)
    data = {**edit_data(researcher_client, draft, item_sampling="random"), field: typed}
    page = researcher_client.post(f"/studies/{draft.pk}/edit/", data)
    _refused(page, field, words)
    assert Study.objects.get(pk=draft.pk).design == draft.design


def test_a_hundred_thousand_character_item_set_is_refused_on_the_form(researcher_client):
    data = {**form_data(researcher_client, "custom", name="long set"), "design_item_set": "x" * 100_000}
    page = researcher_client.post("/studies/new/?benchmark=custom", data)
    _refused(page, "design_item_set", f"at most {MAX_DESIGN_TEXT} characters")


URL = "/api/studies/create/"
DESIGN = {"units": 2, "unit_size": 5, "per_unit": 3, "attention_checks": 2, "exclude_at": 2}
#: (what is posted over the implicature defaults, the field the 400 names, the words)
POSTED = [
    ({"reward_pence": HUGE}, "reward_pence", f"less than or equal to {MAX_PENCE}"),
    ({"reward_pence": 1e400}, "reward_pence", "A valid integer is required"),
    ({"sample_seed": HUGE}, "sample_seed", f"less than or equal to {MAX_INTEGER}"),
    ({"sample_size": HUGE, "item_sampling": "random"}, "sample_size", f"less than or equal to {MAX_INTEGER}"),
    ({"estimated_minutes": HUGE}, "estimated_minutes", "less than or equal to 600"),
    ({"design": {**DESIGN, "per_unit": HUGE}}, "design.per_unit", f"can be at most {MAX_INTEGER}"),
    ({"design": {**DESIGN, "unit_size": 1e400}, "reward_pence": 300}, "design.unit_size", "whole number"),
    (
        {"design": {**DESIGN, "attention_checks": 1e400}, "estimated_minutes": 20},
        "design.attention_checks",
        "whole number",
    ),
    ({"design": {**DESIGN, "unit_size": 2.5}, "reward_pence": 300}, "design.unit_size", "whole number"),
    ({"design": {**DESIGN, "units": -HUGE}, "reward_pence": 300}, "design.units", "at least 1"),
]


@pytest.mark.parametrize("changes, field, words", POSTED)
def test_the_api_refuses_an_unbounded_number_with_a_400_naming_the_field(implicature, changes, field, words):
    from tests.personas import researcher as a_researcher

    data = {"name": "bounded", "benchmark": "implicature", "design": DESIGN, **changes}
    # as a script sends it: Python's json writes an infinite float as 1e400 reads, `Infinity`
    body = json.dumps(data).replace("Infinity", "1e400")
    response = token_client(a_researcher()).post(URL, body, content_type="application/json")
    assert response.status_code == 400, response.content
    body = response.json()
    assert field in body, body
    assert words in " ".join(body[field])
    assert not Study.objects.filter(name="bounded").exists()


def test_the_api_refuses_a_hundred_thousand_character_item_set_before_looking_for_it(db):
    from tests.personas import researcher as a_researcher

    data = {"name": "long", "benchmark": "custom", "design": {"item_set": "x" * 100_000}, "reward_pence": 300}
    response = token_client(a_researcher()).post(URL, data, format="json")
    assert response.status_code == 400, response.content
    assert f"at most {MAX_DESIGN_TEXT} characters" in " ".join(response.json()["design.item_set"])


@pytest.mark.parametrize("key", ["units", "unit_size", "per_unit", "exclude_at"])
def test_the_api_takes_or_refuses_a_design_at_the_schemas_largest_number_in_words(implicature, key):
    from tests.personas import researcher as a_researcher

    data = {"name": "largest", "benchmark": "implicature", "design": {**DESIGN, key: MAX_INTEGER}, "reward_pence": 300}
    response = token_client(a_researcher()).post(URL, data, format="json")
    assert response.status_code in (201, 400), response.content


def test_the_schema_states_the_bounds(client):
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/json").json()
    fields = schema["components"]["schemas"]["StudyCreateInput"]["properties"]
    assert fields["sample_seed"]["maximum"] == fields["sample_size"]["maximum"] == MAX_INTEGER
    assert fields["reward_pence"]["maximum"] == MAX_PENCE
    assert fields["consent_text"]["maxLength"] == 20_000
    kinds = fields["design"]["additionalProperties"]["oneOf"]
    assert {"type": "integer", "minimum": 0, "maximum": MAX_INTEGER} in kinds
    assert {"type": "string", "maxLength": MAX_DESIGN_TEXT} in kinds
