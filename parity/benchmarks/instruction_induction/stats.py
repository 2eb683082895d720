"""Instruction induction's scores per task (Honovich et al.): execution accuracy and reference
similarity per task, and the share of human-written instructions a researcher verified as correct."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from parity.stats.results import JsonResult, coerce_rows, mean_of_present


@dataclass(frozen=True)
class InstructionScore:
    task: str
    # An id (or the text) of one induced or human-written instruction.
    instruction: str
    # Share of the task's execute examples solved when following this instruction.
    execution_accuracy: float | None = None
    # E.g. BERTScore-F1 against the gold instructions, max over the gold set.
    reference_similarity: float | None = None
    # A researcher's verdict on a human instruction; None when not reviewed.
    verified: bool | None = None


@dataclass(frozen=True)
class TaskSummary(JsonResult):
    task: str
    n_instructions: int
    execution_accuracy: float | None
    reference_similarity: float | None
    n_reviewed: int
    share_verified: float | None


def instruction_induction_by_task(
    scores: Iterable[InstructionScore | Mapping[str, Any]],
) -> list[TaskSummary]:
    """Per task (sorted by name): means over instructions; missing numbers are skipped."""
    by_task: dict[str, list[InstructionScore]] = defaultdict(list)
    for score in coerce_rows(InstructionScore, scores):
        by_task[score.task].append(score)
    summaries = []
    for task in sorted(by_task):
        rows = by_task[task]
        reviewed = [row.verified for row in rows if row.verified is not None]
        summaries.append(
            TaskSummary(
                task=task,
                n_instructions=len(rows),
                execution_accuracy=mean_of_present(r.execution_accuracy for r in rows),
                reference_similarity=mean_of_present(r.reference_similarity for r in rows),
                n_reviewed=len(reviewed),
                share_verified=sum(reviewed) / len(reviewed) if reviewed else None,
            )
        )
    return summaries


@dataclass(frozen=True)
class InContextSummary(JsonResult):
    """One task of Table 4's in-context verification for one run."""

    task: str
    metric: str
    n_prompts: int
    #: Table 4's figure: the mean of the task's metric over the prompts (an F1 task: the mean F1)
    mean_score: float | None
    #: the share of prompts with the full score (1.0): for an exact-match task the same number
    share_full_score: float | None


def in_context_by_task(rows: Iterable[tuple[str, str, float]]) -> list[InContextSummary]:
    """Per task (sorted by name), from (task, metric, score) of each prompt: the mean score, as the
    authors' `evaluate.py` averages the per-output scores of the task's metric (F1 values for the
    F1 tasks, never rounded to right or wrong)."""
    by_task: dict[str, list[tuple[str, float]]] = defaultdict(list)
    for task, metric, score in rows:
        by_task[task].append((metric, float(score)))
    summaries = []
    for task in sorted(by_task):
        scores = [score for _, score in by_task[task]]
        summaries.append(
            InContextSummary(
                task=task,
                metric=by_task[task][0][0],
                n_prompts=len(scores),
                mean_score=mean_of_present(scores),
                share_full_score=sum(score == 1.0 for score in scores) / len(scores),
            )
        )
    return summaries
