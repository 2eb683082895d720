"""What was measured: who is in the results, the humans, the units, the model runs, the breakdowns,
the models among people, a rating study's grades."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any, Self

from parity.benchmarks.sections import Sections
from parity.records import HIDDEN, INLINE, OMIT_IF_NONE
from parity.reporting.methods import reliability
from parity.stats.accuracy import AccuracyAcrossUnits
from parity.stats.agreement import IccBlock
from parity.stats.band import ModelInBand
from parity.stats.compare import ItemDisagreement
from parity.stats.paired import PairedTest
from parity.stats.placement import DivergentItem, ItemParameters
from results.computing.tree.node import Node

# -- who is in the results ----------------------------------------------------------------------


@dataclass(frozen=True)
class Participants(Node):
    """The participants with an answer, included or excluded; everyone still working; the flagged
    left out by the filter (None when the filter keeps them); how many imported."""

    included: int
    excluded: int
    in_progress: int
    flagged_left_out: int | None = field(default=None, metadata=OMIT_IF_NONE)
    imported: int = 0


# -- the humans ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class AnnotatorAccuracy(Node):
    annotator: str
    #: None in a study not divided into units
    unit: str | None
    n: int
    accuracy: float | None


@dataclass(frozen=True)
class HumanAccuracy(Node):
    mean: float | None
    best: float | None
    worst: float | None
    std: float | None
    #: [low, high], or None when undefined
    ci95: list[float | None] | None
    #: a t-interval over annotators, or the confidence sequence a "ci_width" recruitment stopped on
    ci_method: str
    small_n_warning: bool
    #: a t-interval near the ceiling over fewer than 30 annotators: the sentence saying it may be too
    #: narrow (`parity.stats.intervals.ceiling_note`), printed in place of the few-annotators warning
    #: where both hold; None elsewhere
    ci_note: str | None
    per_annotator: list[AnnotatorAccuracy]


@dataclass(frozen=True)
class Human(Node):
    n_annotators: int
    n_items: int
    #: the items the accuracy is over: those with a right answer
    n_items_scored: int
    n_answers: int
    accuracy: HumanAccuracy
    #: Ruis et al.'s Table 7 "Total" row
    accuracy_across_units: AccuracyAcrossUnits
    cohen_kappa_mean_pairwise: float | None
    #: its 95% CI by a bootstrap over items within units (`parity.stats.agreement_ci`); None with a
    #: reason in `cohen_kappa_ci_note`
    cohen_kappa_mean_pairwise_ci95: list[float] | None
    #: how that CI was made and how often it covered in simulation, or why there is none
    cohen_kappa_ci_note: str
    cohen_kappa_std_across_units: float | None
    fleiss_kappa: float | None
    krippendorff_alpha: float | None
    #: 95% CIs of the two by a bootstrap over items (`parity.stats.agreement_ci`); None with a reason
    #: in `agreement_ci_note`
    fleiss_kappa_ci95: list[float] | None
    krippendorff_alpha_ci95: list[float] | None
    #: how the agreement CIs were made and how often they covered in simulation, or why there are none
    agreement_ci_note: str
    percent_agreement: float | None
    icc2k: float | None
    #: a rating study's ICC(2,k) 95% CI (`parity.stats.icc_ci`), None with a reason in `icc_ci_note`
    icc2k_ci95: list[float] | None = field(default=None, metadata={"present_if": "graded"})
    icc_ci_note: str | None = field(default=None, metadata={"present_if": "graded"})
    #: a rating study's mean of the units' ICC(2,k) (written for a rating study only)
    icc2k_mean_across_units: float | None = field(default=None, metadata={"present_if": "graded"})
    graded: bool = field(default=False, metadata=HIDDEN)


# -- the units ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class UnitAnnotator(Node):
    annotator: str
    n: int
    accuracy: float | None


@dataclass(frozen=True)
class UnitResults(Node):
    unit: str
    category: str | None
    capacity: int
    n_annotators: int
    n_items: int
    annotators: list[UnitAnnotator]
    accuracy_mean: float | None
    accuracy_best: float | None
    accuracy_worst: float | None
    accuracy_std: float | None
    accuracy_ci95: list[float | None] | None
    accuracy_ci_method: str | None
    small_n_warning: bool
    #: the unit's own t-interval near the ceiling over fewer than 30 annotators: why it may be too narrow
    accuracy_ci_note: str | None
    cohen_kappa_mean_pairwise: float | None
    fleiss_kappa: float | None
    krippendorff_alpha: float | None
    percent_agreement: float | None
    icc2k: float | None


# -- the model runs -----------------------------------------------------------------------------


@dataclass(frozen=True)
class ModelResults(Node):
    """A run on all the items it answered, and beside the humans on the items both answered."""

    run: int
    model: str
    setting: dict[str, Any]
    setting_key: str
    label: str
    status: str
    n_items: int
    n_answers: int
    n_valid: int
    #: all the items it answered with a right answer
    n_items_scored: int
    accuracy: float | None
    accuracy_ci95: list[float | None] | None
    #: MiQA: the decision on both presentations' log-likelihoods averaged, one per item
    accuracy_averaged_likelihood: float | None
    #: the items both answered
    n_items_same: int
    accuracy_same_items: float | None
    human_accuracy_same_items: float | None
    gap_to_humans: float | None
    gap_ci95: list[float | None] | None
    kappa_vs_human_majority: float | None
    agreement_with_human_majority: float | None
    n_items_with_majority: int
    n_tied_items: int
    disagreements: list[ItemDisagreement]
    #: the one answer it gave to every item it answered validly, two items or more (None when it
    #: varied): its comparison with people is then with a constant answerer
    constant_answer: str | None = field(default=None, metadata=OMIT_IF_NONE)


# -- the breakdowns -----------------------------------------------------------------------------


@dataclass(frozen=True)
class CategoryHumans(Node):
    """The humans on the category's items they answered."""

    n_annotators: int
    n_items: int
    mean: float | None
    ci95: list[float | None] | None
    small_n_warning: bool


