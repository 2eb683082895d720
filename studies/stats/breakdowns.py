"""Benchmark breakdowns the papers report beside overall accuracy.

Implicature (Ruis et al., Tables 1 and 4, Figure 3): accuracy per prompt template, mean ± std
over templates, structured (1, 3, 4) vs natural (2, 5, 6) template means, and per implicature
type. Instruction induction (Honovich et al.): execution accuracy and reference similarity per
task, and the share of human-written instructions a researcher verified as correct.
Stds default to ``ddof=0`` like the rest of the package.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from studies.stats.results import JsonResult, coerce_rows, mean_std

STRUCTURED_TEMPLATES = (1, 3, 4)
NATURAL_TEMPLATES = (2, 5, 6)
# Test rows without a type label belong to the paper's "Other" type.
OTHER_TYPE = "Other"


@dataclass(frozen=True)
class TemplateAnswer:
    item: str
    template: int
    correct: bool
    implicature_type: str | None = None


@dataclass(frozen=True)
class TypeAccuracy(JsonResult):
    implicature_type: str
    n_items: int
    # Mean ± std over templates of the per-template accuracy on this type.
    mean: float | None
    std: float | None
    per_template: dict[int, float]


@dataclass(frozen=True)
class ImplicatureBreakdown(JsonResult):
    per_template: dict[int, float]
    mean: float | None
    std: float | None
    ddof: int
    # None when none of the group's templates was run.
    structured_mean: float | None
    natural_mean: float | None
    per_type: list[TypeAccuracy]


def _accuracy_per_template(answers: Iterable[TemplateAnswer]) -> dict[int, float]:
    outcomes: dict[int, list[bool]] = defaultdict(list)
    for answer in answers:
        outcomes[answer.template].append(bool(answer.correct))
    return {template: float(np.mean(outcomes[template])) for template in sorted(outcomes)}


def _group_mean(per_template: Mapping[int, float], group: tuple[int, ...]) -> float | None:
    values = [per_template[t] for t in group if t in per_template]
    return float(np.mean(values)) if values else None


def implicature_breakdown(
    answers: Iterable[TemplateAnswer | Mapping[str, Any]], *, ddof: int = 0
) -> ImplicatureBreakdown:
    """``answers``: one model (or human group) at one k, one row per item × template."""
    rows = coerce_rows(TemplateAnswer, answers)
    per_template = _accuracy_per_template(rows)
    mean, std = mean_std(list(per_template.values()), ddof=ddof)

    by_type: dict[str, list[TemplateAnswer]] = defaultdict(list)
    for row in rows:
        by_type[row.implicature_type or OTHER_TYPE].append(row)
    per_type = []
    for name in sorted(by_type):
        type_templates = _accuracy_per_template(by_type[name])
        type_mean, type_std = mean_std(list(type_templates.values()), ddof=ddof)
        per_type.append(
            TypeAccuracy(
                implicature_type=name,
                n_items=len({row.item for row in by_type[name]}),
                mean=type_mean,
                std=type_std,
                per_template=type_templates,
            )
        )
    return ImplicatureBreakdown(
        per_template=per_template,
        mean=mean,
        std=std,
        ddof=ddof,
        structured_mean=_group_mean(per_template, STRUCTURED_TEMPLATES),
        natural_mean=_group_mean(per_template, NATURAL_TEMPLATES),
        per_type=per_type,
    )


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


def _mean_of_present(values: Iterable[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return float(np.mean(present)) if present else None


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
                execution_accuracy=_mean_of_present(r.execution_accuracy for r in rows),
                reference_similarity=_mean_of_present(r.reference_similarity for r in rows),
                n_reviewed=len(reviewed),
                share_verified=sum(reviewed) / len(reviewed) if reviewed else None,
            )
        )
    return summaries
