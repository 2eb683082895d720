"""Results and exports of open-ended (instruction induction) and graded (MiQA ratings) answers,
from plain rows: no database needed."""

from __future__ import annotations

import csv
import io

import pytest

from parity.benchmarks.miqa import RATING_SCALE as MIQA_GRADES
from parity.stats import Rating, icc2k
from results.computing.assemble import study_results_tree
from results.computing.tree import StudyResults
from results.loading.columns import HumanAnswer, ItemInfo
from results.loading.study_data import ModelAnswer, RunInfo, StudyData, UnitInfo
from results.pipeline import data_export
from results.presenting.tables import paper_tables
from studies.models import Study


def _answer(
    annotator: str, item: str, answer: str, meta: dict, gold: str = "", unit: str = "U1", **scores
) -> HumanAnswer:
    return HumanAnswer(
        annotator=annotator,
        participant_id=int(annotator[1:]),
        participant_status="completed",
        excluded=False,
        is_imported=False,
        unit=unit,
        item_id=hash(item) % 1000,
        item_key=item,
        gold=gold,
        meta=meta,
        position=1,
        raw_answer=answer,
        answer=answer,
        valid=bool(answer),
        correct=False,
        is_attention_check=False,
        duration_ms=1000,
        scores=scores,
    )


def _data(name: str, benchmark: str, humans: list[HumanAnswer]) -> StudyData:
    items = {
        h.item_key: ItemInfo(
            id=h.item_id, key=h.item_key, gold=h.gold, meta=h.meta, is_attention_check=False, units=(h.unit,), order=1
        )
        for h in humans
    }
    return StudyData(
        study=Study(pk=1, name=name, benchmark=benchmark), units=[UnitInfo("U1", 1, "", 2)], items=items, humans=humans
    )


GRADES = {"A1": ["correct", "wrong", "ambiguous", "correct"], "A2": ["correct", "ambiguous", "ambiguous", "wrong"]}


def test_graded_ratings_get_icc_2k_and_no_accuracy():
    humans = [
        _answer(name, f"q{i}", grade, {"question_id": f"q{i}"})
        for name, grades in GRADES.items()
        for i, grade in enumerate(grades)
    ]
    results = study_results_tree(_data("ratings", "miqa_rating", humans), n_boot=100).to_json()
    expected = icc2k([Rating(h.annotator, h.item_key, h.answer) for h in humans], scores=MIQA_GRADES).icc
    assert results["human"]["icc2k"] == pytest.approx(expected)
    assert results["units"][0]["icc2k"] == pytest.approx(expected)
    assert results["human"]["icc2k_mean_across_units"] == pytest.approx(expected)
    assert results["human"]["accuracy"]["mean"] is None
    assert results["human"]["percent_agreement"] == pytest.approx(2 / 4)


INSTRUCTIONS = {
    ("A1", "antonyms-001"): ("Write the opposite of the word.", True),
    ("A2", "antonyms-002"): ("Give a word meaning the reverse; my name is Jane Doe.", False),
    ("A1", "sum-001"): ("Add the two numbers together.", None),
}


def _instruction_rows() -> list[HumanAnswer]:
    rows = []
    for (annotator, item), (text, verified) in INSTRUCTIONS.items():
        marks = {} if verified is None else {"verified": verified}
        rows.append(_answer(annotator, item, text, {"task": item.split("-")[0]}, **marks))
    return rows


def test_written_instructions_are_summarised_per_task_without_accuracy_or_kappa():
    data = _data("induction", "instruction_induction", _instruction_rows())
    data.runs = [RunInfo(id=7, model="tiny-lm", setting={}, status="done", setting_label="default")]
    data.model_answers = [
        ModelAnswer(
            run_id=7,
            item_key=key,
            variant="",
            answer="Reverse the word.",
            valid=True,
            correct=False,
            scores={"execution_accuracy": accuracy, "reference_f1": 0.5},
        )
        for key, accuracy in (("antonyms-001", 0.8), ("antonyms-002", 0.6), ("sum-001", 1.0))
    ]
    results = study_results_tree(data, n_boot=100).to_json()
    (model,) = results["breakdowns"]["by_task"]["models"]
    model_tasks = {t["task"]: t for t in model["tasks"]}
    assert model_tasks["antonyms"]["execution_accuracy"] == pytest.approx(0.7)
    assert model_tasks["sum"]["reference_similarity"] == 0.5
    assert results["models"][0]["accuracy"] is None
    assert results["human"]["accuracy"]["mean"] is None and results["human"]["cohen_kappa_mean_pairwise"] is None
    tasks = {t["task"]: t for t in results["breakdowns"]["by_task"]["humans"]}
    assert tasks["antonyms"]["n_instructions"] == 2 and tasks["antonyms"]["share_verified"] == 0.5
    assert tasks["sum"]["n_reviewed"] == 0 and tasks["sum"]["share_verified"] is None


