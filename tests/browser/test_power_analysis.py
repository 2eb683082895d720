"""The new-study form's power analysis in a real browser: it follows the design's people and items as
they are typed (the design's live request brings it), and the study keeps what the form showed."""

from __future__ import annotations

import pytest

from studies.models import Study
from tests.browser.helpers import sign_in
from tests.personas import researcher

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_power_analysis_follows_the_people_and_items_typed(live_server, page, artifacts, implicature_source):
    from annotation.services import benchmark_import

    benchmark_import(name="implicature", source=implicature_source)
    sign_in(page, live_server, researcher())
    page.set_viewport_size({"width": 1280, "height": 1000})
    page.goto(f"{live_server.url}/studies/new/?benchmark=implicature")
    page.wait_for_function("document.readyState === 'complete' && !!window.htmx")
    text = page.inner_text("#power-analysis-text")
    assert text.startswith("Power analysis before launch: with 20 people in 4 units of 150 items each")
    assert "detects a gap of 3.7 points or more either way" in text
    assert page.inner_text("#power-source") == "published"
    before = float(page.get_attribute("#power-analysis", "data-detectable-gap") or "nan")

    # fewer items per unit, more people per unit: the figures come back for the design as typed
    page.fill("#id_design_unit_size", "40")
    page.fill("#id_design_per_unit", "15")
    page.keyboard.press("Tab")
    page.wait_for_function(
        "document.getElementById('power-analysis-text').textContent.includes('with 60 people in 4 units of 40')"
    )
    after = float(page.get_attribute("#power-analysis", "data-detectable-gap") or "nan")
    assert after > before  # 160 items detect less than 600 do, whatever the people
    page.locator("#design").screenshot(path=str(artifacts / "new-study-power.png"))

    page.fill("#id_name", "planned in the browser")
    page.fill("#id_population", "adult native English speakers in the UK")
    page.fill("#id_ethics_exemption", "the institution exempts anonymous online tasks")
    page.click("#create-study")
    page.wait_for_url("**/studies/*/")
    study = Study.objects.get(name="planned in the browser")
    assert study.population == "adult native English speakers in the UK"
    assert (study.power_analysis["people"], study.power_analysis["items_per_person"]) == (60, 40)
    assert study.power_analysis["detectable_gap"] == pytest.approx(after)
