"""The results page of the published implicature study with two model runs: the placement chart
(the annotators' abilities, each model marked with its CI) and the table of the paired tests and
the human band, as a researcher sees them."""

from __future__ import annotations

import numpy as np
import pytest

from annotation.models import Item
from studies.setup.imports import human_baseline_import
from tests.browser.helpers import sign_in
from tests.conftest import dataset
from tests.personas import researcher
from tests.results.conftest import FLIP, model_run

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_page_places_the_models_among_the_annotators(implicature, live_server, page, artifacts):
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
        {key: FLIP[gold] if flip else gold for (key, gold), flip in zip(sorted(golds.items()), coin)},
    )

    sign_in(page, live_server, researcher(owns=[study]))
    page.goto(f"{live_server.url}/studies/{study.pk}/results/")
    page.wait_for_selector("#among-people-table")

    chart = page.locator("#chart-placement")
    assert chart.is_visible()
    assert "Where the models stand among the participants" in chart.inner_text()
    assert "percentile 100" in chart.inner_text() and "percentile 0" in chart.inner_text()
    rows = page.locator("#among-people-table tbody tr").all_inner_texts()
    assert len(rows) == 2
    assert "0.72 (band 0.61–0.80): within" in rows[0] and "+13.8 pp" in rows[0]
    assert "): below" in rows[1] and "-31.9 pp" in rows[1]
    assert "1PL item-response fit of 20 participants" in page.inner_text("#study-results")

    # the picture for the docs: the chart and, under it, the table
    page.set_viewport_size({"width": 1400, "height": 900})
    figure = chart.bounding_box()
    table = page.locator("#among-people-table").bounding_box()
    column = page.locator("#study-results").bounding_box()
    page.screenshot(
        path=str(artifacts / "results-among-people.png"),
        full_page=True,
        clip={
            "x": column["x"] - 16,
            "y": figure["y"] - 16,
            "width": column["width"] + 32,
            "height": table["y"] + table["height"] - figure["y"] + 32,
        },
    )
