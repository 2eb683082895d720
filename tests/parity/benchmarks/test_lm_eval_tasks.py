"""lm-evaluation-harness tasks as records of the custom-items contract: what a person and a model
read, and the tasks that cannot be reproduced, refused with the task and the reason."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import lm_eval  # noqa: F401  (a test dependency: missing, these tests fail rather than skip)
import pytest
import yaml

from parity.benchmarks.base import DatasetError
from parity.benchmarks.lm_eval import records_for_task
from tests.paths import REPO

EXAMPLE = REPO / "parity" / "benchmarks" / "lm_eval" / "example"
DOCS = [
    {"question": "Which animal says moo?", "choices": ["cow", "cat"], "answer": 0},
    {"question": "What colour is grass?", "choices": ["green", "red"], "answer": 0},
    {"question": "What do bees make?", "choices": ["milk", "honey"], "answer": 1},
]
CHOICE_TASK = {
    "dataset_path": "json",
    "dataset_kwargs": {"data_files": {"test": "docs.jsonl"}},
    "output_type": "multiple_choice",
    "test_split": "test",
    "doc_to_text": "Q: {{question}}\nA:",
    "doc_to_choice": "{{choices}}",
    "doc_to_target": "{{answer}}",
}
GENERATION_TASK = {
    **{key: value for key, value in CHOICE_TASK.items() if key != "doc_to_choice"},
    "output_type": "generate_until",
    "doc_to_target": "{{choices[answer]}}",
    "generation_kwargs": {"until": ["\n"], "max_gen_toks": 5},
}


def task_file(directory: Path, name: str, docs: list[dict[str, Any]] | None = None, **config: Any) -> Path:
    """A task YAML (JSON is YAML) named `name` with its documents beside it."""
    (directory / "docs.jsonl").write_text("".join(json.dumps(doc) + "\n" for doc in (docs or DOCS)))
    path = directory / f"{name}.yaml"
    path.write_text(json.dumps({"task": name, **config}))
    return path


def refusal(task: str | Path, **options: Any) -> str:
    with pytest.raises(DatasetError) as caught:
        records_for_task(task, **options)
    return str(caught.value)


def test_choice_items_show_the_text_and_choices_and_carry_the_harness_requests() -> None:
    name, records = records_for_task(EXAMPLE / "example_mc.yaml")
    assert name == "parity_example_mc" and len(records) == 12
    first = records[0]
    assert first["id"] == "0" and first["kind"] == "choice" and first["category"] == "parity_example_mc"
    assert first["text"] == "Question: Which animal says moo?\nAnswer:"
    assert first["options"] == ["cow", "cat", "duck"] and first["gold"] == "cow"
    assert records[1]["gold"] == "blue" and records[2]["gold"] == "eight"
    assert first["context"] == "Answer each question with one of its options."
    # 0-shot: the description, then the question; the continuations carry the target delimiter
    assert first["model_context"] == "Answer each question with one of its options.\n\n" + first["text"]
    assert first["continuations"] == [" cow", " cat", " duck"]
    assert first["lm_eval_task"] == "parity_example_mc" and first["lm_eval_num_fewshot"] == 0


def test_few_shot_examples_come_from_the_fewshot_split_with_the_harness_seed() -> None:
    _, records = records_for_task(EXAMPLE / "example_mc.yaml", num_fewshot=2, limit=4)
    assert len(records) == 4
    train = [json.loads(line)["question"] for line in (EXAMPLE / "example_mc_train.jsonl").read_text().splitlines()]
    for record in records:
        shots = record["model_context"].split("\n\n")[1:-1]
        assert len(shots) == 2 and all(shot.split("\n")[0].removeprefix("Question: ") in train for shot in shots)
        assert record["model_context"].endswith("\n\n" + record["text"])
    again = records_for_task(EXAMPLE / "example_mc.yaml", num_fewshot=2, limit=4)[1]
    other_seed = records_for_task(EXAMPLE / "example_mc.yaml", num_fewshot=2, limit=4, seed=7)[1]
    assert [r["model_context"] for r in again] == [r["model_context"] for r in records]
    assert [r["model_context"] for r in other_seed] != [r["model_context"] for r in records]


def test_generation_items_take_the_target_the_stop_strings_and_the_token_limit() -> None:
    name, records = records_for_task(EXAMPLE / "example_gen.yaml", limit=2)
    assert name == "parity_example_gen"
    assert records[0] | {"lm_eval_doc_id": 0} == {
        "id": "0",
        "text": "Q: What is 2 plus 2?\nA:",
        "kind": "short_text",
        "gold": ["4"],
        "stop": ["\n"],
        "max_tokens": 8,
        "metric": "exact_match",
        "metric_options": ["strip"],
        "category": "parity_example_gen",
        "model_context": "Q: What is 2 plus 2?\nA:",
        "lm_eval_task": "parity_example_gen",
        "lm_eval_doc_id": 0,
        "lm_eval_num_fewshot": 0,
    }


def test_a_string_target_and_a_task_name_with_capitals(tmp_path: Path) -> None:
    path = task_file(tmp_path, "Odd.Task", **{**CHOICE_TASK, "doc_to_target": "{{choices[answer]}}"})
    name, records = records_for_task(path)
    assert name == "odd_task"
    assert [record["gold"] for record in records] == ["cow", "green", "honey"]


def test_a_task_whose_yaml_sets_num_fewshot_0_keeps_it_as_the_harness_does(tmp_path: Path) -> None:
    path = task_file(tmp_path, "zero", **CHOICE_TASK, num_fewshot=0, fewshot_split="test")
    _, records = records_for_task(path, num_fewshot=2)
    assert records[0]["model_context"] == "Q: Which animal says moo?\nA:" and records[0]["lm_eval_num_fewshot"] == 0


def test_a_group_gives_each_subtask_as_its_category(tmp_path: Path) -> None:
    task_file(tmp_path, "first", **CHOICE_TASK)
    task_file(tmp_path, "second", **{**CHOICE_TASK, "doc_to_text": "Question: {{question}}\nAnswer:"})
    group = tmp_path / "both.yaml"
    group.write_text(json.dumps({"group": "both", "task": ["first", "second"]}))
    name, records = records_for_task(group, limit=2)
    assert name == "both"
    assert [(record["id"], record["category"]) for record in records] == [
        ("first/0", "first"),
        ("first/1", "first"),
        ("second/0", "second"),
        ("second/1", "second"),
    ]


@pytest.mark.parametrize("output_type", ["loglikelihood", "loglikelihood_rolling"])
def test_likelihood_tasks_are_refused_naming_the_output_type(tmp_path: Path, output_type: str) -> None:
    path = task_file(tmp_path, "lik", **{**CHOICE_TASK, "output_type": output_type})
    message = refusal(path)
    assert message.startswith("lik: ") and f"output_type {output_type!r} is not supported" in message
    assert "multiple_choice, generate_until" in message


def test_a_dataset_that_is_not_local_is_refused_without_a_download(tmp_path: Path) -> None:
    path = task_file(
        tmp_path, "remote", **{**CHOICE_TASK, "dataset_path": "someone/not-cached-anywhere", "dataset_kwargs": None}
    )
    message = refusal(path)
    assert str(path) in message and "not local and downloads are off" in message and "data_files" in message


def test_a_missing_document_file_is_refused_naming_it(tmp_path: Path) -> None:
    path = task_file(tmp_path, "missing", **{**CHOICE_TASK, "dataset_kwargs": {"data_files": {"test": "gone.jsonl"}}})
    message = refusal(path)
    assert "documents not found" in message and "gone.jsonl" in message and str(tmp_path) in message


def test_a_missing_task_file_and_an_unknown_task_name_are_refused(tmp_path: Path) -> None:
    assert refusal(tmp_path / "nothing.yaml") == f"{tmp_path / 'nothing.yaml'}: task file not found"
    assert "no lm-evaluation-harness task, group or tag has this name" in refusal("no_such_task_anywhere")


def test_a_known_task_whose_dataset_is_on_the_hub_is_refused() -> None:
    message = refusal("hellaswag")
    assert message.startswith("hellaswag: the documents are not local and downloads are off")


@pytest.mark.parametrize(
    ("config", "reason"),
    [
        ({"metric_list": [{"metric": "brier_score"}]}, "metric(s) brier_score cannot be reproduced"),
        ({"doc_to_target": "{{[answer]}}"}, "several targets"),
        ({"repeats": 3}, "repeats is 3"),
    ],
)
def test_choice_tasks_parity_cannot_reproduce_are_refused(tmp_path: Path, config: dict[str, Any], reason: str) -> None:
    assert reason in refusal(task_file(tmp_path, "odd", **{**CHOICE_TASK, **config}))


@pytest.mark.parametrize(
    ("config", "reason"),
    [
        ({"metric_list": [{"metric": "bleu"}]}, "only exact_match is supported"),
        ({"metric_list": [{"metric": "exact_match", "regexes_to_ignore": [","]}]}, "regexes_to_ignore"),
        (
            {
                "filter_list": [
                    {
                        "name": "strict",
                        "filter": [{"function": "regex", "regex_pattern": "(\\d+)"}, {"function": "take_first"}],
                    }
                ]
            },
            "post-process",
        ),
        ({"generation_kwargs": {"until": ["\n"], "do_sample": True, "temperature": 0.7}}, "only greedy generation"),
    ],
)
def test_generation_tasks_parity_cannot_reproduce_are_refused(
    tmp_path: Path, config: dict[str, Any], reason: str
) -> None:
    assert reason in refusal(task_file(tmp_path, "gen", **{**GENERATION_TASK, **config}))


def test_exact_match_ignoring_case_and_punctuation_after_stripping_is_reproduced(tmp_path: Path) -> None:
    path = task_file(
        tmp_path,
        "gen",
        **GENERATION_TASK,
        metric_list=[{"metric": "exact_match", "ignore_case": True, "ignore_punctuation": True}],
        filter_list=[{"name": "strip", "filter": [{"function": "remove_whitespace"}, {"function": "take_first"}]}],
    )
    _, records = records_for_task(path)
    assert [record["gold"] for record in records] == [["cow"], ["green"], ["honey"]]
    assert {tuple(record["metric_options"]) for record in records} == {("ignore_case", "ignore_punctuation", "strip")}
    plain = task_file(tmp_path, "plain", **GENERATION_TASK)
    assert {tuple(record["metric_options"]) for record in records_for_task(plain)[1]} == {()}


def test_a_generation_target_is_kept_as_written(tmp_path: Path) -> None:
    """A '|' inside a target is no list separator, and its spaces count (the harness compares the
    target as written): as custom items, 'a' is not an accepted answer of 'a|b'."""
    from parity.benchmarks.custom import items_from_records

    docs = [
        {"question": "Pipe?", "choices": ["a|b", "c"], "answer": 0},
        {"question": "Spaced?", "choices": [" x ", "y"], "answer": 0},
    ]
    _, records = records_for_task(task_file(tmp_path, "kept", docs, **GENERATION_TASK))
    items = items_from_records(records, name="kept", label="kept.yaml").items
    assert [item.meta["answers"] for item in items] == [["a|b"], [" x "]]


def test_acc_norm_divides_by_the_harness_s_untrimmed_choices(tmp_path: Path) -> None:
    """The person sees ' c   ' trimmed; acc_norm still divides by its 5 characters, as the harness
    does (log-likelihoods -5 and -6: -5/2 < -6/5, so the normalised answer is the second)."""
    from types import SimpleNamespace

    from parity.benchmarks.custom import items_from_records
    from parity.benchmarks.custom.model import choice_answer

    docs = [{"question": "Which?", "choices": ["ab", " c   "], "answer": 0}]
    _, records = records_for_task(task_file(tmp_path, "spaced", docs, **CHOICE_TASK))
    assert records[0]["options"] == ["ab", "c"] and records[0]["lengths"] == [2, 5]
    item = items_from_records(records, name="spaced", label="spaced.yaml").items[0]
    scores = [SimpleNamespace(logprob=-5.0, is_greedy=False), SimpleNamespace(logprob=-6.0, is_greedy=False)]
    answer = choice_answer(item, SimpleNamespace(scores=scores, truncated_tokens=0))
    assert answer.answer == "ab" and answer.scores["answer_norm"] == "c" and answer.scores["correct_norm"] is False


def test_a_generation_task_with_several_targets_accepts_each(tmp_path: Path) -> None:
    path = task_file(tmp_path, "many", **{**GENERATION_TASK, "doc_to_target": "{{choices}}"})
    _, records = records_for_task(path)
    assert [record["gold"] for record in records] == [["cow", "cat"], ["green", "red"], ["milk", "honey"]]


def test_a_document_whose_target_is_not_a_choice_is_refused_naming_it(tmp_path: Path) -> None:
    docs = [*DOCS, {"question": "Odd one?", "choices": ["a", "b"], "answer": 5}]
    message = refusal(task_file(tmp_path, "bad", docs, **CHOICE_TASK))
    assert message.startswith("bad: document 3: doc_to_target gives 5")


def test_without_the_harness_installed_it_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "lm_eval", None)
    monkeypatch.setitem(sys.modules, "lm_eval.tasks", None)
    message = refusal(EXAMPLE / "example_mc.yaml")
    assert "lm-evaluation-harness is not installed" in message and ".venv/bin/pip install lm-eval==0.4.13" in message


def test_bad_limits_are_refused() -> None:
    assert "--limit must be at least 1" in refusal(EXAMPLE / "example_mc.yaml", limit=0)
    assert "--num-fewshot must be 0 or more" in refusal(EXAMPLE / "example_mc.yaml", num_fewshot=-1)


# -- a task file that would run code ------------------------------------------------------------

MARKING_MODULE = """from pathlib import Path