@dataclass(frozen=True)
class CategoryModel(Node):
    """A run on all the category's items it answered, and on those the humans answered too."""

    run: int
    label: str
    n_items: int
    accuracy: float | None
    n_items_same: int
    accuracy_same_items: float | None


@dataclass(frozen=True)
class CategoryRow(Node):
    category: str | None
    #: the items anyone answered: humans, models or both
    n_items: int
    human: CategoryHumans
    models: list[CategoryModel]


@dataclass(frozen=True)
class ByCategory(Node):
    #: the benchmark's category field ("type" for implicature)
    field: str | None
    rows: list[CategoryRow]


@dataclass(frozen=True)
class Breakdowns(Node):
    """Accuracy per category (where the benchmark has a category field), then the benchmark's own
    sections as its package gives them (`Benchmark.breakdowns`: by template, by position, ...)."""

    by_category: ByCategory | None = field(default=None, metadata=OMIT_IF_NONE)
    #: the benchmark's own type (`Benchmark.sections_type`)
    sections: Sections = field(default_factory=Sections, metadata=INLINE)

    @classmethod
    def from_json(cls, data: Mapping[str, Any], sections: type[Sections] = Sections) -> Self:
        """The breakdowns `to_json` writes as `data`, the benchmark's own sections read as `sections`
        (the benchmark's `sections_type`; the base type holds none)."""
        read = super().from_json(data)
        claimed = {spec.name for spec in fields(cls) if not spec.metadata.get("inline")}
        own = {key: item for key, item in data.items() if key not in claimed}
        return replace(read, sections=sections.from_json(own))

    def section(self, name: str) -> Any:
        """The benchmark's own section `name`, a field of its sections (None where they have none):
        the results' tables and charts read the sections they draw by attribute, without naming the
        benchmark whose type declares them (tests/test_layers.py)."""
        return getattr(self.sections, name, None)


# -- models among people ------------------------------------------------------------------------


@dataclass(frozen=True)
class RunPaired(Node):
    """A run against the people on the items both answered (`parity.stats.paired`); the test's
    numbers as its JSON gives them (None, never NaN)."""

    run: int
    label: str
    test: PairedTest = field(metadata=INLINE)


@dataclass(frozen=True)
class RunInBand(Node):
    """A run's mean kappa with the people against the people's band (`parity.stats.band`)."""

    run: int
    label: str
    placed: ModelInBand = field(metadata=INLINE)


