"""A study's results as a typed tree: `StudyResults`, built once by `results.computing.assemble` from the
`parity.stats` results and read by attribute, turned into JSON only at the edges (the
`study_results --json` command, the API, the replication bundle) by `to_json`, and read back by
`StudyResults.from_json` where results come as JSON (a replication bundle's analysis file).

The JSON is the one the results had as a plain dict, key for key and in the same order (a test
compares it byte for byte: tests/results/test_results_golden.py). A field's JSON key is its name;
a field's metadata may say otherwise:

- `omit_if_none`: the key is left out when the value is None (the participants flagged and left
  out, counted only when the filter leaves them out; a rating study's graded section);
- `present_if`: the key is written only when the named boolean field of the same node is true;
- `inline`: the value, a mapping or a `parity.stats` result, is written into the node itself (the
  benchmark's headline entries; a run's paired test and its place in the human band);
- `hidden`: never written (what the tree knows that the JSON does not say).

The sections still held as JSON mappings (the benchmark's own breakdowns and headline entries) come as
they are from the benchmark's package. The tree is free of
Django: it names `parity.stats` types only.
"""

from __future__ import annotations

import types
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any, Self, Union, get_args, get_origin, get_type_hints

from parity.stats.accuracy import AccuracyAcrossUnits
from parity.stats.agreement import IccBlock
from parity.stats.band import ModelInBand
from parity.stats.compare import ItemDisagreement
from parity.stats.paired import PairedTest
from parity.stats.placement import DivergentItem, ItemParameters

#: the metadata of a field written only when not None
OMIT_IF_NONE = {"omit_if_none": True}
#: the metadata of a field never written
HIDDEN = {"hidden": True}
#: the metadata of a mapping written into its node
INLINE = {"inline": True}


