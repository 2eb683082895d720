"""Inspect tasks as records of the custom-items contract: what a person reads and what the model
was sent (Inspect's own solvers build it), the letters and order of the choices, targets and ids,
and the tasks a person cannot be given, refused with the reason and the samples."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import inspect_ai  # noqa: F401  (a model dependency: missing, these tests fail rather than skip)
import pytest

from parity.benchmarks.base import DatasetError
from parity.benchmarks.custom.records import items_from_records
from parity.benchmarks.from_inspect import samples
from parity.benchmarks.from_inspect.tasks import read_task, task_arguments
from tests.paths import REPO

EXAMPLE = REPO / "docs" / "examples" / "inspect_implicature.py"
ITEMS = [
    {
        "id": "q1",
        "input": "Which city is the capital of France?",
        "choices": ["Paris", "London", "Rome"],
        "target": "A",
        "metadata": {"category": "geography"},
    },
    {
        "id": "q2",
        "input": "Which number is prime?",
        "choices": ["4", "6", "7", "9"],
        "target": "C",
        "metadata": {"category": "arithmetic"},
    },
]
HEADER = """
from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample, json_dataset
from inspect_ai.model import ChatMessageSystem, ChatMessageUser, ContentImage, ContentText
from inspect_ai.scorer import choice, includes, match, model_graded_qa
from inspect_ai.solver import generate, multiple_choice, system_message, use_tools, self_critique
from inspect_ai.tool import bash
"""


def task_file(directory: Path, body: str, items: list[dict] | None = None) -> Path:
    (directory / "items.jsonl").write_text("".join(json.dumps(item) + "\n" for item in items or ITEMS))
    path = directory / "tasks.py"
    path.write_text(HEADER + textwrap.dedent(body))
    return path


def refusal(spec: str, arguments: dict | None = None) -> str:
    with pytest.raises(DatasetError) as caught:
        read_task(spec, arguments or {})
    return str(caught.value)


CHOICE = """
@task
def quiz(shuffle_note: str = ""):
    return Task(dataset=json_dataset("items.jsonl"), solver=multiple_choice(), scorer=choice())
"""


def test_choice_samples_keep_their_letters_order_target_and_id(tmp_path: Path) -> None:
    read = read_task(f"{task_file(tmp_path, CHOICE)}@quiz", {})
    assert (read.name, read.scorer, read.unscored, read.dataset) == ("quiz", "choice", 0, "items")
    first, second = read.records
    assert first["id"] == first[samples.SAMPLE_ID] == "q1" and second["id"] == "q2"
    assert first["kind"] == "choice" and first["options"] == ["A) Paris", "B) London", "C) Rome"]
    assert first["gold"] == "A) Paris" and second["gold"] == "C) 7"
    assert second[samples.LETTERS] == "A|B|C|D" and second["options"][3] == "D) 9"
    assert first["category"] == "geography" and json.loads(first["inspect_metadata"]) == {"category": "geography"}
    assert first[samples.TASK] == "quiz"
    assert first[samples.FINGERPRINT] == samples.fingerprint(ITEMS[0]["input"], ITEMS[0]["choices"], "A")
    # the person reads the question; the model was sent multiple_choice's prompt, letters and all
    assert first["text"] == "Which city is the capital of France?"
    assert first["model_context"].startswith("Answer the following multiple choice question.")
    assert first["model_context"].endswith("Which city is the capital of France?\n\nA) Paris\nB) London\nC) Rome")


def test_the_records_build_items_whose_gold_is_the_targets_option(tmp_path: Path) -> None:
    read = read_task(f"{task_file(tmp_path, CHOICE)}@quiz", {})
    bundle = items_from_records(read.records, name="quiz", label="quiz")
    items = {item.key: item for item in bundle.items}
    assert items["quiz/q2"].gold == "C) 7" and items["quiz/q2"].prompt["options"][2] == "C) 7"
    assert items["quiz/q1"].meta["extra"][samples.SAMPLE_ID] == "q1"


WRITTEN = """
@task
def written(scorer: str = "match"):
    rules = {"match": match(numeric=True), "includes": includes(), "graded": model_graded_qa()}
    return Task(
        dataset=MemoryDataset([Sample(id=1, input="What is 6 times 7?", target="42"),
                               Sample(id=2, input="Capital of Italy?", target=["Rome", "Roma"])]),
        solver=[system_message("Answer briefly."), generate()],
        scorer=rules[scorer],
    )
