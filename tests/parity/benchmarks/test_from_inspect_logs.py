"""`parity.benchmarks.from_inspect.logs`: an Inspect eval log, written by Inspect itself (its mock
model answering), read and matched to the custom items an import of the same task makes."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from inspect_ai.dataset import Sample
from inspect_ai.log import EvalLog

from parity.benchmarks.custom import items_from_records
from parity.benchmarks.from_inspect.logs import InspectLog, LogError, PlanStep, log_answers, read_log
from tests.inspect_logs import MC, MC_REPLIES, MC_TASK, TEXT, TEXT_TASK, records, rewrite_log, write_log


def _items(samples: list[Sample], task: str) -> list:
    return items_from_records(records(samples, task), name=task, label=f"{task}.jsonl").items


def _read(path: Path) -> InspectLog:
    return read_log(path.read_bytes(), file_name=path.name)


def _answers(path: Path, samples: list[Sample] = MC, task: str = MC_TASK) -> dict[str, list]:
    matched = log_answers(_read(path), _items(samples, task))
    by_item: dict[str, list] = {}
    for key, answer in matched.answers:
        by_item.setdefault(key, []).append(answer)
    return by_item


def test_the_log_is_read_as_inspect_wrote_it(tmp_path) -> None:
    path = write_log(tmp_path, MC, MC_REPLIES, model_args={}, temperature=0.0)
    log = _read(path)
    assert (log.task, log.task_version, log.status, log.model, log.scorer) == (
        MC_TASK,
        "0",
        "success",
        "mockllm/model",
        "choice",
    )
    assert (log.dataset_name, log.dataset_sample_ids, log.epochs) == (f"{MC_TASK}-data", ("france", "uk", "3"), 1)
    assert log.generate_config == {"temperature": 0.0}
    assert log.plan == (
        PlanStep("multiple_choice", {"template": None, "cot": False, "multiple_correct": False, "max_tokens": None}),
    )
    import inspect_ai

    assert log.inspect_version == inspect_ai.__version__ and log.eval_id and log.sha256
    assert sorted(sample.sample_id for sample in log.samples) == ["3", "france", "uk"]


def test_a_choice_answer_is_the_option_of_the_scorers_letter_and_right_as_the_scorer_says(tmp_path) -> None:
    answers = _answers(write_log(tmp_path, MC, MC_REPLIES))
    assert set(answers) == {"capitals/france", "capitals/uk", "capitals/3"}
    (france,), (uk,), (italy,) = answers["capitals/france"], answers["capitals/uk"], answers["capitals/3"]
    assert (france.answer, france.raw_answer, france.valid, france.correct) == ("A) Paris", "ANSWER: A", True, True)
    assert (uk.answer, uk.valid, uk.correct) == ("C) Rome", True, False)
    assert (italy.answer, italy.correct, italy.variant) == ("C) Rome", True, "")
    assert france.scores | {"explanation": None} == {
        "inspect_score": "C",
        "score": 1.0,
        "scorer": "choice",
        "epoch": 1,
        "letter": "A",
        "explanation": None,
    }


def test_a_letter_the_item_did_not_show_is_invalid_and_not_right(tmp_path) -> None:
    path = write_log(tmp_path, MC, MC_REPLIES)

    def answer_d(log: EvalLog) -> None:
        for sample in log.samples or []:
            score = (sample.scores or {})["choice"]
            score.answer, score.value = "D", "C"

    answers = _answers(rewrite_log(path, answer_d, "letter-d.eval"))
    for (answer,) in answers.values():
        assert (answer.answer, answer.valid, answer.correct, answer.scores["letter"]) == ("", False, False, "D")


def test_a_text_answer_is_the_scorers_and_the_raw_answer_the_completion(tmp_path) -> None:
    path = write_log(tmp_path, TEXT, {"2 + 2": "4", "5 + 5": "The sum is 11"}, task=TEXT_TASK)
    answers = _answers(path, TEXT, TEXT_TASK)
    (two,), (ten,) = answers["sums/two"], answers["sums/ten"]
    assert (two.answer, two.raw_answer, two.valid, two.correct) == ("4", "4", True, True)
    assert (ten.answer, ten.raw_answer, ten.valid, ten.correct) == ("The sum is 11", "The sum is 11", True, False)

    def numbers(log: EvalLog) -> None:
        for sample in log.samples or []:
            score = (sample.scores or {})["match"]
            score.answer, score.value = (None, 1.0) if sample.id == "two" else ("11", 0.5)

    answers = _answers(rewrite_log(path, numbers, "numbers.json"), TEXT, TEXT_TASK)
    (two,), (ten,) = answers["sums/two"], answers["sums/ten"]
    # no answer from the scorer: the completion; a number of 1 is right, a partial one is not
    assert (two.answer, two.raw_answer, two.correct, two.scores["score"]) == ("4", "4", True, 1.0)
    assert (ten.answer, ten.raw_answer, ten.correct, ten.scores["score"]) == ("11", "The sum is 11", False, 0.5)


def test_each_epoch_is_one_answer_named_by_its_epoch(tmp_path) -> None:
    replies = {**MC_REPLIES, "France": ["ANSWER: A", "ANSWER: B"]}
    answers = _answers(write_log(tmp_path, MC, replies, epochs=2))
    france = answers["capitals/france"]
    assert [answer.variant for answer in france] == ["epoch 1", "epoch 2"]
    assert sorted(answer.correct for answer in france) == [False, True]
    assert [answer.variant for answer in answers["capitals/uk"]] == ["epoch 1", "epoch 2"]


def test_a_log_of_another_task_is_refused(tmp_path) -> None:
    path = write_log(tmp_path, MC, MC_REPLIES, task="capitals_v2")
    with pytest.raises(LogError, match="the log is of task 'capitals_v2'; the study's items are of task capitals"):
        _answers(path)
    with pytest.raises(LogError, match="items are of task none: they were not imported from an Inspect task"):
        own = [{"id": "1", "text": "What is 1 + 1?", "kind": "short_text", "gold": "2"}]
        log_answers(_read(path), items_from_records(own, name="own", label="own.csv").items)


def test_samples_with_no_item_are_refused_by_id(tmp_path) -> None:
    spain = Sample(id="spain", input="Which city is the capital of Spain?", choices=["Madrid", "Lisbon"], target="A")
    path = write_log(tmp_path, [*MC, spain], {**MC_REPLIES, "Spain": "ANSWER: A"})
    with pytest.raises(
        LogError, match=r"1 of the log's 4 samples of 'capitals' are not among the study's items \(id spain\)"
    ):
        _answers(path)


def test_a_sample_of_another_revision_of_the_dataset_is_refused_by_id(tmp_path) -> None:
    changed = [
        MC[0],
        Sample(id="uk", input=MC[1].input, choices=["Paris", "London", "Rome", "Berlin"], target="B"),
        MC[2],
    ]
    path = write_log(tmp_path, changed, MC_REPLIES)
    with pytest.raises(LogError, match=r"1 samples ask or expect something else .* \(id uk\): .*another revision"):
        _answers(path)


def test_unscored_samples_and_samples_ending_in_an_error_are_refused_by_id(tmp_path) -> None:
    path = write_log(tmp_path, MC, MC_REPLIES)

    def unscore(log: EvalLog) -> None:
        for sample in log.samples or []:
            if sample.id == "uk":
                sample.scores = None

    with pytest.raises(LogError, match=r"1 samples have no score of 'choice' \(uk\)"):
        _answers(rewrite_log(path, unscore, "unscored.eval"))

    def fail(log: EvalLog) -> None:
        from inspect_ai.log import EvalError

        for sample in log.samples or []:
            if sample.id == 3:
                sample.error = EvalError(message="RuntimeError: the model went away", traceback="", traceback_ansi="")

    with pytest.raises(LogError, match=r"1 samples ended in an error \(3\)"):
        _answers(rewrite_log(path, fail, "failed.eval"))


def test_an_unfinished_log_is_taken_only_when_every_sample_is_scored(tmp_path) -> None:
    path = write_log(tmp_path, MC, MC_REPLIES)

    def cancelled(log: EvalLog) -> None:
        log.status = "cancelled"

    assert len(_answers(rewrite_log(path, cancelled, "cancelled-whole.eval"))) == 3

    def cut(log: EvalLog) -> None:
        log.status = "error"
        log.samples = [sample for sample in log.samples or [] if sample.id != "uk"]

    with pytest.raises(LogError, match=r"ended with status 'error' before 1 samples were scored \(uk\)"):
        _answers(rewrite_log(path, cut, "cut.eval"))


def test_a_file_that_is_no_inspect_log_is_refused(tmp_path) -> None:
    with pytest.raises(LogError, match="answers.jsonl is not an Inspect log"):
        read_log(b"{}", file_name="answers.jsonl")
    with pytest.raises(LogError, match="broken.eval could not be read as an Inspect log"):
        read_log(b"not a zip", file_name="broken.eval")
    bomb = tmp_path / "bomb.eval"
    with zipfile.ZipFile(bomb, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("header.json", b" " * 10_000_000)
    with pytest.raises(LogError, match="bomb.eval would inflate to more than an Inspect log does"):
        read_log(bomb.read_bytes(), file_name=bomb.name)
    path = write_log(tmp_path, MC, MC_REPLIES)
    with pytest.raises(LogError, match="no scorer 'model_graded_qa'; it has choice"):
        read_log(path.read_bytes(), file_name=path.name, scorer="model_graded_qa")
