"""A new researcher's study walked end to end in a browser at 1,366×768, as people meet it: the
new-study form (a power analysis, prescreeners, a stratified sample, practice questions, a
comprehension check and "why?" boxes), the draft edited, previewed and launched; four participants
(one good, one screened out by the check, one failing the attention checks, one on a 360×740 phone
answering "yes" nearly throughout); the monitor, the participant list, the review page, the results
on a laptop and on a phone, the study list, the report, the exports and a bundle. Beside it, written
answers waiting for their verification, an AmbiBench episode on a phone and an Arabic study.

Each step checks what a person sees against the records it comes from, where a researcher trying
the platform met a defect before (the numbers are the items of issue 60, "A real study, round
three"): the training counted in the time (3), the items to draw named on their field (4), no
template comment printed (11), the check's choices on rows of their own (2), Back showing the
current item (7), unverified written answers not counted wrong (1), near-constant answering flagged
(6), explanations on the review and admin pages and in the export linked (5), a constant model named
as one (6), the Reason column and the models table in view (11), gaps in points (11), the
robustness row for people excluded by hand (9), a stratified sample in proportion (8)."""

from __future__ import annotations

import csv
import io
import re
import zipfile
from collections import Counter

import pytest

from annotation.models import Item
from annotation.services import benchmark_import
from studies.models import Participant, Response, Study
from tests.browser.conftest import route_prolific
from tests.browser.helpers import (
    BOX,
    PHONE,
    answer_check,
    assert_each_choice_a_row,
    assert_no_horizontal_scroll,
    assert_reason_column_in_view,
    each_item,
    fill_study_form,
    in_view,
    page_width,
    past_the_window,
    plan_for_the_checklist,
    practise,
    screened_out_by_the_check,
    sign_in,
    to_training,
    wait_until_interactive,
)
from tests.browser.walks import STUDIES, walk
from tests.factories import Bot, pid
from tests.personas import researcher
from tests.results.conftest import model_run

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LAPTOP = {"width": 1366, "height": 768}
NAME = "Do people hear the implicature? A pilot"
#: 2 units of 10 items and 2 attention checks, 4 people each; excluded at 2 failed checks
DESIGN = {"units": "2", "unit_size": "10", "per_unit": "4", "attention_checks": "2", "exclude_at": "2"}
RIGHT = "Say whether the answer means yes or no"
#: the live estimate's and the refusal's words for 20 items wanted of 15 drawn
TOO_FEW = "2 units of 10 items need 20 items; Items to draw is 15 (600 imported)"
HAND = "Answered yes to nearly every item"
FLIP = {"yes": "no", "no": "yes"}


def _press(page, value: str, *, touch: bool = False) -> None:
    """The answer button of `value` (its posted value, whatever its words), clicked or tapped."""
    button = page.locator(f'#item-area button.choice[value="{value}"]')
    button.tap() if touch else button.click()


# -- the researcher plans the study -------------------------------------------------------------------


def _estimate(page) -> tuple[str, int]:
    estimate = page.locator("#time-estimate")
    return page.inner_text("#time-estimate-text"), int(estimate.get_attribute("data-minutes") or 0)


