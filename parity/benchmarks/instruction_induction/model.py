"""The model side of instruction induction (Honovich et al., Sections 3-4).

Three stages per induction prompt, each asked for once the results it needs are in:
1. generate the instruction greedily, all 50 tokens as the authors do (a model often opens with
   ':\\n\\n' or 'probably:\\n'), then normalise it: lead-ins off, and only then the first line;
2. execute it on the task's execute set (`Instruction: ...\\nInput: x\\nOutput:`, greedy, 30 tokens),
   scored with the task's metric against every acceptable answer: the execution accuracy;
3. its reference similarity: BERTScore F1 against the gold instructions (max over them), by the
   scorer `parity.engine.load_similarity` picks for `similarity_model`; model, scorer, layer and
   rescaling are stored with the score.
`execute_limit` caps the execute inputs per instruction (0: all, as in the paper).

**One executor for every instruction** (Section 4.2: "a predefined language model"; Section 5.2:
the largest InstructGPT executes the models', the control group's and the gold instructions alike;
the authors' `execute_instructions.py` takes the executor as its own argument). Stage 2's requests
(`is_execution`) go to the run's `executor`: a model spec's name (the study's executor when the run
starts with it blank), or `self` for the run's own model, labelled "self-executed".

With `mode=in_context` (Table 4's verification) no instruction is asked for: each prompt's five
demonstrations are followed by one execute input, and the answer is scored with the task's metric
(`execution_accuracy`; an F1 task's score is the F1, and Table 4 reports the mean of the scores).

Instructions that were not induced by the model itself (a study's written instructions, the gold
instructions) go through stages 2 and 3 with the same executor (`baseline_requests`,
`baseline_scores`): a written instruction is compared with every gold instruction of its task,
a gold instruction with the other gold instructions of its task (leave-one-out).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from parity.engine import metrics
from parity.engine.requests import GenerationRequest
from parity.engine.similarity import AUTO, PAPER_SIMILARITY_MODEL, SimilarityScore

from ..base import ItemData, ModelAnswer, ModelAsk, SimilarityRequest
from ..design import DesignOption
from .prompts import EXECUTION_MAX_TOKENS, INDUCTION_MAX_TOKENS, execution_prompt, in_context_prompt

#: `mode`: "induce" (generate an instruction, execute it, compare it) or "in_context" (Table 4's
#: verification: solve one execute input from the prompt's five demonstrations alone)
MODES = ("induce", "in_context")
#: the `executor` that executes a run's instructions with the run's own model
SELF_EXECUTED = "self"
#: the reference similarity of Honovich et al.: DeBERTa-xlarge-MNLI, layer 40 (the `bert-score`
#: package's layer for it), baseline-rescaled; figures by any other scorer are on another scale
PAPER_SIMILARITY_LAYER = 40
DEFAULT_SETTING: Mapping[str, Any] = {"mode": "induce", "execute_limit": 0, "executor": "", "similarity_model": AUTO}
SETTING_OPTIONS: tuple[DesignOption, ...] = (
    DesignOption(
        "mode",
        "Mode",
        kind="choice",
        choices=(
            ("induce", "induce an instruction, execute it, compare it"),
            ("in_context", "in-context verification (Table 4): no instruction"),
        ),
    ),
    DesignOption(
        "execute_limit", "Execute inputs per instruction", minimum=0, help="0: all of the task's, as in the paper"
    ),
    DesignOption(
        "executor",
        "Executor",
        kind="text",
        help="the model that executes the instructions, as it executes the human and gold ones: a model's "
        "name; blank: the study's executor (the one its written and gold instructions were last scored "
        f"with); {SELF_EXECUTED!r}: this run's own model (labelled self-executed)",
    ),
    DesignOption(
        "similarity_model",
        "Similarity model",
        kind="text",
        help=f"the model that compares an instruction with the gold ones; {AUTO!r}: the paper's "
        f"{PAPER_SIMILARITY_MODEL} (bert-score, layer {PAPER_SIMILARITY_LAYER}, rescaled) where it is in the "
        "local Hugging Face cache, else the packaged all-MiniLM-L6-v2 (raw, not on the paper's scale)",
    ),
)


def check_setting(setting: Mapping[str, Any]) -> None:
    if setting.get("mode", "induce") not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, not {setting['mode']!r}")
    if setting["execute_limit"] < 0:
        raise ValueError(f"execute_limit must be 0 (all) or more, not {setting['execute_limit']}")
    if not str(setting["similarity_model"]).strip():
        raise ValueError("similarity_model must name a model")
    if setting.get("mode") == "in_context" and str(setting.get("executor", "")).strip():
        raise ValueError("in-context verification executes no instruction: leave executor blank")


def executor_label(setting: Mapping[str, Any]) -> str:
    """Who executes a run's instructions, in words. A run made before the executor was a setting
    executed its instructions itself; a blank executor is the default, resolved when a run starts."""
    if "executor" not in setting:
        return "self-executed"
    executor = str(setting["executor"]).strip()
    if executor == SELF_EXECUTED:
        return "self-executed"
    return f"executed by {executor}" if executor else "executed by the study's executor"


def setting_label(setting: Mapping[str, Any]) -> str:
    if setting.get("mode") == "in_context":
        return "in-context verification (5 demonstrations, no instruction)"
    limit = setting.get("execute_limit", 0)
    return (
        f"{executor_label(setting)}, execute {'all' if not limit else limit} inputs, "
        f"similarity by {setting['similarity_model']}"
    )


def executed_by(setting: Mapping[str, Any], own_model: str) -> str:
    """The model that executed a run's instructions: its `executor`, or the run's own model when
    self-executed (so were runs made before the executor was a setting)."""
    executor = str(setting.get("executor", "")).strip()
    return own_model if executor in ("", SELF_EXECUTED) else executor


def is_self_executed(setting: Mapping[str, Any]) -> bool:
    return str(setting.get("executor", "")).strip() in ("", SELF_EXECUTED)


def executor_name(setting: Mapping[str, Any]) -> str:
    """The executor a worker loads beside the run's model; "" when the run executes with its own."""
    return "" if is_self_executed(setting) else str(setting["executor"]).strip()


