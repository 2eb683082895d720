"""An Inspect task as records of the `custom` benchmark, with the prompt Inspect builds for each sample.

The task is found as Inspect finds it (`file.py@name`, or `package/name` registered by an installed
package's `inspect_ai` entry point, as `inspect_evals/gpqa_diamond` is) and built with its task
arguments (`-T name=value`, values read as YAML as `inspect eval` reads them). Inspect itself then
runs the task's solvers on every sample, against its `mockllm` model (no model is loaded, nothing
is scored, nothing leaves the machine): the eval log it writes holds, per sample, the messages the
model was sent and the tools it was offered, and the eval's own record of the task (its name,
version, dataset, scorers with their options, solver plan, Inspect's version). A record carries
that prompt verbatim as `model_context`, so the page a person sees is set beside the prompt the
model saw.

A sample becomes: a `choice` item (its choices, in their order, written with the letters the model
saw: "A) Paris"; gold the target's) where it has choices; a `short_text` item scored by the task's
scorer where that is one whose rule Parity reproduces (`match`, `includes`, `exact`: `scoring`); otherwise a
`free_text` item, kept unscored, its target among its extra fields. A task that needs a sandbox,
offers the model tools, shows images or audio, or asks the model more than once per sample is
refused, naming the reason and the samples.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import importlib.util
import json
import sys
import tempfile
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ..base import DatasetError
from ..files import some_of
from . import samples, scoring

INSTALL_HINT = "install the model requirements (`.venv/bin/pip install -r requirements-models.txt`)"
#: the Inspect plan step that writes "A) ..." choices and reads the model's letter
MULTIPLE_CHOICE_SOLVER = "multiple_choice"


@dataclass(frozen=True)
class InspectTask:
    """What the import read: the task's own record and the records of its samples."""

    name: str
    version: str
    inspect_version: str
    dataset: str
    scorer: str
    records: list[dict[str, Any]]
    #: samples imported unscored (their scorer's rule is not one Parity reproduces)
    unscored: int


def task_arguments(pairs: Sequence[str]) -> dict[str, Any]:
    """`name=value` pairs as `inspect eval -T` reads them (each value as YAML: `true`, `3`, `[a, b]`)."""
    arguments: dict[str, Any] = {}
    for pair in pairs:
        name, equals, value = pair.partition("=")
        if not equals or not name.strip():
            raise DatasetError("task arguments", f"{pair!r} is not name=value")
        try:
            arguments[name.strip()] = yaml.safe_load(value)
        except yaml.YAMLError as exc:
            raise DatasetError("task arguments", f"{name}: not a value ({exc})") from None
    return arguments


def _inspect(label: str) -> Any:
    try:
        import inspect_ai
    except ImportError as exc:
        raise DatasetError(label, f"Inspect is not installed ({exc}); {INSTALL_HINT}") from exc
    return inspect_ai


def _task_function(spec: str, label: str) -> Any:
    """The @task function `spec` names: `file.py@name`, `file.py` (its only task) or `package/name`."""
    from inspect_ai.util import registry_info

    def is_task(value: Any) -> bool:
        try:
            return bool(registry_info(value).type == "task")
        except ValueError:
            return False

    file_name, _, name = spec.partition("@")
    if file_name.endswith(".py"):
        path = Path(file_name).expanduser()
        if not path.is_file():
            raise DatasetError(label, "task file not found")
        module_name = f"inspect_task_{abs(hash(str(path.resolve())))}"
        loader = importlib.util.spec_from_file_location(module_name, path)
        if loader is None or loader.loader is None:
            raise DatasetError(label, "not a Python file Inspect could load")
        module = importlib.util.module_from_spec(loader)
        sys.modules[module_name] = module
        sys.path.insert(0, str(path.resolve().parent))  # a task file imports its neighbours, as under `inspect eval`
        try:
            loader.loader.exec_module(module)
        except Exception as exc:  # the researcher's own file: whatever it raises is the answer
            raise DatasetError(label, f"the task file failed to load: {type(exc).__name__}: {exc}") from exc
        finally:
            sys.path.remove(str(path.resolve().parent))
        found = {key: value for key, value in vars(module).items() if is_task(value)}
        if name:
            if name not in found:
                raise DatasetError(
                    label, f"the file defines no @task named {name!r} (it defines {', '.join(found) or 'none'})"
                )
            return found[name]
        if len(found) != 1:
            raise DatasetError(
                label, f"the file defines {len(found)} @task functions ({', '.join(found)}): name one, file.py@name"
            )
        return next(iter(found.values()))
    package, slash, name = spec.partition("/")
    if not slash or not name:
        raise DatasetError(
            label, "give an Inspect task as file.py@name, or package/name (e.g. inspect_evals/gpqa_diamond)"
        )
    points = importlib.metadata.entry_points(group="inspect_ai", name=package)
    if not points:
        raise DatasetError(label, f"no installed package registers Inspect tasks as {package!r} (pip install it first)")
    registry = next(iter(points)).load()
    function = getattr(registry, name, None)
    if not is_task(function):
        raise DatasetError(label, f"{package} registers no task named {name!r}")
    return function


