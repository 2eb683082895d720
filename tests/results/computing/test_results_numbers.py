"""The numbers of a results page, checked by hand against the scripted studies of conftest.py."""

from __future__ import annotations

import json

import pytest

from results.computing.assemble import study_results_tree
from results.loading.filters import ResultFilters
from results.loading.selectors import load_study_data
from studies.models import Study
from tests.factories import row_key

pytestmark = pytest.mark.django_db

# U1: A1 = gold (n n n y n), A4 wrong on item 2 (n y n y n): p_o = 4/5, p_e = 1/5·2/5 + 4/5·3/5 = 14/25
KAPPA_U1 = (4 / 5 - 14 / 25) / (1 - 14 / 25)  # 6/11
# U2: A2 = gold (n n n y n), A5 wrong on items 6 and 9 (y n n n n): p_o = 3/5, p_e = 1/25 + 16/25
KAPPA_U2 = (3 / 5 - 17 / 25) / (1 - 17 / 25)  # -1/4


@pytest.fixture(scope="module")
def pilot_results(pilot):
    return study_results_tree(load_study_data(Study.objects.get(pk=pilot.study_id))).to_json()


def test_excluded_participants_and_attention_checks_stay_out_of_the_numbers(pilot_results):
    assert pilot_results["participants"] == {"included": 4, "excluded": 1, "in_progress": 0, "imported": 0}
    human = pilot_results["human"]
    assert human["n_annotators"] == 4 and human["n_items"] == 10 and human["n_answers"] == 20
    assert {row["annotator"] for row in human["accuracy"]["per_annotator"]} == {"A1", "A2", "A4", "A5"}


def test_human_accuracy_and_agreement_match_the_hand_computation(pilot_results):
    human = pilot_results["human"]
    accuracy = {row["annotator"]: row["accuracy"] for row in human["accuracy"]["per_annotator"]}
    assert accuracy == pytest.approx({"A1": 1.0, "A2": 1.0, "A4": 0.8, "A5": 0.6})
    assert human["accuracy"]["mean"] == pytest.approx(0.85)
    assert (human["accuracy"]["best"], human["accuracy"]["worst"]) == pytest.approx((1.0, 0.6))
    # t-interval over the 4 annotators: sample std √(0.11 / 3), t(0.975, 3) = 3.182; the top is cut at 100%
    assert human["accuracy"]["ci95"] == pytest.approx([0.85 - 3.182 * (0.11 / 3) ** 0.5 / 2, 1.0], abs=1e-4)
    assert human["accuracy"]["ci_method"] == "t_interval" and human["accuracy"]["small_n_warning"] is True
    assert human["cohen_kappa_mean_pairwise"] == pytest.approx((KAPPA_U1 + KAPPA_U2) / 2)
    assert human["percent_agreement"] == pytest.approx(7 / 10)
    assert -1 <= human["krippendorff_alpha"] <= 1 and human["icc2k"] is None
    units = {unit["unit"]: unit for unit in pilot_results["units"]}
    assert units["U1"]["accuracy_mean"] == pytest.approx(0.9) and units["U2"]["accuracy_mean"] == pytest.approx(0.8)
    assert units["U1"]["cohen_kappa_mean_pairwise"] == pytest.approx(6 / 11)
    assert units["U2"]["cohen_kappa_mean_pairwise"] == pytest.approx(-0.25)
    assert units["U1"]["n_annotators"] == 2 and [a["annotator"] for a in units["U1"]["annotators"]] == ["A1", "A4"]


def test_each_model_run_sits_beside_the_humans(pilot_results):
    models = {model["setting"]["template"]: model for model in pilot_results["models"]}
    template2 = models[2]
    assert template2["model"] == "tiny-lm" and template2["setting_key"] == "template 2, k=0"
    assert template2["accuracy"] == pytest.approx(0.9)
    assert template2["human_accuracy_same_items"] == pytest.approx(0.85)
    assert template2["gap_to_humans"] == pytest.approx(0.05)
    low, high = template2["gap_ci95"]
    assert low <= 0.05 <= high
    # items 2, 6 and 9 split the two annotators 1-1: no majority; on the other seven the model
    # differs from the majority on item 3 only: p_o = 6/7, p_e = 2/7·1/7 + 5/7·6/7 = 32/49
    assert template2["n_tied_items"] == 3 and template2["n_items_with_majority"] == 7
    assert template2["kappa_vs_human_majority"] == pytest.approx(10 / 17)
    assert [d["item"] for d in template2["disagreements"]] == [row_key(3)]
    assert models[3]["accuracy"] == 1.0 and models[3]["disagreements"] == []


