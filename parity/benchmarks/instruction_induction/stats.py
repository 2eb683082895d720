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
