"""Wide tables stay inside the page at 1,366 px and on a 360 px phone: the results page's "Models among
the people" (each column, κ the last, reachable in its own scrolling box; the page itself no wider
than the window) and the admin's participant list (the Reason column beside the filters, not under
them)."""

from __future__ import annotations

import numpy as np
import pytest

from annotation.models import Item
from studies.models import Participant
from studies.participants.decisions import participants_exclude
from studies.setup.imports import human_baseline_import
from tests.browser.helpers import BOX, assert_reason_column_in_view, page_width, past_the_window, sign_in
from tests.conftest import dataset
from tests.factories import Bot, pid, small_study
from tests.personas import researcher
from tests.results.conftest import FLIP, model_run

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTHS = [(1366, 768), (360, 740)]


@pytest.fixture
def imported(implicature_source):
    from annotation.services import benchmark_import

    benchmark_import(name="implicature", source=implicature_source)


def _reachable(page, cell: str, container: str) -> None:
    """`cell` is inside `container`'s box or scrolls into it there (the container scrolls, not the page)."""
    wrap = page.evaluate(BOX, container)
    assert wrap is not None, container
    page.locator(cell).scroll_into_view_if_needed()
    box, wrap = page.evaluate(BOX, cell), page.evaluate(BOX, container)
    assert box["x"] >= wrap["x"] - 1 and box["right"] <= wrap["right"] + 1, (cell, box, wrap)


def test_the_models_among_the_people_table_fits_its_page(implicature, live_server, browser, artifacts):
    study = human_baseline_import(
        benchmark="implicature", source=dataset("implicature"), name="Ruis et al. human baseline"
    ).study
    golds = dict(Item.objects.filter(unititem__unit__study=study).values_list("key", "gold"))
    base = {"variant": "ranking", "k": 0, "shots_seed": 0}
    model_run(study, "smollm2", {**base, "template": 1}, golds)
    coin = np.random.default_rng(0).random(len(golds)) < 0.5
    model_run(
        study,
        "smollm2",
        {**base, "template": 2},
        {key: FLIP[gold] if flip else gold for (key, gold), flip in zip(sorted(golds.items()), coin, strict=True)},
    )
    owner = researcher(owns=[study])
    for width, height in WIDTHS:
        context = browser.new_context(viewport={"width": width, "height": height})
        page = context.new_page()
        try:
            sign_in(page, live_server, owner)
            page.goto(f"{live_server.url}/studies/{study.pk}/results/")
            page.wait_for_selector("#among-people-table")
            page.screenshot(path=str(artifacts / f"among-people-{width}.png"), full_page=True)
            assert page_width(page) <= width, (page_width(page), past_the_window(page))
            card = page.evaluate(BOX, "#study-results")
            table = page.evaluate(BOX, "#among-people-table")
            if width >= 1366:
                # on a laptop the whole table is in view, κ included
                assert table["right"] <= card["right"] + 1, (table, card)
            _reachable(page, "#among-people-table thead th:last-child", "#among-people-wrap")
            assert "κ" in page.inner_text("#among-people-table thead th:last-child")
        finally:
            context.close()


def test_the_participant_lists_reason_column_is_beside_the_filters(live_server, browser, imported, artifacts):
    owner = researcher("ada")
    study = small_study("reasons listed", units=1, unit_size=3, per_unit=3, attention_checks=1, owner=owner)
    for n in (1, 2, 3):
        Bot(study, pid(n)).complete()
    first = Participant.objects.filter(study=study).order_by("pk").first()
    participants_exclude(participant_ids=[first.pk], reason="Answered every item in under a second", actor=owner)
    for width, height in WIDTHS:
        context = browser.new_context(viewport={"width": width, "height": height})
        page = context.new_page()
        try:
            sign_in(page, live_server, owner)
            page.goto(f"{live_server.url}/admin/studies/participant/?study__id__exact={study.pk}")
            page.wait_for_selector("#result_list")
            page.screenshot(path=str(artifacts / f"admin-participants-{width}.png"), full_page=True)
            assert "Answered every item" in page.inner_text("#result_list")
            if width >= 1366:
                # on a laptop the whole list is in view as the page opens: nothing to scroll to
                results = page.evaluate(BOX, "#changelist .results")
                assert results["scrollWidth"] <= results["clientWidth"] + 1, results
            assert_reason_column_in_view(page, width)
            assert page_width(page) <= width, (page_width(page), past_the_window(page))
        finally:
            context.close()


def test_the_paper_link_is_a_box_like_the_others(live_server, browser, imported):
    owner = researcher("ada")
    for width, height in WIDTHS:
        context = browser.new_context(viewport={"width": width, "height": height})
        page = context.new_page()
        try:
            sign_in(page, live_server, owner)
            page.goto(f"{live_server.url}/studies/new/?benchmark=implicature")
            page.wait_for_selector("#id_paper_url")
            style = """selector => { const s = getComputedStyle(document.querySelector(selector));
                return [s.borderTopStyle, s.borderTopWidth, s.borderRadius, s.paddingTop, s.fontSize]; }"""
            link, title = page.evaluate(BOX, "#id_paper_url"), page.evaluate(BOX, "#id_paper_title")
            assert abs(link["width"] - title["width"]) <= 1, (link, title)
            assert page.evaluate(style, "#id_paper_url") == page.evaluate(style, "#id_paper_title")
            assert link["right"] <= width
        finally:
            context.close()
