"""An lm-evaluation-harness task as records of the `custom` benchmark (pure Python: no Django import).

The harness itself builds the requests: its TaskManager resolves the task, its ConfigurableTask reads
the documents and its `build_all_requests` writes every context (description, few-shot examples drawn
by its own sampler with its seed, delimiters) and every continuation. A record carries them verbatim
(`model_context`, `continuations`), so a model run on the items asks the model exactly what the
harness asks it; the person reads `doc_to_text(doc)` and picks among `doc_to_choice(doc)` (or types
the answer of a generation task).
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..base import DatasetError
from ..custom.records import slug
from .taskfile import read_task_file, refuse_code

#: the harness's own default few-shot seed (`lm_eval.defaults.DEFAULT_OTHER_SEED`, `--seed` 4th value)
HARNESS_FEWSHOT_SEED = 1234
#: the harness's HF model's default max_gen_toks, used when a task does not set it
HARNESS_MAX_GEN_TOKS = 256
INSTALL_HINT = "install it with `.venv/bin/pip install lm-eval==0.4.13`"
SUPPORTED_OUTPUT_TYPES = ("multiple_choice", "generate_until")
#: multiple-choice metrics a record reproduces: the argmax of the continuations' log-likelihoods,
#: raw (acc) or divided by the choice's length in characters (acc_norm), against the gold
CHOICE_METRICS = ("acc", "acc_norm")
#: exact_match arguments the items' `exact_match` metric reproduces (as its metric_options)
_EXACT_NORMALISED = ("ignore_case", "ignore_punctuation")
#: generation filter pipelines the items reproduce (remove_whitespace: the `strip` metric option)
_PLAIN_FILTERS = [["take_first"], ["remove_whitespace", "take_first"]]
#: keys of a metric_list entry that say how it is aggregated and reported, not how it scores
_REPORTING_KEYS = ("metric", "aggregation", "higher_is_better")


def records_for_task(
    task: str | Path,
    *,
    limit: int | None = None,
    num_fewshot: int | None = None,
    seed: int = HARNESS_FEWSHOT_SEED,
    trust_code: bool = False,
) -> tuple[str, list[dict[str, Any]]]:
    """(set name, records) for a harness task named `task` or defined by the YAML file `task`.

    `num_fewshot` and `seed` behave as `lm_eval --num_fewshot K --seed ...,...,...,SEED`: a task whose
    YAML sets num_fewshot: 0 keeps 0; `limit` takes the first N documents, as `--limit N` does. A
    group gives the records of each of its tasks, each under its task's name as category.
    A task file whose YAML (or one beside it) has a `!function` is refused before the harness reads
    it, since the harness would import and run the module it names; `trust_code` lets it run.
    Raises DatasetError naming the task and the reason when it cannot be reproduced.
    """
    label = str(task)
    if limit is not None and limit < 1:
        raise DatasetError(label, f"--limit must be at least 1, not {limit}")
    if num_fewshot is not None and num_fewshot < 0:
        raise DatasetError(label, f"--num-fewshot must be 0 or more, not {num_fewshot}")
    name, tasks = _load_tasks(task, label, trust_code=trust_code)
    records: list[dict[str, Any]] = []
    for task_name, harness_task in tasks.items():
        _check_supported(task_name, harness_task)
        _apply_fewshot(harness_task, num_fewshot, seed)
        prefix = f"{task_name}/" if len(tasks) > 1 else ""
        records += _task_records(task_name, harness_task, limit=limit, id_prefix=prefix)
    return slug(name, "lm_eval"), records


# -- loading --------------------------------------------------------------------------------


def _harness(label: str) -> Any:
    # Documents come from local files or the local datasets cache: never from the network
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["HF_DATASETS_OFFLINE"] = "1"
    try:
        import lm_eval.tasks
    except ImportError as exc:
        raise DatasetError(label, f"lm-evaluation-harness is not installed ({exc}); {INSTALL_HINT}") from exc
    return lm_eval.tasks


@contextlib.contextmanager
def _offline_in(directory: Path) -> Iterator[None]:
    """Relative `data_files` are read beside the task's YAML (the harness reads them relative to
    the working directory: run `lm_eval` from the YAML's directory to compare), with downloads off
    even where `datasets` was imported before HF_HUB_OFFLINE was set."""
    import datasets.config

    offline = datasets.config.HF_HUB_OFFLINE
    datasets.config.HF_HUB_OFFLINE = True
    try:
        with contextlib.chdir(directory):
            yield
    finally:
        datasets.config.HF_HUB_OFFLINE = offline


def _load_tasks(task: str | Path, label: str, *, trust_code: bool) -> tuple[str, dict[str, Any]]:
    harness = _harness(label)
    path = Path(task).expanduser()
    if path.suffix in {".yaml", ".yml"} or path.is_file():
        if not path.is_file():
            raise DatasetError(label, "task file not found")
        path = path.resolve()
        # by its name, as `lm_eval --include_path DIR --tasks NAME` loads it (the harness builds a
        # group read by path under a wrong name); the file's directory first (quick), the harness's
        # task directory too when the file names tasks that only it defines
        name = spec = _name_in_file(path, label, trust_code=trust_code)
        directory = path.parent
        managers: tuple[Callable[[], Any], ...] = (
            lambda: harness.TaskManager(include_path=str(directory), include_defaults=False),
            lambda: harness.TaskManager(include_path=str(directory)),
        )
    else:
        manager = _default_manager()
        name = spec = str(task)
        found = manager.task_index.get(spec)
        if found is None:
            raise DatasetError(
                label,
                "no lm-evaluation-harness task, group or tag has this name; give a known "
                "name (`lm_eval ls tasks`) or the path of a task YAML",
            )
        directory = found.yaml_path.parent if found.yaml_path is not None else Path.cwd()
        managers = (lambda: manager,)
    for attempt, make in enumerate(managers, start=1):
        try:
            with _offline_in(directory):
                loaded = make().load([spec])
            break
        except KeyError as exc:
            if attempt == len(managers):
                raise DatasetError(label, f"the task names something the harness does not know ({exc})") from exc
        except FileNotFoundError as exc:
            raise DatasetError(
                label,
                f"documents not found ({exc}). Relative data_files are read from "
                f"{directory}; a dataset_path other than json/csv must be in the local "
                "datasets cache",
            ) from exc
        except (ConnectionError, OSError) as exc:
            raise DatasetError(
                label,
                f"the documents are not local and downloads are off ({exc}). Give the task "
                "`dataset_path: json` (or csv) with `data_files`, or put the dataset in the "
                "local datasets cache first",
            ) from exc
        except Exception as exc:  # the harness raises bare exceptions for bad configs and templates
            raise DatasetError(label, f"the harness could not build the task: {type(exc).__name__}: {exc}") from exc
    tasks = dict(loaded["tasks"])
    if not tasks:
        raise DatasetError(label, "the name stands for no task")
    return name, tasks


@functools.cache
def _default_manager() -> Any:
    """The index of the harness's own tasks (some 15 s to build), built once per process."""
    from lm_eval.tasks import TaskManager

    return TaskManager()


