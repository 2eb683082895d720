"""A researcher's own items' section of the results (`results.py` computes it): per kind of item,
the humans and each model run."""

from __future__ import annotations

from dataclasses import dataclass, field

from ...records import INLINE, OMIT_IF_NONE, Record
from ..sections import Sections


@dataclass(frozen=True)
class RatingAgreement(Record):
    """The raters' agreement on rating items (ratings have no right answer)."""

    krippendorff_alpha: float | None
    #: on the scale's order; None when an answer lies off the scale
    krippendorff_alpha_ordinal: float | None
    percent_agreement: float | None


@dataclass(frozen=True)
class KindHumans(Record):
    n_answers: int
    n_annotators: int
    #: None for kinds without a right answer
    accuracy: float | None
    ci95: list[float] | None
    #: rating items only
    agreement: RatingAgreement | None = field(default=None, metadata=INLINE)


@dataclass(frozen=True)
class KindModel(Record):
    run: int
    label: str
    n_answers: int
    n_valid: int
    accuracy: float | None
    #: option kinds: the length-normalised accuracy
    accuracy_norm: float | None
    #: short texts and numbers: the mean of the item metric's score
    mean_score: float | None


@dataclass(frozen=True)
class KindRow(Record):
    kind: str
    n_items: int
    has_gold: bool
    human: KindHumans
    models: list[KindModel]


@dataclass(frozen=True)
class CustomSections(Sections):
    #: None: no item of a known kind passes the filters
    by_kind: list[KindRow] | None = field(default=None, metadata=OMIT_IF_NONE)
