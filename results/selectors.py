"""Reads for results and exports: database rows turned into the plain inputs of `parity.stats`.

Everything a results page, an export or the API needs is loaded by `load_studies_data` in a fixed
number of queries, whatever the number of studies, units, participants or model runs.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from typing import Any

from modelruns.models import InstructionScore, ModelResponse, ModelRun
from studies.models import Participant, Response, Study, UnitItem


@dataclass(frozen=True)
class UnitInfo:
    label: str
    position: int
    category: str
    capacity: int


@dataclass(frozen=True)
class ItemInfo:
    id: int
    key: str
    gold: str
    meta: Mapping[str, Any]
    is_attention_check: bool
    units: tuple[str, ...]
    #: 1-based order inside its (first) unit
    order: int


@dataclass(frozen=True)
class HumanAnswer:
    """One stored human answer with what results and exports need; never the Prolific identity."""

    annotator: str
    participant_id: int
    participant_status: str
    excluded: bool
    is_imported: bool
    unit: str
    item_id: int
    item_key: str
    gold: str
    meta: Mapping[str, Any]
    position: int
    raw_answer: str
    answer: str
    valid: bool
    correct: bool
    is_attention_check: bool
    duration_ms: int
    #: scores a researcher or a scorer attached to the answer (instruction induction), if any
    scores: Mapping[str, Any] = field(default_factory=dict)

    @property
    def in_results(self) -> bool:
        """Complete, kept participants' answers to real items: what the statistics use."""
        return (
            not self.excluded
            and not self.is_attention_check
            and self.participant_status == Participant.Status.COMPLETED
        )


@dataclass(frozen=True)
class RunInfo:
    id: int
    model: str
    setting: Mapping[str, Any]
    status: str
    #: the benchmark's name for the setting ("template 2, k=0"); also the setting filter's value
    setting_label: str

    @property
    def label(self) -> str:
        return f"{self.model} ({self.setting_label})"


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


@dataclass
class StudyData:
    study: Study
    units: list[UnitInfo] = field(default_factory=list)
    items: dict[str, ItemInfo] = field(default_factory=dict)
    humans: list[HumanAnswer] = field(default_factory=list)
    runs: list[RunInfo] = field(default_factory=list)
    model_answers: list[ModelAnswer] = field(default_factory=list)
    baseline_scores: list[BaselineScore] = field(default_factory=list)

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
        given = {h.answer for h in self.humans if h.valid and h.answer}
        return frozenset(given) if given and given <= set(self.answer_scale) else frozenset()

    @property
    def is_graded(self) -> bool:
        return bool(self.answer_space) and self.answer_space <= set(self.answer_scale)

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


def load_study_data(study: Study) -> StudyData:
    return load_studies_data([study])[study.pk]


def load_studies_data(studies: Iterable[Study]) -> dict[int, StudyData]:
    """Units, items, human answers and model answers of every study, in five queries at most."""
    data = {study.pk: StudyData(study=study) for study in studies}
    if not data:
        return data
    _load_units_and_items(data)
    _load_humans(data)
    _load_models(data)
    _load_baselines(data)
    return data