def _name_in_file(path: Path, label: str, *, trust_code: bool) -> str:
    """The task's or group's name, read without running the file (see `taskfile`); a file that
    would import code is refused here unless `trust_code`."""
    config, uses = read_task_file(path, label)
    if not trust_code:
        refuse_code(label, uses)
    name = config.get("group") if "group" in config else config.get("task")
    if not isinstance(name, str) or not name:
        raise DatasetError(label, "the YAML names no `task` or `group`")
    return name


# -- what can be reproduced ---------------------------------------------------------------


def _check_supported(name: str, task: Any) -> None:
    from lm_eval.api.task import ConfigurableTask

    def refuse(problem: str) -> None:
        raise DatasetError(name, problem)

    if not isinstance(task, ConfigurableTask):
        refuse(f"a Python task class ({type(task).__name__}); only YAML-configured tasks can be imported")
    config = task.config
    output_type = config.output_type
    if output_type not in SUPPORTED_OUTPUT_TYPES:
        refuse(
            f"output_type {output_type!r} is not supported: a person cannot be scored by the likelihood of a "
            f"text; supported are {', '.join(SUPPORTED_OUTPUT_TYPES)}"
        )
    if callable(config.process_results):
        refuse("it scores with its own process_results function, which Parity cannot reproduce")
    if getattr(task, "MULTIMODAL", False):
        refuse("it shows images or audio; only text tasks are supported")
    if task.multiple_input:
        refuse("doc_to_text gives one context per choice (multiple inputs); one context per item is supported")
    if task.multiple_target and output_type == "multiple_choice":
        refuse("doc_to_target gives several targets; a choice item has one gold option")
    if (config.repeats or 1) != 1:
        refuse(f"repeats is {config.repeats}; one answer per item is supported")
    metrics = list(task._metric_fn_list)
    if output_type == "multiple_choice":
        if config.filter_list is not None:
            refuse("it filters the log-likelihoods (filter_list), which Parity cannot reproduce")
        other = [metric for metric in metrics if metric not in CHOICE_METRICS]
        if other:
            refuse(
                f"metric(s) {', '.join(other)} cannot be reproduced; supported for multiple_choice: "
                f"{', '.join(CHOICE_METRICS)}"
            )
        return
    pipelines = [[step.get("function") for step in entry.get("filter", [])] for entry in config.filter_list or []]
    if any(steps not in _PLAIN_FILTERS for steps in pipelines) or len(pipelines) > 1:
        refuse(
            f"its filters ({pipelines}) post-process the generated text in a way Parity cannot reproduce; "
            f"supported: none, or one of {_PLAIN_FILTERS}"
        )
    if metrics != ["exact_match"]:
        refuse(f"metric(s) {', '.join(metrics)}: only exact_match is supported for generate_until")
    options = {
        key: value
        for key, value in task._metric_fn_kwargs["exact_match"].items()
        if key not in _REPORTING_KEYS and key not in _EXACT_NORMALISED and value
    }
    if options:
        refuse(
            f"exact_match with {', '.join(f'{key}={value!r}' for key, value in options.items())} cannot be "
            f"reproduced; supported: plain exact_match, or with {' / '.join(_EXACT_NORMALISED)}"
        )
    generation = config.generation_kwargs or {}
    if generation.get("do_sample") or float(generation.get("temperature", 0.0) or 0.0) > 0:
        refuse("it samples (do_sample or temperature > 0); only greedy generation is supported")


