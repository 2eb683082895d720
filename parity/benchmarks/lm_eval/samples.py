"""An lm-evaluation-harness `--log_samples` file as model answers to the items of its task (pure Python).

The harness writes one JSONL file per task, `samples_<task>_<date>.jsonl`, one line per document
and filter (`lm_eval.evaluator.evaluate` builds the line, `EvaluationTracker.save_results_samples`
writes it): `doc_id`, `doc`, `target` (as text), `arguments` ({"gen_args_<i>": {"arg_0": context,
"arg_1": continuation or generation arguments}}, one per request), `resps` and `filtered_resps` (every
value written as text: a log-likelihood request's (log-likelihood, is greedy) pair as two strings),
`filter`, `metrics` (the names of the metric keys on the line: `acc`, `acc_norm`, `exact_match`),
`doc_hash`, `prompt_hash`, `target_hash`.

`read_samples` reads such a file; `samples_answers` matches its documents to the items imported from
the same task (`lm_eval_task` and `lm_eval_doc_id`, see `tasks.records_for_task`) and turns each into
the answer a Parity run would store, through the custom benchmark's own `model_answers`: the same
schema, the same acc and acc_norm, the same exact_match. The harness's own metric on each line is
held against Parity's: a document whose target or choices differ from the item's is refused.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from parity.engine.requests import ChoiceResult, ContinuationScore, GenerationResult

from ..base import ItemData, ModelAnswer
from ..files import NAMED, some_of

#: `samples_<task>_<date>.jsonl`, the date as `datetime.now().isoformat()` with ':' made '-'
FILE_NAME = re.compile(r"samples_(?P<task>.+)_(?P<date>\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d+)?)\.jsonl")


class SamplesError(ValueError):
    """A samples file that cannot be imported as answers to the study's items, and why."""


@dataclass(frozen=True)
class Sample:
    doc_id: int
    target: str
    #: per request: its context (arg_0) and its continuation, or its generation arguments (arg_1)
    contexts: tuple[str, ...]
    continuations: tuple[Any, ...]
    #: multiple choice: per request, the (log-likelihood, is greedy) the harness read
    loglikelihoods: tuple[tuple[float, bool], ...]
    #: generation: the text generated (the first response, before the filters)
    generated: str | None
    metrics: Mapping[str, float]


@dataclass(frozen=True)
class SamplesFile:
    task: str
    filter: str
    samples: tuple[Sample, ...]
    #: the sha256 of the file's bytes: the same file imported again is recognised
    sha256: str


def task_of(file_name: str) -> str | None:
    """The task a samples file is named for, or None for a file not named as the harness names it."""
    found = FILE_NAME.fullmatch(file_name)
    return found.group("task") if found else None


def _problem(line: int, message: str) -> SamplesError:
    return SamplesError(f"line {line}: {message}")


def _pair(value: Any, line: int) -> tuple[float, bool]:
    """A log-likelihood response, (log-likelihood, is greedy), as the harness writes it (two strings)."""
    if isinstance(value, (list, tuple)) and len(value) == 1:
        value = value[0]
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise _problem(line, f"a log-likelihood response should be (log-likelihood, is greedy), not {value!r}")
    try:
        loglikelihood = float(value[0])
    except (TypeError, ValueError) as exc:
        raise _problem(line, f"{value[0]!r} is not a log-likelihood") from exc
    return loglikelihood, str(value[1]).strip().lower() == "true"


