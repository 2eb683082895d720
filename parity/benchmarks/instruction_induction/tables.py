"""Instruction induction's paper tables (Honovich et al.): per task, one table per executor (the
written and gold instructions it executed, and the model runs whose instructions it executed), and
Table 4's in-context verification.

No table puts side by side instructions executed by different models: the study's executor's table
comes first, and every other executor, a self-executed run's own model included, gets its own table,
named in its title. Each table's notes say which scale its similarity figures are on, and when they
are not on the paper's (DeBERTa-xlarge-MNLI, layer 40, baseline-rescaled).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from ...engine.similarity import PAPER_SIMILARITY_MODEL
from ..sections import Sections
from ..tables import Table, num, pct
from .model import PAPER_SIMILARITY_LAYER

if TYPE_CHECKING:  # the section's types need numpy, which listing the benchmarks should not load
    from .sections import ByTask, SimilarityScale
    from .stats import InContextSummary, TaskSummary

PAPER_SCALE = f"{PAPER_SIMILARITY_MODEL}, layer {PAPER_SIMILARITY_LAYER}, baseline-rescaled"


def scale_text(scale: SimilarityScale) -> str:
    """A similarity scale in words: model, layer, scorer and rescaling."""
    layer = f"layer {scale.layer}" if scale.layer is not None else "layer not recorded"
    if scale.rescaled:
        baseline = f" (baseline F1 {scale.baseline:.3f})" if scale.baseline is not None else ""
        rescaling = f"baseline-rescaled{baseline}"
    else:
        rescaling = "raw F1"
    return f"{scale.model}, {layer}, {scale.scorer}, {rescaling}"


def _similarity_notes(scales: list[SimilarityScale]) -> list[str]:
    if not scales:
        return []
    notes = ["Reference similarity by " + "; ".join(scale_text(scale) for scale in scales) + "."]
    if not all(scale.on_paper_scale for scale in scales):
        notes.append(
            f"These similarity figures are not on the paper's scale ({PAPER_SCALE}; the paper prints "
            "them ×100): compare them with each other, not with the paper's."
        )
    return notes


def _executors(section: ByTask) -> list[str]:
    """Every executor of the section: the study's first, then those of other scorings, then those
    of model runs only."""
    names = [b.executor for b in section.baselines]
    for model in section.models:
        if model.executor not in names:
            names.append(model.executor)
    return names


def _task_table(section: ByTask, executor: str | None, index: int) -> Table | None:
    """The table of one executor; with `executor` None (nothing executed yet) the written
    instructions and their verification alone."""
    baseline = next((b for b in section.baselines if b.executor == executor), None)
    humans = {t.task: t for t in (baseline.humans if baseline else [])}
    gold = {t.task: t for t in (baseline.gold if baseline else [])}
    if baseline is None:  # the written instructions still count and carry their verification
        humans = {t.task: replace(t, execution_accuracy=None, reference_similarity=None) for t in section.humans}
    runs = [m for m in section.models if m.executor == executor]
    models = [(m.label, {t.task: t for t in m.tasks}) for m in runs]
    tasks = sorted(set(humans) | set(gold) | {task for _, scores in models for task in scores})
    if not tasks:
        return None
    columns = [
        "Task",
        "Human instructions",
        "Verified correct",
        "Human execution",
        "Human similarity",
        "Gold execution",
        "Gold similarity",
        *[heading for label, _ in models for heading in (f"{label} execution", f"{label} similarity")],
    ]
    rows = []
    for task in tasks:
        human, ceiling = humans.get(task), gold.get(task)
        rows.append(
            [
                task,
                str(human.n_instructions if human else 0),
                pct(human.share_verified if human else None),
                pct(human.execution_accuracy if human else None),
                num(human.reference_similarity if human else None),
                pct(ceiling.execution_accuracy if ceiling else None),
                num(ceiling.reference_similarity if ceiling else None),
                *[cell for _, scores in models for cell in _run_cells(scores.get(task))],
            ]
        )
    if executor is None:
        return Table(
            "by_task",
            "Instruction induction per task: the written instructions",
            columns,
            rows,
            notes=("No model has executed these instructions yet (score_instructions --executor MODEL).",),
        )
    study = executor == section.executor
    notes = [
        f"Every instruction in this table was executed by {executor}"
        + (" (the study's executor)" if study else "")
        + ": the written and gold instructions and the models' own"
        + (", self-executed ones included" if any(m.self_executed for m in runs) else "")
        + "."
    ]
    if baseline is None:
        notes.append(
            f"The study's written and gold instructions have not been executed by {executor} "
            f"(score_instructions --executor {executor}): their execution and similarity are left out here."
        )
    scales = [*(baseline.similarity_scales if baseline else []), *[s for m in runs for s in m.similarity_scales]]
    notes += _similarity_notes(_distinct(scales))
    return Table(
        "by_task" if index == 0 else f"by_task_{index + 1}",
        f"Instruction induction per task, executed by {executor}: humans, gold ceiling and models",
        columns,
        rows,
        notes=tuple(notes),
    )


def _run_cells(summary: TaskSummary | None) -> tuple[str, str]:
    """A model run's execution and similarity on a task ("—" where it has none)."""
    return (
        pct(summary.execution_accuracy if summary else None),
        num(summary.reference_similarity if summary else None),
    )


def _distinct(scales: list[SimilarityScale]) -> list[SimilarityScale]:
    """The distinct scales, in the order first met."""
    return list(dict.fromkeys(scales))


def in_context_table(section: ByTask) -> Table | None:
    """Table 4: each in-context run's mean score per task, beside the human study's verified share."""
    runs = section.in_context
    if not runs:
        return None
    scores: list[tuple[str, dict[str, InContextSummary]]] = [
        (run.label, {t.task: t for t in run.tasks}) for run in runs
    ]
    humans = {t.task: t for t in section.humans}
    tasks = sorted({task for _, by_task in scores for task in by_task})
    metric = {task: by_task[task].metric for _, by_task in scores for task in by_task}
    columns = ["Task", "Metric", *[label for label, _ in scores], "Human study (verified correct)"]
    rows = [
        [
            task,
            metric.get(task) or "—",
            *[pct(summary.mean_score if (summary := by_task.get(task)) else None) for _, by_task in scores],
            pct(human.share_verified if (human := humans.get(task)) else None),
        ]
        for task in tasks
    ]
    return Table(
        "in_context",
        "In-context verification per task (Table 4): five demonstrations, no instruction",
        columns,
        rows,
        notes=(
            "Each figure is the mean of the task's metric over the run's prompts: an F1 task reports the "
            "mean unigram F1, not the share of answers with F1 = 1 (the authors' evaluate.py averages the "
            "F1 of every output); an exact-match task the share answered exactly.",
        ),
    )


def induction_tables(sections: Sections) -> list[Table]:
    """The tables of a benchmark's own breakdowns (`StudyResults.breakdowns.sections`) where they
    hold instruction induction's per-task section."""
    from .sections import InductionSections

    section = sections.by_task if isinstance(sections, InductionSections) else None
    if not section:
        return []
    executors: list[str | None] = list(_executors(section)) or [None]
    tables = [_task_table(section, executor, index) for index, executor in enumerate(executors)]
    tables.append(in_context_table(section))
    return [table for table in tables if table is not None]
