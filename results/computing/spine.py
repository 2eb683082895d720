"""A study's results as a typed tree: `StudyResults`, built once by `results.computing.assemble` from the
`parity.stats` results and read by attribute, turned into JSON only at the edges (the
`study_results --json` command, the API, the replication bundle) by `to_json`.

The JSON is the one the results had as a plain dict, key for key and in the same order (a test
compares it byte for byte: tests/results/test_results_golden.py). A field's JSON key is its name;
a field's metadata may say otherwise:

- `omit_if_none`: the key is left out when the value is None (the participants flagged and left
  out, counted only when the filter leaves them out; a rating study's graded section);
- `present_if`: the key is written only when the named boolean field of the same node is true;
- `inline`: the value, a mapping or a `parity.stats` result, is written into the node itself (the
  benchmark's headline entries; a run's paired test and its place in the human band);
- `hidden`: never written (what the tree knows that the JSON does not say).

The sections still held as JSON mappings (`breakdowns`, `irt`, `methods`, `headlines`) come as they
are from `results.computing.breakdowns`, `results.computing.comparison` and
`results.computing.methods`. The tree is free of Django: it names `parity.stats` types only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any

from parity.stats.accuracy import AccuracyAcrossUnits
from parity.stats.agreement import IccBlock
from parity.stats.band import ModelInBand
from parity.stats.compare import ItemDisagreement
from parity.stats.paired import PairedTest

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


class Node:
    """A dataclass of the tree: written as a JSON object, one key per field (see the module doc)."""

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
    breakdowns: dict[str, Any]
    # models among people (`results.computing.comparison`): the joint IRT placement or why not, the paired
    # tests, the human band
    irt: dict[str, Any] | None
    irt_reason: str | None
    paired: list[RunPaired]
    human_band: list[RunInBand]
    graded: Graded | None = field(default=None, metadata=OMIT_IF_NONE)
    #: the benchmark's own top-level entries (AmbiBench: the oracle by position)
    headlines: dict[str, Any] = field(default_factory=dict, metadata=INLINE)
    #: what a methods paragraph says (`results.computing.methods`)
    methods: dict[str, Any] = field(default_factory=dict)

    def model(self, run: int) -> ModelResults | None:
        return next((model for model in self.models if model.run == run), None)
