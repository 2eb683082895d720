"""The researcher's study pages in a real browser: the new-study form's estimate following the design
and its errors listed at the top; a draft edited and duplicated; a live study's places."""

from __future__ import annotations

import pytest

from studies.models import Study
from tests.browser.helpers import sign_in
from tests.factories import small_study
from tests.personas import researcher

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _import_implicature(source) -> None:
    from annotation.services import benchmark_import

    benchmark_import(name="implicature", source=source)


def test_the_new_study_form_estimates_from_the_design_and_lists_its_errors_at_the_top(
    live_server, page, artifacts, implicature_source
):
    _import_implicature(implicature_source)
    sign_in(page, live_server, researcher())
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{live_server.url}/studies/new/?benchmark=implicature")
    page.wait_for_function("document.readyState === 'complete' && !!window.htmx")
    assert page.inner_text("#time-estimate-text").startswith("153 answers × ~12 s")
    assert (page.input_value("#id_estimated_minutes"), page.input_value("#id_reward")) == ("33", "4.95")

    # a smaller design: its estimate comes back (htmx) and the time and reward follow it
    page.fill("#id_design_unit_size", "20")
    page.fill("#id_design_attention_checks", "2")
    page.keyboard.press("Tab")
    page.wait_for_function("document.getElementById('time-estimate-text').textContent.startsWith('22 answers')")
    page.wait_for_function("document.getElementById('id_estimated_minutes').value === '7'")
    assert page.input_value("#id_reward") == "1.05"  # 7 minutes at £9/h
    assert page.inner_text("#hourly-pay-value") == "£9.00/h"
    page.locator("#prolific-fields").screenshot(path=str(artifacts / "new-study-estimate.png"))

    # the researcher's own figures stay, whatever the design's estimate says next
    page.fill("#id_estimated_minutes", "30")
    page.fill("#id_reward", "0.50")
    page.fill("#id_design_units", "0")
    page.keyboard.press("Tab")
    page.wait_for_selector("#time-estimate:not([data-minutes])")  # no estimate of a wrong design
    assert (page.input_value("#id_estimated_minutes"), page.input_value("#id_reward")) == ("30", "0.50")

    page.fill("#id_name", "Refused pilot")
    page.keyboard.press("Enter")
    page.wait_for_selector("#form-errors")
    summary = page.inner_text("#form-errors")
    assert "2 things to correct; nothing was saved" in summary
    assert "Units: Units must be at least 1." in summary and "below Prolific's minimum of £6/h" in summary
    # the summary is on the screen at the top of the page, the button far below
    box = page.locator("#form-errors").bounding_box()
    assert box is not None and box["y"] + box["height"] < 900
    page.screenshot(path=str(artifacts / "new-study-form-errors.png"))
    page.click("#form-errors a[href='#field-reward']")
    page.wait_for_function("location.hash === '#field-reward'")
    assert not Study.objects.exists()


def test_a_draft_is_edited_and_duplicated_and_the_live_study_says_its_places(
    live_server, page, artifacts, implicature_source
):
    _import_implicature(implicature_source)
    owner = researcher()
    draft = small_study(
        "Implicature pilot",
        status=Study.Status.DRAFT,
        units=2,
        unit_size=5,
        per_unit=3,
        attention_checks=2,
        owner=owner,
    )
    sign_in(page, live_server, owner)
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{live_server.url}/studies/{draft.pk}/")
    page.wait_for_selector("#edit-study")
    assert page.inner_text("#study-places") == "6 places"
    page.screenshot(path=str(artifacts / "study-page-draft.png"), full_page=True)

    page.click("#edit-study")
    page.wait_for_selector("#study-form #save-study")
    assert page.input_value("#id_name") == "Implicature pilot"
    page.fill("#id_name", "Implicature pilot, four per unit")
    page.fill("#id_design_per_unit", "4")
    page.click("#save-study")
    page.wait_for_selector(".messages >> text=The draft is saved.")
    assert page.inner_text("h1") == "Implicature pilot, four per unit"
    assert page.inner_text("#study-places") == "8 places"

    page.click("#duplicate-study")
    page.wait_for_selector("h1 >> text=Implicature pilot, four per unit (copy)")
    copy = Study.objects.get(name="Implicature pilot, four per unit (copy)")
    assert copy.status == Study.Status.DRAFT and copy.link != draft.link and copy.units.count() == 2

    page.goto(f"{live_server.url}/studies/{draft.pk}/")
    page.click("#move-live")
    page.wait_for_selector('#study-status[data-status="live"]')
    assert page.inner_text("#places-to-set") == "8 places"
    assert page.inner_text("#places") == "8"
    assert page.locator("#edit-study").count() == 0 and page.locator("#duplicate-study").count() == 1
    page.screenshot(path=str(artifacts / "study-page-live-places.png"), full_page=True)
