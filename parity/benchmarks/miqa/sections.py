"""MiQA's own section of the results (`results.py` computes it): Comsa et al.'s Table 3 per model."""

from __future__ import annotations

from dataclasses import dataclass, field

from ...records import INLINE, OMIT_IF_NONE, Record
from ..sections import Sections


@dataclass(frozen=True)
class DirectionAccuracy(Record):
    """A run's accuracy over all its items, and per direction of the item ("implies", ...)."""

    all: float | None
    directions: dict[str, float | None] = field(metadata=INLINE)


@dataclass(frozen=True)
class WordingRow(Record):
    """One prompt of Table 3: the best 0-shot wording or a baseline, with its accuracy per k
    (None: no run with that k)."""

    prompt: str
    wording: str
    by_k: dict[str, DirectionAccuracy | None]


@dataclass(frozen=True)
class ModelWordings(Record):
    model: str
    #: None: no 0-shot wording has scored answers
    best_wording: str | None
    #: the 0-shot accuracy of every wording that ran, for the choice
    zero_shot: dict[str, float | None]
    rows: list[WordingRow]


@dataclass(frozen=True)
class MiqaSections(Sections):
    #: None: no run names a wording and k
    by_wording: list[ModelWordings] | None = field(default=None, metadata=OMIT_IF_NONE)