def _planned_on_the_form(page, live_server) -> Study:
    page.goto(f"{live_server.url}/studies/new/?benchmark=implicature")
    fill_study_form(page, NAME, DESIGN)
    page.wait_for_function(
        "document.getElementById('power-analysis-text').textContent.includes('8 people in 2 units of 10 items')"
    )
    power = page.inner_text("#power-analysis-text")
    # a gap in percentage points, never "%" (11)
    assert re.search(r"detects a model [\d.]+ points or more", power) and not re.search(r"[\d.]+% or more", power), (
        power
    )
    assert "{#" not in page.inner_text("body"), "a template comment printed (11)"
    plain, plain_minutes = _estimate(page)
    assert plain.startswith("12 answers × ~12 s + 2 min") and "practice" not in plain, plain

    # a stratified sample, first of too few items: the live estimate says so before anything is saved (4)
    page.select_option("#id_item_sampling", "stratified")
    chosen = page.locator("#id_item_sampling option:checked").inner_text()
    assert "in proportion to each category's share" in chosen, chosen
    page.fill("#id_sample_size", "15")
    page.fill("#id_sample_seed", "1234")
    page.keyboard.press("Tab")
    page.wait_for_selector("#design-problem")
    assert TOO_FEW in page.inner_text("#design-problem")

    # prescreeners, and the training, whose time the estimate counts (3)
    plan_for_the_checklist(page)
    page.keyboard.press("Tab")
    page.wait_for_function(
        "document.getElementById('time-estimate-text').textContent.includes('explanations')", timeout=15_000
    )
    trained, trained_minutes = _estimate(page)
    for part in ("12 answers × ~12 s", "2 practice questions", "2 comprehension questions", "explanations"):
        assert part in trained, trained
    assert trained_minutes > plain_minutes, (trained, plain)

    # refused on Items to draw, the one error, linked to its field (4)
    page.click("#create-study")
    page.wait_for_selector("#form-errors")
    errors = page.locator("#form-errors li")
    assert errors.count() == 1 and errors.first.inner_text() == f"Items to draw: {TOO_FEW}"
    assert errors.first.locator("a").get_attribute("href") == "#field-sample_size"
    assert TOO_FEW in page.inner_text("#field-sample_size .errorlist")
    page.fill("#id_sample_size", "20")
    page.click("#create-study")
    page.wait_for_selector('#study-status[data-status="draft"]')
    study = Study.objects.get(name=NAME)
    assert (study.item_sampling, study.sample_size, study.sample_seed) == ("stratified", 20, 1234)
    assert study.prolific_filters == {"age_min": 18, "age_max": 65, "approval_rate_min": 95}
    assert (len(study.practice_questions), len(study.comprehension_questions)) == (2, 2)
    assert study.power_analysis["people"] == 8
    return study


def _in_proportion(study: Study) -> None:
    """The 20 items drawn stratified hold each category in proportion to its share of the imported
    items: within one item of it (8), not one of each first."""
    benchmark = study.definition
    drawn = Item.objects.filter(units__study=study, is_attention_check=False).distinct()
    pool = Item.objects.filter(benchmark="implicature", is_attention_check=False, split=drawn[0].split)
    shares = Counter(benchmark.category_of(meta) for meta in pool.values_list("meta", flat=True))
    held = Counter(benchmark.category_of(item.meta) for item in drawn)
    total = sum(shares.values())
    assert sum(held.values()) == 20
    for category, n in shares.items():
        assert abs(held[category] - 20 * n / total) < 1, (category, held[category], 20 * n / total)


def _edited_previewed_and_launched(page, study: Study) -> None:
    page.click("#edit-study")
    page.wait_for_selector("#study-form")
    assert "{#" not in page.inner_text("body"), "a template comment printed on the edit form (11)"
    page.wait_for_function("document.readyState === 'complete' && !!window.htmx")
    page.fill("#id_paper_title", "Do people hear the implicature?")
    # the paper's link a box as wide as the paper's title (11)
    link, title = page.evaluate(BOX, "#id_paper_url"), page.evaluate(BOX, "#id_paper_title")
    assert abs(link["width"] - title["width"]) <= 1, (link, title)
    page.click("#save-study")
    page.wait_for_selector(".messages >> text=The draft is saved.")
    assert Study.objects.get(pk=study.pk).paper_title == "Do people hear the implicature?"

    page.click("#preview-link")
    page.wait_for_selector("#consent strong >> text=of your own free will")
    page.click("#consent button[value=yes]")
    page.wait_for_selector("#instructions")
    page.click("#instructions button[type=submit]")
    practise(page, ["no", "ready"])
    answer_check(page, RIGHT, "no")
    page.wait_for_selector("#item-area")
    assert not Participant.objects.filter(study=study).exists()
    page.click("#preview-banner a")
    page.click("#move-live")
    page.wait_for_selector('#study-status[data-status="live"]')


