"""Results and exports of open-ended (instruction induction) and graded (MiQA ratings) answers,
from plain rows: no database needed."""

from __future__ import annotations

import csv
import io

import pytest

from studies.exports import export_study
from studies.models import Study
from studies.results import study_results
from studies.results.selectors import HumanAnswer, ItemInfo, ModelAnswer, RunInfo, StudyData, UnitInfo
from studies.stats import MIQA_GRADES, Rating, icc2k


def _answer(annotator: str, item: str, answer: str, meta: dict, gold: str = "", unit: str = "U1",
            **scores) -> HumanAnswer:
    return HumanAnswer(annotator=annotator, participant_id=int(annotator[1:]), participant_status="completed",
                       excluded=False, is_imported=False, unit=unit, item_id=hash(item) % 1000, item_key=item,
                       gold=gold, meta=meta, position=1, raw_answer=answer, answer=answer, valid=bool(answer),
                       correct=False, is_attention_check=False, duration_ms=1000, scores=scores)


def _data(name: str, benchmark: str, humans: list[HumanAnswer]) -> StudyData:
    items = {h.item_key: ItemInfo(id=h.item_id, key=h.item_key, gold=h.gold, meta=h.meta, is_attention_check=False,
                                  units=(h.unit,), order=1) for h in humans}
    return StudyData(study=Study(pk=1, name=name, benchmark=benchmark), units=[UnitInfo("U1", 1, "", 2)],
                     items=items, humans=humans)


GRADES = {"A1": ["correct", "wrong", "ambiguous", "correct"], "A2": ["correct", "ambiguous", "ambiguous", "wrong"]}


def test_graded_ratings_get_icc_2k_and_no_accuracy():
    humans = [_answer(name, f"q{i}", grade, {"question_id": f"q{i}"}) for name, grades in GRADES.items()
              for i, grade in enumerate(grades)]
    results = study_results(_data("ratings", "miqa_rating", humans), n_boot=100)
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
    data.runs = [RunInfo(id=7, model="tiny-lm", setting={}, status="done", setting_key="default")]
    data.model_answers = [
        ModelAnswer(run_id=7, item_key=key, variant="", answer="Reverse the word.", valid=True, correct=False,
                    scores={"execution_accuracy": accuracy, "reference_f1": 0.5})
        for key, accuracy in (("antonyms-001", 0.8), ("antonyms-002", 0.6), ("sum-001", 1.0))]
    results = study_results(data, n_boot=100)
    (model,) = results["breakdowns"]["by_task"]["models"]
    model_tasks = {t["task"]: t for t in model["tasks"]}
    assert model_tasks["antonyms"]["execution_accuracy"] == pytest.approx(0.7)
    assert model_tasks["sum"]["reference_similarity"] == 0.5
    assert results["models"][0]["accuracy"] is None
    assert results["human"]["accuracy"]["mean"] is None and results["human"]["cohen_kappa_mean_pairwise"] is None
    tasks = {t["task"]: t for t in results["breakdowns"]["by_task"]["humans"]}
    assert tasks["antonyms"]["n_instructions"] == 2 and tasks["antonyms"]["share_verified"] == 0.5
    assert tasks["sum"]["n_reviewed"] == 0 and tasks["sum"]["share_verified"] is None


def test_written_instructions_are_free_text_and_leave_only_when_asked_for():
    data = _data("induction", "instruction_induction", _instruction_rows())
    rows = list(csv.DictReader(io.StringIO(export_study(data, "csv").content.decode())))
    assert {(r["answer"], r["raw_answer"], r["free_text_withheld"]) for r in rows} == {("", "", "true")}
    assert {r["verified_correct"] for r in rows} == {"true", "false", ""}
    assert "Jane Doe" not in export_study(data, "wide-csv").content.decode()
    assert "Jane Doe" in export_study(data, "csv", include_free_text=True).content.decode()


def test_a_model_answering_each_item_in_two_option_orders_is_scored_by_their_mean():
    meta = {"direction": "implies"}
    humans = [_answer("A1", "q1", "b", meta, gold="b"), _answer("A2", "q1", "b", meta, gold="b"),
              _answer("A1", "q2", "a", meta, gold="a"), _answer("A2", "q2", "b", meta, gold="a")]
    humans = [HumanAnswer(**{**vars(h), "correct": h.answer == h.gold}) for h in humans]
    data = _data("miqa", "miqa", humans)
    data.runs = [RunInfo(id=3, model="tiny-lm", setting={}, status="done", setting_key="default")]
    data.model_answers = [
        ModelAnswer(run_id=3, item_key=key, variant=variant, answer=answer, valid=True, correct=answer == gold,
                    scores={})
        for key, gold, variant, answer in (("q1", "b", "ab", "b"), ("q1", "b", "ba", "b"),
                                           ("q2", "a", "ab", "a"), ("q2", "a", "ba", "b"))]
    (model,) = study_results(data, n_boot=200)["models"]
    assert model["n_items"] == 2 and model["n_answers"] == 4
    assert model["accuracy"] == pytest.approx((1 + 0.5) / 2)
    # humans: q1 2/2, q2 1/2 right; the orders of q2 disagree, so only q1 enters the majority kappa
    assert model["gap_to_humans"] == pytest.approx(0.0) and model["n_items_with_majority"] == 1