"""


def test_written_samples_are_scored_by_the_tasks_match_rule_with_its_options(tmp_path: Path) -> None:
    read = read_task(str(task_file(tmp_path, WRITTEN)), task_arguments(["scorer=match"]))
    number, city = read.records
    assert number["id"] == "1" and number["kind"] == "short_text" and number["metric"] == "inspect"
    assert json.loads(number["inspect_scorer"]) == {"name": "match", "options": {"numeric": True}}
    assert city["gold"] == ["Rome", "Roma"] and json.loads(city["inspect_target"]) == ["Rome", "Roma"]
    assert city["model_context"] == "system: Answer briefly.\n\nuser: Capital of Italy?"
    bundle = items_from_records([number, city], name="written", label="written")
    item = next(item for item in bundle.items if item.key == "written/1")
    from parity.benchmarks.custom.benchmark import score_answer

    assert score_answer("It is 42.", item).correct and not score_answer("41", item).correct


def test_a_scorer_parity_does_not_reproduce_leaves_the_samples_unscored_with_their_targets(tmp_path: Path) -> None:
    read = read_task(str(task_file(tmp_path, WRITTEN)), task_arguments(["scorer=graded"]))
    assert read.unscored == 2 and read.scorer == "model_graded_qa"
    assert {record["kind"] for record in read.records} == {"free_text"}
    assert "gold" not in read.records[0] and json.loads(read.records[0]["inspect_target"]) == ["42"]


def test_task_arguments_are_read_as_inspect_eval_reads_them() -> None:
    assert task_arguments(["a=true", "b=3", "c=[x, y]", "d=text"]) == {"a": True, "b": 3, "c": ["x", "y"], "d": "text"}
    with pytest.raises(DatasetError, match="is not name=value"):
        task_arguments(["novalue"])


def test_tasks_a_person_cannot_be_given_are_refused_with_the_reason(tmp_path: Path) -> None:
    path = task_file(
        tmp_path,
        """
        @task
        def boxed():
            return Task(dataset=json_dataset("items.jsonl"), solver=generate(), scorer=includes(), sandbox="docker")

        @task
        def tools():
            return Task(dataset=json_dataset("items.jsonl"), solver=[use_tools(bash()), generate()], scorer=includes())

        @task
        def twice():
            return Task(dataset=json_dataset("items.jsonl"), solver=[generate(), self_critique()], scorer=includes())

        @task
        def picture():
            image = ContentImage(image="data:image/png;base64,iVBORw0KGgo=")
            message = ChatMessageUser(content=[ContentText(text="What is this?"), image])
            sample = Sample(id="p1", input=[message], target="a cat")
            return Task(dataset=MemoryDataset([sample]), solver=generate(), scorer=includes())
        """,
    )
    assert "runs its samples in a sandbox (docker)" in refusal(f"{path}@boxed")
    assert "offers the model tools (bash)" in refusal(f"{path}@tools") and "q1" in refusal(f"{path}@tools")
    assert "asks the model 3 times for a sample"  # answer, critique, answer again in refusal(f"{path}@twice")
    assert "shows the model image" in refusal(f"{path}@picture") and "p1" in refusal(f"{path}@picture")
    assert "defines 4 @task functions" in refusal(str(path))
    assert "no @task named 'nothing'" in refusal(f"{path}@nothing")
    assert "task file not found" in refusal(str(tmp_path / "missing.py"))


def test_a_registered_task_is_found_by_its_package_and_a_sandboxed_one_refused() -> None:
    assert "runs its samples in a sandbox" in refusal("inspect_evals/mind2web_sc")
    assert "registers no task named 'no_such_task'" in refusal("inspect_evals/no_such_task")
    assert "no installed package registers Inspect tasks as 'nowhere'" in refusal("nowhere/task")


def test_the_worked_example_reads_the_published_implicature_file() -> None:
    read = read_task(str(EXAMPLE), {}, limit=3)
    assert [record["id"] for record in read.records] == ["1", "2", "3"]
    first = read.records[0]
    assert first["options"] == ["A) yes", "B) no"] and first["gold"] == "B) no"  # "No." in the file
    assert first["text"].startswith('Esther asked "Are you taking the other')