# -- four people take part ----------------------------------------------------------------------------


def _participant(study: Study, n: int) -> Participant:
    return Participant.objects.get(study=study, prolific_pid=pid(n))


def _good(browser, live_server, study: Study) -> Participant:
    """Right answers, a reason where asked, and the Back button pressed at the third item (7)."""
    context = browser.new_context(viewport=LAPTOP)
    page = context.new_page()
    to_training(page, live_server, study, 1)
    practise(page, ["no", "ready"])
    page.wait_for_selector("#comprehension")
    assert_each_choice_a_row(page)  # (2)
    answer_check(page, RIGHT, "no")
    participant = _participant(study, 1)
    for position, item in each_item(page, participant):
        if position == 3:
            page.go_back()
            page.wait_for_load_state("load")
            if page.locator("#item-area").count() == 0:
                page.locator("button.primary").first.click()
            page.wait_for_selector(f"#progress >> text=3 of {participant.total}")
            wait_until_interactive(page)
            assert page.locator("#answer-form input[name=position]").input_value() == "3"
        if page.locator("#explanation").count():
            page.fill("#explanation", f"My reason at {position}")
        _press(page, item.gold)
        if position == 3:
            page.wait_for_selector(f"#progress >> text=4 of {participant.total}")
            assert "Answer saved. Item 4 of" in page.inner_text("#announcer")
    page.wait_for_selector("#done")
    context.close()
    stored = Response.objects.filter(participant=participant).order_by("position")
    assert list(stored.values_list("position", flat=True)) == list(range(1, participant.total + 1))
    return participant


def _screened_out(browser, live_server, study: Study) -> None:
    context = browser.new_context(viewport=LAPTOP)
    page = context.new_page()
    screened_out_by_the_check(page, live_server, study, 2)
    assert study.completion_code not in page.content()
    context.close()
    assert _participant(study, 2).status == Participant.Status.SCREENED_OUT


def _inattentive(browser, live_server, study: Study) -> None:
    context = browser.new_context(viewport=LAPTOP)
    page = context.new_page()
    to_training(page, live_server, study, 3)
    practise(page, ["no", "ready"])
    answer_check(page, RIGHT, "no")
    participant = _participant(study, 3)
    for _, item in each_item(page, participant):
        _press(page, FLIP[item.gold] if item.is_attention_check else item.gold)
    page.wait_for_selector("#done")
    context.close()
    participant.refresh_from_db()
    assert participant.excluded and participant.exclusion_reason == "failed 2 attention checks (threshold 2)"


def _on_a_phone(browser, live_server, study: Study) -> None:
    """Taps on a 360×740 touch screen, every page within its width: "no" to the first study item and
    "yes" to the other nine, the attention checks right."""
    context = browser.new_context(**PHONE)
    page = context.new_page()
    to_training(page, live_server, study, 4)
    page.wait_for_selector("#practice")
    assert_no_horizontal_scroll(page, context="a practice question on a phone")
    practise(page, ["no", "ready"], touch=True)
    page.wait_for_selector("#comprehension")
    assert_no_horizontal_scroll(page, context="the comprehension check on a phone")
    assert_each_choice_a_row(page)  # (2), where a label wrapped round the next radio
    page.locator("#comprehension-form label", has_text=RIGHT).first.tap()
    page.locator("#comprehension-form fieldset").nth(1).locator("label", has_text="no").tap()
    page.locator("#comprehension-form button[type=submit]").tap()
    participant = _participant(study, 4)
    first = True
    for position, item in each_item(page, participant):
        assert_no_horizontal_scroll(page, context=f"item {position} on a phone")
        if page.locator("#explanation").count():
            page.fill("#explanation", "it sounded like a yes")
        if item.is_attention_check:
            _press(page, item.gold, touch=True)
        else:
            _press(page, "no" if first else "yes", touch=True)
            first = False
    page.wait_for_selector("#done")
    assert_no_horizontal_scroll(page, context="the done page on a phone")
    context.close()


