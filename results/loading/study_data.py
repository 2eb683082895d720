"""What the results of a study are computed from: its units, items, model runs, human and model
answers, as read by `results.loading.selectors` (or built in memory by a test). `StudyData.humans`
turns a row of the answers' columns into a `HumanAnswer` only where one is asked for.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from typing import Any

import numpy as np

from results.loading.columns import HumanAnswer, HumanAnswers, HumanColumns, ItemInfo, ParticipantInfo
from studies.design.explanations_given import ExplanationCounts, explanation_counts
from studies.models import Participant, Study
from studies.participants.quality import participant_flags


@dataclass(frozen=True)
class UnitInfo:
    label: str
    position: int
    category: str
    capacity: int


@dataclass(frozen=True)
class RunInfo:
    id: int
    model: str
    setting: Mapping[str, Any]
    status: str
    #: the benchmark's name for the setting ("template 2, k=0"); also the setting filter's value
    setting_label: str
    #: what was run, for a methods section: the spec's model id, revision, dtype and kind, and what
    #: the engine recorded it loaded (or where an imported run's answers came from)
    model_id: str = ""
    revision: str = ""
    dtype: str = ""
    kind: str = ""
    identity: Mapping[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return f"{self.model} ({self.setting_label})"


@dataclass(frozen=True)
class Recruitment:
    """The study's Prolific study, when it has one: what a methods section says of recruitment."""

    places: int
    status: str
    bonus_per_correct_pence: int
    #: the recruitment target ("ci_width", "per_unit", or "" for none) and its value
    target_kind: str = ""
    target_value: float | None = None
    #: how a "ci_width" target is met: "planned_looks" or "confidence_sequence"
    target_rule: str = ""
    currency: str = ""  # the workspace's, once read from Prolific


@dataclass(frozen=True)
class ModelAnswer:
    run_id: int
    item_key: str
    #: when a setting answers an item more than once (MiQA's two option orders), which time
    variant: str
    answer: str | None
    valid: bool
    correct: bool | None
    scores: Mapping[str, Any]


@dataclass(frozen=True)
class BaselineScore:
    """A written or gold instruction executed by a chosen model (instruction induction's baselines)."""

    executor: str
    source: str  # "written" or "gold"
    task: str
    #: whose answer to which item, for a written instruction
    participant_id: int | None
    item_key: str | None
    execution_accuracy: float
    reference_similarity: float | None
    #: the scale of `reference_similarity`: model, scorer, layer, baseline rescaling
    similarity_model: str = ""
    similarity_scorer: str = ""
    similarity_layer: int | None = None
    similarity_rescaled: bool = False
    similarity_baseline: float | None = None
    #: when the executor scored it: the executor scored last is the study's
    scored_at: datetime | None = None


@dataclass(frozen=True)
class ChecklistRecords:
    """What the reporting checklist reads of a study besides its results."""

    #: the items of the study's item set, attention checks aside (`selectors.study_item_set_size`)
    item_set_size: int
    #: when the study's plan was frozen in Parity, and the frozen document's SHA-256 (None, "": never)
    preregistration_frozen_at: datetime | None
    preregistration_sha256: str


