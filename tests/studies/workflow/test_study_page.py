"""The study page: how many places to set on Prolific, and settings to paste wherever the page
says they are below."""

from __future__ import annotations

import re

import pytest
from django.test import override_settings

from studies.models import Study, Unit
from studies.setup.studies import study_set_status
from tests.factories import small_study

pytestmark = pytest.mark.django_db

BELOW = "paste the\n    settings below into Prolific by hand"


def _setting(html: str, element_id: str) -> str:
    found = re.search(rf'<code id="{element_id}">(.*?)</code>', html)
    assert found, f"no {element_id} to paste"
    return found.group(1)


@pytest.fixture
def study(implicature, researcher):
    # 2 units of 3 participants, and one unit raised to 4 in the admin: 7 places
    created = small_study("placed", status=Study.Status.DRAFT, units=2, unit_size=3, per_unit=3, owner=researcher)
    Unit.objects.filter(study=created, position=2).update(capacity=4)
    return created


def test_a_live_study_says_how_many_places_to_set_on_prolific(study, researcher_client):
    study_set_status(study=study, status=Study.Status.LIVE)
    html = researcher_client.get(f"/studies/{study.pk}/").content.decode()
    assert re.search(r'<strong id="places-to-set">7 places</strong>\s+on Prolific', html)
    assert _setting(html, "places") == "7"
    assert "Places (one for each participant the 2 units hold)" in html
    # the design's estimate: 3 items at ~12 s + 2 min, at £9/h
    assert (_setting(html, "estimated-minutes"), _setting(html, "reward")) == ("3", "0.45")


@override_settings(PROLIFIC_API_TOKEN="token")
def test_the_prolific_panel_says_how_many_places_creating_it_there_offers(study, researcher_client):
    html = researcher_client.get(f"/studies/{study.pk}/").content.decode()
    assert '<span id="prolific-places">7 places</span>' in html


def test_a_draft_that_says_paste_the_settings_below_has_them_below(study, researcher_client):
    html = researcher_client.get(f"/studies/{study.pk}/").content.decode()
    assert BELOW in html
    assert html.index(BELOW) < html.index('<section id="prolific-settings">')
    assert "{{%PROLIFIC_PID%}}" in _setting(html, "study-url") and _setting(html, "places") == "7"


def test_a_study_without_settings_to_paste_does_not_point_below(study, researcher_client):
    Study.objects.filter(pk=study.pk).update(is_imported=True, status=Study.Status.CLOSED)
    html = researcher_client.get(f"/studies/{study.pk}/").content.decode()
    assert "prolific-settings" not in html and "settings below" not in html
