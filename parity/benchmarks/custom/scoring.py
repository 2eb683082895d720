"""How a typed answer is compared with an item's accepted answers (pure Python).

The text metrics normalise both sides as SQuAD's evaluation script does (lower case, punctuation
and the articles a/an/the removed, whitespace collapsed). `f1` is the token-overlap F1 of the best
accepted answer; an answer counts as correct at F1 >= `F1_CORRECT`. `numeric` parses both sides
as numbers and accepts a difference up to the item's tolerance. `exact_match` is
lm-evaluation-harness's metric of that name: the strings equal as they are, after lower-casing
and/or removing punctuation only where the item's `metric_options` say so (`strip`, the harness's
`remove_whitespace` filter, drops the whitespace around a model's text before comparing).
"""

from __future__ import annotations

import math
import re
import string
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from ..from_inspect.scoring import score_typed

EXACT, EXACT_MATCH, CONTAINS, F1, NUMERIC = "exact", "exact_match", "contains", "f1", "numeric"
#: the rule of an Inspect task's scorer, kept in the item's `inspect_scorer` field (from_inspect.scoring)
INSPECT = "inspect"
METRICS = (EXACT, EXACT_MATCH, CONTAINS, F1, NUMERIC, INSPECT)
#: what may change how `exact_match` compares (the harness's exact_match arguments and filter)
IGNORE_CASE, IGNORE_PUNCTUATION, STRIP = "ignore_case", "ignore_punctuation", "strip"
MATCH_OPTIONS = (IGNORE_CASE, IGNORE_PUNCTUATION, STRIP)
#: the F1 at which a written answer counts as correct (the score itself is kept beside it)
F1_CORRECT = 0.5

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = set(string.punctuation)
_NUMBER = re.compile(r"[-+]?(?:\d+(?:,\d{3})*(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?")


def normalise_answer(text: str) -> str:
    """SQuAD's `normalize_answer`: lower case, no punctuation, no articles, single spaces."""
    text = "".join(character for character in text.lower() if character not in _PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", text).split())


def exact_score(prediction: str, answer: str) -> float:
    return float(normalise_answer(prediction) == normalise_answer(answer))


def exact_match_score(prediction: str, answer: str, options: Sequence[str] = ()) -> float:
    """lm-evaluation-harness's exact_match: equal strings, after its `ignore_case` (lower case) and
    `ignore_punctuation` (string.punctuation removed) where asked."""
    if IGNORE_CASE in options:
        prediction, answer = prediction.lower(), answer.lower()
    if IGNORE_PUNCTUATION in options:
        table = str.maketrans("", "", string.punctuation)
        prediction, answer = prediction.translate(table), answer.translate(table)
    return float(prediction == answer)


def contains_score(prediction: str, answer: str) -> float:
    """The accepted answer occurs in the prediction as whole words (both normalised)."""
    expected = normalise_answer(answer)
    return float(
        bool(expected) and re.search(rf"(?:^| ){re.escape(expected)}(?: |$)", normalise_answer(prediction)) is not None
    )


def f1_score(prediction: str, answer: str) -> float:
    predicted, expected = normalise_answer(prediction).split(), normalise_answer(answer).split()
    if not predicted or not expected:
        return float(predicted == expected)
    common = sum((Counter(predicted) & Counter(expected)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(predicted), common / len(expected)
    return 2 * precision * recall / (precision + recall)


def parse_number(text: str) -> float | None:
    """A number written whole ("42", "-3.5", "1e3", "1,234"); None for anything else."""
    value = text.strip()
    if not _NUMBER.fullmatch(value):
        return None
    number = float(value.replace(",", ""))
    return number if math.isfinite(number) else None


def first_number(text: str) -> float | None:
    """The first number in a generated text ("The answer is 42." -> 42.0)."""
    found = _NUMBER.search(text)
    return None if found is None else parse_number(found.group())


def format_number(number: float) -> str:
    """A number as stored: "42" for a whole number, else Python's shortest repr ("3.5")."""
    return str(int(number)) if number.is_integer() and abs(number) < 1e15 else repr(number)


def numeric_score(prediction: str, answer: str, tolerance: float = 0.0) -> float:
    predicted, expected = parse_number(prediction), parse_number(answer)
    if predicted is None or expected is None:
        return 0.0
    return float(abs(predicted - expected) <= tolerance + 1e-12 * max(1.0, abs(expected)))


def inspect_scorer(meta: Mapping[str, Any]) -> str:
    """The Inspect scorer an item's `inspect` metric applies (its `inspect_scorer` field), or ""."""
    return str((meta.get("extra") or {}).get("inspect_scorer", ""))


def best_score(
    metric: str,
    prediction: str,
    answers: Sequence[str],
    tolerance: float = 0.0,
    options: Sequence[str] = (),
    scorer: str = "",
) -> float:
    """The metric against every accepted answer; the best one counts (0..1). `scorer`: the Inspect
    scorer of the `inspect` metric (see `inspect_scorer`)."""
    if metric == INSPECT:
        return float(score_typed(scorer, prediction, answers))
    if metric == NUMERIC:
        return max((numeric_score(prediction, answer, tolerance) for answer in answers), default=0.0)
    if metric == EXACT_MATCH:
        return max((exact_match_score(prediction, answer, options) for answer in answers), default=0.0)
    function = {EXACT: exact_score, CONTAINS: contains_score, F1: f1_score}[metric]
    return max((function(prediction, answer) for answer in answers), default=0.0)


def is_correct(metric: str, score: float) -> bool:
    return score >= F1_CORRECT if metric == F1 else score >= 1.0