def _refuse(label: str, problem: str, names: Sequence[str]) -> DatasetError:
    return DatasetError(label, f"{problem} (samples {some_of(names)})" if names else problem)


def _check_task(task: Any, label: str) -> None:
    """What a person cannot be given: a sandbox, files or setup the model's tools would act on, media."""
    if task.sandbox is not None:
        raise DatasetError(
            label, f"the task runs its samples in a sandbox ({task.sandbox.type}): a person cannot be given one"
        )
    needs = [samples.sample_key(sample.id) for sample in task.dataset if sample.sandbox or sample.files or sample.setup]
    if needs:
        raise _refuse(label, "samples that need a sandbox, files or a setup script", needs)


def _dry_run(task: Any, label: str, limit: int | None) -> Any:
    """Inspect's own run of the task's solvers against `mockllm` (no scoring): its log."""
    from inspect_ai import eval as inspect_eval
    from inspect_ai.log import read_eval_log
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    def reply(*_: Any) -> ModelOutput:
        # usage given, so mockllm does not count tokens (its tokenizer is a download)
        output = ModelOutput.from_content(model="mockllm/model", content="")
        output.usage = ModelUsage(input_tokens=0, output_tokens=0, total_tokens=0)
        return output

    def run(directory: str) -> Any:
        logs = inspect_eval(
            task,
            model=get_model("mockllm/model", custom_outputs=reply),
            log_dir=directory,
            display="none",
            score=False,
            limit=limit,
            epochs=1,
            message_limit=20,
        )
        # read whole while its file is there (the returned log loads its samples lazily)
        return read_eval_log(logs[0].location)

    # in a thread of its own: Inspect runs its own event loop, which cannot start in a thread
    # where one already runs (an async server's, a browser driver's)
    with tempfile.TemporaryDirectory() as directory, ThreadPoolExecutor(max_workers=1) as pool:
        log = pool.submit(run, directory).result()
    if log.status != "success" or log.samples is None:
        problem = log.error.message if log.error is not None else log.status
        raise DatasetError(label, f"Inspect could not run the task's solvers: {problem}")
    return log


def _text(content: Any) -> tuple[str, list[str]]:
    """A message's text, and the kinds of media it holds besides text."""
    if isinstance(content, str):
        return content, []
    texts, media = [], []
    for part in content:
        if part.type == "text":
            texts.append(part.text)
        elif part.type != "reasoning":
            media.append(part.type)
    return "\n\n".join(texts), media


def _messages_text(messages: Sequence[Any]) -> tuple[str, list[str]]:
    """Chat messages as one text (a single user message as it is; else each under its role)."""
    parts, media = [], []
    for message in messages:
        text, found = _text(message.content)
        media += found
        parts.append((message.role, text))
    if len(parts) == 1 and parts[0][0] == "user":
        return parts[0][1], media
    return "\n\n".join(f"{role}: {text}" for role, text in parts), media


def _person_text(input_: Any) -> tuple[str, str]:
    """(text, format) of the page a person reads: the sample's input, chat turns under their roles."""
    if isinstance(input_, str):
        return input_, "plain"
    turns = []
    for message in input_:
        text, _ = _text(message.content)
        turns.append(f"**{message.role.capitalize()}:** {text}")
    return "\n\n".join(turns), "markdown"


def _scorer(log: Any, label: str) -> tuple[str, dict[str, Any]]:
    scorers = log.eval.scorers or []
    if not scorers:
        raise DatasetError(label, "the task has no scorer: there is no right answer to compare people's with")
    first = scorers[0]
    return first.name.removeprefix("inspect_ai/"), dict(first.options or {})


