"""Reads for results and exports: database rows turned into the plain inputs of `studies.stats`.

Everything a results page, an export or the API needs is loaded by `load_studies_data` in a fixed
number of queries, whatever the number of studies, units, participants or model runs.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Iterable, Mapping

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.exceptions import PermissionDenied
from django.http import Http404

from annotation.models import Response
from studies.models import Participant, Study, UnitItem
from studies.stats import MIQA_GRADES

#: item meta fields that name an item's category, in order of preference (the first one any item of
#: a study carries is that study's category): AmbiBench, implicature, instruction induction, MiQA
CATEGORY_FIELDS: tuple[str, ...] = ("salient_feature", "type", "task", "direction")


def _require_researcher(user: AbstractBaseUser | AnonymousUser) -> None:
    """Results, exports and the API are for researchers: active staff accounts. The one place
    that decides it; participants have no account at all."""
    if not (user.is_authenticated and user.is_active and user.is_staff):
        raise PermissionDenied("Results are for researchers (staff accounts) only.")


def get_study_for_researcher(user: AbstractBaseUser | AnonymousUser, study_id: int) -> Study:
    """The study, for a researcher; 403 for anyone else, 404 when there is no such study."""
    _require_researcher(user)
    study = Study.objects.filter(pk=study_id).first()
    if study is None:
        raise Http404("No study has this id.")
    return study


def researcher_studies(user: AbstractBaseUser | AnonymousUser) -> list[Study]:
    _require_researcher(user)
    return list(Study.objects.order_by("-created_at", "-pk"))


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
        return (not self.excluded and not self.is_attention_check
                and self.participant_status == Participant.Status.COMPLETED)


@dataclass(frozen=True)
class RunInfo:
    id: int
    model: str
    setting: Mapping[str, Any]
    status: str
    #: the benchmark's name for the setting ("template 2, k=0"); also the setting filter's value
    setting_key: str

    @property
    def label(self) -> str:
        return f"{self.model} ({self.setting_key})"


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


@dataclass
class StudyData:
    study: Study
    units: list[UnitInfo] = field(default_factory=list)
    items: dict[str, ItemInfo] = field(default_factory=dict)
    humans: list[HumanAnswer] = field(default_factory=list)
    runs: list[RunInfo] = field(default_factory=list)
    model_answers: list[ModelAnswer] = field(default_factory=list)

    @cached_property
    def answers_by_run(self) -> dict[int, list[ModelAnswer]]:
        grouped: dict[int, list[ModelAnswer]] = defaultdict(list)
        for answer in self.model_answers:
            grouped[answer.run_id].append(answer)
        return dict(grouped)

    @cached_property
    def category_field(self) -> str | None:
        present = {name for item in self.items.values() for name in CATEGORY_FIELDS if name in item.meta}
        return next((name for name in CATEGORY_FIELDS if name in present), None)

    def category_of(self, meta: Mapping[str, Any]) -> str | None:
        name = self.category_field
        value = meta.get(name) if name else None
        return None if value is None else str(value)

    @property
    def categories(self) -> list[str]:
        return sorted({c for item in self.items.values() if not item.is_attention_check
                       if (c := self.category_of(item.meta)) is not None})

    @cached_property
    def answer_space(self) -> frozenset[str]:
        """The labels an answer is compared on: the gold values of the study's items, or the grades
        of a rating study; empty for open-ended answers (written instructions), which are free text."""
        golds = frozenset(item.gold for item in self.items.values() if item.gold)
        if golds:
            return golds
        given = {h.answer for h in self.humans if h.valid and h.answer}
        return frozenset(given) if given and given <= set(MIQA_GRADES) else frozenset()

    @property
    def is_graded(self) -> bool:
        return bool(self.answer_space) and self.answer_space <= set(MIQA_GRADES)

    def label(self, answer: str | None) -> str | None:
        """The answer when it lies in the answer space, else None (invalid, or free text)."""
        return answer if answer and answer in self.answer_space else None


def setting_key(setting: Mapping[str, Any]) -> str:
    """A stable, readable key for a model setting, e.g. "k=0, template=2"."""
    return ", ".join(f"{name}={setting[name]}" for name in sorted(setting)) if setting else "default"


def setting_label(study: Study, setting: Mapping[str, Any]) -> str:
    """The benchmark's own name for a setting, or the generic key when it has none for this one."""
    try:
        return str(study.definition.model_setting_label(setting))
    except (AttributeError, KeyError, TypeError, ValueError):
        return setting_key(setting)


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
    return data