def _apply_fewshot(task: Any, num_fewshot: int | None, seed: int) -> None:
    """What `lm_eval.simple_evaluate` does with --num_fewshot and the few-shot seed."""
    configured = task.get_config("num_fewshot")
    if num_fewshot is not None and configured != 0:
        task.set_config(key="num_fewshot", value=num_fewshot)
    elif configured is None:
        task.set_config(key="num_fewshot", value=0)
    task.set_fewshot_seed(seed=seed)


# -- records --------------------------------------------------------------------------------


def _task_records(name: str, task: Any, *, limit: int | None, id_prefix: str) -> list[dict[str, Any]]:
    try:
        task.build_all_requests(limit=limit, rank=0, world_size=1)
    except Exception as exc:
        raise DatasetError(name, f"the harness could not build its requests: {type(exc).__name__}: {exc}") from exc
    by_doc: dict[int, list[Any]] = {}
    for instance in task.instances:
        by_doc.setdefault(instance.doc_id, []).append(instance)
    build = _choice_record if task.config.output_type == "multiple_choice" else _generation_record
    records = []
    for doc_id, instances in by_doc.items():
        instances.sort(key=lambda instance: instance.idx)
        doc = instances[0].doc
        record = {
            "id": f"{id_prefix}{doc_id}",
            "text": _text(name, doc_id, task.doc_to_text(doc)),
            **build(name, doc_id, task, doc, instances),
            "category": name,
            "model_context": instances[0].arguments[0],
            "lm_eval_task": name,
            "lm_eval_doc_id": doc_id,
            "lm_eval_num_fewshot": task.config.num_fewshot,
        }
        description = task.resolve_field(doc, task.config.description)
        if description and str(description).strip():
            record["context"] = str(description).strip()
        records.append(record)
    return records