_EXECUTION_KEY = re.compile(r"\|execute\|\d+$")


def is_execution(request: Any) -> bool:
    """Whether a request executes an instruction (stage 2): the run's executor answers it."""
    return isinstance(request, GenerationRequest) and _EXECUTION_KEY.search(request.key) is not None


def similarity_fields(similarity: SimilarityScore | None, setting: Mapping[str, Any]) -> dict[str, Any]:
    """What is stored with a reference similarity: its model, scorer, layer and rescaling."""
    if similarity is None:
        return {
            "similarity_model": str(setting["similarity_model"]),
            "similarity_scorer": "",
            "similarity_layer": None,
            "similarity_rescaled": False,
            "similarity_baseline": None,
        }
    return {
        "similarity_model": similarity.model_name,
        "similarity_scorer": similarity.scorer,
        "similarity_layer": similarity.layer,
        "similarity_rescaled": similarity.rescaled,
        "similarity_baseline": similarity.baseline_f1,
    }


def on_paper_scale(model: str, layer: int | None, rescaled: bool) -> bool:
    """Whether a reference similarity is on the scale of Honovich et al.'s Table 2 and Figure 2."""
    return model == PAPER_SIMILARITY_MODEL and layer == PAPER_SIMILARITY_LAYER and bool(rescaled)


def _keys(item: ItemData) -> tuple[str, str]:
    return f"{item.key}|induce", f"{item.key}|reference"


def _exec_key(item: ItemData, index: int) -> str:
    return f"{item.key}|execute|{index}"


