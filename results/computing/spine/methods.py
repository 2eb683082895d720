"""What a methods section says of a study, and who its participants said they were."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from parity.reporting.methods import CROSSED
from results.computing.spine.node import OMIT_IF_NONE, Node

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
    #: asked to return the study after failing the comprehension check (every status above and this
    #: one add up to `entered`; `excluded` are among the completed); 0 in results written before it
    #: was recorded
    screened_out: int = 0


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
    #: the gap's interval and test (`parity.reporting.methods`); results written before it was
    #: recorded were computed by the same method
    gap_ci_method: str = CROSSED


@dataclass(frozen=True)
class Reporting(Node):
    """What the researchers entered while drafting (the population of interest, the ethics review
    and the paper, as mappings of the form's fields), and the design's power analysis
    (`studies.design.power`), None where none was recorded."""

    population: str
    ethics: dict[str, str]
    paper: dict[str, str]
    power: dict[str, Any] | None


@dataclass(frozen=True)
class ItemSample(Node):
    """Which items the units were built from: "all", or a "random", "stratified" or "stratified_each" subset drawn
    with `seed` (`parity.sampling`), `drawn` of the `available` ones."""

    method: str
    drawn: int
    available: int
    seed: int | None


@dataclass(frozen=True)
class Recruiting(Node):
    """Who could take part and who was kept out: the Prolific prescreening as stored
    (`studies.design.screening`), the people refused for an earlier study of the group, the items sampled, and
    the closing question "seen before" counted (None when it was not asked)."""

    prescreening: dict[str, Any]
    refused_earlier_participation: int
    items: ItemSample
    seen_before: dict[str, int] | None


@dataclass(frozen=True)
class TrainingPhase(Node):
    """The practice and comprehension check before the items (`parity.training`), never counted in the
    results: what they were, who began them, passed the check or was asked to return the study after
    its last try, the practice answered right, and how long it took, within the paid time: the median
    over those who finished it, and that time's share of the reward at the study's estimated rate."""

    practice_questions: int
    comprehension_questions: int
    comprehension_tries: int
    began: int
    finished: int
    screened_out: int
    practice_answered: int
    practice_right: int
    median_minutes: float | None
    median_pay_pence: int | None


@dataclass(frozen=True)
class Explanations(Node):
    """Whether participants were asked why they answered (`studies.design.explanations`): `mode` "off",
    "nth" (after every `every`-th item of a sequence), "every" or "end" (one closing question), in
    words as `asked`; what they wrote counted over the whole study, and the file of a replication
    bundle that holds it."""

    mode: str
    every: int | None
    asked: str
    given: int
    people: int
    file: str


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
    training: TrainingPhase | None = field(default=None, metadata=OMIT_IF_NONE)
    explanations: Explanations | None = field(default=None, metadata=OMIT_IF_NONE)


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
