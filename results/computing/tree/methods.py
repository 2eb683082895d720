"""What a methods section says of a study, and who its participants said they were."""

from __future__ import annotations

from dataclasses import dataclass, field

from parity.records import HIDDEN, OMIT_IF_EMPTY, OMIT_IF_NONE
from parity.reporting.methods import CROSSED
from parity.stats.power import VarianceComponents
from results.computing.tree.node import Node

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
    #: the version of the tool that ran the model elsewhere (Inspect's, for a run imported from its log)
    source_version: str | None = field(default=None, metadata=OMIT_IF_NONE)


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
class Ethics(Node):
    """The ethics review as the researchers entered it ("" where they entered nothing)."""

    body: str
    reference: str
    exemption: str


@dataclass(frozen=True)
class Paper(Node):
    """The paper the study is reported in, as the researchers entered it ("" where they entered nothing)."""

    title: str
    url: str
    venue: str


@dataclass(frozen=True)
class VarianceSource(Node):
    """Where a power analysis took its variance from (`studies.design.power.VarianceSource`): a pilot, a
    published study or a stated default, in words as `label`."""

    kind: str
    label: str
    components: VarianceComponents | None
    study: str = ""
    n_people: int = 0
    n_items: int = 0


#: the metadata of a power analysis's figures: written when the analysis was computed
COMPUTED = {"present_if": "computed"}


@dataclass(frozen=True)
class PlannedPower(Node):
    """The design's power analysis as the study keeps it (`studies.design.power.design_power`): a
    `parity.stats.power.PowerAnalysis` with its `source`; an analysis the model could not compute
    keeps only the design and `reason`. The design's figures are None (and left out) where the
    record does not hold them."""

    people: int | None = field(default=None, metadata=OMIT_IF_NONE)
    units: int | None = field(default=None, metadata=OMIT_IF_NONE)
    items_per_person: int | None = field(default=None, metadata=OMIT_IF_NONE)
    #: whether the analysis was computed, which writes the figures below (the record says it by holding them)
    computed: bool = field(default=False, metadata=HIDDEN)
    n_items: int | None = field(default=None, metadata=COMPUTED)
    baseline: float | None = field(default=None, metadata=COMPUTED)
    person_sd: float | None = field(default=None, metadata=COMPUTED)
    item_sd: float | None = field(default=None, metadata=COMPUTED)
    power: float | None = field(default=None, metadata=COMPUTED)
    alpha: float | None = field(default=None, metadata=COMPUTED)
    #: the smallest gap detected with `power`: the larger of the two sides, then each side's (None: none that side)
    detectable_gap: float | None = field(default=None, metadata=COMPUTED)
    detectable_above: float | None = field(default=None, metadata=COMPUTED)
    detectable_below: float | None = field(default=None, metadata=COMPUTED)
    #: the human CI's expected half-width over participants, and over items too
    human_half_width: float | None = field(default=None, metadata=COMPUTED)
    human_half_width_items: float | None = field(default=None, metadata=COMPUTED)
    target: str | None = field(default=None, metadata=COMPUTED)
    method: str | None = field(default=None, metadata=COMPUTED)
    #: why a figure is missing (None when none is)
    reason: str | None = None
    source: VarianceSource | None = field(default=None, metadata=OMIT_IF_NONE)

    @property
    def detects(self) -> bool:
        """Whether a gap on either side is detected (what the methods and the checklist state)."""
        return self.detectable_above is not None or self.detectable_below is not None


@dataclass(frozen=True)
class Reporting(Node):
    """What the researchers entered while drafting (the population of interest, the ethics review
    and the paper), and the design's power analysis (`studies.design.power`), None where none was recorded."""

    population: str
    ethics: Ethics
    paper: Paper
    power: PlannedPower | None


@dataclass(frozen=True)
class ItemSample(Node):
    """Which items the units were built from: "all", or a "random", "stratified" or "stratified_each" subset drawn
    with `seed` (`parity.sampling`), `drawn` of the `available` ones."""

    method: str
    drawn: int
    available: int
    seed: int | None


@dataclass(frozen=True)
class Prescreening(Node):
    """The Prolific prescreening as the study stores it (`studies.design.screening.Screening.to_json`): only
    what is set is written, the select filters as Prolific's choice ids."""

    age_min: int | None = field(default=None, metadata=OMIT_IF_EMPTY)
    age_max: int | None = field(default=None, metadata=OMIT_IF_EMPTY)
    sex: list[str] = field(default_factory=list, metadata=OMIT_IF_EMPTY)
    first_languages: list[str] = field(default_factory=list, metadata=OMIT_IF_EMPTY)
    fluent_languages: list[str] = field(default_factory=list, metadata=OMIT_IF_EMPTY)
    countries: list[str] = field(default_factory=list, metadata=OMIT_IF_EMPTY)
    approval_rate_min: int | None = field(default=None, metadata=OMIT_IF_EMPTY)
    #: refuse, on Prolific, the participants of the researchers' earlier Parity studies on Prolific
    exclude_earlier: bool = field(default=False, metadata=OMIT_IF_EMPTY)

    @property
    def is_set(self) -> bool:
        """Whether any filter is set (the stored mapping is not empty)."""
        return bool(self.to_json())


@dataclass(frozen=True)
class SeenBefore(Node):
    """The closing question "Had you seen any of these items before this study?", counted."""

    yes: int
    no: int


@dataclass(frozen=True)
class Recruiting(Node):
    """Who could take part and who was kept out: the Prolific prescreening as stored
    (`studies.design.screening`), the people refused for an earlier study of the group, the items sampled, and
    the closing question "seen before" counted (None when it was not asked)."""

    prescreening: Prescreening
    refused_earlier_participation: int
    items: ItemSample
    seen_before: SeenBefore | None


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
    #: the panel that recruited, by name, when it is not Prolific (`Study.panel`, parity.panels)
    panel: str | None = field(default=None, metadata=OMIT_IF_NONE)


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