def _sample(record: Any, line: int) -> tuple[str, Sample]:
    if not isinstance(record, dict):
        raise _problem(line, "not a JSON object")
    missing = [key for key in ("doc_id", "target", "arguments", "resps", "filtered_resps") if key not in record]
    if missing:
        raise _problem(line, f"no {', '.join(missing)}: not a line of lm-evaluation-harness's --log_samples output")
    arguments = record["arguments"]
    if isinstance(arguments, dict):  # as written to the file: {"gen_args_0": {"arg_0": ..., "arg_1": ...}}
        requests = [arguments[key] for key in sorted(arguments, key=lambda name: int(name.rsplit("_", 1)[-1]))]
        requests = [[request[f"arg_{i}"] for i in range(len(request))] for request in requests]
    else:  # as the evaluator holds it: a list of argument tuples
        requests = [list(request) for request in arguments]
    if not requests or any(len(request) < 2 for request in requests):
        raise _problem(line, "its arguments do not hold a context and a continuation per request")
    metrics = {
        key: float(record[key]) for key in record.get("metrics", []) if isinstance(record.get(key), (int, float))
    }
    generation = isinstance(requests[0][1], dict)
    filtered = record["filtered_resps"]
    if generation:
        responses = record["resps"]
        first = responses[0] if responses else None
        generated = first[0] if isinstance(first, list) and first else first
        if not isinstance(generated, str):
            generated = filtered[0] if filtered and isinstance(filtered[0], str) else None
        if generated is None:
            raise _problem(line, "a generation line without a generated text")
        pairs: tuple[tuple[float, bool], ...] = ()
    else:
        if not isinstance(filtered, list) or len(filtered) != len(requests):
            raise _problem(
                line, f"{len(requests)} choices but {len(filtered) if isinstance(filtered, list) else 0} responses"
            )
        pairs = tuple(_pair(value, line) for value in filtered)
        generated = None
    sample = Sample(
        doc_id=int(record["doc_id"]),
        target=str(record["target"]),
        contexts=tuple(str(request[0]) for request in requests),
        continuations=tuple(request[1] for request in requests),
        loglikelihoods=pairs,
        generated=generated,
        metrics=metrics,
    )
    return str(record.get("filter", "none")), sample


def read_samples(
    content: bytes, *, file_name: str, task: str | None = None, filter_name: str | None = None
) -> SamplesFile:
    """A samples file's documents under one filter. `task`: the task, when the file is not named as
    the harness names it; `filter_name`: which filter's lines, when the file has several."""
    named = task_of(file_name)
    if task is None and named is None:
        raise SamplesError(
            f"{file_name} is not named as lm-evaluation-harness names a samples file (samples_<task>_<date>.jsonl); "
            "give the task"
        )
    if task is not None and named is not None and task != named:
        raise SamplesError(f"{file_name} is the samples of task {named!r}, not {task!r}")
    chosen_task = task or named or ""
    by_filter: dict[str, dict[int, Sample]] = {}
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SamplesError(f"{file_name} is not UTF-8 text ({exc})") from exc
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            record = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise _problem(number, f"not JSON ({exc.msg})") from exc
        name, sample = _sample(record, number)
        documents = by_filter.setdefault(name, {})
        if sample.doc_id in documents:
            raise _problem(number, f"document {sample.doc_id} appears twice under the filter {name!r}")
        documents[sample.doc_id] = sample
    if not by_filter:
        raise SamplesError(f"{file_name} holds no samples")
    if filter_name is None and len(by_filter) > 1:
        raise SamplesError(
            f"{file_name} has the answers of several filters ({', '.join(sorted(by_filter))}); choose one"
        )
    chosen = filter_name if filter_name is not None else next(iter(by_filter))
    if chosen not in by_filter:
        raise SamplesError(f"{file_name} has no filter {chosen!r}; it has {', '.join(sorted(by_filter))}")
    samples = tuple(sorted(by_filter[chosen].values(), key=lambda sample: sample.doc_id))
    return SamplesFile(chosen_task, chosen, samples, hashlib.sha256(content).hexdigest())


# -- matching documents to items ------------------------------------------------------------


def item_task(item: ItemData) -> tuple[str, int] | None:
    """The (task, document id) an item was imported from, or None for an item of no harness task."""
    extra = item.meta.get("extra") or {}
    task, doc_id = extra.get("lm_eval_task"), extra.get("lm_eval_doc_id")
    if not task or doc_id is None:
        return None
    try:
        return str(task), int(str(doc_id))
    except ValueError:
        return None


@dataclass(frozen=True)
class MatchedAnswers:
    #: by item key, the answer Parity stores
    answers: dict[str, ModelAnswer]
    #: documents whose context differs from the item's (another few-shot count or seed)
    contexts_differ: int