def to_json(value: Any) -> Any:
    """The JSON value of a node of the tree (or of anything in it: a `parity.stats` leaf gives its
    `to_dict()`, a tuple a list)."""
    if isinstance(value, Node):
        return value.to_json()
    if is_dataclass(value) and not isinstance(value, type):
        return value.to_dict()  # type: ignore[attr-defined]
    if isinstance(value, Mapping):
        return {key: to_json(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [to_json(item) for item in value]
    return value


def from_json(hint: Any, value: Any) -> Any:
    """The value of type `hint` (a field's annotation) that `to_json` writes as `value`: the inverse
    of `to_json` on the tree's types (its nodes, `parity.stats` leaves, lists, JSON mappings)."""
    if value is None:
        return None
    origin = get_origin(hint)
    if origin is Union or origin is types.UnionType:
        kinds = [kind for kind in get_args(hint) if kind is not type(None)]
        return from_json(kinds[0], value) if len(kinds) == 1 else value
    if origin is list:
        (kind,) = get_args(hint)
        return [from_json(kind, item) for item in value]
    if isinstance(hint, type) and issubclass(hint, Node):
        return hint.from_json(value)
    if isinstance(hint, type) and is_dataclass(hint):
        return _leaf_from_json(hint, value)
    return value


def _leaf_from_json(cls: type, data: Mapping[str, Any]) -> Any:
    """A `parity.stats` result from its `to_dict()`."""
    hints = get_type_hints(cls)
    return cls(**{spec.name: from_json(hints[spec.name], data[spec.name]) for spec in fields(cls) if spec.name in data})


class Node:
    """A dataclass of the tree: written as a JSON object, one key per field (see the module doc)."""

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Self:
        """The node `to_json` writes as `data`: a key left out gives the field's default (None), a
        hidden switch is true when the keys it governs were written, and an inlined value takes
        the keys no other field claims (a `parity.stats` leaf only its own)."""
        hints = get_type_hints(cls)
        specs = fields(cls)  # type: ignore[arg-type]
        values: dict[str, Any] = {}
        for spec in specs:
            if not (spec.metadata.get("hidden") or spec.metadata.get("inline")) and spec.name in data:
                values[spec.name] = from_json(hints[spec.name], data[spec.name])
        for spec in specs:
            governed = [other.name for other in specs if other.metadata.get("present_if") == spec.name]
            if spec.metadata.get("hidden") and governed:
                values[spec.name] = all(name in data for name in governed)
        claimed = {spec.name for spec in specs if not spec.metadata.get("inline")}
        for spec in (spec for spec in specs if spec.metadata.get("inline")):
            hint = hints[spec.name]
            rest = {key: item for key, item in data.items() if key not in claimed}
            if isinstance(hint, type) and is_dataclass(hint):
                rest = {key: item for key, item in rest.items() if key in {own.name for own in fields(hint)}}
            values[spec.name] = from_json(hint, rest)
            claimed |= set(rest)
        return cls(**values)

    def json_item(self, key: str) -> Any:
        """The value this node writes under `key`: a field's, or one of an inlined value's."""
        for spec in fields(self):  # type: ignore[arg-type]
            value = getattr(self, spec.name)
            if spec.metadata.get("hidden"):
                continue
            if not spec.metadata.get("inline"):
                if spec.name == key:
                    return value
            elif isinstance(value, Mapping) and key in value:
                return value[key]
            elif is_dataclass(value) and key in {own.name for own in fields(value)}:
                return getattr(value, key)
        raise KeyError(key)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for spec in fields(self):  # type: ignore[arg-type]
            meta, value = spec.metadata, getattr(self, spec.name)
            if meta.get("hidden") or (meta.get("omit_if_none") and value is None):
                continue
            if "present_if" in meta and not getattr(self, meta["present_if"]):
                continue
            if meta.get("inline"):
                out.update(to_json(value))
            else:
                out[spec.name] = to_json(value)
        return out


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
    cohen_kappa_std_across_units: float | None
    fleiss_kappa: float | None
    krippendorff_alpha: float | None
    percent_agreement: float | None
    icc2k: float | None
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
    sections: dict[str, Any] = field(default_factory=dict, metadata=INLINE)


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
    n_items: int
    n_blocks: int
    n_items_without_icc: int
    blocks: list[IccBlock]
    generative_scores: list[GenerativeScore]


# -- what a methods section says (`results.computing.methods`) --------------------------------------------


@dataclass(frozen=True)
class ProlificRecruitment(Node):
    places: int
    status: str
    #: the stopping rule: recruit until a target ("ci_width": the human-accuracy interval at most
    #: `target_value` points wide; "per_unit": completions per unit), or "" for none
    target_kind: str
    target_value: float | None


@dataclass(frozen=True)
class CollectionDates(Node):
    """The days (UTC) data collection began and ended."""

    first_start: str | None
    last_completion: str | None


@dataclass(frozen=True)
class ExclusionReason(Node):
    reason: str
    n: int


@dataclass(frozen=True)
class Entered(Node):
    """Everyone who entered the study, by what became of them."""

    entered: int
    imported: int
    declined: int
    returned: int
    timed_out: int
    in_progress: int
    completed: int
    excluded: int
    exclusion_reasons: list[ExclusionReason]


@dataclass(frozen=True)
class AttentionRule(Node):
    checks_per_participant: int
    exclude_at: int
    answer_floor_ms: int


@dataclass(frozen=True)
class Pay(Node):
    """Every amount in the smallest unit of the Prolific workspace's `currency`."""

    reward_pence: int
    estimated_minutes: int
    estimated_hourly_pence: float | None
    median_minutes: float | None
    median_hourly_pence: float | None
    bonus_per_correct_pence: int
    currency: str


@dataclass(frozen=True)
class Spread(Node):
    min: int
    max: int


@dataclass(frozen=True)
class DesignSetting(Node):
    key: str
    label: str
    value: bool | int | float | str


@dataclass(frozen=True)
class Design(Node):
    benchmark: str
    benchmark_title: str
    n_units: int
    n_items: int
    items_per_participant: Spread
    participants_per_unit: Spread
    settings: list[DesignSetting]


@dataclass(frozen=True)
class RunProvenance(Node):
    """A run's model as a methods section names it; an imported run names its source file."""

    run: int
    label: str
    model: str
    model_id: str
    revision: str
    dtype: str
    kind: str
    setting: str
    source: str
    samples_file: str | None
    engine_version: str | None


@dataclass(frozen=True)
class StatisticsSettings(Node):
    ci_level: float
    n_boot: int
    seed: int
    human_ci_method: str


@dataclass(frozen=True)
class Reporting(Node):
    """What the researchers entered while drafting (the population of interest, the ethics review
    and the paper, as mappings of the form's fields), and the design's power analysis
    (`studies.power`), None where none was recorded."""

    population: str
    ethics: dict[str, str]
    paper: dict[str, str]
    power: dict[str, Any] | None


@dataclass(frozen=True)
class ItemSample(Node):
    """Which items the units were built from: "all", or a "random" or "stratified" subset drawn
    with `seed` (`parity.sampling`), `drawn` of the `available` ones."""

    method: str
    drawn: int
    available: int
    seed: int | None


@dataclass(frozen=True)
class Recruiting(Node):
    """Who could take part and who was kept out: the Prolific prescreening as stored
    (`studies.screening`), the people refused for an earlier study of the group, the items sampled, and
    the closing question "seen before" counted (None when it was not asked)."""

    prescreening: dict[str, Any]
    refused_earlier_participation: int
    items: ItemSample
    seen_before: dict[str, int] | None


@dataclass(frozen=True)
class Methods(Node):
    """What a methods section says of a study: whole-study figures, the results' filters aside."""

    #: "prolific", "link" or "imported"
    platform: str
    prolific: ProlificRecruitment | None
    dates: CollectionDates
    participants: Entered
    attention: AttentionRule
    pay: Pay
    design: Design
    models: list[RunProvenance]
    statistics: StatisticsSettings
    reporting: Reporting
    recruiting: Recruiting | None = field(default=None, metadata=OMIT_IF_NONE)


# -- who the participants said they were (`results.computing.demographics`) ------------------


@dataclass(frozen=True)
class AgeSummary(Node):
    n: int
    median: float
    low: int
    high: int


@dataclass(frozen=True)
class AccuracyWithout(Node):
    """Human accuracy over fewer participants: its mean, interval and how many people it is over."""

    mean: float | None
    ci95: list[float | None] | None
    n_annotators: int


@dataclass(frozen=True)
class ClosingSummary(Node):
    """The closing questions over the participants in the results: counts of each answer, the age's
    median and range, the share who said they used an AI tool of those who answered, and the human
    accuracy without them."""

    asked: list[str]
    n_participants: int
    #: participants who sent any closing answer
    n_answered: int
    age: AgeSummary | None
    #: by question key, the count of each answer (a first language case-folded)
    counts: dict[str, dict[str, int]]
    ai_tool_yes: int | None
    #: those who answered the AI-tool question other than "prefer not to say"
    ai_tool_answered: int | None
    ai_tool_yes_share: float | None
    accuracy_without_ai_users: AccuracyWithout | None


# -- the whole ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class StudyResults(Node):
    """Everything the results page shows of one study under one choice of filters."""

    study: str
    study_id: int
    benchmark: str
    status: str
    is_imported: bool
    filters: dict[str, str]
    #: the item detail the study's breakdowns are by (None: the benchmark has none)
    category_field: str | None
    seed: int
    n_boot: int
    participants: Participants
    human: Human
    units: list[UnitResults]
    models: list[ModelResults]
    breakdowns: Breakdowns
    # models among people (`results.computing.comparison`): the joint IRT placement or why not, the paired
    # tests, the human band
    irt: Irt | None
    irt_reason: str | None
    paired: list[RunPaired]
    human_band: list[RunInBand]
    graded: Graded | None = field(default=None, metadata=OMIT_IF_NONE)
    #: the closing questions summarised (None: the study asks none that is summarised)
    closing: ClosingSummary | None = field(default=None, metadata=OMIT_IF_NONE)
    #: the benchmark's own top-level entries (AmbiBench: the oracle by position)
    headlines: dict[str, Any] = field(default_factory=dict, metadata=INLINE)
    #: what a methods paragraph says (`results.computing.methods`); keyword-only, as it follows fields with defaults
    methods: Methods = field(kw_only=True)

    def model(self, run: int) -> ModelResults | None:
        return next((model for model in self.models if model.run == run), None)
