from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from modelruns.engine import metrics

EXECUTE = Path(os.environ.get("DATASETS_DIR") or Path(__file__).resolve().parents[3] / "shared" / "datasets") \
    / "instruction_induction" / "raw" / "execute"


def test_outputs_are_normalised_as_the_papers_scripts_do() -> None:
    assert metrics.normalize_output("  Twenty-Six.\nmore") == "twenty six"
    assert metrics.normalize_output("Sentence 1: It rained. Sentence 2: x") == "it rained"
    assert metrics.normalize_output("cats and dogs!") == "cats dogs"


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
    assert metrics.normalize_instruction("today is Monday") == "today is Monday"
    assert metrics.normalize_instruction('"write the word in plural form" he said') == "write the word in plural form"
    assert metrics.normalize_instruction("\n\nReverse the word\nmore") == "Reverse the word"


def test_a_newline_only_stops_after_some_text() -> None:
    assert metrics.cut_at_newline_after_text("\n\n cats\ndogs") == ("\n\n cats", True)
    assert metrics.cut_at_newline_after_text("  \n") == ("  \n", False)


def test_execution_accuracy_is_the_mean_over_inputs() -> None:
    assert metrics.execution_accuracy("sum", ["3", "5"], [["3"], ["4"]]) == 0.5


def test_execute_inputs_read_every_acceptable_answer() -> None:
    assert metrics.execute_inputs("sentence_similarity", {"input": "s", "output": "3 - probably"}) == [
        ("s", ["3 - probably", "3", "probably"])]
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
