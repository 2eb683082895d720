"""Instruction induction's results beside overall accuracy: per task, the written instructions
(verified share; execution and similarity by the first executor that scored them), the gold
ceiling by that executor, and every model run's own instructions (Honovich et al.)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from ..base import ResultsInput
from .stats import InstructionScore, instruction_induction_by_task


def _similarity(scores: Any) -> float | None:
    """The reference score (BERTScore-style F1 against the best gold instruction), by either name."""
    value = scores.get("reference_similarity", scores.get("reference_f1"))
    return None if value is None else float(value)


def _baselines(results: ResultsInput) -> dict[str, list[Any]]:
    """Baseline scores by executor (sorted by name), in the category filter's task when there is one."""
    grouped: dict[str, list[Any]] = defaultdict(list)
    for score in results.baseline_scores:
        if not results.category or score.task == results.category:
            grouped[score.executor].append(score)
    return dict(sorted(grouped.items()))


def _human_scores(humans: Sequence[Any], written: list[Any]) -> list[InstructionScore]:
    """Each kept written instruction, with its execution by the executor when it has been scored."""
    executed = {(s.participant_id, s.item_key): s for s in written if s.source == "written"}
    scores = []
    for h in humans:
        if "task" not in h.meta or not h.valid:
            continue
        baseline = executed.get((h.participant_id, h.item_key))
        scores.append(
            InstructionScore(
                task=str(h.meta["task"]),
                instruction=f"{h.annotator}/{h.item_key}",
                execution_accuracy=baseline.execution_accuracy if baseline else h.scores.get("execution_accuracy"),
                reference_similarity=baseline.reference_similarity if baseline else _similarity(h.scores),
                verified=h.scores.get("verified"),
            )
        )
    return scores


def _gold_tasks(scores: list[Any]) -> list[dict[str, Any]]:
    gold = [
        InstructionScore(
            task=s.task,
            instruction=f"gold/{index}",
            execution_accuracy=s.execution_accuracy,
            reference_similarity=s.reference_similarity,
        )
        for index, s in enumerate(scores)
        if s.source == "gold"
    ]
    return [t.to_dict() for t in instruction_induction_by_task(gold)]


def by_task(results: ResultsInput) -> dict[str, Any]:
    """Per task: the written instructions, the gold ceiling and every model run's own instructions
    by the first executor; `baselines` holds the same for every executor that scored the study."""
    baselines = _baselines(results)
    executor = next(iter(baselines), None)
    models = []
    for run in results.runs:
        scores = [
            InstructionScore(
                task=str(results.items[m.item_key].meta["task"]),
                instruction=f"{run.id}/{m.item_key}",
                execution_accuracy=m.scores.get("execution_accuracy"),
                reference_similarity=_similarity(m.scores),
            )
            for m in results.rows_by_run[run.id]
            if "task" in results.items[m.item_key].meta
        ]
        if scores:
            models.append(
                {
                    "run": run.id,
                    "label": run.label,
                    "tasks": [t.to_dict() for t in instruction_induction_by_task(scores)],
                }
            )
    executor_baselines = baselines.get(executor, []) if executor is not None else []
    humans_tasks = instruction_induction_by_task(_human_scores(results.humans, executor_baselines))
    return {
        "humans": [t.to_dict() for t in humans_tasks],
        "executor": executor,
        "gold": _gold_tasks(baselines[executor]) if executor else [],
        "baselines": [
            {
                "executor": name,
                "humans": [t.to_dict() for t in instruction_induction_by_task(_human_scores(results.humans, scores))],
                "gold": _gold_tasks(scores),
            }
            for name, scores in baselines.items()
        ],
        "models": models,
    }


def breakdowns(results: ResultsInput) -> dict[str, Any]:
    if any("task" in item.meta for item in results.items.values()):
        return {"by_task": by_task(results)}
    return {}
