from __future__ import annotations

import json

import pytest

from parity.engine import metrics
from tests.conftest import datasets_dir

EXECUTE = datasets_dir() / "instruction_induction" / "raw" / "execute"


def test_outputs_are_normalised_as_the_papers_scripts_do() -> None:
    assert metrics.normalize_output("  Twenty-Six.\nmore") == "twenty six"
    assert metrics.normalize_output("Sentence 1: It rained. Sentence 2: x") == "it rained"
    assert metrics.normalize_output("cats and dogs!") == "cats dogs"


# (prediction, gold, the authors' normalised prediction, the authors' exact-match verdict), computed
# with `normalize_prediction` and `get_em_score` of orhonovich/instruction-induction, evaluate.py
# (commit 0aa7ba0). Runs of spaces are kept, so " positive ." is not "positive" there.
AUTHORS_OUTPUTS = [
    (" positive .", "positive", "positive ", False),
    (" Positive.", "positive", "positive", True),
    ("3  - probably", "3 - probably", "3    probably", False),
    ("3 - probably", "3 - probably", "3   probably", True),
    ("twenty  six", "twenty-six", "twenty  six", False),
    ("cold ", "cold", "cold", True),
    (" The cat and the dog.", "the cat the dog", "the cat the dog", True),
    ("Sentence 1: It rained.", "it rained", "it rained", True),
    ("  Twenty-Six.\nmore", "twenty six", "twenty six", True),
]


@pytest.mark.parametrize("prediction, gold, normalised, matches", AUTHORS_OUTPUTS)
def test_outputs_are_normalised_exactly_as_the_authors_normalize_prediction(
    prediction: str, gold: str, normalised: str, matches: bool
) -> None:
    assert metrics.normalize_output(prediction) == normalised
    assert metrics.exact_match(prediction, gold) == float(matches)
    assert metrics.execution_score("sentiment", prediction, [gold]) == float(matches)


def test_the_other_metrics_split_on_whitespace_as_the_authors_do() -> None:
    # get_f1_score, get_exact_set_score and get_contains_score of evaluate.py on the same inputs
    assert metrics.unigram_f1("how  are you", "How are you doing?") == pytest.approx(0.8571428571428571)
    assert metrics.exact_set_match("bear,  kangaroo", "kangaroo, bear") == 1.0
    assert metrics.contains("process ,  method", "process") == 1.0
    assert metrics.contains("a  b", "a b") == 0.0


def test_exact_match_compares_normalised_texts() -> None:
    assert metrics.exact_match(" Cats.", "cats") == 1.0
    assert metrics.exact_match("cat", "cats") == 0.0


def test_unigram_f1_by_hand() -> None:
    # prediction: involve, going, up (3); gold: involve, vertical, movement (3); 1 in common
    assert metrics.unigram_f1("involve going up", "involve vertical movement.") == pytest.approx(1 / 3)
    assert metrics.unigram_f1("nothing", "involve vertical movement") == 0.0


def test_exact_set_ignores_order_and_repeats() -> None:
    assert metrics.exact_set_match("thinks that", "that thinks") == 1.0
    assert metrics.exact_set_match("bear, kangaroo, bird, beetle", "beetle, bear, kangaroo, bird") == 1.0
    assert metrics.exact_set_match("bear, kangaroo", "beetle, bear, kangaroo, bird") == 0.0


def test_contains_finds_the_gold_word_among_several() -> None:
    assert metrics.contains("process, method", "process") == 1.0
    assert metrics.contains("processes", "process") == 0.0


def test_several_acceptable_answers_take_the_best() -> None:
    assert metrics.execution_score("word_in_context", "No.", ["not the same", "no", "false"]) == 1.0
    assert metrics.execution_score("informal_to_formal", "How are you", ["How are you doing?"]) == pytest.approx(6 / 7)
    with pytest.raises(ValueError):
        metrics.execution_score("sum", "3", [])


def test_instruction_lead_ins_and_extra_lines_are_dropped() -> None:
    assert metrics.normalize_instruction("probably to write the plural form.\nInput: x") == "write the plural form."
    assert metrics.normalize_instruction(": most likely: add s") == "add s"
    assert metrics.normalize_instruction('"write the word in plural form" he said') == "write the word in plural form"
    assert metrics.normalize_instruction("\n\nReverse the word\nmore") == "Reverse the word"


