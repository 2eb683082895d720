"""A person's typed answer scored by the rule of the Inspect scorer the task names (pure Python).

Inspect runs in the task workers only (the web image leaves it out), so a person's written answer is
scored here, by the rule of the task's scorer with the options the task gave it (as its log records
them): `match` (`location` begin/end/any/exact, `ignore_case`, `numeric`; punctuation around the text
is ignored, as `match` asks of `match_str`), `includes` (`ignore_case`) and `exact` (both texts
normalised as its `_classification._normalize` does: case folded, punctuation and articles dropped,
numbers written as floats), as `inspect_ai.scorer` 0.3.285 defines them.
tests/parity/benchmarks/test_from_inspect_scoring.py holds this module to Inspect's own scorers,
answer by answer. What is left out: numbers written other than in ASCII
(Inspect also reads "½", "５" and Chinese numerals); other scorers (`f1`, whose score is not right
or wrong; `pattern`, which reads an answer out of a model's templated reply, not a person's; a model
grader; a task's own Python scorer) are not reproduced, and their items are imported unscored.
"""

from __future__ import annotations

import json
import math
import re
import string
from collections.abc import Mapping, Sequence
from typing import Any

MATCH, INCLUDES, EXACT = "match", "includes", "exact"
#: the scorers whose rule is reproduced here
REPRODUCED = (MATCH, INCLUDES, EXACT)
_LOCATIONS = ("begin", "end", "any", "exact")
#: the punctuation Inspect trims around a number ("42!", "(42)")
_NUMERIC_TRIM = "!?:;()[]{}'\"`"


def scorer_spec(name: str, options: Mapping[str, Any]) -> str:
    """What an item keeps of its scorer: its name and options as JSON (an extra field)."""
    return json.dumps({"name": name, "options": dict(options)}, sort_keys=True)


def read_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """(name, options) of a kept scorer; ValueError for a scorer whose rule is not reproduced."""
    try:
        value = json.loads(spec)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not a scorer's JSON: {exc}") from None
    name = value.get("name") if isinstance(value, dict) else None
    options = value.get("options") if isinstance(value, dict) else None
    if name not in REPRODUCED or not isinstance(options, dict):
        raise ValueError(f"Parity scores written answers by Inspect's {' or '.join(REPRODUCED)} only, not {spec}")
    if name == MATCH and options.get("location", "end") not in _LOCATIONS:
        raise ValueError(f"match's location is one of {', '.join(_LOCATIONS)}, not {options.get('location')!r}")
    return name, options


def _parse_number(text: str, *, trim: bool = True) -> float | None:
    try:
        number = float(text.strip(_NUMERIC_TRIM) if trim else text)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def _normalise_number(text: str, *, trim: bool = True) -> str:
    number = _parse_number(text, trim=trim)
    return text if number is None else format(number, ".5g")


def _numbers(words: Sequence[str]) -> list[str]:
    return [_normalise_number(word) for word in words if _parse_number(word) is not None]


def _strip_numeric_punctuation(text: str) -> str:
    text = re.sub(r"\\([$,£,€*_])", r"\1", text)
    text = re.sub(r"[$,£,€,*,_]", "", text)
    return re.sub(r"\.(?=\s|$|\D)", "", text)


def _strip_punctuation(text: str) -> str:
    return text.strip(string.whitespace + string.punctuation)


def match(value: str, target: str, options: Mapping[str, Any]) -> bool:
    """Inspect's `match` scorer on one target."""
    location = options.get("location", "end")
    numeric = bool(options.get("numeric", False))
    v, t = value.strip(), target.strip()
    if options.get("ignore_case", True):
        v, t = v.casefold(), t.casefold()
    if numeric:
        t = _strip_numeric_punctuation(t)
    if numeric and _parse_number(t) is not None:
        v, t = _strip_numeric_punctuation(v), _normalise_number(t)
        words = re.split(r"\s+", v)
        if location == "any":
            return t in _numbers(words)
        if location == "exact":
            return _normalise_number(v, trim=False) == t
        found = _numbers(words if location == "begin" else words[::-1])
        return (found[0] if found else "") == t
    # match() calls match_str with ignore_punctuation left at its default, True
    v, t = _strip_punctuation(v), _strip_punctuation(t)
    if location == "begin":
        return v.startswith(t)
    if location == "end":
        return v.endswith(t)
    if location == "exact":
        return v == t
    return t in v


def includes(value: str, target: str, options: Mapping[str, Any]) -> bool:
    """Inspect's `includes` scorer on one target."""
    if options.get("ignore_case", True):
        value, target = value.casefold(), target.casefold()
    return target in value


def _finite(text: str) -> bool:
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


def _normalise_token(token: str) -> str:
    token = token.casefold()
    if not _finite(token):
        stripped = _strip_punctuation(token)
        token = stripped if _finite(stripped) else "".join(c for c in token if c not in string.punctuation)
    if _finite(token):
        token = str(float(token))
    token = re.sub(r"\b(a|an|the)\b", " ", token)
    return " ".join(token.split())


def _normalise(text: str) -> str:
    tokens = [_normalise_token(token) for token in re.split(" |-", text)]
    return " ".join(token for token in tokens if token.strip()).strip()


def exact(value: str, target: str, options: Mapping[str, Any]) -> bool:
    """Inspect's `exact` scorer on one target (a target with nothing left once normalised never matches)."""
    expected = _normalise(target)
    return bool(expected) and _normalise(value) == expected


def score_typed(spec: str, answer: str, targets: Sequence[str]) -> bool:
    """Whether the task's scorer (`spec`, see `scorer_spec`) counts `answer` correct for any target."""
    name, options = read_spec(spec)
    rule = {MATCH: match, INCLUDES: includes, EXACT: exact}[name]
    return any(rule(answer, target, options) for target in targets)