@pytest.mark.django_db  # the export reads the participants' review flags from the database
def test_written_instructions_are_free_text_and_leave_only_when_asked_for():
    data = _data("induction", "instruction_induction", _instruction_rows())
    rows = list(csv.DictReader(io.StringIO(data_export(data, "csv").content.decode())))
    assert {(r["answer"], r["raw_answer"], r["free_text_withheld"]) for r in rows} == {("", "", "true")}
    assert {r["verified_correct"] for r in rows} == {"true", "false", ""}
    assert "Jane Doe" not in data_export(data, "wide-csv").content.decode()
    assert "Jane Doe" in data_export(data, "csv", include_free_text=True).content.decode()


def test_a_model_answering_each_item_in_two_option_orders_is_scored_by_their_mean():
    meta = {"direction": "implies"}
    humans = [
        _answer("A1", "q1", "b", meta, gold="b"),
        _answer("A2", "q1", "b", meta, gold="b"),
        _answer("A1", "q2", "a", meta, gold="a"),
        _answer("A2", "q2", "b", meta, gold="a"),
    ]
    humans = [HumanAnswer(**{**vars(h), "correct": h.answer == h.gold}) for h in humans]
    data = _data("miqa", "miqa", humans)
    data.runs = [RunInfo(id=3, model="tiny-lm", setting={}, status="done", setting_label="default")]
    data.model_answers = [
        ModelAnswer(
            run_id=3, item_key=key, variant=variant, answer=answer, valid=True, correct=answer == gold, scores={}
        )
        for key, gold, variant, answer in (
            ("q1", "b", "ab", "b"),
            ("q1", "b", "ba", "b"),
            ("q2", "a", "ab", "a"),
            ("q2", "a", "ba", "b"),
        )
    ]
    (model,) = study_results_tree(data, n_boot=200).to_json()["models"]
    assert model["n_items"] == 2 and model["n_answers"] == 4
    assert model["accuracy"] == pytest.approx((1 + 0.5) / 2)
    # humans: q1 2/2, q2 1/2 right; the orders of q2 disagree, so only q1 enters the majority kappa
    assert model["gap_to_humans"] == pytest.approx(0.0) and model["n_items_with_majority"] == 1
    assert model["accuracy_averaged_likelihood"] is None


def test_miqa_accuracy_is_over_both_presentations_with_the_averaged_decision_beside_it():
    """Three questions, two presentations each: 3 of 6 presentations right (Table 3's rule), while
    the averaged likelihoods decide 2 of 3 questions right."""
    meta = {"direction": "implies"}
    humans = [
        HumanAnswer(**{**vars(h), "correct": h.answer == h.gold})
        for h in (
            _answer("A1", "q1", "b", meta, gold="b"),
            _answer("A1", "q2", "a", meta, gold="a"),
            _answer("A1", "q3", "b", meta, gold="b"),
        )
    ]
    data = _data("miqa", "miqa", humans)
    data.runs = [RunInfo(id=4, model="tiny-lm", setting={}, status="done", setting_label="wording 3, k=0")]
    rows = (
        ("q1", "b", "ab", "b", True),
        ("q1", "b", "ba", "b", True),
        ("q2", "a", "ab", "b", False),
        ("q2", "a", "ba", "", False),  # a tie: no answer, wrong
        ("q3", "b", "ab", "a", True),
        ("q3", "b", "ba", "b", True),
    )
    data.model_answers = [
        ModelAnswer(
            run_id=4,
            item_key=key,
            variant=variant,
            answer=answer or None,
            valid=bool(answer),
            correct=answer == gold,
            scores={"averaged_correct": averaged},
        )
        for key, gold, variant, answer, averaged in rows
    ]
    results = study_results_tree(data, n_boot=200).to_json()
    (model,) = results["models"]
    assert model["n_answers"] == 6 and model["accuracy"] == pytest.approx(3 / 6)
    assert model["accuracy_averaged_likelihood"] == pytest.approx(2 / 3)
    table = next(t for t in paper_tables(StudyResults.from_json(results)) if t.key == "accuracy")
    assert table.columns[-1] == "Accuracy, orders' likelihoods averaged" and table.rows[1][-1] == "66.7%"
    assert table.rows[1][3] == "50.0%"


