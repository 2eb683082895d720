"""Instruction-induction baselines: a study's written instructions and the gold instructions,
executed by a chosen model and compared with the gold set, exactly as a model's own instructions
are (Honovich et al., Table 2's human and gold rows).

The executor they were last scored with is the study's executor: a model run executes its own
instructions with it unless its setting names another model, or `self` (Section 5.2: one
execution model for every row of the table). Scoring again with the same executor replaces that
executor's earlier scores for the study.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.db import transaction

from modelruns import selectors
from modelruns.models import InstructionScore, ModelSpec
from modelruns.storable import storable
from parity.benchmarks.instruction_induction.model import (
    SELF_EXECUTED,
    baseline_requests,
    baseline_scores,
    gold_instructions,
    written_instruction,
)
from parity.engine import resolve_similarity_model
from studies.models import Study
from studies.results_token import results_changed

if TYPE_CHECKING:
    from modelruns.scorers import Progress

#: the model kinds that can execute an instruction (generate its outputs)
EXECUTOR_KINDS = (ModelSpec.Kind.CAUSAL, ModelSpec.Kind.SEQ2SEQ, ModelSpec.Kind.API)


class InstructionScoringError(ValueError):
    pass


@dataclass(frozen=True)
class ScoredInstructions:
    written: int
    gold: int
    tasks: int


def study_executor(study: Study) -> ModelSpec | None:
    """The study's executor: the model its written and gold instructions were last scored with."""
    latest = InstructionScore.objects.filter(study=study).select_related("executor").order_by("-created_at", "-pk")
    score = latest.first()
    return score.executor if score is not None else None


def instruction_setting_resolve(*, study: Study, setting: Mapping[str, Any]) -> dict[str, Any]:
    """A run's setting with its executor and similarity model made definite, so that the run's
    shards agree wherever they are scored: a blank executor becomes the study's executor's name,
    `auto` similarity the model it stands for on this machine (`resolve_similarity_model`)."""
    full = dict(setting)
    if full.get("mode", "induce") != "induce":
        return full
    executor = str(full.get("executor", "")).strip()
    if not executor:
        chosen = study_executor(study)
        if chosen is None:
            raise InstructionScoringError(
                f"study {study.name!r} has no executor yet: every instruction is executed by one model, so "
                f"score its written and gold instructions first (score_instructions --study {study.name!r} "
                "--executor MODEL), or give the run an executor (a model's name, or "
                f"{SELF_EXECUTED!r} for its own model)"
            )
        executor = chosen.name
    elif executor != SELF_EXECUTED:
        named = ModelSpec.objects.filter(name=executor).first()
        if named is None:
            raise InstructionScoringError(
                f"no model is named {executor!r}: name a known model (score_instructions --executor adds one) "
                f"or {SELF_EXECUTED!r}"
            )
        if named.kind not in EXECUTOR_KINDS:
            raise InstructionScoringError(f"the executor must be a causal, seq2seq or api model, not {named.kind}")
    full["executor"] = executor
    full["similarity_model"] = resolve_similarity_model(str(full["similarity_model"]))
    return full


def instructionscores_compute(
    *, study: Study, executor: ModelSpec, setting: Mapping[str, Any] | None = None, progress: Progress | None = None
) -> ScoredInstructions:
    """Execute the study's written instructions and its tasks' gold instructions with `executor`
    (same prompt, decoding and metric as a model's instructions) and store their scores."""
    if not study.definition.executes_instructions:
        raise InstructionScoringError(f"study {study.name!r} is not an instruction-induction study")
    if executor.kind not in EXECUTOR_KINDS:
        raise InstructionScoringError(f"the executor must be a causal, seq2seq or api model, not {executor.kind}")
    definition = study.definition
    try:
        full = definition.model_setting(setting)
    except ValueError as exc:
        raise InstructionScoringError(str(exc)) from exc
    if full.get("mode", "induce") != "induce":
        raise InstructionScoringError("written and gold instructions are executed; mode is a model-run setting")
    if str(full.get("executor", "")).strip():
        raise InstructionScoringError("the executor of written and gold instructions is --executor, not a setting")
    full["executor"] = executor.name
    full["similarity_model"] = resolve_similarity_model(str(full["similarity_model"]))
    assets = selectors.benchmark_assets(study.benchmark)
    references = assets.get("references") or {}
    tasks = selectors.study_tasks(study)
    responses = {f"written|{response.pk}": response for response in selectors.written_instructions(study)}
    # the whole text as written (`answer` is a copy cut to its column's length)
    instructions = [
        written_instruction(key, str(response.item.meta["task"]), response.raw_answer.strip(), references)
        for key, response in responses.items()
    ]
    instructions += gold_instructions(references, tasks)
    if not instructions:
        raise InstructionScoringError(f"study {study.name!r} has no instructions to score")
    # the engine and its scorers are loaded when instructions are scored, not with the admin at every start
    from modelruns.scorers import scorer_of

    scorer = scorer_of(executor)
    results = scorer.run(baseline_requests(instructions, assets, full), progress)
    scores = baseline_scores(instructions, assets, full, results)
    rows = []
    for instruction in instructions:
        score = scores[instruction.key]
        gold = instruction.gold_index is not None
        rows.append(
            InstructionScore(
                study=study,
                executor=executor,
                task=instruction.task,
                response=responses.get(instruction.key),
                source=InstructionScore.Source.GOLD if gold else InstructionScore.Source.WRITTEN,
                gold_index=instruction.gold_index,
                instruction=storable(instruction.text),
                execution_accuracy=score["execution_accuracy"],
                reference_similarity=score["reference_similarity"],
                similarity_model=score["similarity_model"],
                similarity_scorer=score["similarity_scorer"],
                similarity_layer=score["similarity_layer"],
                similarity_rescaled=score["similarity_rescaled"],
                similarity_baseline=score["similarity_baseline"],
                setting=dict(full),
                outputs=storable(score["outputs"]),
            )
        )
    with transaction.atomic():
        InstructionScore.objects.filter(study=study, executor=executor).delete()
        InstructionScore.objects.bulk_create(rows, batch_size=500)
        results_changed(study_ids=[study.pk])
    written = sum(row.source == InstructionScore.Source.WRITTEN for row in rows)
    return ScoredInstructions(written=written, gold=len(rows) - written, tasks=len(tasks))