def _scripted(study: Study) -> None:
    """Three more people, through the pages without a browser: each wrong on a few items of their own."""
    for n in (11, 12, 13):
        Bot(Study.objects.get(pk=study.pk), pid(n)).complete(
            lambda item, n=n: item.gold if item.is_attention_check or item.pk % n else FLIP[item.gold]
        )


# -- the researcher reviews -----------------------------------------------------------------------------


def _row(page, participant: Participant):
    return page.locator("#result_list tbody tr", has_text=participant.pseudonym)


def _monitor(page, live_server, study: Study, phone: Participant) -> None:
    page.goto(f"{live_server.url}/studies/{study.pk}/monitor/")
    page.wait_for_selector("#monitor-counts")
    counts = {
        name: page.inner_text(f'#monitor-counts dd[data-count="{name}"]').strip()
        for name in ("arrivals", "working", "completed", "excluded")
    }
    assert counts == {"arrivals": "7", "working": "0", "completed": "6", "excluded": "1"}, counts
    flagged = page.inner_text("#monitor-flagged")
    # near-constant answering, in the rule's words and figures (6)
    row = page.locator("#monitor-flagged tbody tr", has_text=phone.pseudonym).inner_text()
    assert "one answer to 90% or more of the study items: “yes” to 9 of 10 study items" in row, flagged


def _listed_and_reviewed(page, live_server, study: Study, good: Participant, phone: Participant) -> None:
    listing = f"{live_server.url}/admin/studies/participant/?study__id__exact={study.pk}"
    page.goto(listing)
    page.wait_for_selector("#result_list")
    assert "straight lining" in _row(page, phone).locator("td.field-flag_column").inner_text()  # (6)

    # the good participant's review page: each reason under its answer (5)
    _row(page, good).locator("a.review-link").click()
    page.wait_for_selector("#review-answers")
    written = Response.objects.filter(participant=good).exclude(explanation="").order_by("position")
    assert written.count() >= 5
    for response in written:
        cell = page.locator(f'#review-answers tr[data-position="{response.position}"] td.answer')
        assert cell.locator("p.explanation").inner_text() == f"Why: {response.explanation}"
    # and on the participant's admin page, each with its position and item
    page.click(f"text={good.pseudonym} in the admin")
    # the click returns once pressed, not once the admin's page is there
    page.wait_for_selector("ul.explanations li")
    shown = page.locator("ul.explanations li").all_inner_texts()
    assert shown == [f"#{r.position} {r.item.key}: {r.explanation}" for r in written.select_related("item")], shown

    # the phone's participant: flagged with the figures, and excluded by hand with a reason (9, 11)
    page.goto(listing)
    _row(page, phone).locator("a.review-link").click()
    page.wait_for_selector("#review-flags")
    assert re.search(r"“yes” to 9 of 10 study items", page.inner_text("#review-flags")), page.inner_text(
        "#review-flags"
    )
    page.fill("#review-decide input[name=reason]", HAND)
    page.click("#exclude-button")
    page.wait_for_selector('#excluded-state[data-excluded="yes"]')
    page.click("#back-to-list")
    page.wait_for_selector("#result_list")
    assert HAND in _row(page, phone).locator("td.field-reason").inner_text()
    assert_reason_column_in_view(page, LAPTOP["width"])  # (11)


