"""A researcher preregisters a draft in a real browser: writes the hypotheses, launches, and sees the
frozen hash and time; a change after launch shows as "preregistered vs done"; the printable page
carries the same hash."""

from __future__ import annotations

import pytest

from studies.models import Preregistration, Study
from studies.setup.studies import unit_set_capacity
from tests.browser.helpers import sign_in
from tests.factories import small_study
from tests.personas import researcher

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_researcher_preregisters_launches_and_sees_the_frozen_hash(live_server, page, artifacts, implicature_source):
    from annotation.services import benchmark_import

    benchmark_import(name="implicature", source=implicature_source)
    owner = researcher()
    draft = small_study("Implicature, preregistered", status=Study.Status.DRAFT, owner=owner)
    sign_in(page, live_server, owner)
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{live_server.url}/studies/{draft.pk}/")
    page.fill("#id_hypotheses", "Participants resolve at least 80% of the implicatures; the model fewer.")
    page.fill("#id_notes", "Same 10 items for people and the model.")
    page.click("#preregistration-save")
    page.wait_for_selector(".messages >> text=it freezes when you launch the study")
    assert page.input_value("#id_hypotheses").startswith("Participants resolve")

    page.click("#move-live")
    page.wait_for_selector('#study-status[data-status="live"]')
    frozen = Preregistration.objects.get(study=draft)
    assert page.inner_text("#preregistration-sha256") == frozen.sha256
    assert page.get_attribute("#preregistration-frozen-at", "datetime") == frozen.frozen_at.isoformat()
    assert page.locator("#preregistration-form").count() == 0

    unit_set_capacity(unit=draft.units.order_by("position").first(), capacity=4, actor=owner)
    page.reload()
    assert "places now 6, preregistered 4" in page.inner_text("#preregistration-deviations")
    assert page.inner_text("#preregistration-sha256") == frozen.sha256
    page.locator("#preregistration").screenshot(path=str(artifacts / "preregistration.png"))

    page.goto(f"{live_server.url}/studies/{draft.pk}/preregistration.html")
    assert page.inner_text("#preregistration-sha256") == frozen.sha256
    assert "Participants resolve at least 80%" in page.inner_text("body")
