"""In a real browser: a draft's time and reward follow its edited design until the researcher types
their own, and a reward that the design's time makes too small is refused with the figure; the
new-study form names the real error first (the items a design needs), and after a refused submit
its estimate box still estimates the design as typed."""

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


def _ready(page) -> None:
    page.wait_for_function("document.readyState === 'complete' && !!window.htmx")


def _pay_fields(page) -> tuple[str, str]:
    return page.input_value("#id_estimated_minutes"), page.input_value("#id_reward")


def _pay_draft(name: str, owner) -> Study:
    """The issue's draft: 1 unit of 10 items and 2 checks, made with the estimate: 5 min, £0.75."""
    return small_study(
        name,
        status=Study.Status.DRAFT,
        units=1,
        unit_size=10,
        per_unit=2,
        owner=owner,
        estimated_minutes=5,
        reward_pence=75,
    )


def _change_design(page, values: dict[str, str], answers: str) -> None:
    """Type the design's fields and leave the last one, as a person does; wait for its estimate."""
    for key, value in values.items():
        page.fill(f"#id_design_{key}", value)
    page.keyboard.press("Tab")
    page.wait_for_function(
        "text => document.getElementById('time-estimate-text')?.textContent.startsWith(text)", arg=answers
    )


def test_an_edited_drafts_time_and_reward_follow_its_design_until_typed(
    live_server, page, artifacts, implicature_source
):
    _import_implicature(implicature_source)
    owner = researcher()
    draft = _pay_draft("Pay pilot", owner)
    sign_in(page, live_server, owner)
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{live_server.url}/studies/{draft.pk}/edit/")
    _ready(page)
    assert _pay_fields(page) == ("5", "0.75")

    # 4 units of 150 items and 3 checks: the estimate, the fields and the implied pay follow
    _change_design(page, {"units": "4", "unit_size": "150", "attention_checks": "3"}, "153 answers")
    page.wait_for_function("document.getElementById('id_estimated_minutes').value === '33'")
    assert _pay_fields(page) == ("33", "4.95")
    assert (page.inner_text("#hourly-pay-value"), page.inner_text("#hourly-pay-verdict")) == ("£9.00/h", "ok")
    page.locator("#prolific-fields").screenshot(path=str(artifacts / "edit-draft-pay-follows.png"))
    page.click("#save-study")
    page.wait_for_selector(".messages >> text=The draft is saved.")
    draft.refresh_from_db()
    assert (draft.estimated_minutes, draft.reward_pence, draft.design["unit_size"]) == (33, 495, 150)

    # and back down to 5 items: 4 minutes, £0.60
    page.goto(f"{live_server.url}/studies/{draft.pk}/edit/")
    _ready(page)
    _change_design(page, {"unit_size": "5", "attention_checks": "2"}, "7 answers")
    page.wait_for_function("document.getElementById('id_estimated_minutes').value === '4'")
    assert _pay_fields(page) == ("4", "0.60")

    # the researcher's own figures stay; the pay is judged on the design's longer time, and refused
    page.fill("#id_estimated_minutes", "6")
    page.fill("#id_reward", "0.90")
    _change_design(page, {"unit_size": "150", "attention_checks": "3"}, "153 answers")
    assert _pay_fields(page) == ("6", "0.90")
    page.wait_for_function("document.getElementById('hourly-pay-value').textContent === '£1.64/h'")
    assert page.inner_text("#hourly-pay-basis").strip() == "at the design's estimated 33 minutes"
    assert "below Prolific's £6/h minimum" in page.inner_text("#hourly-pay-verdict")
    page.click("#save-study")
    page.wait_for_selector("#form-errors")
    summary = page.inner_text("#form-errors")
    assert "£0.90 for this design's estimated 33 minutes is £1.64/h, below Prolific's minimum of £6/h" in summary
    assert "pay at least £3.30" in summary
    draft.refresh_from_db()
    assert (draft.estimated_minutes, draft.reward_pence, draft.design["unit_size"]) == (33, 495, 150)


def test_the_new_study_form_names_the_real_error_first(live_server, page, artifacts, implicature_source):
    _import_implicature(implicature_source)
    sign_in(page, live_server, researcher())
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{live_server.url}/studies/new/?benchmark=implicature")
    _ready(page)

    # 5,000 items per unit: 20,000 test items needed, 600 imported; the time follows the design
    page.fill("#id_name", "Too big")
    _change_design(page, {"unit_size": "5000"}, "5003 answers")
    page.click("#create-study")
    page.wait_for_selector("#form-errors")
    first = page.locator("#form-errors li").first.inner_text()
    assert "4 units of 5000 items need 20000 test items; only 600 are imported" in first, first
    summary = page.inner_text("#form-errors")
    assert "Estimated minutes" not in summary  # a field the researcher never touched
    page.screenshot(path=str(artifacts / "new-study-errors.png"))


