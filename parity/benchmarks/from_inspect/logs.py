"""An Inspect eval log as a model's answers to the items imported from its task (pure Python).

Inspect writes one log per task and model (`inspect_ai.log.write_eval_log`: a `.eval` zip or a
`.json` file): the eval's spec (`log.eval`: task, task version and arguments, dataset, model and
its generate config, epochs, the packages' versions), the plan (its solvers and their
parameters), its status, and one `EvalSample` per sample and epoch with its input, choices,
target, output and the scorers' `Score`s.

`read_log` reads such a file (through Inspect's own reader); `log_answers` matches its samples to
the items imported from the same task (`samples.TASK`, `samples.SAMPLE_ID`) and turns each into the
answer a Parity run stores. Nothing is re-scored: the answer and whether it is right are the
scorer's (its `Score.answer` and value). A sample is refused, by name, when it is not the item's
(another fingerprint: another revision of the dataset), has no item, or has no score.
"""

from __future__ import annotations

import hashlib
import tempfile
import zipfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..base import ItemData, ModelAnswer
from ..files import some_of
from . import samples as keys

if TYPE_CHECKING:  # Inspect is imported where a log is read (a model requirement, not the web's)
    from inspect_ai.log import EvalLog, EvalSample
    from inspect_ai.scorer import Score

#: the suffixes Inspect writes a log with (`.eval`, its default, a zip; `.json`, the older format)
SUFFIXES = (".eval", ".json")
#: a `.eval` zip inflates to at most this many bytes, and no member more than RATIO times its packed
#: size (Inspect's JSON packs some 5 to 20 times): a zip bomb is refused before a byte is inflated
MAX_INFLATED, RATIO = 2 * 1024**3, 200
#: Inspect's score values (`inspect_ai.scorer.CORRECT` ...), as its logs write them
CORRECT, INCORRECT, PARTIAL, NOANSWER = "C", "I", "P", "N"
#: the status of a log whose eval ran to its end
SUCCESS = "success"
#: the setting of a run whose answers were imported from an Inspect log: {SETTING: {"task": ...}}
#: (the custom benchmark labels it)
SETTING = "inspect_log"


class LogError(ValueError):
    """An eval log that cannot be imported as answers to the study's items, and why."""


@dataclass(frozen=True)
class LogScore:
    """One scorer's `Score` of a sample, as the log holds it."""

    scorer: str
    #: "C", "I", "P", "N", a number or a bool; None where the scorer gave several values
    value: str | float | bool | None
    #: what the scorer read as the answer (a choice's letter, an extracted text); None: none given
    answer: str | None
    explanation: str | None


@dataclass(frozen=True)
class LogSample:
    sample_id: str
    epoch: int
    #: `samples.fingerprint` of the sample's input, choices and target, as the log holds them
    fingerprint: str
    #: the chosen scorer's score; None for a sample it did not score
    score: LogScore | None
    #: the model's last completion (`sample.output.completion`)
    completion: str
    #: the error that ended the sample, if one did
    error: str | None


@dataclass(frozen=True)
class PlanStep:
    solver: str
    params: Mapping[str, Any]


@dataclass(frozen=True)
class InspectLog:
    task: str
    task_version: str
    task_args: Mapping[str, Any]
    eval_id: str
    run_id: str
    status: str
    #: the model as Inspect names it, its provider first (`hf/...`, `openai/gpt-4o`)
    model: str
    #: the generate config the samples were generated with, its unset fields left out: the model's
    #: (`log.eval.model_generate_config`) under the eval's own (`log.plan.config`, which wins)
    generate_config: Mapping[str, Any]
    plan: tuple[PlanStep, ...]
    dataset_name: str
    dataset_location: str
    #: the dataset's sample ids the eval was to run, as text
    dataset_sample_ids: tuple[str, ...]
    epochs: int
    #: the version of inspect_ai that wrote the log
    inspect_version: str
    #: the scorer whose scores are the answers' (the first the log lists, unless one was chosen)
    scorer: str
    created: str
    samples: tuple[LogSample, ...]
    #: the sha256 of the file's bytes: the same file imported again is recognised
    sha256: str


def _score(name: str, score: Score) -> LogScore:
    value = score.value
    single = value if isinstance(value, (str, int, float, bool)) else None
    answer = None if score.answer is None else str(score.answer)
    return LogScore(name, single, answer, None if score.explanation is None else str(score.explanation))


def _sample(sample: EvalSample, scorer: str) -> LogSample:
    target = sample.target
    choices = [str(choice) for choice in sample.choices] if sample.choices else None
    scores = sample.scores or {}
    error = sample.error.message if sample.error is not None else None
    return LogSample(
        sample_id=keys.sample_key(sample.id),
        epoch=int(sample.epoch),
        fingerprint=keys.fingerprint(keys.sample_input(sample.input), choices, target),
        score=_score(scorer, scores[scorer]) if scorer in scores else None,
        completion=sample.output.completion if sample.output is not None else "",
        error=error,
    )


