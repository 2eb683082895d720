"""`parity.benchmarks.lm_eval.samples`: an lm-evaluation-harness samples file read and matched to
the items imported from its task, against lines built as the harness writes them."""

from __future__ import annotations

import json

import pytest

from parity import benchmarks
from parity.benchmarks.custom import items_from_records
from parity.benchmarks.lm_eval import records_for_task
from parity.benchmarks.lm_eval.samples import SamplesError, read_samples, samples_answers, task_of
from tests.harness_samples import EXAMPLE, choice_line, content, docs, file_name, generation_line

MC, GEN = "parity_example_mc", "parity_example_gen"
#: per document of example_mc: the log-likelihoods of its three choices
LOGLIKS = [[-1.0, -2.0, -3.0], [-0.5, -4.0, -0.6], [-6.0, -5.0, -2.0], [-3.0, -1.0, -1.2]]


@pytest.fixture(scope="module")
def mc_items():
    name, records = records_for_task(EXAMPLE / "example_mc.yaml", limit=4)
    return items_from_records(records, name=name, label="example_mc.yaml").items


@pytest.fixture(scope="module")
def gen_items():
    name, records = records_for_task(EXAMPLE / "example_gen.yaml", limit=3)
    return items_from_records(records, name=name, label="example_gen.yaml").items


def _mc_lines(items, logliks=LOGLIKS) -> list[str]:
    mc = docs("example_mc.jsonl")
    return [choice_line(n, mc[n], items[n].meta["model"]["context"], logliks[n]) for n in range(len(logliks))]


def _answers(file, items):
    return samples_answers(file, items, benchmarks.get("custom").model_answers)


def test_the_task_is_read_from_the_name_the_harness_gives_the_file() -> None:
    assert task_of(file_name("arc_easy")) == "arc_easy"
    assert task_of("samples_mmlu_high_school_physics_2024-05-01T09-03-11.000123.jsonl") == "mmlu_high_school_physics"
    assert task_of("answers.jsonl") is None


def test_choice_answers_are_the_argmax_and_agree_with_the_harness_acc(mc_items) -> None:
    file = read_samples(content(_mc_lines(mc_items)), file_name=file_name(MC))
    assert (file.task, file.filter, [s.doc_id for s in file.samples]) == (MC, "none", [0, 1, 2, 3])
    matched = _answers(file, mc_items)
    # golds: cow (0), blue (1), then the third and first choices of the next two documents
    answers = {key.split("/")[1]: answer for key, answer in matched.answers.items()}
    assert [answers[str(n)].answer for n in range(4)] == [
        mc_items[n].prompt["options"][i] for n, i in enumerate([0, 0, 2, 1])
    ]
    for n in range(4):
        line = json.loads(_mc_lines(mc_items)[n])
        assert answers[str(n)].correct == (line["acc"] == 1.0)
        assert answers[str(n)].scores["correct_norm"] == (line["acc_norm"] == 1.0)
        assert list(answers[str(n)].scores["loglik"].values()) == LOGLIKS[n]
    assert matched.contexts_differ == 0


def test_generated_texts_are_scored_by_the_items_exact_match(gen_items) -> None:
    gen = docs("example_gen.jsonl")
    texts = [" 4", " 9", "3 "]
    lines = [generation_line(n, gen[n], gen_items[n].meta["model"]["context"], texts[n]) for n in range(3)]
    file = read_samples(content(lines), file_name=file_name(GEN))
    assert file.filter == "strip"
    matched = _answers(file, gen_items)
    assert [(a.answer, a.correct) for a in matched.answers.values()] == [("4", True), ("9", False), ("3", True)]


def test_a_file_of_another_task_is_refused(mc_items, gen_items) -> None:
    file = read_samples(content(_mc_lines(mc_items)), file_name=file_name(MC))
    with pytest.raises(SamplesError, match=f"the file holds task '{MC}'; the study's items are of task {GEN}"):
        _answers(file, gen_items)


def test_documents_without_an_item_are_refused(mc_items) -> None:
    file = read_samples(content(_mc_lines(mc_items)), file_name=file_name(MC))
    with pytest.raises(SamplesError, match=r"2 of the file's 4 documents .* \(doc_id 2, 3\)"):
        _answers(file, mc_items[:2])


def test_a_document_that_is_not_the_items_is_refused(mc_items) -> None:
    lines = _mc_lines(mc_items)
    other = json.loads(lines[1])
    other["target"] = "2"  # another version of the documents: another gold
    lines[1] = json.dumps(other)
    file = read_samples(content(lines), file_name=file_name(MC))
    with pytest.raises(SamplesError, match=r"1 documents have another target .* \(doc_id 1\)"):
        _answers(file, mc_items)
    changed = json.loads(_mc_lines(mc_items)[0])
    changed["arguments"]["gen_args_0"]["arg_1"] = " horse"
    file = read_samples(content([json.dumps(changed)]), file_name=file_name(MC))
    with pytest.raises(SamplesError, match="document 0: its continuations"):
        _answers(file, mc_items)


def test_another_few_shot_context_is_counted_not_refused(mc_items) -> None:
    lines = [json.loads(line) for line in _mc_lines(mc_items)]
    for line in lines[:3]:
        for request in line["arguments"].values():
            request["arg_0"] = "Question: Which animal purrs?\nAnswer: cat\n\n" + request["arg_0"]
    file = read_samples(content([json.dumps(line) for line in lines]), file_name=file_name(MC))
    assert _answers(file, mc_items).contexts_differ == 3


def test_what_is_not_a_samples_file_is_refused_with_its_line(mc_items) -> None:
    lines = _mc_lines(mc_items)
    with pytest.raises(SamplesError, match="not named as lm-evaluation-harness names a samples file"):
        read_samples(content(lines), file_name="mine.jsonl")
    assert read_samples(content(lines), file_name="mine.jsonl", task=MC).task == MC
    with pytest.raises(SamplesError, match=f"is the samples of task '{MC}', not 'arc_easy'"):
        read_samples(content(lines), file_name=file_name(MC), task="arc_easy")
    with pytest.raises(SamplesError, match="line 2: not JSON"):
        read_samples(content([lines[0], "{oops"]), file_name=file_name(MC))
    with pytest.raises(SamplesError, match="line 1: no arguments, resps"):
        read_samples(content(['{"doc_id": 0, "target": "0", "filtered_resps": []}']), file_name=file_name(MC))
    with pytest.raises(SamplesError, match="line 2: document 0 appears twice"):
        read_samples(content([lines[0], lines[0]]), file_name=file_name(MC))


def test_a_file_of_several_filters_needs_one_chosen(mc_items) -> None:
    first = json.loads(_mc_lines(mc_items)[0])
    again = {**first, "filter": "other"}
    both = content([json.dumps(first), json.dumps(again)])
    with pytest.raises(SamplesError, match=r"several filters \(none, other\); choose one"):
        read_samples(both, file_name=file_name(MC))
    assert read_samples(both, file_name=file_name(MC), filter_name="other").filter == "other"
    with pytest.raises(SamplesError, match="has no filter 'strict'"):
        read_samples(both, file_name=file_name(MC), filter_name="strict")
