"""The implicature template table of a results page: templates 1-6, 7-9 and the contrastive
variant each summarised on their own (Ruis et al., Tables 1, 5 and 8)."""

from __future__ import annotations

import pytest

from annotation.models import Item
from results.computing.assemble import study_results_tree
from results.computing.tree import StudyResults
from results.loading.selectors import load_study_data
from results.presenting.tables import template_table
from tests.factories import row_key, small_study
from tests.results.conftest import FLIP, model_run

pytestmark = pytest.mark.django_db

ROWS = range(1, 11)
# Correct answers out of the 10 items of the study, per template.
RANKING = {1: 5, 2: 6, 3: 7, 4: 5, 5: 6, 6: 7, 7: 9, 8: 8, 9: 10}
CONTRASTIVE = {1: 6, 2: 5}


def _answers(golds: dict[str, str], n_correct: int) -> dict[str, str]:
    return {key: gold if index < n_correct else FLIP[gold] for index, (key, gold) in enumerate(golds.items())}


@pytest.fixture
def results(implicature):
    study = small_study("templates", unit_size=5, units=2)
    keys = [row_key(row) for row in ROWS]
    golds = {key: Item.objects.get(benchmark="implicature", key=key).gold for key in keys}
    for variant, counts in (("ranking", RANKING), ("contrastive", CONTRASTIVE)):
        for template, n_correct in counts.items():
            model_run(
                study,
                "tiny-lm",
                {"variant": variant, "template": template, "k": 0, "seed": 0},
                _answers(golds, n_correct),
            )
    return study_results_tree(load_study_data(study)).to_json()


def test_ranking_and_contrastive_settings_are_summarised_apart(results):
    groups = {group["variant"]: group for group in results["breakdowns"]["by_template"]}
    ranking, contrastive = groups["ranking"], groups["contrastive"]
    assert ranking["templates"] == [1, 2, 3, 4, 5, 6] and ranking["extra_templates"] == [7, 8, 9]
    # 1-6: 0.5, 0.6, 0.7, 0.5, 0.6, 0.7 → mean 0.6, population std √(0.04/6)
    assert (ranking["mean"], ranking["std"]) == pytest.approx((0.6, (0.04 / 6) ** 0.5))
    assert (ranking["structured_mean"], ranking["structured_std"]) == pytest.approx((17 / 30, (2 / 225) ** 0.5))
    assert (ranking["natural_mean"], ranking["natural_std"]) == pytest.approx((19 / 30, (2 / 900) ** 0.5))
    assert (ranking["extra_mean"], ranking["extra_std"]) == pytest.approx((0.9, (0.02 / 3) ** 0.5))
    assert contrastive["templates"] == [1, 2]
    assert (contrastive["mean"], contrastive["std"]) == pytest.approx((0.55, 0.05))
    assert contrastive["structured_mean"] is None and contrastive["natural_mean"] is None


def test_the_table_shows_each_group_with_its_own_std(results):
    table = template_table(StudyResults.from_json(results))
    rows = {row[1]: dict(zip(table.columns, row)) for row in table.rows}
    ranking = next(row for key, row in rows.items() if "ranking" in key)
    contrastive = next(row for key, row in rows.items() if "contrastive" in key)
    assert ranking["Mean ± std"].endswith("± 8.2") and ranking["T7–9 ± std"].endswith("± 8.2")
    assert ranking["Structured ± std"].endswith("± 9.4") and ranking["Natural ± std"].endswith("± 4.7")
    assert contrastive["Structured ± std"] == "—" and contrastive["Mean ± std"].endswith("± 5.0")
