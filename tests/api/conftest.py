"""The API's writes, tried as each persona around one study (`tests.personas.personas_for`)."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import override_settings
from knox.models import AuthToken
from rest_framework.test import APIClient

from studies.models import Study
from tests.factories import small_study
from tests.personas import Personas, personas_for

# The researchers' API is tried on the studies the results tests build (scripted, hand-checkable).
from tests.results.conftest import (  # noqa: F401
    ambi,
    baseline,
    implicature_source,
    member_client,
    pilot,
    staff_client,
    world,
)


def token_client(user: Any) -> APIClient:
    """A script's client: the user's API token in the Authorization header."""
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {AuthToken.objects.create(user)[1]}")
    return api


@pytest.fixture
def draft(implicature) -> Study:
    return small_study(
        "api draft", status=Study.Status.DRAFT, units=2, unit_size=3, per_unit=2, attention_checks=0, exclude_at=0
    )


@pytest.fixture
def people(draft) -> Personas:
    """The superuser, owner, collaborator, view-only collaborator and outsider of `draft`."""
    return personas_for(draft)


def user_rate(settings, rate: str) -> Any:
    """The researchers' throttle at `rate` for the `with` block."""
    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "user": rate}
    return override_settings(REST_FRAMEWORK={**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates})