def test_after_a_refused_submit_the_estimate_box_estimates_the_design_as_typed(live_server, page, implicature_source):
    _import_implicature(implicature_source)
    sign_in(page, live_server, researcher())
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{live_server.url}/studies/new/?benchmark=implicature")
    _ready(page)
    # the paper's design, excluding at one failed check: refused for a 33-minute study
    page.fill("#id_name", "Strict pilot")
    page.fill("#id_design_exclude_at", "1")
    page.click("#create-study")
    page.wait_for_selector("#form-errors")
    assert "Prolific allows rejecting for a single failed check only" in page.inner_text("#form-errors")
    _ready(page)
    assert page.locator("#time-estimate[data-minutes='33']").count() == 1
    assert page.inner_text("#time-estimate-text").startswith("153 answers")
    assert _pay_fields(page) == ("33", "4.95")

    # a smaller design after the refusal: its estimate comes, the time and reward follow it
    _change_design(page, {"unit_size": "20", "attention_checks": "2", "exclude_at": "2"}, "22 answers")
    page.wait_for_function("document.getElementById('id_estimated_minutes').value === '7'")
    assert _pay_fields(page) == ("7", "1.05")
    page.fill("#id_name", "")
    page.click("#create-study")  # refused again: no name
    page.wait_for_selector("#form-errors")
    assert page.locator("#form-errors li").count() == 1
    assert page.locator("#time-estimate[data-minutes='7']").count() == 1
    assert page.inner_text("#time-estimate-text").startswith("22 answers")
    page.fill("#id_name", "Right size")
    page.click("#create-study")
    page.wait_for_selector(".messages >> text=created as a draft")
    study = Study.objects.get(name="Right size")
    assert (study.estimated_minutes, study.reward_pence, study.design["unit_size"]) == (7, 105, 20)


def test_a_time_and_reward_typed_before_the_pages_script_ran_are_kept_and_judged(live_server, page, implicature_source):
    """On a slow page the researcher types before researcher.js has run: the design's estimate
    arriving afterwards must not overwrite what they typed, and the pay is judged on it."""
    _import_implicature(implicature_source)
    owner = researcher()
    draft = _pay_draft("Slow page", owner)
    sign_in(page, live_server, owner)
    held = []

    # the page's script is held back until the researcher has typed
    page.route("**/researcher.js", lambda route: held.append(route))
    page.goto(f"{live_server.url}/studies/{draft.pk}/edit/", wait_until="commit")
    page.wait_for_selector("#hourly-pay")  # parsed: the deferred scripts wait for the held one
    page.fill("#id_estimated_minutes", "20")
    page.fill("#id_reward", "0.50")
    page.wait_for_function("!!window.htmx")
    assert len(held) == 1
    held[0].continue_()
    page.wait_for_function("document.readyState === 'complete'")
    page.wait_for_function("document.getElementById('hourly-pay-value').textContent === '£1.50/h'")
    _change_design(page, {"unit_size": "5"}, "7 answers")
    assert _pay_fields(page) == ("20", "0.50")
    assert "below Prolific's £6/h minimum" in page.inner_text("#hourly-pay-verdict")


def test_the_estimate_never_replaces_a_time_under_the_researchers_cursor(live_server, page, implicature_source):
    """The design's estimate arriving while the researcher is in the time field (about to type) leaves
    the time and reward alone: a value replaced under their cursor joined what they typed ("510")."""
    _import_implicature(implicature_source)
    owner = researcher()
    draft = _pay_draft("Cursor", owner)
    sign_in(page, live_server, owner)
    page.goto(f"{live_server.url}/studies/{draft.pk}/edit/")
    _ready(page)
    held = []
    # the design's estimate (the fieldset's htmx request, the form posted with `estimate_only`) is held back

    def hold_the_estimate(route) -> None:
        if "estimate_only" in (route.request.post_data or ""):
            held.append(route)
        else:
            route.continue_()

    page.route(f"**/studies/{draft.pk}/edit/", hold_the_estimate)
    page.fill("#id_design_unit_size", "5")
    page.keyboard.press("Tab")
    for _ in range(100):
        if held:
            break
        page.wait_for_timeout(50)
    assert len(held) == 1
    page.focus("#id_estimated_minutes")
    held[0].continue_()
    page.wait_for_function("document.getElementById('time-estimate-text')?.textContent.startsWith('7 answers')")
    assert page.evaluate("document.getElementById('time-estimate').dataset.minutes") != "5"
    assert _pay_fields(page) == ("5", "0.75")
    page.fill("#id_estimated_minutes", "10")
    assert _pay_fields(page) == ("10", "0.75")