def _text(name: str, doc_id: int, text: Any) -> str:
    if not isinstance(text, str) or not text.strip():
        raise DatasetError(name, f"document {doc_id}: doc_to_text gives {text!r}, not a text a person can read")
    return text


def _choice_record(
    name: str, doc_id: int, task: Any, doc: Mapping[str, Any], instances: Sequence[Any]
) -> dict[str, Any]:
    # a person reads the options trimmed; the model's continuations stay the harness's, verbatim
    choices = [str(choice) for choice in task.doc_to_choice(doc)]
    options = [choice.strip() for choice in choices]
    if len(set(options)) != len(options) or not all(options):
        raise DatasetError(
            name, f"document {doc_id}: doc_to_choice repeats an option ({options}); a person could not tell them apart"
        )
    target = task.doc_to_target(doc)
    if isinstance(target, int) and not isinstance(target, bool) and 0 <= target < len(options):
        gold = options[target]
    elif isinstance(target, str) and target in choices:
        gold = options[choices.index(target)]
    else:
        raise DatasetError(
            name,
            f"document {doc_id}: doc_to_target gives {target!r}, neither an index of nor one of the choices {options}",
        )
    return {
        "kind": "choice",
        "options": options,
        "gold": gold,
        "continuations": [instance.arguments[1] for instance in instances],
        "lengths": [len(choice) for choice in choices],
    }  # acc_norm: the harness's untrimmed choices


def _generation_record(
    name: str, doc_id: int, task: Any, doc: Mapping[str, Any], instances: Sequence[Any]
) -> dict[str, Any]:
    target = task.doc_to_target(doc)
    if task.config.doc_to_choice is not None:
        target = task.doc_to_choice(doc)[target]
    # several targets: any of them counts, in the harness (exact_match) and in Parity (accepted answers)
    gold = [str(answer) for answer in target] if isinstance(target, list) else [str(target)]
    if not gold or not all(answer.strip() for answer in gold):
        raise DatasetError(name, f"document {doc_id}: doc_to_target gives an empty answer ({target!r})")
    generation = instances[0].arguments[1]
    until = generation.get("until") or []
    until = [until] if isinstance(until, str) else list(until)
    if not until:
        raise DatasetError(
            name,
            "generation_kwargs.until is empty (the model would stop only at its end-of-text "
            "token); give the stop strings",
        )
    return {
        "kind": "short_text",
        "gold": gold,
        "stop": until,
        "max_tokens": int(generation.get("max_gen_toks", HARNESS_MAX_GEN_TOKS)),
        "metric": "exact_match",
        "metric_options": _match_options(task),
    }


def _match_options(task: Any) -> list[str]:
    """The harness's exact_match arguments (ignore_case, ignore_punctuation) and its
    remove_whitespace filter (the whitespace around the generated text dropped) as metric options."""
    kwargs = task._metric_fn_kwargs.get("exact_match", {})
    options = [key for key in _EXACT_NORMALISED if kwargs.get(key)]
    steps = [step.get("function") for entry in task.config.filter_list or [] for step in entry.get("filter", [])]
    return options + (["strip"] if "remove_whitespace" in steps else [])