@dataclass(frozen=True)
class RunPlacement(Node):
    """A run placed among the people (`parity.stats.placement.ModelPlacement`, named by its run)."""

    run: int
    label: str
    #: in the people population's SDs from its mean
    ability: float
    ci: list[float]
    se: float
    se_answers: float
    #: the share (0–100) of this study's participants below the model
    percentile: float
    population_percentile: float
    population_percentile_ci: list[float]
    n_items: int
    #: why this run's CI may cover less than its level ("" when nothing is known against it)
    ci_note: str = ""


@dataclass(frozen=True)
class PlacedItem(Node):
    parameters: ItemParameters = field(metadata=INLINE)
    #: the item's words (`results.computing.comparison.item_text`)
    text: str = ""


@dataclass(frozen=True)
class DivergentItemText(Node):
    divergent: DivergentItem = field(metadata=INLINE)
    text: str = ""


@dataclass(frozen=True)
class Irt(Node):
    """The joint item-response placement of people and runs (`parity.stats.placement.Placement`),
    its runs named by run and label and its items with their words."""

    #: "rasch" or "2pl"
    model: str
    people: int
    items_used: int
    items_dropped_all_right: int
    items_dropped_all_wrong: int
    person_reliability: float | None
    item_reliability: float | None
    converged: bool
    confidence: float
    calibrated: bool
    calibration_note: str
    scale_logits: float | None
    models: list[RunPlacement]
    people_abilities: list[float]
    items: list[PlacedItem]
    n_items_tested: int
    n_divergent: int
    divergent_items: list[DivergentItemText]

    @property
    def reliability_said(self) -> str:
        """The person and item separation reliabilities in words, those estimated ("" with neither):
        a clamped estimate is said to be not estimable, never printed as 0.00."""
        return ", ".join(
            reliability(name, value)
            for name, value in (("person", self.person_reliability), ("item", self.item_reliability))
            if value is not None
        )


# -- a rating study -----------------------------------------------------------------------------


@dataclass(frozen=True)
class GenerativeScore(Node):
    model: str
    n_answers: int
    score: float | None


@dataclass(frozen=True)
class Graded(Node):
    """A rating study: ICC(2,k) over blocks of the same raters, and each model's generative score."""

    icc_form: str
    icc2k: float | None
    #: its 95% CI (`parity.stats.icc_ci`: McGraw & Wong's with one block of raters), None with a reason
    #: in `icc_ci_note`; each block carries its own in `blocks`
    icc2k_ci95: list[float] | None
    icc_ci_method: str
    icc_ci_note: str
    n_items: int
    n_blocks: int
    n_items_without_icc: int
    blocks: list[IccBlock]
    generative_scores: list[GenerativeScore]


# -- the headline under other exclusion rules ---------------------------------------------------


@dataclass(frozen=True)
class PossibleGoldError(Node):
    """An item every analysed person who answered it answered against the gold
    (`results.computing.gold_errors`)."""

    item: str
    text: str
    gold: str
    n_people: int
    #: each answer given and by how many people, the commonest first
    answers: dict[str, int]


@dataclass(frozen=True)
class RunGapUnderRule(Node):
    """A run's gap to the humans of one row (model minus humans, on the items both answered)."""

    run: int
    label: str
    n_items: int
    gap: float | None
    #: the run's accuracy on the items both answered, the gap's own (None: none)
    model_mean: float | None = field(default=None, metadata=OMIT_IF_NONE)


@dataclass(frozen=True)
class RobustnessRow(Node):
    """The headline figures under one exclusion rule (`results.computing.robustness.RULES`)."""

    rule: str
    #: the people this rule puts back in or leaves out, or the answers it drops, against the analysis
    n_changed: int
    n_annotators: int
    n_answers: int
    mean: float | None
    ci95: list[float | None] | None
    gaps: list[RunGapUnderRule]


@dataclass(frozen=True)
class Robustness(Node):
    """The headline human accuracy (and each run's gap) as analysed and under each other exclusion
    rule that changes who or what is included; the interval is the headline's (`ci_method`)."""

    ci_method: str
    #: the study's answer floor the too-fast rule drops answers under (0: none)
    answer_floor_ms: int
    rows: list[RobustnessRow]

    def row(self, rule: str) -> RobustnessRow | None:
        return next((row for row in self.rows if row.rule == rule), None)