def _scorer(log: EvalLog, chosen: str | None) -> str:
    """The scorer whose scores are read: `chosen`, else the first the log's results list (the task's
    first), else the first a sample holds."""
    listed = [score.name for score in (log.results.scores if log.results is not None else [])]
    held = list(dict.fromkeys(name for sample in log.samples or [] for name in (sample.scores or {})))
    known = list(dict.fromkeys([*listed, *held]))
    if chosen is not None:
        if chosen not in known:
            raise LogError(f"the log has no scorer {chosen!r}; it has {', '.join(known) or 'none'}")
        return chosen
    if not known:
        raise LogError("the log holds no scores: its samples were never scored")
    return known[0]


def log_from(log: EvalLog, *, sha256: str, scorer: str | None = None) -> InspectLog:
    """What Parity reads of an `inspect_ai.log.EvalLog` (its samples included)."""
    spec = log.eval
    chosen = _scorer(log, scorer)
    plan = log.plan
    steps = tuple(PlanStep(step.solver, dict(step.params or {})) for step in (plan.steps if plan else []))
    dataset = spec.dataset
    return InspectLog(
        task=str(spec.task),
        task_version=str(spec.task_version),
        task_args=dict(spec.task_args or {}),
        eval_id=str(spec.eval_id or ""),
        run_id=str(spec.run_id or ""),
        status=str(log.status),
        model=str(spec.model),
        generate_config={
            **spec.model_generate_config.model_dump(exclude_none=True, mode="json"),
            **(plan.config.model_dump(exclude_none=True, mode="json") if plan else {}),
        },
        plan=steps,
        dataset_name=str(dataset.name or ""),
        dataset_location=str(dataset.location or ""),
        dataset_sample_ids=tuple(keys.sample_key(value) for value in dataset.sample_ids or []),
        epochs=int(spec.config.epochs or 1),
        inspect_version=str((spec.packages or {}).get("inspect_ai", "")),
        scorer=chosen,
        created=str(spec.created),
        samples=tuple(_sample(sample, chosen) for sample in log.samples or []),
        sha256=sha256,
    )


def read_log(content: bytes, *, file_name: str, scorer: str | None = None) -> InspectLog:
    """An eval log's bytes, as uploaded or read from `file_name` (whose suffix says its format)."""
    suffix = Path(file_name).suffix.lower()
    if suffix not in SUFFIXES:
        raise LogError(f"{file_name} is not an Inspect log: Inspect writes them as .eval or .json files")
    try:
        from inspect_ai.log import read_eval_log
    except ImportError as exc:
        raise LogError(
            "Inspect (inspect-ai) is not installed here: import the log where the model requirements are "
            "(a worker, `manage.py import_inspect_log`)"
        ) from exc
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"log{suffix}"
        path.write_bytes(content)
        if suffix == ".eval":
            _check_zip(path, file_name)
        try:
            log = read_eval_log(str(path))
        # Inspect's reader raises what its zip, JSON and model layers raise on a file not its own
        except Exception as exc:  # noqa: BLE001
            raise LogError(f"{file_name} could not be read as an Inspect log ({type(exc).__name__}: {exc})") from exc
    return log_from(log, sha256=hashlib.sha256(content).hexdigest(), scorer=scorer)


def _check_zip(path: Path, file_name: str) -> None:
    """Refuses a `.eval` file that is no zip, or whose members would inflate past the bounds above."""
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
    except zipfile.BadZipFile as exc:
        raise LogError(f"{file_name} could not be read as an Inspect log (not a zip, as a .eval log is)") from exc
    if sum(member.file_size for member in members) > MAX_INFLATED or any(
        member.file_size > RATIO * max(member.compress_size, 1) for member in members
    ):
        raise LogError(f"{file_name} would inflate to more than an Inspect log does: refused unread")


# -- matching samples to items --------------------------------------------------------------


@dataclass(frozen=True)
class MatchedLog:
    #: (item key, answer) per sample and epoch; an answer's `variant` names its epoch when there are several
    answers: tuple[tuple[str, ModelAnswer], ...]
    #: the items answered
    items: int


def item_sample(item: ItemData) -> tuple[str, str] | None:
    """The (task, sample id) an item was imported from, or None for an item of no Inspect task."""
    extra = item.meta.get("extra") or {}
    task, sample_id = extra.get(keys.TASK), extra.get(keys.SAMPLE_ID)
    if not task or sample_id in (None, ""):
        return None
    return str(task), str(sample_id)


def _names(samples: Sequence[LogSample], epochs: int) -> str:
    return some_of([sample.sample_id + (f" (epoch {sample.epoch})" if epochs > 1 else "") for sample in samples])


def is_correct(value: str | float | bool | None) -> bool:
    """Inspect's CORRECT, or a number of 1 (a bool True); partial, incorrect and no answer are not."""
    if isinstance(value, str):
        return value == CORRECT
    return value is not None and float(value) >= 1.0


def _value(value: str | float | bool | None) -> float | None:
    """The score as a number, as Inspect's `value_to_float` reads it (C 1, P 0.5, I and N 0)."""
    if isinstance(value, str):
        return {CORRECT: 1.0, PARTIAL: 0.5, INCORRECT: 0.0, NOANSWER: 0.0}.get(value)
    return None if value is None else float(value)


