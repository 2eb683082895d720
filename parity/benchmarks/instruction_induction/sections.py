"""Instruction induction's own section of the results (`results.py` computes it, `tables.py` prints
it): per task, the written instructions, the gold ceiling and every model run's own instructions,
by the executor that ran them, and Table 4's in-context verification."""

from __future__ import annotations

from dataclasses import dataclass, field

from ...records import OMIT_IF_NONE, Record
from ..sections import Sections
from .stats import InContextSummary, TaskSummary


@dataclass(frozen=True)
class SimilarityScale(Record):
    """The scale of a reference similarity: model, scorer, layer and rescaling."""

    model: str
    scorer: str
    layer: int | None
    rescaled: bool
    baseline: float | None
    on_paper_scale: bool


@dataclass(frozen=True)
class ExecutorBaseline(Record):
    """The written and gold instructions as one executor ran them."""

    executor: str
    humans: list[TaskSummary]
    gold: list[TaskSummary]
    similarity_scales: list[SimilarityScale]


@dataclass(frozen=True)
class ModelInstructions(Record):
    """A model run's own instructions, with the executor that ran them."""

    run: int
    label: str
    executor: str
    self_executed: bool
    tasks: list[TaskSummary]
    similarity_scales: list[SimilarityScale]


@dataclass(frozen=True)
class InContextRun(Record):
    """Table 4 for one run: per task, the mean of the task's metric over its prompts."""

    run: int
    label: str
    tasks: list[InContextSummary]


@dataclass(frozen=True)
class ByTask(Record):
    """`humans` and `gold` are by the study's `executor` (None: nothing executed yet);
    `baselines` holds the same for every executor that scored the study."""

    humans: list[TaskSummary]
    executor: str | None
    gold: list[TaskSummary]
    baselines: list[ExecutorBaseline]
    models: list[ModelInstructions]
    in_context: list[InContextRun]


@dataclass(frozen=True)
class InductionSections(Sections):
    #: None: no item of the study has a task
    by_task: ByTask | None = field(default=None, metadata=OMIT_IF_NONE)