def _result(item: ItemData, sample: Sample) -> ChoiceResult | GenerationResult:
    """What the engine would have returned, from what the harness logged (it logs no token counts)."""
    if sample.generated is not None:
        return GenerationResult(item.key, sample.generated, sample.generated, 0, "stop", 0)
    continuations = item.meta["model"]["continuations"]
    if list(sample.continuations) != list(continuations):
        raise SamplesError(
            f"document {sample.doc_id}: its continuations {list(sample.continuations)!r} are not the item's "
            f"{list(continuations)!r} ({item.key}): another document"
        )
    return ChoiceResult(
        item.key,
        tuple(
            ContinuationScore(text=str(text), logprob=loglikelihood, n_tokens=0, is_greedy=greedy)
            for text, (loglikelihood, greedy) in zip(continuations, sample.loglikelihoods)
        ),
        0,
    )


def _target_matches(item: ItemData, sample: Sample) -> bool:
    """The line's target (written as text: a choice's index or the choice; a generation's answer, or
    the list of them) is the item's gold."""
    target = sample.target
    if sample.generated is None:
        options = [str(option) for option in item.prompt.get("options", [])]
        if target.isdigit() and int(target) < len(options):
            return options[int(target)] == item.gold
        return target.strip() == item.gold
    answers = [str(answer) for answer in item.meta.get("answers", [item.gold])]
    return target in answers or target == str(answers)


#: the harness's metric on a line, and the score of Parity's answer that must agree with it
_AGREEING = (("acc", "correct"), ("acc_norm", "correct_norm"), ("exact_match", "correct"))


def _disagrees(sample: Sample, answer: ModelAnswer) -> str | None:
    for metric, ours in _AGREEING:
        if metric not in sample.metrics:
            continue
        parity = answer.correct if ours == "correct" else answer.scores.get(ours)
        if parity is not None and bool(parity) != (sample.metrics[metric] >= 1.0):
            return f"the harness counts its {metric} {sample.metrics[metric]:g}, Parity {'1' if parity else '0'}"
    return None


def samples_answers(samples: SamplesFile, items: Iterable[ItemData], model_answers: Any) -> MatchedAnswers:
    """Each document of `samples` as the answer to its item. `model_answers` is the custom
    benchmark's `model_answers(items, setting, results)`. Refuses a file of another task, documents
    with no item, and documents that are not the item's (other choices, or a target the item's gold
    does not score as the harness did)."""
    by_document: dict[tuple[str, int], ItemData] = {}
    tasks: set[str] = set()
    for item in items:
        found = item_task(item)
        if found is not None:
            by_document[found] = item
            tasks.add(found[0])
    if samples.task not in tasks:
        known = ", ".join(sorted(tasks)) or "none: they were not imported from an lm-evaluation-harness task"
        raise SamplesError(f"the file holds task {samples.task!r}; the study's items are of task {known}")
    unmatched = [sample.doc_id for sample in samples.samples if (samples.task, sample.doc_id) not in by_document]
    if unmatched:
        raise SamplesError(
            f"{len(unmatched)} of the file's {len(samples.samples)} documents of {samples.task!r} are not among the "
            f"study's items (doc_id {some_of(unmatched)}): import the task with the same --limit, or a study of all "
            "its documents"
        )
    matched = [(by_document[(samples.task, sample.doc_id)], sample) for sample in samples.samples]
    other = [sample.doc_id for item, sample in matched if not _target_matches(item, sample)]
    if other:
        raise SamplesError(
            f"{len(other)} documents have another target than the items with their ids (doc_id {some_of(other)}): "
            "the file is of another version of the task's documents"
        )
    results = {item.key: _result(item, sample) for item, sample in matched}
    answers = model_answers([item for item, _ in matched], {}, results)
    wrong = [
        f"{sample.doc_id} ({problem})"
        for item, sample in matched
        if (problem := _disagrees(sample, answers[item.key])) is not None
    ]
    if wrong:
        raise SamplesError(
            f"{len(wrong)} documents are scored otherwise than the items with their ids (another target or gold): "
            f"{'; '.join(wrong[:NAMED])}"
        )
    differ = sum(sample.contexts[0] != item.meta["model"]["context"] for item, sample in matched)
    return MatchedAnswers(answers=dict(answers), contexts_differ=differ)