def _load_units_and_items(data: dict[int, StudyData]) -> None:
    rows = (UnitItem.objects.filter(unit__study_id__in=list(data))
            .order_by("unit__study_id", "unit__position", "order")
            .values("unit__study_id", "unit__label", "unit__position", "unit__category", "unit__capacity", "order",
                    "item_id", "item__key", "item__gold", "item__meta", "item__is_attention_check"))
    units: dict[int, dict[str, UnitInfo]] = defaultdict(dict)
    item_units: dict[int, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    first: dict[int, dict[str, dict[str, Any]]] = defaultdict(dict)
    for row in rows:
        study_id, label = row["unit__study_id"], row["unit__label"]
        units[study_id].setdefault(label, UnitInfo(label, row["unit__position"], row["unit__category"],
                                                   row["unit__capacity"]))
        item_units[study_id][row["item__key"]].append(label)
        first[study_id].setdefault(row["item__key"], row)
    for study_id, study_data in data.items():
        study_data.units = list(units[study_id].values())
        study_data.items = {
            key: ItemInfo(id=row["item_id"], key=key, gold=row["item__gold"], meta=row["item__meta"] or {},
                          is_attention_check=row["item__is_attention_check"],
                          units=tuple(item_units[study_id][key]), order=row["order"])
            for key, row in first[study_id].items()
        }


def _load_humans(data: dict[int, StudyData]) -> None:
    rows = (Response.objects.filter(participant__study_id__in=list(data))
            .order_by("participant__study_id", "participant__unit__position", "participant_id", "position")
            .values("participant__study_id", "participant__pseudonym", "participant_id", "participant__status",
                    "participant__excluded", "participant__is_imported", "participant__unit__label", "item_id",
                    "item__key", "item__gold", "item__meta", "position", "raw_answer", "answer", "valid", "correct",
                    "is_attention_check", "duration_ms", "extra", "verified_correct"))
    for row in rows:
        data[row["participant__study_id"]].humans.append(HumanAnswer(
            annotator=row["participant__pseudonym"], participant_id=row["participant_id"],
            participant_status=row["participant__status"], excluded=row["participant__excluded"],
            is_imported=row["participant__is_imported"], unit=row["participant__unit__label"] or "",
            item_id=row["item_id"], item_key=row["item__key"], gold=row["item__gold"],
            meta=row["item__meta"] or {}, position=row["position"], raw_answer=row["raw_answer"],
            answer=row["answer"], valid=row["valid"], correct=row["correct"],
            is_attention_check=row["is_attention_check"], duration_ms=row["duration_ms"],
            scores={**{key: value for key, value in (row["extra"] or {}).items() if key in _SCORE_KEYS},
                    **({"verified": row["verified_correct"]} if row["verified_correct"] is not None else {})},
        ))


#: keys of `Response.extra` that carry scores of an answer (never free text); a researcher's mark
#: (`Response.verified_correct`) arrives as "verified"
_SCORE_KEYS = frozenset({"execution_accuracy", "reference_similarity", "reference_f1"})


def _modelruns() -> tuple[Any, Any] | None:
    """The model-run tables, when the modelruns app defines them (results work without)."""
    try:
        from modelruns.models import ModelResponse, ModelRun
    except ImportError:
        return None
    return ModelRun, ModelResponse


def _load_models(data: dict[int, StudyData]) -> None:
    tables = _modelruns()
    if tables is None:
        return
    model_run, model_response = tables
    # a run enters the results once it is done; its progress is the model-runs page's business
    runs = (model_run.objects.filter(study_id__in=list(data), status="done").select_related("spec")
            .order_by("study_id", "spec__name", "pk"))
    study_of: dict[int, int] = {}
    for run in runs:
        study_of[run.pk] = run.study_id
        study_data = data[run.study_id]
        setting = run.setting or {}
        study_data.runs.append(RunInfo(id=run.pk, model=str(run.spec), setting=setting, status=str(run.status),
                                       setting_key=setting_label(study_data.study, setting)))
    if not study_of:
        return
    rows = (model_response.objects.filter(run_id__in=list(study_of)).order_by("run_id", "item__key", "variant")
            .values("run_id", "item__key", "variant", "answer", "valid", "correct", "scores"))
    for row in rows:
        study_data = data[study_of[row["run_id"]]]
        if row["item__key"] not in study_data.items:
            continue  # only the items humans see are put side by side
        study_data.model_answers.append(ModelAnswer(
            run_id=row["run_id"], item_key=row["item__key"], variant=row["variant"] or "",
            answer=row["answer"] or None, valid=bool(row["valid"]),
            correct=row["correct"], scores=row["scores"] or {},
        ))
