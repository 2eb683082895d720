"""The shapes of the benchmarks' own sections of the results (`Breakdowns.sections`) that the
results' tables and charts draw, read by attribute.

The records are declared by the benchmarks in the library (`parity/benchmarks/<name>/sections.py`);
the results never name a benchmark (tests/test_layers.py), so they reach a section by its field
name (`Breakdowns.section`) and read it through these protocols of what they draw."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from results.computing.tree import StudyResults

# -- accuracy by example position (the position table and chart) --------------------------------


class PositionPoint(Protocol):
    @property
    def position(self) -> int: ...
    @property
    def n_episodes(self) -> int: ...
    @property
    def accuracy(self) -> float: ...
    @property
    def ci_low(self) -> float | None: ...
    @property
    def ci_high(self) -> float | None: ...


class PositionCurve(Protocol):
    @property
    def group(self) -> Mapping[str, str | None]: ...
    @property
    def points(self) -> Sequence[PositionPoint]: ...


class FeatureCurves(Protocol):
    """A curve over all episodes (None: no answers), and one per salient feature."""

    @property
    def overall(self) -> PositionCurve | None: ...
    @property
    def by_feature(self) -> Sequence[PositionCurve]: ...


class ModelCurves(Protocol):
    @property
    def label(self) -> str: ...
    @property
    def curves(self) -> FeatureCurves: ...


class ByPosition(Protocol):
    @property
    def humans(self) -> FeatureCurves: ...
    @property
    def models(self) -> Sequence[ModelCurves]: ...
    @property
    def oracle(self) -> FeatureCurves: ...


# -- accuracy per prompt template (the template table and chart) --------------------------------


class TemplateBreakdown(Protocol):
    @property
    def per_template(self) -> Mapping[int, float]: ...
    @property
    def templates(self) -> Sequence[int]: ...
    @property
    def mean(self) -> float | None: ...
    @property
    def std(self) -> float | None: ...
    @property
    def structured_templates(self) -> Sequence[int]: ...
    @property
    def structured_mean(self) -> float | None: ...
    @property
    def structured_std(self) -> float | None: ...
    @property
    def natural_templates(self) -> Sequence[int]: ...
    @property
    def natural_mean(self) -> float | None: ...
    @property
    def natural_std(self) -> float | None: ...
    @property
    def extra_templates(self) -> Sequence[int]: ...
    @property
    def extra_mean(self) -> float | None: ...
    @property
    def extra_std(self) -> float | None: ...


class TemplateGroup(Protocol):
    @property
    def model(self) -> str: ...
    @property
    def setting_key(self) -> str: ...
    @property
    def breakdown(self) -> TemplateBreakdown: ...


# -- accuracy per direction and shots, by wording (the wording table) ----------------------------


class DirectionAccuracy(Protocol):
    @property
    def directions(self) -> Mapping[str, float | None]: ...


class WordingRow(Protocol):
    @property
    def prompt(self) -> str: ...
    @property
    def wording(self) -> str: ...
    @property
    def by_k(self) -> Mapping[str, DirectionAccuracy | None]: ...


class ModelWordings(Protocol):
    @property
    def model(self) -> str: ...
    @property
    def best_wording(self) -> str | None: ...
    @property
    def zero_shot(self) -> Mapping[str, float | None]: ...
    @property
    def rows(self) -> Sequence[WordingRow]: ...


# -- per kind of item (the kind table) ----------------------------------------------------------


class RatingAgreement(Protocol):
    @property
    def krippendorff_alpha_ordinal(self) -> float | None: ...


class KindHumans(Protocol):
    @property
    def n_answers(self) -> int: ...
    @property
    def accuracy(self) -> float | None: ...
    @property
    def ci95(self) -> Sequence[float] | None: ...
    @property
    def agreement(self) -> RatingAgreement | None: ...


class KindModel(Protocol):
    @property
    def label(self) -> str: ...
    @property
    def accuracy(self) -> float | None: ...
    @property
    def accuracy_norm(self) -> float | None: ...
    @property
    def mean_score(self) -> float | None: ...


class KindRow(Protocol):
    @property
    def kind(self) -> str: ...
    @property
    def n_items(self) -> int: ...
    @property
    def has_gold(self) -> bool: ...
    @property
    def human(self) -> KindHumans: ...
    @property
    def models(self) -> Sequence[KindModel]: ...


# -- the sections, by their field names ---------------------------------------------------------


def by_position(results: StudyResults) -> ByPosition | None:
    section: ByPosition | None = results.breakdowns.section("by_position")
    return section


def by_template(results: StudyResults) -> Sequence[TemplateGroup] | None:
    section: Sequence[TemplateGroup] | None = results.breakdowns.section("by_template")
    return section


def by_wording(results: StudyResults) -> Sequence[ModelWordings] | None:
    section: Sequence[ModelWordings] | None = results.breakdowns.section("by_wording")
    return section


def by_kind(results: StudyResults) -> Sequence[KindRow] | None:
    section: Sequence[KindRow] | None = results.breakdowns.section("by_kind")
    return section