# Expected values from orhonovich/instruction-induction, postprocess_instructions.py
# (`normalize_predicted_instruction`, commit 0aa7ba0): its docstring's example, and what its code
# gives for openings a model writes before the instruction.
AUTHORS_INSTRUCTIONS = [
    ("probably to translate the input from English to French", "translate the input from English to French"),
    (':\n\n"Write the plural form"', "Write the plural form"),
    (":\n\nWrite the plural form of the word.\n\nInput: cat", "Write the plural form of the word."),
    ("probably:\nreverse the order of the letters\nInput: x", "reverse the order of the letters"),
    (' "Write the input word in its plural form" to the friend.', "Write the input word in its plural form"),
    ("most likely: to add the numbers", "add the numbers"),
    ("today is Monday", "day is Monday"),  # a plain prefix test: their "to" is not a word
    (":", ""),
]


@pytest.mark.parametrize("generated, expected", AUTHORS_INSTRUCTIONS)
def test_instructions_are_normalised_as_the_authors_postprocessing_does(generated: str, expected: str) -> None:
    assert metrics.normalize_instruction(generated) == expected


def test_the_first_line_is_settled_once_a_newline_lies_between_text() -> None:
    assert not metrics.first_line_settled("\n\n cats\n")  # " cats " could still gain nothing, or more
    assert metrics.first_line_settled("\n\n cats\ndogs")
    assert not metrics.first_line_settled("  \n")
    assert not metrics.first_line_settled("Sentence 1:\n")  # the marker is removed before the first line


# Full 30-token outputs and what the authors' normalize_prediction makes of them (evaluate.py,
# commit 0aa7ba0): generation that stops as soon as the first line is settled must give the same.
AUTHORS_FULL_OUTPUTS = [
    (" positive \nInput: great movie\nOutput: positive", "positive "),
    (" positive \n", "positive"),
    ("Sentence 1:\nThe glass fell. Sentence 2: x", "the glass fell"),
    (" \n\n cold\n\nInput: hot", "cold"),
    ("  and  \nfoo bar\nbaz", "foo bar"),
]


@pytest.mark.parametrize("full, expected", AUTHORS_FULL_OUTPUTS)
def test_stopping_when_the_first_line_is_settled_scores_as_the_full_output(full: str, expected: str) -> None:
    assert metrics.normalize_output(full) == expected
    stops = [end for end in range(1, len(full) + 1) if metrics.first_line_settled(full[:end])]
    stopped = full[: stops[0]] if stops else full
    assert metrics.normalize_output(stopped) == expected


def test_execution_accuracy_is_the_mean_over_inputs() -> None:
    assert metrics.execution_accuracy("sum", ["3", "5"], [["3"], ["4"]]) == 0.5


def test_execute_inputs_read_every_acceptable_answer() -> None:
    # the paper names the full label only (Appendix A: "5 - perfectly"): the number or words alone are wrong
    assert metrics.execute_inputs("sentence_similarity", {"input": "s", "output": "3 - probably"}) == [
        ("s", ["3 - probably"])
    ]
    assert metrics.execution_score("sentence_similarity", "3", ["3 - probably"]) == 0.0
    pairs = metrics.execute_inputs("cause_and_effect", {"cause": "A.", "effect": "B."})
    assert pairs == [("Sentence 1: A. Sentence 2: B.", ["A."]), ("Sentence 1: B. Sentence 2: A.", ["A."])]
    concept = metrics.execute_inputs("common_concept", {"items": ["a", "b"], "all_common_concepts": ["x", "y", "x"]})
    assert concept == [("a, b", ["x", "y"])]


@pytest.mark.skipif(not EXECUTE.is_dir(), reason="the published instruction-induction files are not here")
def test_every_gold_output_scores_full_marks_on_the_published_execute_sets() -> None:
    tasks = sorted(path.stem for path in EXECUTE.glob("*.json"))
    assert len(tasks) == 24
    for task in tasks:
        examples = json.loads((EXECUTE / f"{task}.json").read_text())["examples"]
        for example in examples.values():
            for _, answers in metrics.execute_inputs(task, example):
                assert metrics.execution_score(task, answers[0], answers) == 1.0, (task, answers)
        translations = task.startswith("translation")
        if translations:
            first = next(iter(examples.values()))
            assert len(metrics.execute_inputs(task, first)[0][1]) > 1
