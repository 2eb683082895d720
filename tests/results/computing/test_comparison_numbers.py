"""The numbers a reader sees, from plain rows (no database): the comparison of humans and models
on the items both answered, the all-items figures labelled as such, spreads only where there is
one, and the summary rows of the unit table named for what they are. Hand-computed throughout."""

from __future__ import annotations

from typing import Any

import pytest

from results.computing.assemble import study_results_tree
from results.computing.tree import StudyResults
from results.loading.columns import HumanAnswer, ItemInfo
from results.loading.study_data import ModelAnswer, RunInfo, StudyData, UnitInfo
from results.presenting.table_writers import to_latex, to_markdown
from results.presenting.tables import Table, paper_tables
from studies.models import Study

N_ITEMS = 320
#: the person answers items 0-19 and is wrong on six of them: 14/20 = 70%
PERSON_WRONG = {1, 2, 4, 7, 9, 13}


def _key(n: int) -> str:
    return f"i{n:03d}"


def _gold(n: int) -> str:
    return "yes" if n % 2 else "no"


def _meta(n: int) -> dict[str, Any]:
    """Two implicature types of 160 items each: the person's 20 are all of the first."""
    return {"type": "Particularised" if n < N_ITEMS // 2 else "Generalised"}


def _flip(answer: str) -> str:
    return "no" if answer == "yes" else "yes"


def _human(annotator: str, n: int, right: bool, unit: str = "U1") -> HumanAnswer:
    gold = _gold(n)
    answer = gold if right else _flip(gold)
    return HumanAnswer(
        annotator=annotator,
        participant_id=hash(annotator) % 10_000,
        participant_status="completed",
        excluded=False,
        is_imported=False,
        unit=unit,
        item_id=n,
        item_key=_key(n),
        gold=gold,
        meta=_meta(n),
        position=n + 1,
        raw_answer=answer,
        answer=answer,
        valid=True,
        correct=right,
        is_attention_check=False,
        duration_ms=1000,
    )


def _model(run: int, n: int, right: bool) -> ModelAnswer:
    answer = _gold(n) if right else _flip(_gold(n))
    return ModelAnswer(run_id=run, item_key=_key(n), variant="", answer=answer, valid=True, correct=right, scores={})


def _data(humans: list[HumanAnswer], units: list[str], n_items: int = N_ITEMS) -> StudyData:
    items = {
        _key(n): ItemInfo(
            id=n, key=_key(n), gold=_gold(n), meta=_meta(n), is_attention_check=False, units=tuple(units), order=n + 1
        )
        for n in range(n_items)
    }
    return StudyData(
        study=Study(pk=1, name="numbers", benchmark="implicature"),
        units=[UnitInfo(label, index, "", 5) for index, label in enumerate(units, start=1)],
        items=items,
        humans=humans,
    )


def _table(results: dict[str, Any], key: str) -> Table:
    return next(table for table in paper_tables(StudyResults.from_json(results)) if table.key == key)


@pytest.fixture(scope="module")
def twenty_of_320() -> dict[str, Any]:
    """One person answered 20 of the 320 items (14 right); the model answered all 320: right on the
    even ones among the first 20 (10/20) and on every third of the other 300 (100/300)."""
    humans = [_human("P1", n, n not in PERSON_WRONG) for n in range(20)]
    data = _data(humans, ["U1"])
    data.runs = [RunInfo(id=1, model="smollm2", setting={}, status="done", setting_label="default")]
    data.model_answers = [_model(1, n, n % 2 == 0 if n < 20 else n % 3 == 0) for n in range(N_ITEMS)]
    return study_results_tree(data, n_boot=500).to_json()


def test_the_default_gap_is_on_the_items_both_answered_and_follows_from_the_accuracies_beside_it(twenty_of_320):
    (model,) = twenty_of_320["models"]
    assert model["n_items_same"] == 20
    assert (model["human_accuracy_same_items"], model["accuracy_same_items"]) == pytest.approx((0.7, 0.5))
    assert model["gap_to_humans"] == pytest.approx(model["accuracy_same_items"] - model["human_accuracy_same_items"])
    # on all its 320 items the model scores 110/320; that number is not the one the gap is taken on
    assert (model["n_items_scored"], model["accuracy"]) == (320, pytest.approx(110 / 320))
    table = _table(twenty_of_320, "comparison")
    row = dict(zip(table.columns, table.rows[0]))
    assert row["Items both answered"] == "20"
    assert (row["Humans"], row["Model"]) == ("70.0%", "50.0%")
    assert row["Gap (model − humans)"] == "-20.0 pp"
    assert "same items" in table.title


def test_the_all_items_figures_are_labelled_as_such(twenty_of_320):
    table = _table(twenty_of_320, "accuracy")
    assert "all the items each answered" in table.title and "different items" in table.title
    humans, model = (dict(zip(table.columns, row)) for row in table.rows)
    assert humans[""] == "Humans: mean over 1 annotator" and humans["Items (all it answered)"] == "20"
    assert model["Items (all it answered)"] == "320" and model["Accuracy on all its items"] == "34.4%"
    # one annotator: no interval over annotators
    assert humans["95% CI"] == "—"


def test_the_per_category_table_gives_each_figure_its_items(twenty_of_320):
    rows = {row["category"]: row for row in twenty_of_320["breakdowns"]["by_category"]["rows"]}
    particularised, generalised = rows["Particularised"], rows["Generalised"]
    assert (particularised["human"]["n_items"], particularised["human"]["mean"]) == (20, pytest.approx(0.7))
    (model,) = particularised["models"]
    # the first 160 items: 10/20 right among the first 20, then every third of items 20-159 (47)
    assert (model["n_items_same"], model["accuracy_same_items"]) == (20, pytest.approx(0.5))
    assert (model["n_items"], model["accuracy"]) == (160, pytest.approx(57 / 160))
    assert generalised["human"]["n_items"] == 0 and generalised["models"][0]["n_items_same"] == 0
    table = _table(twenty_of_320, "by_category")
    assert table.columns == [
        "Type",
        "Humans (n items)",
        "Humans 95% CI",
        "smollm2 (default): items both answered (n)",
        "smollm2 (default): all its items (n)",
    ]
    by_type = {row[0]: row for row in table.rows}
    assert by_type["Particularised"] == ["Particularised", "70.0% (20)", "—", "50.0% (20)", "35.6% (160)"]
    assert by_type["Generalised"][1] == "— (0)" and by_type["Generalised"][4] == "33.1% (160)"


def test_every_written_form_carries_the_items_and_the_notes(twenty_of_320):
    tree = StudyResults.from_json(twenty_of_320)
    tables = paper_tables(tree)
    markdown = to_markdown(tree, tables)
    assert "| smollm2 | default | 20 | 70.0% | 50.0% | -20.0 pp |" in markdown
    assert "Every figure of a row is on the items both answered" in markdown
    latex = to_latex(tree, tables)
    assert (
        r"Gap (model $-$ humans)" in latex
        and r"\footnotesize Every figure of a row is on the items both answered" in latex
    )


def test_the_summary_cards_show_no_spread_for_one_annotator(twenty_of_320):
    from results.computing.tree import StudyResults
    from results.presenting.display import summary_cards

    # the page's cards read the typed results; the fixture is their JSON, built again here as a tree
    humans = [_human("P1", n, n not in PERSON_WRONG) for n in range(20)]
    data = _data(humans, ["U1"])
    data.runs = [RunInfo(id=1, model="smollm2", setting={}, status="done", setting_label="default")]
    data.model_answers = [_model(1, n, n % 2 == 0 if n < 20 else n % 3 == 0) for n in range(N_ITEMS)]
    tree = study_results_tree(data, n_boot=500)
    assert isinstance(tree, StudyResults) and tree.to_json() == twenty_of_320
    cards = {card.label: card for card in summary_cards(tree)}
    assert cards["Best / worst annotator"].value == "—"
    assert cards["Human accuracy (mean over annotators)"].note == "1 annotator on 20 items · no CI with one annotator"


def test_a_mean_over_one_template_shows_no_spread():
    # template 2 only, 7 of 15 right: 46.7% over one template, which has no std
    data = _data([], [], n_items=15)
    data.runs = [
        RunInfo(id=2, model="m", setting={"variant": "ranking", "template": 2, "k": 0}, status="done", setting_label="")
    ]
    data.model_answers = [_model(2, n, n < 7) for n in range(15)]
    results = study_results_tree(data, n_boot=100).to_json()
    (group,) = results["breakdowns"]["by_template"]
    assert (group["mean"], group["std"], group["natural_std"]) == (pytest.approx(7 / 15), None, None)
    table = _table(results, "by_template")
    row = dict(zip(table.columns, table.rows[0]))
    assert row["Mean ± std"] == "46.7% (T2 only)" and row["Natural ± std"] == "46.7% (T2 only)"
    assert row["Structured ± std"] == "—"


def _units_results(per_unit: dict[str, dict[str, int]]) -> dict[str, Any]:
    """Annotators with `right` of 10 items each, per unit (unit u's items are 10u .. 10u + 9)."""
    humans = [
        _human(annotator, 10 * index + n, n < right, unit=unit)
        for index, (unit, annotators) in enumerate(per_unit.items())
        for annotator, right in annotators.items()
        for n in range(10)
    ]
    return study_results_tree(_data(humans, list(per_unit), n_items=10 * len(per_unit)), n_boot=100).to_json()


def test_the_unit_tables_summary_rows_say_what_they_are_and_the_total_explains_the_headline():
    # U1: A1 at 70%; U2: B1, B2, B3 at 30%. Mean over units 50%, mean over annotators 40%.
    results = _units_results({"U1": {"A1": 7}, "U2": {"B1": 3, "B2": 3, "B3": 3}})
    assert results["human"]["accuracy"]["mean"] == pytest.approx(0.4)
    table = _table(results, "units")
    summary = {row[0]: dict(zip(table.columns, row)) for row in table.rows[table.summary_from :]}
    assert list(summary) == ["Total: mean over units", "Std across units", "Mean within-unit std"]
    assert summary["Total: mean over units"]["Mean"] == "50.0%"
    # unit means 70 and 30: population std 20 points; within units: none in U1, 0 in U2
    assert summary["Std across units"]["Mean"] == "20.0 pp"
    assert summary["Mean within-unit std"]["Mean"] == "0.0 pp"
    assert any("the two differ: 50.0% over units, 40.0% over annotators" in note for note in table.notes)


def test_a_total_equal_to_the_headline_by_definition_says_so():
    results = _units_results({"U1": {"A1": 7, "A2": 5}, "U2": {"B1": 3, "B2": 9}})
    table = _table(results, "units")
    total = next(row for row in table.rows if row[0] == "Total: mean over units")
    assert total[table.columns.index("Mean")] == "60.0%" == f"{100 * results['human']['accuracy']['mean']:.1f}%"
    assert any("every unit has 2 annotators, so the two are the same" in note for note in table.notes)