def test_the_implicature_breakdowns_by_template_and_type(pilot_results):
    (group,) = pilot_results["breakdowns"]["by_template"]
    assert group["per_template"] == pytest.approx({"2": 0.9, "3": 1.0})
    assert group["structured_mean"] == 1.0 and group["natural_mean"] == pytest.approx(0.9)
    by_type = {row["category"]: row for row in pilot_results["breakdowns"]["by_category"]["rows"]}
    # Idiom items: test rows 1, 6 and 8; A5 is wrong on row 6, so A5 scores 1/2 and the others 1/1
    assert by_type["Idiom"]["n_items"] == 3
    assert by_type["Idiom"]["human"]["mean"] == pytest.approx((1 + 1 + 1 + 0.5) / 4)
    assert "oracle_by_position" not in pilot_results


def test_filters_narrow_humans_and_models_to_a_unit_category_and_setting(pilot):
    data = load_study_data(Study.objects.get(pk=pilot.study_id))
    unit = study_results_tree(data, ResultFilters(unit="U2"), n_boot=200).to_json()
    assert unit["human"]["accuracy"]["mean"] == pytest.approx(0.8)
    assert [u["unit"] for u in unit["units"]] == ["U2"] and unit["participants"]["included"] == 2
    assert {m["n_items"] for m in unit["models"]} == {5}
    setting = study_results_tree(data, ResultFilters(setting="template 3, k=0"), n_boot=200).to_json()
    assert [m["setting"]["template"] for m in setting["models"]] == [3]
    category = study_results_tree(data, ResultFilters(category="Generalised"), n_boot=200).to_json()
    assert category["human"]["n_items"] == 1  # test row 9, on which A5 is wrong
    assert category["human"]["accuracy"]["mean"] == pytest.approx(0.5)


def test_results_are_json_without_nan_and_reproducible(pilot_results, pilot):
    text = json.dumps(pilot_results, allow_nan=False)
    assert json.loads(text) == study_results_tree(load_study_data(Study.objects.get(pk=pilot.study_id))).to_json()


def test_ambibench_curves_by_position_with_the_oracle(ambi):
    results = study_results_tree(load_study_data(Study.objects.get(pk=ambi.study_id))).to_json()
    oracle = results["oracle_by_position"]
    assert [point["position"] for point in oracle] == list(range(1, 21))
    assert oracle[0]["accuracy"] == 0.5 and oracle[0]["n_episodes"] == 6
    assert all(0.5 <= point["accuracy"] <= 1.0 for point in oracle)
    humans = results["breakdowns"]["by_position"]["humans"]
    points = humans["overall"]["points"]
    # P1 is invalid ("maybe", counted wrong) at 1 and wrong at 2; P2 is right everywhere
    assert [p["accuracy"] for p in points[:3]] == [0.5, 0.5, 1.0]
    assert points[0]["n_episodes"] == 2
    assert [p["n_invalid"] for p in points[:3]] == [1, 0, 0]
    assert (humans["overall"]["n_answers"], humans["overall"]["n_invalid"]) == (40, 1)
    assert len(humans["by_feature"]) == 2 and len(humans["by_feature_format"]) == 2
    assert results["human"]["accuracy"]["mean"] == pytest.approx((18 / 20 + 1.0) / 2)
    assert {row["category"] for row in results["breakdowns"]["by_category"]["rows"]} <= {
        "subject",
        "location",
        "religious",
        "pronoun",
        "proper_noun",
        "negation",
    }


def test_the_study_list_takes_the_best_models_gap_on_the_items_both_answered(ambi):
    """The model is right on the 40 items the two participants answered and wrong on the other 80:
    40/120 on all its items, while on the shared 40 it is 1.0 against the humans' 38/40."""
    from annotation.models import Item
    from results.pipeline import study_headlines
    from results.presenting.display import headline_cells
    from studies.models import Response
    from tests.results.conftest import model_run

    study = Study.objects.get(pk=ambi.study_id)
    answered = set(Response.objects.filter(participant__study=study).values_list("item__key", flat=True))
    golds = dict(Item.objects.filter(units__study=study, is_attention_check=False).values_list("key", "gold"))
    flip = {"X": "Y", "Y": "X"}
    model_run(
        study, "m", {"format": "arrow"}, {key: gold if key in answered else flip[gold] for key, gold in golds.items()}
    )
    (row,) = study_headlines([study], n_boot=100)
    assert (row.best_model_n_items, row.best_model_accuracy) == (120, pytest.approx(40 / 120))
    assert row.best_model_n_items_same == 40
    assert row.best_model_gap == pytest.approx(1.0 - 38 / 40)
    cells = headline_cells(row)
    assert (cells.best_model_accuracy, cells.best_model_accuracy_note) == ("33.3%", "on 120 items")
    assert (cells.best_model_gap, cells.best_model_gap_note) == ("+5.0 pp", "on 40 items both answered")
