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
- `omit_if_empty`: the key is left out when the value is None, an empty list or False (the Prolific
  prescreening, as the study stores it);
- `hidden`: never written (what the tree knows that the JSON does not say).

The benchmark's own breakdowns and headline entries are records of the types its package declares
(`parity.benchmarks.sections`, written and read by `parity.records`); `StudyResults.from_json` asks the
study's benchmark for them. The tree is free of Django: it names `parity` types only.

The nodes live in `node` (the base and its JSON), `measures` (the humans, units, models, breakdowns,
models among people, the headline under other exclusion rules) and `methods` (what a methods
section says); the whole tree is here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any, Self

from parity import benchmarks
from parity.benchmarks.sections import Headlines
from parity.records import HIDDEN, INLINE, OMIT_IF_EMPTY, OMIT_IF_NONE, from_json, to_json
from results.computing.tree.measures import (
    AnnotatorAccuracy,
    Breakdowns,
    ByCategory,
    CategoryHumans,
    CategoryModel,
    CategoryRow,
    DivergentItemText,
    GenerativeScore,
    Graded,
    Human,
    HumanAccuracy,
    Irt,
    ModelResults,
    Participants,
    PlacedItem,
    PossibleGoldError,
    Robustness,
    RobustnessRow,
    RunGapUnderRule,
    RunInBand,
    RunPaired,
    RunPlacement,
    UnitAnnotator,
    UnitResults,
)
from results.computing.tree.methods import (
    AccuracyWithout,
    AgeSummary,
    AttentionRule,
    ClosingSummary,
    CollectionDates,
    Design,
    DesignSetting,
    Entered,
    Ethics,
    ExclusionReason,
    Explanations,
    ItemSample,
    Methods,
    Paper,
    Pay,
    PlannedPower,
    Prescreening,
    ProlificRecruitment,
    Recruiting,
    Reporting,
    RunProvenance,
    SeenBefore,
    Spread,
    StatisticsSettings,
    TrainingPhase,
    VarianceSource,
)
from results.computing.tree.node import Node

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
    #: the headline under other exclusion rules (None: no other rule changes who or what is included)
    robustness: Robustness | None = field(default=None, metadata=OMIT_IF_NONE)
    #: the items every analysed person who answered them answered against the gold (None: no such item)
    possible_gold_errors: list[PossibleGoldError] | None = field(default=None, metadata=OMIT_IF_NONE)
    #: the benchmark's own top-level entries (AmbiBench: the oracle by position), of the benchmark's
    #: own type (`Benchmark.headlines_type`)
    headlines: Headlines = field(default_factory=Headlines, metadata=INLINE)
    #: what a methods paragraph says (`results.computing.methods`); keyword-only, as it follows fields with defaults
    methods: Methods = field(kw_only=True)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Self:
        """The results `to_json` writes as `data`, the benchmark's own sections and headline entries
        read as the types its definition names (the base types, which hold none, when no registered
        benchmark has the study's name)."""
        read = super().from_json(data)
        definition = benchmarks.REGISTRY.get(read.benchmark)
        if definition is None:
            return read
        claimed = {spec.name for spec in fields(cls) if not spec.metadata.get("inline")}
        return replace(
            read,
            breakdowns=Breakdowns.from_json(data["breakdowns"], sections=definition.sections_type()),
            headlines=definition.headlines_type().from_json(
                {key: item for key, item in data.items() if key not in claimed}
            ),
        )

    def model(self, run: int) -> ModelResults | None:
        return next((model for model in self.models if model.run == run), None)


__all__ = [
    "AccuracyWithout",
    "AgeSummary",
    "AnnotatorAccuracy",
    "AttentionRule",
    "Breakdowns",
    "ByCategory",
    "CategoryHumans",
    "CategoryModel",
    "CategoryRow",
    "ClosingSummary",
    "CollectionDates",
    "Design",
    "DesignSetting",
    "DivergentItemText",
    "Entered",
    "Ethics",
    "Explanations",
    "ExclusionReason",
    "GenerativeScore",
    "Graded",
    "HIDDEN",
    "Human",
    "HumanAccuracy",
    "INLINE",
    "Irt",
    "ItemSample",
    "Methods",
    "ModelResults",
    "Node",
    "OMIT_IF_EMPTY",
    "OMIT_IF_NONE",
    "Paper",
    "Participants",
    "Pay",
    "PlacedItem",
    "PlannedPower",
    "Prescreening",
    "ProlificRecruitment",
    "Recruiting",
    "TrainingPhase",
    "Reporting",
    "PossibleGoldError",
    "Robustness",
    "RobustnessRow",
    "RunGapUnderRule",
    "RunInBand",
    "RunPaired",
    "RunPlacement",
    "RunProvenance",
    "SeenBefore",
    "Spread",
    "StatisticsSettings",
    "StudyResults",
    "UnitAnnotator",
    "UnitResults",
    "VarianceSource",
    "from_json",
    "to_json",
]
