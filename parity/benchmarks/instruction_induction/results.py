"""Instruction induction's results beside overall accuracy (Honovich et al.): per task, the written
instructions (verified share; execution and similarity by each executor that scored them), the gold
ceiling by that executor, every model run's own instructions with the executor that ran them, and
Table 4's in-context verification.

Every instruction of one row of the paper's Table 2 is executed by one model (Section 5.2). The
study's executor is the one its written and gold instructions were last scored with (`executor`);
each model entry names its own (`executor`, `self_executed`), so a table can keep apart what one
executor ran from what another did. Each similarity figure comes with the scale it is on
(`similarity_scales`: model, scorer, layer, rescaling).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..base import ResultsInput
from .model import executed_by, is_self_executed, on_paper_scale
from .sections import ByTask, ExecutorBaseline, InContextRun, InductionSections, ModelInstructions, SimilarityScale
from .stats import InstructionScore, TaskSummary, in_context_by_task, instruction_induction_by_task


def _similarity(scores: Any) -> float | None:
    """The reference score (BERTScore F1 against the best gold instruction), by either name."""
    value = scores.get("reference_similarity", scores.get("reference_f1"))
    return None if value is None else float(value)


def similarity_scale(model: str, scorer: str, layer: Any, rescaled: Any, baseline: Any) -> SimilarityScale:
    """The scale of a reference similarity, as the results report it."""
    layer = int(layer) if layer is not None else None
    return SimilarityScale(
        model=model,
        scorer=scorer or "not recorded",
        layer=layer,
        rescaled=bool(rescaled),
        baseline=float(baseline) if baseline is not None else None,
        on_paper_scale=on_paper_scale(model, layer, bool(rescaled)),
    )


def _scales(found: Iterable[SimilarityScale]) -> list[SimilarityScale]:
    """The distinct scales, in the order met."""
    return list(dict.fromkeys(found))


def _answer_scale(scores: Mapping[str, Any]) -> SimilarityScale | None:
    if "similarity_model" not in scores:
        return None
    return similarity_scale(
        str(scores["similarity_model"]),
        str(scores.get("similarity_scorer", "")),
        scores.get("similarity_layer"),
        scores.get("similarity_rescaled", False),
        scores.get("similarity_baseline"),
    )


def _baseline_scale(score: Any) -> SimilarityScale:
    return similarity_scale(
        score.similarity_model,
        score.similarity_scorer,
        score.similarity_layer,
        score.similarity_rescaled,
        score.similarity_baseline,
    )


def _when(score: Any) -> tuple[Any, ...]:
    """A sort key of when a baseline score was stored (unknown: earliest)."""
    scored_at = getattr(score, "scored_at", None)
    return (0,) if scored_at is None else (1, scored_at)


def _baselines(results: ResultsInput) -> dict[str, list[Any]]:
    """Baseline scores by executor, the study's executor (the one scored last) first, then by name;
    in the category filter's task when there is one."""
    grouped: dict[str, list[Any]] = defaultdict(list)
    latest: dict[str, tuple[Any, ...]] = {}
    for score in results.baseline_scores:
        latest[score.executor] = max(latest.get(score.executor, (0,)), _when(score))
        if not results.category or score.task == results.category:
            grouped[score.executor].append(score)
    study_executor = max(latest, key=lambda name: (latest[name], name), default=None)
    rest = sorted(name for name in latest if name != study_executor)
    order = [study_executor, *rest] if study_executor is not None else []
    return {name: grouped.get(name, []) for name in order}


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


def _gold_tasks(scores: list[Any]) -> list[TaskSummary]:
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
    return instruction_induction_by_task(gold)


def _task_rows(results: ResultsInput, run: Any) -> list[Any]:
    return [m for m in results.rows_by_run[run.id] if "task" in results.items[m.item_key].meta]


def _in_context_entry(results: ResultsInput, run: Any, rows: list[Any]) -> InContextRun:
    """Table 4 for one run: per task, the mean of the task's metric over its prompts."""
    scored = [
        (str(results.items[m.item_key].meta["task"]), str(m.scores.get("metric", "")), m.scores["execution_accuracy"])
        for m in rows
        if m.scores.get("execution_accuracy") is not None
    ]
    return InContextRun(run=run.id, label=run.label, tasks=in_context_by_task(scored))


def _model_entry(results: ResultsInput, run: Any, rows: list[Any]) -> ModelInstructions:
    scores = [
        InstructionScore(
            task=str(results.items[m.item_key].meta["task"]),
            instruction=f"{run.id}/{m.item_key}",
            execution_accuracy=m.scores.get("execution_accuracy"),
            reference_similarity=_similarity(m.scores),
        )
        for m in rows
    ]
    return ModelInstructions(
        run=run.id,
        label=run.label,
        executor=executed_by(run.setting, run.model),
        self_executed=is_self_executed(run.setting),
        tasks=instruction_induction_by_task(scores),
        similarity_scales=_scales(scale for m in rows if (scale := _answer_scale(m.scores)) is not None),
    )


def by_task(results: ResultsInput) -> ByTask:
    """Per task: the written instructions, the gold ceiling and every model run's own instructions.
    `executor` is the study's executor and `humans`/`gold` are by it; `baselines` holds the same
    for every executor that scored the study; each model names its executor; `in_context` holds
    Table 4's verification runs."""
    baselines = _baselines(results)
    executor = next(iter(baselines), None)
    models, in_context = [], []
    for run in results.runs:
        rows = _task_rows(results, run)
        if not rows:
            continue
        if run.setting.get("mode") == "in_context":
            in_context.append(_in_context_entry(results, run, rows))
        else:
            models.append(_model_entry(results, run, rows))
    executor_baselines = baselines.get(executor, []) if executor is not None else []
    humans_tasks = instruction_induction_by_task(_human_scores(results.humans, executor_baselines))
    return ByTask(
        humans=humans_tasks,
        executor=executor,
        gold=_gold_tasks(executor_baselines),
        baselines=[
            ExecutorBaseline(
                executor=name,
                humans=instruction_induction_by_task(_human_scores(results.humans, scores)),
                gold=_gold_tasks(scores),
                similarity_scales=_scales(_baseline_scale(s) for s in scores if s.reference_similarity is not None),
            )
            for name, scores in baselines.items()
        ],
        models=models,
        in_context=in_context,
    )


def breakdowns(results: ResultsInput) -> InductionSections:
    if any("task" in item.meta for item in results.items.values()):
        return InductionSections(by_task=by_task(results))
    return InductionSections()
