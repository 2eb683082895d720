"""Instruction-induction text rules and execution-accuracy metrics (Honovich et al., Appendix A).

Pure Python. The rules follow the authors' scripts (`postprocess_instructions.py`, `evaluate.py`,
`prepare_for_execution.py`): an output is normalised before comparison (first line, text before
the first '.', lower-case, '-' to space, punctuation stripped, plus the scripts' removal of
" and " and of the "Sentence 1:"/"Sentence 2:" markers), exactly as their `normalize_prediction`:
runs of spaces are kept, so "positive ." (normalised "positive ") does not match "positive".
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

EXACT = "exact"
F1 = "f1"
EXACT_SET = "exact_set"
CONTAINS = "contains"
METRICS = (EXACT, F1, EXACT_SET, CONTAINS)

#: task -> metric; every task not listed is scored by exact match
TASK_METRICS: dict[str, str] = {
    "common_concept": F1,
    "informal_to_formal": F1,
    "orthography_starts_with": EXACT_SET,
    "taxonomy_animal": EXACT_SET,
    "synonyms": CONTAINS,
}
#: execute-set fields that hold further acceptable answers beside `output`
EXTRA_ANSWER_FIELDS: dict[str, str] = {
    "rhymes": "other_rhymes",
    "translation_en-de": "possible_translations",
    "translation_en-es": "possible_translations",
    "translation_en-fr": "possible_translations",
    "word_in_context": "possible_outputs",
}
LEAD_INS = ("probably:", "most likely:", "probably", "most likely", "to")
_PUNCTUATION = str.maketrans("", "", string.punctuation)


# -- generated text ---------------------------------------------------------------------------


def _without_markers(text: str) -> str:
    """What the authors' `normalize_prediction` removes before it takes the first line."""
    return text.replace(" and ", " ").replace("Sentence 1:", " ").replace("Sentence 2:", " ")


def first_line_settled(text: str) -> bool:
    """Whether more generated text can no longer change what `normalize_output` reads: a newline
    lies between non-blank text (the markers it removes do not count as text).

    Their normalisation strips the whole output before it keeps the first line, so the line's
    trailing spaces count only when something follows the newline: generation stops here, not at
    the newline itself, and the output is scored exactly as the authors' full 30 tokens would be.
    """
    return "\n" in _without_markers(text).strip()


def normalize_instruction(generated: str) -> str:
    """A generated instruction as it is scored and executed: the authors' post-processing
    (`normalize_predicted_instruction` in `postprocess_instructions.py`), applied to the whole
    generation (50 tokens, no stop at a newline).

    Drops one leading ':', then each lead-in in turn ("probably:", "most likely:", "probably",
    "most likely", "to") when the text starts with it (a plain prefix test, as theirs: "today"
    loses its "to"), and only then keeps the first line, so that ':\n\n"Write the plural form"'
    keeps its instruction. An instruction that is wholly a quote of more than three words is
    unwrapped and double quotes are removed.
    """
    text = generated
    if text.startswith(":"):
        text = text[1:]
    text = text.strip()
    for lead_in in LEAD_INS:
        if text.startswith(lead_in):
            text = text[len(lead_in) :].strip()
    text = text.strip().split("\n")[0]
    quoted = re.findall(r"\"([a-zA-Z\.,'\\/]+ [a-zA-Z \.,'\\/]+)\"", text)
    if quoted and len(quoted[0].split()) > 3:
        text = quoted[0]
    return text.replace('"', "").strip()


def normalize_output(text: str) -> str:
    """An execution output or a gold answer, as the metrics compare them (the authors'
    `normalize_prediction` in `evaluate.py`: spaces are neither collapsed nor stripped after the cut)."""
    text = _without_markers(text).strip()
    text = text.split("\n")[0].split(".")[0].lower().replace("-", " ")
    return text.translate(_PUNCTUATION)


# -- metrics ------------------------------------------------------------------------------------


def exact_match(prediction: str, answer: str) -> float:
    return float(normalize_output(prediction) == normalize_output(answer))


def unigram_f1(prediction: str, answer: str) -> float:
    predicted, expected = normalize_output(prediction).split(), normalize_output(answer).split()
    common = sum((Counter(predicted) & Counter(expected)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(predicted), common / len(expected)
    return 2 * precision * recall / (precision + recall)


def exact_set_match(prediction: str, answer: str) -> float:
    return float(set(normalize_output(prediction).split()) == set(normalize_output(answer).split()))


def contains(prediction: str, answer: str) -> float:
    """The gold answer appears as whole words in the prediction (a list of synonyms is fine)."""
    expected = normalize_output(answer)
    return float(re.search(rf"\b({re.escape(expected)})\b", normalize_output(prediction)) is not None)


_METRIC_FUNCTIONS = {EXACT: exact_match, F1: unigram_f1, EXACT_SET: exact_set_match, CONTAINS: contains}


def metric_for(task: str) -> str:
    return TASK_METRICS.get(task, EXACT)


def execution_score(task: str, prediction: str, answers: Sequence[str]) -> float:
    """The task's metric against every acceptable answer; the best one counts (0..1)."""
    if not answers:
        raise ValueError("no acceptable answers given")
    function = _METRIC_FUNCTIONS[metric_for(task)]
    return max(function(prediction, answer) for answer in answers)


def execution_accuracy(task: str, predictions: Sequence[str], answer_sets: Sequence[Sequence[str]]) -> float:
    """Mean score of one instruction's outputs over a task's execute inputs."""
    if len(predictions) != len(answer_sets):
        raise ValueError(f"{len(predictions)} predictions for {len(answer_sets)} answer sets")
    if not predictions:
        raise ValueError("no predictions to score")
    return sum(execution_score(task, p, a) for p, a in zip(predictions, answer_sets)) / len(predictions)


# -- execute set --------------------------------------------------------------------------------


def execution_prompt(instruction: str, test_input: str) -> str:
    return f"Instruction: {instruction}\nInput: {test_input}\nOutput:"


def execute_inputs(task: str, example: Mapping[str, Any]) -> list[tuple[str, list[str]]]:
    """(input, acceptable answers) pairs that one raw execute-set example yields.

    cause_and_effect yields both sentence orders; common_concept joins its items; sentence
    similarity accepts only its full label, as the paper gives it ("3 - probably", Appendix A):
    the number or the words alone are wrong.
    """
    if task == "cause_and_effect":
        cause, effect = str(example["cause"]), str(example["effect"])
        return [
            (f"Sentence 1: {cause} Sentence 2: {effect}", [cause]),
            (f"Sentence 1: {effect} Sentence 2: {cause}", [cause]),
        ]
    if task == "common_concept":
        return [(", ".join(example["items"]), _unique(example["all_common_concepts"]))]
    output = str(example["output"])
    extra = example.get(EXTRA_ANSWER_FIELDS.get(task, ""), [])
    return [(str(example["input"]), _unique([output, *extra]))]


def _unique(values: Sequence[Any]) -> list[str]:
    seen: dict[str, None] = {}
    for value in values:
        text = str(value).strip()
        if text:
            seen.setdefault(text, None)
    return list(seen)