def test_the_miqa_table_reuses_each_models_best_zero_shot_wording_at_one_and_five_shots():
    """Section 5.1 and Table 3, hand-built: model m1 does best with wording 2 at 0 shots, so its
    1- and 5-shot cells are wording 2's; wording 1's 5-shot run, though better, is not chosen.
    Model m2's wordings tie at 0 shots: the lower number is taken."""
    implies, implied_by = {"direction": "implies"}, {"direction": "implied-by"}
    humans = [
        HumanAnswer(**{**vars(h), "correct": True})
        for h in (
            _answer("A1", "i1", "b", implies, gold="b"),
            _answer("A1", "i2", "b", implies, gold="b"),
            _answer("A1", "r1", "a", implied_by, gold="a"),
            _answer("A1", "r2", "a", implied_by, gold="a"),
        )
    ]
    data = _data("miqa", "miqa", humans)
    # per run: which of the 4 items x 2 orders are right, as (i1, i2, r1, r2) counts of right orders
    grid = {
        ("m1", "1", 0): (1, 1, 0, 0),
        ("m1", "2", 0): (2, 1, 1, 1),
        ("m1", "2", 1): (2, 2, 1, 1),
        ("m1", "2", 5): (2, 2, 2, 1),
        ("m1", "1", 5): (2, 2, 2, 2),
        ("m1", "empty", 0): (2, 2, 0, 0),
        ("m1", "pick", 1): (1, 1, 1, 1),
        ("m2", "3", 0): (1, 1, 1, 1),
        ("m2", "4", 0): (1, 1, 1, 1),
        ("m2", "generative", 0): None,
    }  # written answers, not scored: not a candidate
    data.runs, data.model_answers = [], []
    for run_id, ((model, wording, k), right) in enumerate(grid.items(), start=1):
        data.runs.append(
            RunInfo(
                id=run_id,
                model=model,
                setting={"wording": wording, "k": k, "seed": 0},
                status="done",
                setting_label=f"{wording}, k={k}",
            )
        )
        if right is None:
            data.model_answers += [
                ModelAnswer(
                    run_id=run_id,
                    item_key=key,
                    variant="generative",
                    answer="Yes.",
                    valid=True,
                    correct=None,
                    scores={"ungraded": True},
                )
                for key in ("i1", "i2")
            ]
            continue
        for key, n_right in zip(("i1", "i2", "r1", "r2"), right):
            gold = data.items[key].gold
            for index, variant in enumerate(("ab", "ba")):
                answer = gold if index < n_right else ("a" if gold == "b" else "b")
                data.model_answers.append(
                    ModelAnswer(
                        run_id=run_id,
                        item_key=key,
                        variant=variant,
                        answer=answer,
                        valid=True,
                        correct=answer == gold,
                        scores={},
                    )
                )
    results = study_results_tree(data, n_boot=100).to_json()
    m1, m2 = results["breakdowns"]["by_wording"]
    assert m1["best_wording"] == "2" and m1["zero_shot"] == {"1": 0.25, "2": 0.625}
    best, empty, pick = m1["rows"]
    assert best["prompt"] == "wording 2 (best 0-shot)"
    assert {k: cell["implies"] for k, cell in best["by_k"].items()} == {"0": 0.75, "1": 1.0, "5": 1.0}
    assert {k: cell["implied-by"] for k, cell in best["by_k"].items()} == {"0": 0.5, "1": 0.5, "5": 0.75}
    assert empty["by_k"]["0"] == {"all": 0.5, "implies": 1.0, "implied-by": 0.0} and empty["by_k"]["1"] is None
    assert pick["by_k"]["1"]["all"] == 0.5 and pick["by_k"]["0"] is None
    assert m2["best_wording"] == "3" and [row["wording"] for row in m2["rows"]] == ["3"]
    assert m2["zero_shot"] == {"3": 0.5, "4": 0.5}
    table = next(t for t in paper_tables(StudyResults.from_json(results)) if t.key == "by_wording")
    assert table.rows[0][:8] == [
        "m1",
        "wording 2 (best 0-shot)",
        "75.0%",
        "100.0%",
        "100.0%",
        "50.0%",
        "50.0%",
        "75.0%",
    ]
    assert table.rows[0][8] == "1: 25.0%, 2: 62.5%"


def test_graded_ratings_show_the_iccs_interval_in_the_json_and_on_the_card():
    from parity.stats.icc_ci import calibration_note, icc_interval
    from results.presenting.display import summary_cards

    # 30 answers graded by both raters: one block, McGraw & Wong's interval
    grades = list(MIQA_GRADES)
    humans = [
        _answer(name, f"q{i}", grades[(i + (shift if i % 4 == 0 else 0)) % len(grades)], {"question_id": f"q{i}"})
        for name, shift in (("A1", 0), ("A2", 1))
        for i in range(30)
    ]
    tree = study_results_tree(_data("ratings", "miqa_rating", humans), n_boot=100)
    expected = icc_interval([Rating(h.annotator, h.item_key, h.answer) for h in humans], scores=MIQA_GRADES)
    assert expected.icc_ci95 is not None
    json = tree.to_json()
    assert json["human"]["icc2k_ci95"] == expected.icc_ci95 == json["graded"]["icc2k_ci95"]
    assert json["human"]["icc_ci_note"] == calibration_note() == json["graded"]["icc_ci_note"]
    assert json["graded"]["blocks"][0]["ci95"] == expected.icc_ci95
    card = {card.label: card for card in summary_cards(tree)}["ICC(2,k), blocks of the same raters"]
    low, high = expected.icc_ci95
    assert card.note.endswith(f"95% CI [{low:.2f}, {high:.2f}] · {calibration_note()}")