def _results(page, browser, live_server, study: Study, owner, artifacts) -> None:
    page.goto(f"{live_server.url}/studies/{study.pk}/results/")
    page.wait_for_selector("#among-people-table", timeout=60_000)
    # the models table in the page at 1,366 px, κ in view (11); its constant model named (6)
    assert page_width(page) <= LAPTOP["width"], past_the_window(page)
    table, card = page.evaluate(BOX, "#among-people-table"), page.evaluate(BOX, "#study-results")
    assert table["right"] <= card["right"] + 1, (table, card)
    assert "κ" in page.inner_text("#among-people-table thead th:last-child")
    assert "smollm2 (template 2, k=0) gave “no” to every item it answered" in page.inner_text("p.constant-answer")
    # gaps in percentage points, never "%" (11)
    gaps = page.locator("#among-people-table tbody td:nth-child(4)").all_inner_texts()
    assert gaps and all(re.match(r"[+−-]\d+\.\d pp", gap) for gap in gaps), gaps
    # the robustness row for the person excluded by hand (9)
    assert "With the 1 excluded by hand put back in" in page.inner_text("#table-robustness")
    # the export with the reasons, linked (5), and the one without them
    link = page.locator("#free-text-export")
    assert "explanation" in link.inner_text()
    with_text = page.request.get(live_server.url + link.get_attribute("href")).text()
    rows = list(csv.DictReader(io.StringIO(with_text)))
    assert "My reason at 2" in {row["explanation"] for row in rows}
    plain = page.request.get(f"{live_server.url}/studies/{study.pk}/export/csv/").text()
    assert "My reason at 2" not in plain
    page.screenshot(path=str(artifacts / "walk-results-1366.png"), full_page=True)

    context = browser.new_context(**PHONE)
    phone = context.new_page()
    sign_in(phone, live_server, owner)
    phone.goto(f"{live_server.url}/studies/{study.pk}/results/")
    phone.wait_for_selector("#among-people-table", timeout=60_000)
    assert page_width(phone) <= PHONE["viewport"]["width"], past_the_window(phone)  # (11)
    context.close()

    # the study list: the best model answers one thing (6)
    page.goto(f"{live_server.url}/")
    cell = page.locator(f'#study-row-{study.pk} td[data-column="best_model"]')
    assert cell.inner_text().replace("\n", " ") == "smollm2 (template 2, k=0) answers “no” to every item"


def _report_exports_and_bundle(page, study: Study) -> None:
    page.select_option("#report-format", "markdown")
    with page.expect_download() as download:
        page.click("#report-download")
    report = download.value.path().read_text(encoding="utf-8")
    assert "a constant answerer, “no” to every item" in report  # (6)
    assert "drawn at random stratified by category with seed 1234" in report
    assert "Before the items, participants answered 2 practice questions" in report
    assert not re.search(r"gap of [\d.]+%", report)  # (11)
    # the hand exclusion's reason in the methods' sentence, without a stray ".:" (11)
    assert "nearly every item" in report and ".:" not in report
    for fmt in ("csv", "participants-csv", "markdown"):
        with page.expect_download() as download:
            page.click(f'#exports a[href$="/export/{fmt}/"]')
        assert download.value.path().stat().st_size > 0, fmt
    with page.expect_download(timeout=60_000) as download:
        page.click("#replication-bundle")
    names = zipfile.ZipFile(download.value.path()).namelist()
    assert names, "an empty bundle"


def test_a_new_researchers_study_from_the_form_to_the_bundle(live_server, browser, artifacts, implicature_source):
    benchmark_import(name="implicature", source=implicature_source)
    owner = researcher()
    context = browser.new_context(viewport=LAPTOP)
    page = context.new_page()
    sign_in(page, live_server, owner)
    study = _planned_on_the_form(page, live_server)
    _in_proportion(study)
    _edited_previewed_and_launched(page, study)

    good = _good(browser, live_server, study)
    _screened_out(browser, live_server, study)
    _inattentive(browser, live_server, study)
    _on_a_phone(browser, live_server, study)
    _scripted(study)
    keys = set(Item.objects.filter(units__study=study, is_attention_check=False).values_list("key", flat=True))
    model_run(
        study, "smollm2", {"variant": "ranking", "k": 0, "shots_seed": 0, "template": 2}, dict.fromkeys(keys, "no")
    )

    phone = _participant(study, 4)
    _monitor(page, live_server, study, phone)
    _listed_and_reviewed(page, live_server, study, good, phone)
    _results(page, browser, live_server, study, owner, artifacts)
    page.goto(f"{live_server.url}/studies/{study.pk}/results/")
    _report_exports_and_bundle(page, study)
    context.close()