@dataclass
class StudyData:
    study: Study
    units: list[UnitInfo] = field(default_factory=list)
    items: dict[str, ItemInfo] = field(default_factory=dict)
    #: as read: `HumanAnswers` over columns; built in memory: a list
    humans: Sequence[HumanAnswer] = field(default_factory=list)
    runs: list[RunInfo] = field(default_factory=list)
    model_answers: list[ModelAnswer] = field(default_factory=list)
    baseline_scores: list[BaselineScore] = field(default_factory=list)
    #: False for data read without the answers (`load_study_data(answers=False)`)
    answers_read: bool = True
    #: every participant who entered, answers or not (read with the answers; see `everyone`)
    participants: list[ParticipantInfo] | None = None
    #: the study's Prolific study, read with the answers (None: none, or not read)
    recruitment: Recruitment | None = None

    @cached_property
    def columns(self) -> HumanColumns:
        """The human answers as columns, what the results read."""
        if isinstance(self.humans, HumanAnswers):
            return self.humans.columns
        return HumanColumns.of(self.humans, self.items)

    @property
    def everyone(self) -> list[ParticipantInfo]:
        """Every participant who entered; for data built in memory, those with an answer."""
        return self.participants if self.participants is not None else list(self.columns.participants)

    @cached_property
    def flagged_participants(self) -> frozenset[int]:
        """The ids of the study's participants flagged for review (every flag of `studies.participants.quality`, the
        model-likeness ones kept on the participant included); read only when asked for."""
        # the answers are those already read (`columns`), not read again
        given = self.columns.given_answers()
        return frozenset(participant_flags(Participant.objects.filter(study=self.study), given=given))

    @cached_property
    def closing_answers(self) -> dict[int, Mapping[str, Any]]:
        """The closing answers of the study's participants, by participant id (an empty mapping: none
        sent); read only when asked for."""
        rows = Participant.objects.filter(study=self.study).values_list("pk", "closing_answers")
        return {pk: answers or {} for pk, answers in rows}

    @cached_property
    def explanations(self) -> ExplanationCounts:
        """What the study's participants wrote when asked why they answered, whole study (the results'
        filters aside); read only when asked for, with no query when the study asks none."""
        return explanation_counts(self.study)

    @cached_property
    def answers_by_run(self) -> dict[int, list[ModelAnswer]]:
        grouped: dict[int, list[ModelAnswer]] = defaultdict(list)
        for answer in self.model_answers:
            grouped[answer.run_id].append(answer)
        return dict(grouped)

    @cached_property
    def category_field(self) -> str | None:
        """The benchmark's category field, when any of the study's items carries it."""
        name = self.study.definition.category_field
        return name if name and any(name in item.meta for item in self.items.values()) else None

    def category_of(self, meta: Mapping[str, Any]) -> str | None:
        return self.study.definition.category_of(meta) if self.category_field else None

    @property
    def answer_scale(self) -> Mapping[str, float]:
        """The grades of a study whose answers are graded, not right or wrong (empty otherwise)."""
        return self.study.definition.answer_scale

    @property
    def categories(self) -> list[str]:
        return sorted(
            {
                c
                for item in self.items.values()
                if not item.is_attention_check
                if (c := self.category_of(item.meta)) is not None
            }
        )

    @cached_property
    def answer_space(self) -> frozenset[str]:
        """The labels an answer is compared on: the gold values of the study's items, or the grades
        on the benchmark's answer scale; empty for open-ended answers (written instructions), which are
        free text."""
        golds = frozenset(item.gold for item in self.items.values() if item.gold)
        if golds:
            return golds
        columns = self.columns
        valid = np.bincount(columns.answer[columns.valid], minlength=len(columns.answers))
        given = {columns.answers[code] for code in np.flatnonzero(valid).tolist()} - {""}
        return frozenset(given) if given and given <= set(self.answer_scale) else frozenset()

    @property
    def is_graded(self) -> bool:
        return bool(self.answer_space) and self.answer_space <= set(self.answer_scale)

    @property
    def has_free_text(self) -> bool:
        """Whether an answer was typed text the default export withholds: an answer to an item the
        benchmark calls written, or, where it leaves that to the answer, one outside the answer space."""
        columns = self.columns
        written = [self.study.definition.answer_is_written(item.meta) for item in columns.items]
        choice = np.array([w is False for w in written], dtype=bool)
        always = np.array([w is True for w in written], dtype=bool)
        outside = np.array([self.label(answer) is None for answer in columns.answers], dtype=bool)
        typed = np.array([bool(raw) for raw in columns.raw_answer.tolist()], dtype=bool)
        withheld = always[columns.item] | (outside[columns.answer] & ~choice[columns.item])
        return bool(len(columns)) and bool(np.any(typed & withheld))

    def label(self, answer: str | None) -> str | None:
        """The answer when it lies in the answer space, else None (invalid, or free text)."""
        return answer if answer and answer in self.answer_space else None


def generic_setting_label(setting: Mapping[str, Any]) -> str:
    """A stable, readable name for a model setting, e.g. "k=0, template=2" (not the run's canonical
    `ModelRun.setting_key`)."""
    return ", ".join(f"{name}={setting[name]}" for name in sorted(setting)) if setting else "default"


def setting_label(study: Study, setting: Mapping[str, Any]) -> str:
    """The benchmark's own name for a setting, or the generic key when it has none for this one."""
    try:
        return str(study.definition.model_setting_label(setting))
    except (AttributeError, KeyError, TypeError, ValueError):
        return generic_setting_label(setting)


@dataclass(frozen=True)
class HeadlinesData:
    """What the list of studies shows their headline numbers from."""

    studies: dict[int, StudyData]
    #: (study id, status) -> how many model runs are queued or running
    active_runs: dict[tuple[int, str], int]