def execute_set(item: ItemData, assets: Mapping[str, Any], setting: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return _task_entries(item.prompt["task"], assets, setting)


def instruction_of(result: Any) -> str:
    return metrics.normalize_instruction(result.text)


def _execution_requests(prefix: str, instruction: str, entries: Sequence[Mapping[str, Any]]) -> list[GenerationRequest]:
    return [
        GenerationRequest(
            f"{prefix}|execute|{index}",
            execution_prompt(instruction, entry["input"]),
            EXECUTION_MAX_TOKENS,
            stop_at_newline=True,
        )
        for index, entry in enumerate(entries)
    ]


def _in_context_entry(item: ItemData, assets: Mapping[str, Any]) -> Mapping[str, Any]:
    """The execute input an induction prompt is verified on: prompt n takes input n (cycling), so
    that the 100 repetitions of a task each have their own demonstrations and test input (Section 3.3)."""
    entries = _task_entries(item.prompt["task"], assets, {})
    return entries[(int(item.meta.get("n", 1)) - 1) % len(entries)]


def _in_context_requests(items: Sequence[ItemData], assets: Mapping[str, Any]) -> list[GenerationRequest]:
    return [
        GenerationRequest(
            f"{item.key}|in_context",
            in_context_prompt(item.prompt["demonstrations"], _in_context_entry(item, assets)["input"]),
            EXECUTION_MAX_TOKENS,
            stop_at_newline=True,
        )
        for item in items
    ]


def _in_context_answers(
    items: Sequence[ItemData], results: Mapping[str, Any], assets: Mapping[str, Any]
) -> dict[str, ModelAnswer]:
    found = {}
    for item in items:
        task = item.prompt["task"]
        entry = _in_context_entry(item, assets)
        generated = results[f"{item.key}|in_context"]
        score = metrics.execution_score(task, generated.text, entry["outputs"])
        scores = {
            "mode": "in_context",
            "execution_accuracy": score,
            "metric": metrics.metric_for(task),
            "executed": 1,
            "input": entry["input"],
            "outputs": [generated.text],
            "stop_reason": generated.stop_reason,
        }
        found[item.key] = ModelAnswer(
            answer=metrics.normalize_output(generated.text),
            raw_answer=generated.raw_text,
            valid=True,
            correct=score == 1.0,
            scores=scores,
            truncated_tokens=generated.truncated_tokens,
        )
    return found


def requests(ask: ModelAsk) -> list[GenerationRequest | SimilarityRequest]:
    items, assets, setting, prior = ask.items, ask.assets, ask.setting, ask.prior
    if setting.get("mode") == "in_context":
        return list(_in_context_requests(items, assets))
    found: list[GenerationRequest | SimilarityRequest] = []
    references = assets.get("references") or {}
    for item in items:
        induce, reference = _keys(item)
        found.append(GenerationRequest(induce, item.prompt["text"], INDUCTION_MAX_TOKENS, stop_at_newline=False))
        if induce not in prior:
            continue
        instruction = instruction_of(prior[induce])
        if not instruction:
            continue  # nothing to execute or compare: scored 0 below
        found.extend(_execution_requests(item.key, instruction, execute_set(item, assets, setting)))
        gold = tuple(references.get(item.prompt["task"], ()))
        if gold:
            found.append(SimilarityRequest(reference, instruction, gold, str(setting["similarity_model"])))
    return found


def answers(
    items: Sequence[ItemData],
    setting: Mapping[str, Any],
    results: Mapping[str, Any],
    *,
    assets: Mapping[str, Any] | None = None,
    kind: str = "causal",
) -> dict[str, ModelAnswer]:
    assets = assets or {}
    if setting.get("mode") == "in_context":
        return _in_context_answers(items, results, assets)
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
            "execution_accuracy": accuracy,
            "metric": metrics.metric_for(task),
            "executed": len(outputs),
            "executor": str(setting.get("executor", "")).strip() or SELF_EXECUTED,
            "outputs": outputs,
            "stop_reason": generated.stop_reason,
            "reference_f1": similarity.f1 if similarity is not None else 0.0,
            "reference_index": similarity.reference_index if similarity is not None else -1,
            **similarity_fields(similarity, setting),
        }
        # as for a human's instruction, `correct` is a researcher's later judgement, not a metric
        found[item.key] = ModelAnswer(
            answer=instruction,
            raw_answer=generated.raw_text,
            valid=bool(instruction),
            correct=False,
            scores=scores,
            truncated_tokens=generated.truncated_tokens,
        )
    return found