# -- written answers, AmbiBench on a phone, Arabic ------------------------------------------------------


def test_written_answers_wait_for_their_verification_in_the_participant_list(live_server, browser):
    """Unverified written answers are neither right nor wrong in the list (1): it says how many wait,
    as the review page does, and scores them once verified."""
    study = STUDIES["instruction-induction"](name="Written instructions")
    owner = researcher(owns=[study])
    context = browser.new_context(viewport=LAPTOP)
    page = context.new_page()
    participant = walk(page, live_server, study, 1, lambda page, step: None, touch=False)
    page.context.clear_cookies()
    sign_in(page, live_server, owner)
    listing = f"{live_server.url}/admin/studies/participant/?study__id__exact={study.pk}"
    page.goto(listing)
    accuracy = _row(page, participant).locator("td.field-accuracy").inner_text()
    assert accuracy.split("\n") == ["—", f"{participant.total} not verified yet"], accuracy
    _row(page, participant).locator("a.review-link").click()
    page.wait_for_selector("#review-status")
    assert f"{participant.total} written answers not verified yet" in page.inner_text("#review-status")

    page.goto(f"{live_server.url}/studies/{study.pk}/verify/")
    for key in ("r", "w"):
        page.wait_for_selector("#queue-answer")
        page.wait_for_function("document.readyState === 'complete'")
        with page.expect_navigation():
            page.keyboard.press(key)
    page.wait_for_selector("#queue-empty")
    page.goto(listing)
    assert _row(page, participant).locator("td.field-accuracy").inner_text() == "50.0%"
    context.close()


@pytest.mark.parametrize(
    "kind,language,screen",
    [("ambibench-episode", "en", PHONE), ("implicature", "ar", {"viewport": LAPTOP})],
    ids=["ambibench-on-a-phone", "arabic"],
)
def test_an_ambibench_episode_on_a_phone_and_an_arabic_study_read_as_written(
    live_server, browser, kind, language, screen
):
    """AmbiBench's sentence and box stay in view on the phone, nothing wider than the screen; the
    Arabic study is right to left with each English text marked as English (left to right)."""
    study = STUDIES[kind](language=language)
    context = browser.new_context(**screen)
    page = context.new_page()

    def check(page, step: str) -> None:
        assert_no_horizontal_scroll(page, context=f"{kind} in {language}, {step}")
        direction = page.evaluate("getComputedStyle(document.documentElement).direction")
        assert direction == ("rtl" if language == "ar" else "ltr"), step
        if language == "ar":
            # each English text marked as English reads left to right (the honeypot, hidden from everyone
            # but programs, aside)
            backwards = page.evaluate(
                """() => [...document.querySelectorAll("[lang=en]:not(html)")]
                    .filter(e => !e.closest("[aria-hidden=true]") && getComputedStyle(e).direction !== "ltr")
                    .map(e => e.outerHTML.slice(0, 160))"""
            )
            assert backwards == [], (step, backwards)
        if language == "ar" and step.startswith("item"):
            assert page.locator("#item-text").get_attribute("lang") == "en", step
        if kind == "ambibench-episode" and step.startswith("item"):
            for selector in ("#current-sentence", "#answer-box"):
                where = in_view(page, selector)
                assert 0 <= where["top"] and where["bottom"] <= where["height"], (step, selector, where)
        if step == "done":
            route_prolific(page.context)

    participant = walk(page, live_server, study, 1, check, touch=screen is PHONE)
    assert participant.step == Participant.Step.DONE and participant.answered == participant.total
    context.close()
