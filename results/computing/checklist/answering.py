"""How an entry is answered: one function per entry, registered by its number, and the shared
words of the answers."""

from __future__ import annotations

from collections.abc import Callable

from parity.reporting.checklist import BY_ID, Answer, not_answered
from results.computing.spine import Spread, StudyResults
from studies.models import Study

NOT_RECORDED = "not recorded by this study"
IMPORTED = "the human answers were imported from a published study"
#: the record 0.8 rests on: the items of the study's item set (`results.loading.selectors.study_item_set_size`)
DATASET_ITEMS = "items in the study's item set"

Answerer = Callable[[Study, StudyResults], Answer]
#: each entry's function, by the entry's number (filled as the section modules are imported)
ANSWERS: dict[str, Answerer] = {}


def answers(entry_id: str) -> Callable[[Answerer], Answerer]:
    def register(function: Answerer) -> Answerer:
        ANSWERS[entry_id] = function
        return function

    return register


def missing(entry_id: str) -> Answer:
    return not_answered(BY_ID[entry_id], NOT_RECORDED)


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def span(spread: Spread) -> str:
    return str(spread.min) if spread.min == spread.max else f"{spread.min}–{spread.max}"
