"""Property-based tests of the researchers' API against its own OpenAPI schema (schemathesis):
requests generated from the schema, sent with a staff token to the real application, never get a
server error, and every answer has a status code, content type and body the schema documents.

The writes are exercised too, with the same token (a researcher's permissions, on every study):
each operation's examples run in one transaction, rolled back after it, so a study one example
closes is closed for the next examples of that operation only. Starting a model run is fuzzed once
more with long and odd model names (past a file name's length, control characters, other scripts):
a name the file system cannot take is a 400, never a server error."""

from __future__ import annotations

import pytest
import schemathesis
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from drf_spectacular.generators import SchemaGenerator
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from knox.models import AuthToken
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]
#: examples per operation: enough to reach the 400 and 404 paths, small enough for about a minute in all
EXAMPLES = 25

# schemathesis's items share one node ID under pytest 9, which pytest-xdist would run only once
pytestmark = [pytest.mark.serial, pytest.mark.django_db]


@pytest.fixture(scope="module")
def staff_token(world) -> str:
    from studies.models import Study
    from tests.personas import user_with

    user = user_with("schema-fuzz")
    for study in Study.objects.all():
        study.collaborators.add(user)
    return AuthToken.objects.create(user)[1]


@pytest.fixture
def generous_rates(settings):
    rates = {"anon": "10000/minute", "user": "10000/minute"}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}


@pytest.fixture
def application():
    """The real WSGI application, kept from closing the test's database connection at the end of each
    request (as Django's test client does)."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield WSGIHandler()
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


#: the schema the application publishes at /api/schema/, generated the same way
schema = schemathesis.openapi.from_dict(SchemaGenerator().get_schema(request=None, public=True))


@schema.parametrize()
@schema.given(real_study=st.booleans(), pseudonym=st.sampled_from(["A1", "A3", "A5"]) | st.text(max_size=4))
# derandomized and without an example database: the same requests on every run, no files left behind
@settings(
    max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True, database=None
)
def test_the_api_answers_as_its_schema_says(
    case, real_study, pseudonym, pilot, staff_token, generous_rates, application
):
    params = case.path_parameters or {}
    # half the cases address the study that exists, so the 200 paths are reached as well as the 404s
    if "study_id" in params and real_study:
        params["study_id"] = pilot.study_id
        if "pseudonym" in params and pseudonym:
            params["pseudonym"] = pseudonym
        if "run_id" in params:
            from modelruns.models import ModelRun

            params["run_id"] = ModelRun.objects.filter(study_id=pilot.study_id).values_list("pk", flat=True).first()
    case.call_and_validate(app=application, headers={"Authorization": f"Token {staff_token}"}, checks=CHECKS)


#: model names a researcher may type, long and odd: past a file name's 255 bytes, past the column's 500
#: characters, control characters and NUL, paths that climb, other scripts, right-to-left marks
MODEL_NAMES = st.one_of(
    st.integers(200, 600).map(lambda n: "m" * n),
    st.tuples(
        st.sampled_from(["HuggingFaceTB/", "/srv/models/", "~/", "./", "https://x.test/v1/"]), st.integers(240, 480)
    ).map(lambda pair: pair[0] + "x" * pair[1]),
    st.text(min_size=1, max_size=600),
    st.sampled_from(["smollm2", "../../etc/passwd", "smollm2\x00", "a\nb", "\u202esmollm2", " " * 10, "é" * 300]),
)
START = schema["/api/studies/{study_id}/model-runs/start/"]["POST"]


@given(case=START.as_strategy(), model=MODEL_NAMES)
@settings(
    max_examples=EXAMPLES * 2, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True, database=None
)
def test_starting_a_run_with_long_and_odd_model_names_is_never_a_server_error(
    case, model, pilot, staff_token, generous_rates, application
):
    case.path_parameters = {**(case.path_parameters or {}), "study_id": pilot.study_id}
    case.body = {**(case.body if isinstance(case.body, dict) else {}), "model": model}
    response = case.call(app=application, headers={"Authorization": f"Token {staff_token}"})
    assert response.status_code < 500, (model, response.text[:500])
    case.validate_response(response, checks=CHECKS)


def test_the_schema_documents_the_errors_each_operation_answers_with():
    operations = SchemaGenerator().get_schema(request=None, public=True)["paths"]
    assert set(operations["/api/studies/"]["get"]["responses"]) == {"200", "401", "403", "429"}
    assert set(operations["/api/studies/{study_id}/"]["get"]["responses"]) == {"200", "401", "403", "404", "429"}
    for path in [
        "/api/studies/{study_id}/results/",
        "/api/studies/{study_id}/responses/",
        "/api/studies/{study_id}/exports/{fmt}/",
    ]:
        assert {"400", "404"} <= set(operations[path]["get"]["responses"]), path
    exclusion = operations["/api/studies/{study_id}/participants/{pseudonym}/exclusion/"]["post"]["responses"]
    assert {"400", "404"} <= set(exclusion)
    assert set(operations["/api/studies/create/"]["post"]["responses"]) == {"201", "400", "401", "403", "429"}
    for path in ["/api/studies/{study_id}/status/", "/api/studies/{study_id}/model-runs/{run_id}/cancel/"]:
        assert {"404", "409"} <= set(operations[path]["post"]["responses"]), path
    assert {"200", "201", "400", "404"} <= set(
        operations["/api/studies/{study_id}/model-runs/start/"]["post"]["responses"]
    )
    fmt = next(
        p for p in operations["/api/studies/{study_id}/exports/{fmt}/"]["get"]["parameters"] if p["name"] == "fmt"
    )
    assert fmt["schema"]["enum"] == ["csv", "jsonl", "latex", "markdown", "parquet", "participants-csv", "wide-csv"]


@pytest.mark.parametrize(
    "path", ["/api/studies/1.5/", "/api/studies/-3/items/", "/api/nothing-here/", f"/api/studies/{10**30}/"]
)
def test_a_path_under_the_api_that_matches_nothing_is_a_json_404(path, staff_token, client):
    response = client.get(path, HTTP_AUTHORIZATION=f"Token {staff_token}")
    assert response.status_code == 404 and response.json() == {"detail": response.json()["detail"]}


def test_pages_outside_the_api_keep_the_site_404(client):
    response = client.get("/no-such-page/")
    assert response.status_code == 404 and response["Content-Type"].startswith("text/html")
