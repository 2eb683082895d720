"""AmbiBench's own sections of the results (`results.py` computes them): accuracy by example
position for humans, each model and the Bayesian oracle, the answers to repeated sentences apart,
and the oracle's accuracy by position at the results' top level."""

from __future__ import annotations

from dataclasses import dataclass, field

from ...records import INLINE, OMIT_IF_NONE, Record
from ..sections import Headlines, Sections
from .positions import PositionCurve


@dataclass(frozen=True)
class FeatureCurves(Record):
    """A curve over all episodes (None: no answers) and one per salient feature."""

    overall: PositionCurve | None
    by_feature: list[PositionCurve]


@dataclass(frozen=True)
class Curves(FeatureCurves):
    """The humans' or a model's curves, with one per salient feature and format as well."""

    by_feature_format: list[PositionCurve]


@dataclass(frozen=True)
class ModelCurves(Record):
    run: int
    label: str
    curves: Curves = field(metadata=INLINE)


@dataclass(frozen=True)
class ByPosition(Record):
    humans: Curves
    models: list[ModelCurves]
    oracle: FeatureCurves


@dataclass(frozen=True)
class RepeatSplit(Record):
    """Answers counted with and without those to a sentence seen earlier in its episode."""

    n_answers: int
    n_repeats: int
    accuracy: float | None
    accuracy_excluding_repeats: float | None
    accuracy_on_repeats: float | None


@dataclass(frozen=True)
class ModelRepeats(Record):
    run: int
    label: str
    split: RepeatSplit = field(metadata=INLINE)


@dataclass(frozen=True)
class Repeats(Record):
    humans: RepeatSplit
    models: list[ModelRepeats]


@dataclass(frozen=True)
class AmbiBenchSections(Sections):
    #: None: no item of the study has an episode position
    by_position: ByPosition | None = field(default=None, metadata=OMIT_IF_NONE)
    #: None: no item carries the `repeat_of` flag (items generated before it)
    repeats: Repeats | None = field(default=None, metadata=OMIT_IF_NONE)


@dataclass(frozen=True)
class OraclePoint(Record):
    position: int
    n_episodes: int
    accuracy: float


@dataclass(frozen=True)
class AmbiBenchHeadlines(Headlines):
    #: None: the study has no oracle curve
    oracle_by_position: list[OraclePoint] | None = field(default=None, metadata=OMIT_IF_NONE)
