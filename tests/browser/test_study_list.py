"""The list of studies in a real browser: every column, the models' included, fits a 1,920-pixel
screen without a horizontal scroll."""

from __future__ import annotations

import pytest

from tests.browser.helpers import sign_in
from tests.factories import Bot, pid, row_key, small_study
from tests.personas import researcher
from tests.results.conftest import model_run

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_study_list_fits_a_wide_screen_without_a_horizontal_scroll(
    live_server, page, artifacts, implicature_source
):
    from annotation.services import benchmark_import

    benchmark_import(name="implicature", source=implicature_source)
    owner = researcher()
    # long names, as researchers write them, and a model with its organisation and setting
    for n, name in enumerate(
        (
            "Implicature: the paper's design with template 3, second pilot (native speakers)",
            "Implicature replication: four units of five items, shuffled",
        ),
        start=1,
    ):
        study = small_study(name, units=1, unit_size=5, per_unit=3, attention_checks=0, exclude_at=0, owner=owner)
        for person in range(3):
            Bot(study, pid(100 * n + person)).complete()
        model_run(
            study,
            "HuggingFaceTB/SmolLM2-135M-Instruct-GGUF",
            {"template": 2, "k": 0},
            {row_key(row): "no" for row in range(1, 6)},
        )
    sign_in(page, live_server, owner)
    page.set_viewport_size({"width": 1920, "height": 1080})
    page.goto(f"{live_server.url}/")
    page.wait_for_selector("#study-table table")
    assert "SmolLM2" in page.inner_text("#study-table")
    page.screenshot(path=str(artifacts / "study-list-1920.png"), full_page=True)
    widths = page.eval_on_selector(
        "#study-table", "element => ({scroll: element.scrollWidth, client: element.clientWidth})"
    )
    assert widths["scroll"] <= widths["client"], widths
    # and the best model's gap to the humans, the last column, is on the screen
    gap = page.locator("#study-table th").last.bounding_box()
    assert gap is not None and gap["x"] + gap["width"] <= 1920