def _load_units_and_items(data: dict[int, StudyData]) -> None:
    rows = (
        UnitItem.objects.filter(unit__study_id__in=list(data))
        .order_by("unit__study_id", "unit__position", "order")
        .values(
            "unit__study_id",
            "unit__label",
            "unit__position",
            "unit__category",
            "unit__capacity",
            "order",
            "item_id",
            "item__key",
            "item__gold",
            "item__meta",
            "item__is_attention_check",
        )
    )
    units: dict[int, dict[str, UnitInfo]] = defaultdict(dict)
    item_units: dict[int, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    first: dict[int, dict[str, dict[str, Any]]] = defaultdict(dict)
    for row in rows:
        study_id, label = row["unit__study_id"], row["unit__label"]
        units[study_id].setdefault(
            label, UnitInfo(label, row["unit__position"], row["unit__category"], row["unit__capacity"])
        )
        item_units[study_id][row["item__key"]].append(label)
        first[study_id].setdefault(row["item__key"], row)
    for study_id, study_data in data.items():
        study_data.units = list(units[study_id].values())
        study_data.items = {
            key: ItemInfo(
                id=row["item_id"],
                key=key,
                gold=row["item__gold"],
                meta=row["item__meta"] or {},
                is_attention_check=row["item__is_attention_check"],
                units=tuple(item_units[study_id][key]),
                order=row["order"],
            )
            for key, row in first[study_id].items()
        }


def _load_humans(data: dict[int, StudyData]) -> None:
    rows = (
        Response.objects.filter(participant__study_id__in=list(data))
        .order_by("participant__study_id", "participant__unit__position", "participant_id", "position")
        .values(
            "participant__study_id",
            "participant__pseudonym",
            "participant_id",
            "participant__status",
            "participant__excluded",
            "participant__is_imported",
            "participant__unit__label",
            "item_id",
            "item__key",
            "item__gold",
            "item__meta",
            "position",
            "raw_answer",
            "answer",
            "valid",
            "correct",
            "is_attention_check",
            "duration_ms",
            "extra",
            "verified_correct",
        )
    )
    for row in rows:
        data[row["participant__study_id"]].humans.append(
            HumanAnswer(
                annotator=row["participant__pseudonym"],
                participant_id=row["participant_id"],
                participant_status=row["participant__status"],
                excluded=row["participant__excluded"],
                is_imported=row["participant__is_imported"],
                unit=row["participant__unit__label"] or "",
                item_id=row["item_id"],
                item_key=row["item__key"],
                gold=row["item__gold"],
                meta=row["item__meta"] or {},
                position=row["position"],
                raw_answer=row["raw_answer"],
                answer=row["answer"],
                valid=row["valid"],
                correct=row["correct"],
                is_attention_check=row["is_attention_check"],
                duration_ms=row["duration_ms"],
                scores={
                    **{key: value for key, value in (row["extra"] or {}).items() if key in _SCORE_KEYS},
                    **({"verified": row["verified_correct"]} if row["verified_correct"] is not None else {}),
                },
            )
        )


#: keys of `Response.extra` that carry scores of an answer (never free text); a researcher's mark
#: (`Response.verified_correct`) arrives as "verified"
_SCORE_KEYS = frozenset({"execution_accuracy", "reference_similarity", "reference_f1"})


def _load_baselines(data: dict[int, StudyData]) -> None:
    """Instruction induction's written and gold instructions as executed by chosen models (one
    query, only when instruction-induction studies are asked for)."""
    wanted = [pk for pk, study_data in data.items() if study_data.study.definition.executes_instructions]
    if not wanted:
        return
    rows = (
        InstructionScore.objects.filter(study_id__in=wanted)
        .order_by("study_id", "executor__name", "pk")
        .values(
            "study_id",
            "executor__name",
            "source",
            "task",
            "response__participant_id",
            "response__item__key",
            "execution_accuracy",
            "reference_similarity",
            "similarity_model",
            "similarity_scorer",
            "similarity_layer",
            "similarity_rescaled",
            "similarity_baseline",
            "created_at",
        )
    )
    for row in rows:
        data[row["study_id"]].baseline_scores.append(
            BaselineScore(
                executor=row["executor__name"],
                source=row["source"],
                task=row["task"],
                participant_id=row["response__participant_id"],
                item_key=row["response__item__key"],
                execution_accuracy=row["execution_accuracy"],
                reference_similarity=row["reference_similarity"],
                similarity_model=row["similarity_model"],
                similarity_scorer=row["similarity_scorer"],
                similarity_layer=row["similarity_layer"],
                similarity_rescaled=row["similarity_rescaled"],
                similarity_baseline=row["similarity_baseline"],
                scored_at=row["created_at"],
            )
        )


def _load_models(data: dict[int, StudyData]) -> None:
    # a run enters the results once it is done; its progress is the model-runs page's business
    runs = (
        ModelRun.objects.filter(study_id__in=list(data), status="done")
        .select_related("spec")
        .order_by("study_id", "spec__name", "pk")
    )
    study_of: dict[int, int] = {}
    for run in runs:
        study_of[run.pk] = run.study_id
        study_data = data[run.study_id]
        setting = run.setting or {}
        study_data.runs.append(
            RunInfo(
                id=run.pk,
                model=str(run.spec),
                setting=setting,
                status=str(run.status),
                setting_label=setting_label(study_data.study, setting),
            )
        )
    if not study_of:
        return
    rows = (
        ModelResponse.objects.filter(run_id__in=list(study_of))
        .order_by("run_id", "item__key", "variant")
        .values("run_id", "item__key", "variant", "answer", "valid", "correct", "scores")
    )
    for row in rows:
        study_data = data[study_of[row["run_id"]]]
        if row["item__key"] not in study_data.items:
            continue  # only the items humans see are put side by side
        study_data.model_answers.append(
            ModelAnswer(
                run_id=row["run_id"],
                item_key=row["item__key"],
                variant=row["variant"] or "",
                answer=row["answer"] or None,
                valid=bool(row["valid"]),
                # a written answer waiting for people's grades (MiQA's generative task) is not scored
                correct=None if (row["scores"] or {}).get("ungraded") else row["correct"],
                scores=row["scores"] or {},
            )
        )