Path(__file__).with_name("ran.marker").write_text("imported")


def process_docs(dataset):
    return dataset
"""


def code_task(directory: Path, name: str = "coded") -> Path:
    """A choice task whose YAML's line 2 is `process_docs: !function utils.process_docs`, beside a
    utils.py that leaves a marker file when it is imported."""
    (directory / "utils.py").write_text(MARKING_MODULE)
    path = task_file(directory, name, **CHOICE_TASK)
    path.write_text(f"task: {name}\nprocess_docs: !function utils.process_docs\n{yaml.safe_dump(CHOICE_TASK)}")
    return path


def test_a_task_file_with_a_function_is_refused_before_its_module_is_imported(tmp_path: Path) -> None:
    path = code_task(tmp_path)
    message = refusal(path)
    assert message.startswith(f"{path}: the task would run Python code: {path}, line 2: !function utils.process_docs")
    assert "--trust-task-code" in message
    assert not (tmp_path / "ran.marker").exists()


def test_a_function_in_an_included_file_or_a_task_file_beside_it_is_refused_too(tmp_path: Path) -> None:
    code_task(tmp_path, "base")
    including = tmp_path / "including.yaml"
    including.write_text(json.dumps({"include": "base.yaml", "task": "including"}))
    assert f"{tmp_path / 'base.yaml'}, line 2: !function utils.process_docs" in refusal(including)
    beside = task_file(tmp_path, "beside", **CHOICE_TASK)
    assert f"{tmp_path / 'base.yaml'}, line 2: !function" in refusal(beside)
    (tmp_path / "own").mkdir()
    assert records_for_task(task_file(tmp_path / "own", "alone", **CHOICE_TASK))[1]  # a directory of its own
    assert not (tmp_path / "ran.marker").exists()


def test_a_python_object_tag_is_not_constructed(tmp_path: Path) -> None:
    path = tmp_path / "evil.yaml"
    path.write_text(f'task: evil\nx: !!python/object/apply:os.system ["touch {tmp_path / "ran.marker"}"]\n')
    assert "not a readable task YAML (ConstructorError" in refusal(path)
    assert not (tmp_path / "ran.marker").exists()


def test_trusting_the_task_code_runs_it(tmp_path: Path) -> None:
    path = code_task(tmp_path)
    name, records = records_for_task(path, trust_code=True)
    assert name == "coded" and len(records) == 3
    assert (tmp_path / "ran.marker").read_text() == "imported"