def _record(
    sample: Any, log: Any, spec: str, arguments: Mapping[str, Any], scorer: tuple[str, dict[str, Any]], label: str
) -> dict[str, Any]:
    key = samples.sample_key(sample.id)
    calls = [event for event in sample.events if event.event == "model"]
    if len(calls) != 1:
        raise _refuse(
            label, f"the task's solvers ask the model {len(calls)} times for a sample; a person answers once", [key]
        )
    if calls[0].tools:
        raise _refuse(
            label, "the task offers the model tools (" + ", ".join(tool.name for tool in calls[0].tools) + ")", [key]
        )
    # the messages before the model's reply: what it was sent
    prompt = sample.messages[:-1] if sample.messages and sample.messages[-1].role == "assistant" else sample.messages
    model_context, media = _messages_text(prompt)
    if media:
        raise _refuse(
            label, f"the task shows the model {', '.join(sorted(set(media)))}, which a text page cannot", [key]
        )
    text, text_format = _person_text(sample.input)
    targets = [sample.target] if isinstance(sample.target, str) else list(sample.target)
    name, options = scorer
    extra: dict[str, Any] = {
        samples.TASK: log.eval.task,
        samples.SAMPLE_ID: key,
        samples.FINGERPRINT: samples.fingerprint(samples.sample_input(sample.input), sample.choices, sample.target),
        samples.TASK_SPEC: spec,
        samples.TASK_ARGS: json.dumps(dict(arguments), sort_keys=True),
        samples.TARGET: json.dumps(targets, ensure_ascii=False),
        samples.INSPECT_VERSION: log.eval.packages.get("inspect_ai", ""),
    }
    if sample.metadata:
        extra[samples.METADATA] = json.dumps(sample.metadata, ensure_ascii=False, sort_keys=True, default=str)
    record: dict[str, Any] = {"id": key, "text": text, "format": text_format, "model_context": model_context}
    category = (sample.metadata or {}).get("category")
    if isinstance(category, str) and category:
        record["category"] = category
    if sample.choices:
        letters = samples.letters(len(sample.choices))
        if len(targets) != 1 or targets[0] not in letters:
            raise _refuse(
                label,
                f"a choice sample's target must be one of its letters ({', '.join(letters)}), not {targets}",
                [key],
            )
        record_options = [f"{letter}) {choice}" for letter, choice in zip(letters, sample.choices, strict=True)]
        extra[samples.LETTERS] = "|".join(letters)
        record.update(
            kind="choice",
            options=record_options,
            gold=record_options[letters.index(targets[0])],
            # what Parity's own engine compares when it runs the items itself: the answer line
            # multiple_choice asks for ("ANSWER: $LETTER"), one per choice
            continuations=[f"\nANSWER: {letter}" for letter in letters],
        )
    elif name in scoring.REPRODUCED:
        extra[samples.SCORER] = scoring.scorer_spec(name, options)
        record.update(kind="short_text", gold=targets, metric="inspect", max_tokens=256)
    else:
        record.update(kind="free_text")
    return {**record, **extra}


def read_task(spec: str, arguments: Mapping[str, Any], *, limit: int | None = None) -> InspectTask:
    """The task `spec` built with `arguments`, read through Inspect into records. Raises
    DatasetError naming the task and the reason when a person cannot be given its samples."""
    label = spec
    if limit is not None and limit < 1:
        raise DatasetError(label, f"--limit must be at least 1, not {limit}")
    _inspect(label)
    function = _task_function(spec, label)
    file_name = spec.partition("@")[0]
    # a task file reads its data beside it, as under `inspect eval`, which runs it from its directory
    directory = Path(file_name).expanduser().resolve().parent if file_name.endswith(".py") else Path.cwd()
    with contextlib.chdir(directory):
        try:
            task = function(**arguments)
        except TypeError as exc:
            raise DatasetError(label, f"the task's arguments do not fit it: {exc}") from exc
        except Exception as exc:  # a task reads its dataset when built: a missing file, no network
            raise DatasetError(label, f"the task could not be built: {type(exc).__name__}: {exc}") from exc
        _check_task(task, label)
        log = _dry_run(task, label, limit)
    scorer = _scorer(log, label)
    records = [_record(sample, log, spec, arguments, scorer, label) for sample in log.samples]
    unscored = sum(1 for record in records if record["kind"] == "free_text")
    return InspectTask(
        name=log.eval.task,
        version=str(log.eval.task_version),
        inspect_version=log.eval.packages.get("inspect_ai", ""),
        dataset=log.eval.dataset.name or log.eval.dataset.location or "",
        scorer=scorer[0],
        records=records,
        unscored=unscored,
    )