# -- written and gold instructions, executed by a chosen model -------------------------------------


@dataclass(frozen=True)
class Instruction:
    """An instruction that was not induced by the executor: a participant's or a gold one."""

    key: str  # unique among the instructions scored together
    task: str
    text: str
    #: the gold instructions its reference similarity is the best F1 over
    references: tuple[str, ...]
    #: its place in the task's gold list, for a gold instruction
    gold_index: int | None = None


def gold_instructions(references: Mapping[str, Sequence[str]], tasks: Sequence[str]) -> list[Instruction]:
    """Every gold instruction of `tasks`, each compared with the others of its task (leave-one-out)."""
    found = []
    for task in tasks:
        gold = list(references.get(task) or ())
        for index, text in enumerate(gold):
            found.append(
                Instruction(f"gold|{task}|{index}", task, text, tuple(gold[:index] + gold[index + 1 :]), index)
            )
    return found


def written_instruction(key: str, task: str, text: str, references: Mapping[str, Sequence[str]]) -> Instruction:
    """A participant's instruction, compared with every gold instruction of its task."""
    return Instruction(key, task, text, tuple(references.get(task) or ()))


def _task_entries(task: str, assets: Mapping[str, Any], setting: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    entries = (assets.get("execute") or {}).get(task)
    if not entries:
        raise ValueError(f"no execute set is imported for {task!r}")
    limit = int(setting.get("execute_limit", 0))
    return list(entries[:limit] if limit else entries)


def _execution_prefix(instruction: Instruction) -> str:
    # the same text on the same task is executed once, as the authors group identical instructions
    return f"{instruction.task}|{instruction.text}"


def baseline_requests(
    instructions: Sequence[Instruction], assets: Mapping[str, Any], setting: Mapping[str, Any]
) -> list[GenerationRequest | SimilarityRequest]:
    """Execution prompts (as for a model's instruction) and one similarity request per instruction."""
    found: dict[str, GenerationRequest | SimilarityRequest] = {}
    for instruction in instructions:
        for request in _execution_requests(
            _execution_prefix(instruction), instruction.text, _task_entries(instruction.task, assets, setting)
        ):
            found.setdefault(request.key, request)
        if instruction.references:
            found[f"{instruction.key}|reference"] = SimilarityRequest(
                f"{instruction.key}|reference",
                instruction.text,
                instruction.references,
                str(setting["similarity_model"]),
            )
    return list(found.values())


def baseline_scores(
    instructions: Sequence[Instruction],
    assets: Mapping[str, Any],
    setting: Mapping[str, Any],
    results: Mapping[str, Any],
) -> dict[str, dict[str, Any]]:
    """Per instruction key: execution accuracy with the task's metric and the reference similarity
    (None when there is no other gold instruction to compare with)."""
    scored: dict[str, dict[str, Any]] = {}
    for instruction in instructions:
        entries = _task_entries(instruction.task, assets, setting)
        prefix = _execution_prefix(instruction)
        outputs = [results[f"{prefix}|execute|{index}"].text for index in range(len(entries))]
        similarity = results.get(f"{instruction.key}|reference")
        scored[instruction.key] = {
            "execution_accuracy": metrics.execution_accuracy(
                instruction.task, outputs, [entry["outputs"] for entry in entries]
            ),
            "metric": metrics.metric_for(instruction.task),
            "executed": len(outputs),
            "outputs": outputs,
            "reference_similarity": similarity.f1 if similarity is not None else None,
            **similarity_fields(similarity, setting),
        }
    return scored