def _answer(item: ItemData, sample: LogSample, variant: str) -> ModelAnswer:
    score = sample.score
    assert score is not None  # refused before
    scores: dict[str, Any] = {
        "inspect_score": score.value,
        "score": _value(score.value),
        "scorer": score.scorer,
        "epoch": sample.epoch,
    }
    if score.explanation and score.explanation != sample.completion:
        scores["explanation"] = score.explanation
    letters = str((item.meta.get("extra") or {}).get(keys.LETTERS) or "")
    if letters:
        shown = letters.split("|")
        letter = (score.answer or "").strip()
        options = [str(option) for option in item.prompt.get("options", [])]
        valid = letter in shown and shown.index(letter) < len(options)
        answer = options[shown.index(letter)] if valid else ""
        scores["letter"] = letter
        return ModelAnswer(
            answer=answer,
            raw_answer=sample.completion,
            valid=valid,
            correct=valid and is_correct(score.value),
            scores=scores,
            variant=variant,
        )
    text = score.answer if score.answer is not None else sample.completion
    return ModelAnswer(
        answer=text,
        raw_answer=sample.completion,
        valid=bool(text.strip()) and score.value != NOANSWER,
        correct=is_correct(score.value),
        scores=scores,
        variant=variant,
    )


def _unfinished(log: InspectLog) -> list[str]:
    """A log that did not end in success is taken only when every sample of every epoch is scored."""
    if log.status == SUCCESS:
        return []
    scored = {(sample.sample_id, sample.epoch) for sample in log.samples if sample.score is not None}
    return [
        sample_id + (f" (epoch {epoch})" if log.epochs > 1 else "")
        for sample_id in log.dataset_sample_ids
        for epoch in range(1, log.epochs + 1)
        if (sample_id, epoch) not in scored
    ]


def log_answers(log: InspectLog, items: Iterable[ItemData]) -> MatchedLog:
    """Each sample of `log` (each epoch) as the answer to its item. Refuses a log of another task, an
    unfinished log with samples unscored, samples with an error or no score, samples with no item,
    and samples whose input, choices or target are not the item's."""
    by_sample: dict[tuple[str, str], ItemData] = {}
    for item in items:
        found = item_sample(item)
        if found is not None:
            by_sample[found] = item
    tasks = {task for task, _ in by_sample}
    if log.task not in tasks:
        known = ", ".join(sorted(tasks)) or "none: they were not imported from an Inspect task"
        raise LogError(f"the log is of task {log.task!r}; the study's items are of task {known}")
    missing = _unfinished(log)
    if missing:
        raise LogError(
            f"the eval ended with status {log.status!r} before {len(missing)} samples were scored "
            f"({some_of(missing)}): "
            "import the log of a finished eval (`inspect eval-retry` finishes this one)"
        )
    if not log.samples:
        raise LogError("the log holds no samples")
    failed = [sample for sample in log.samples if sample.error is not None]
    if failed:
        raise LogError(f"{len(failed)} samples ended in an error ({_names(failed, log.epochs)}): retry the eval")
    unscored = [sample for sample in log.samples if sample.score is None]
    if unscored:
        raise LogError(
            f"{len(unscored)} samples have no score of {log.scorer!r} ({_names(unscored, log.epochs)}): "
            "score the log first (`inspect score`)"
        )
    several = [sample for sample in log.samples if sample.score is not None and sample.score.value is None]
    if several:
        raise LogError(
            f"the scorer {log.scorer!r} gives several values per sample ({_names(several, log.epochs)}), not one "
            "that says whether the answer is right"
        )
    unmatched = [sample for sample in log.samples if (log.task, sample.sample_id) not in by_sample]
    if unmatched:
        raise LogError(
            f"{len(unmatched)} of the log's {len(log.samples)} samples of {log.task!r} are not among the study's "
            f"items (id {_names(unmatched, log.epochs)}): import the task with the same samples"
        )
    other = [sample for sample in log.samples if sample.fingerprint != _fingerprint(by_sample, log.task, sample)]
    if other:
        raise LogError(
            f"{len(other)} samples ask or expect something else than the items with their ids "
            f"(id {_names(other, log.epochs)}): the log was run on another revision of the dataset"
        )
    epochs = max(log.epochs, max(sample.epoch for sample in log.samples))
    answers = tuple(
        (
            by_sample[(log.task, sample.sample_id)].key,
            _answer(by_sample[(log.task, sample.sample_id)], sample, f"epoch {sample.epoch}" if epochs > 1 else ""),
        )
        for sample in sorted(log.samples, key=lambda sample: (sample.sample_id, sample.epoch))
    )
    return MatchedLog(answers=answers, items=len({key for key, _ in answers}))


def _fingerprint(by_sample: Mapping[tuple[str, str], ItemData], task: str, sample: LogSample) -> str:
    extra = by_sample[(task, sample.sample_id)].meta.get("extra") or {}
    return str(extra.get(keys.FINGERPRINT) or "")
