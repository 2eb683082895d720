"""A property-based test (hypothesis) of the new-study form and of `POST /api/studies/create/`: any
value in any of their number and text fields (numbers of any size, infinities and NaN, fractions,
words, long and odd text) is saved or refused with a message, never a server error."""

from __future__ import annotations

import json

import pytest
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.api.conftest import token_client
from tests.personas import researcher as a_researcher
from tests.studies.workflow.helpers import form_data

pytestmark = pytest.mark.django_db
#: examples per test: each posts a whole form, with its design estimated and its units planned
EXAMPLES = 120

FIELDS = [
    "reward",
    "estimated_minutes",
    "sample_size",
    "sample_seed",
    "min_answer_ms",
    "explanation_every",
    "age_min",
    "approval_rate_min",
    "name",
    "completion_code",
    "design_units",
    "design_unit_size",
    "design_per_unit",
    "design_attention_checks",
    "design_exclude_at",
    "design_template",
]
NUMBERS = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([2**31 - 1, 2**31, 2**63 - 1, 2**63, 2**200]),
    st.floats(allow_nan=True, allow_infinity=True),
)
#: the values past a bound that a field must refuse in words (each drawn often, not left to chance)
EXTREMES = [
    "inf",
    "-inf",
    "NaN",
    "1e309",
    "1e400",
    str(2**31),
    str(2**63),
    str(-(2**63)),
    "2.5",
    "-0",
    " 7 ",
    "",
    "٣",
    "x" * 100_000,
]
TYPED = st.one_of(
    st.sampled_from(EXTREMES),
    NUMBERS.map(str),
    st.text(max_size=40),
)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(changes=st.dictionaries(st.sampled_from(FIELDS), TYPED, min_size=1, max_size=3))
def test_the_new_study_form_never_answers_with_a_server_error(researcher_client, implicature, changes):
    data = {**form_data(researcher_client, "implicature", name="fuzzed", item_sampling="random"), **changes}
    with transaction.atomic():
        page = researcher_client.post("/studies/new/?benchmark=implicature", data)
        assert page.status_code in (200, 302, 400)
        transaction.set_rollback(True)


API_FIELDS = ["reward_pence", "estimated_minutes", "sample_size", "sample_seed", "min_answer_ms", "explanation_every"]
DESIGN_KEYS = ["units", "unit_size", "per_unit", "attention_checks", "exclude_at", "template"]
VALUES = st.one_of(
    st.sampled_from([2**31, 2**63, -(2**63), float("inf"), float("-inf"), float("nan"), 2.5, "x" * 100_000]),
    NUMBERS,
    st.text(max_size=30),
    st.booleans(),
    st.none(),
    st.lists(st.integers(), max_size=2),
)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(
    top=st.dictionaries(st.sampled_from(API_FIELDS), VALUES, max_size=2),
    design=st.dictionaries(st.sampled_from(DESIGN_KEYS), VALUES, min_size=1, max_size=3),
)
def test_the_api_never_answers_a_study_with_a_server_error(implicature, top, design):
    body = {"name": "fuzzed", "benchmark": "implicature", "design": design, **top}
    # a script's JSON: Python writes an infinite float as `Infinity`, which strict JSON has not; 1e400 reads as one
    text = json.dumps(body).replace("-Infinity", "-1e400").replace("Infinity", "1e400")
    with transaction.atomic():
        response = token_client(a_researcher("fuzzing")).post(
            "/api/studies/create/", text, content_type="application/json"
        )
        assert response.status_code in (201, 400), response.content
        transaction.set_rollback(True)
