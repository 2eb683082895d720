"""Reads for results and exports: database rows turned into the plain inputs of `parity.stats`.

Everything a results page, an export or the API needs is loaded by `load_studies_data` in a fixed
number of queries, whatever the number of studies, units, participants or model runs. The human
answers, the bulk of a study, are read as columns (`HumanColumns`: one array per field, never one
object per answer); `StudyData.humans` turns a row into a `HumanAnswer` only where one is asked for.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from itertools import chain, islice
from typing import Any

import numpy as np
from django.db.models import Case, ExpressionWrapper, IntegerField, TextField, Value, When
from django.db.models.functions import Cast

from annotation.models import Item
from modelruns.models import InstructionScore, ModelResponse, ModelRun
from prolific.models import ProlificStudy
from results.columns import (
    AnswerBatch,
    HumanAnswer,
    HumanAnswers,
    HumanColumns,
    ItemInfo,
    ParticipantInfo,
    objects,
    positions_in,
)
from studies.flags import participant_flags
from studies.models import Participant, Response, Study, UnitItem

__all__ = [
    "BaselineScore",
    "HumanAnswer",
    "HumanAnswers",
    "HumanColumns",
    "ItemInfo",
    "ModelAnswer",
    "ParticipantInfo",
    "Recruitment",
    "RunInfo",
    "StudyData",
    "UnitInfo",
    "generic_setting_label",
    "load_answers",
    "load_studies_data",
    "load_study_data",
    "setting_label",
]


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
        """The ids of the study's participants flagged for review (every flag of `studies.flags`, the
        model-likeness ones kept on the participant included); read only when asked for."""
        return frozenset(participant_flags(Participant.objects.filter(study=self.study)))

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


def load_study_data(study: Study, *, answers: bool = True) -> StudyData:
    return load_studies_data([study], answers=answers)[study.pk]


def load_studies_data(
    studies: Iterable[Study], *, answers: bool = True, recruitment: bool = True
) -> dict[int, StudyData]:
    """Units, items, runs, human and model answers of every study, in nine queries at most.
    Without `answers`: units, items and runs only (what the results filters offer), in two; read
    the answers later with `load_answers`. Without `recruitment`, the Prolific studies are not read
    (a page that shows no methods section)."""
    data = {study.pk: StudyData(study=study, answers_read=False) for study in studies}
    if not data:
        return data
    _load_units_and_items(data)
    _load_runs(data)
    if answers:
        load_answers(data, recruitment=recruitment)
    return data


def load_answers(data: dict[int, StudyData], *, recruitment: bool = True) -> None:
    """The human and model answers (and instructions executed) of studies whose units, items and
    runs are read: one query for the participants, one for their answers, one for the items
    answered outside the units (attention checks), one for the model answers, one for the
    instructions (instruction induction only), one for the Prolific studies (with `recruitment`)."""
    _load_humans(data)
    _load_model_answers(data)
    _load_baselines(data)
    if recruitment:
        _load_recruitment(data)
    for study_data in data.values():
        study_data.answers_read = True


def _load_recruitment(data: dict[int, StudyData]) -> None:
    for row in ProlificStudy.objects.filter(study_id__in=list(data)).values(
        "study_id", "places", "status", "bonus_per_correct_pence", "target_kind", "target_value", "currency"
    ):
        data[row["study_id"]].recruitment = Recruitment(
            places=row["places"],
            status=row["status"],
            bonus_per_correct_pence=row["bonus_per_correct_pence"],
            target_kind=row["target_kind"],
            target_value=row["target_value"],
            currency=row["currency"],
        )


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
            "item__prompt",
            "item__is_attention_check",
        )
    )
    units: dict[int, dict[str, UnitInfo]] = defaultdict(dict)
    item_units: dict[int, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    first: dict[int, dict[str, Mapping[str, Any]]] = defaultdict(dict)
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
                prompt=row["item__prompt"] or {},
            )
            for key, row in first[study_id].items()
        }


def _load_humans(data: dict[int, StudyData]) -> None:
    """Every study's human answers as columns: one query for the participants, one for the answers
    (and, for studies whose answers carry scores, one for those)."""
    people: dict[int, dict[int, int]] = defaultdict(dict)
    infos: dict[int, list[ParticipantInfo]] = defaultdict(list)
    for pk, study_id, pseudonym, status, excluded, is_imported, unit, started, completed, reason, signals in (
        Participant.objects.filter(study_id__in=list(data))
        .order_by("pk")
        .values_list(
            "pk",
            "study_id",
            "pseudonym",
            "status",
            "excluded",
            "is_imported",
            "unit__label",
            "started_at",
            "completed_at",
            "exclusion_reason",
            "review_signals",
        )
    ):
        people[study_id][pk] = len(infos[study_id])
        infos[study_id].append(
            ParticipantInfo(
                pseudonym,
                pk,
                status,
                excluded,
                is_imported,
                unit or "",
                started,
                completed,
                reason,
                review_signals=signals or {},
            )
        )
    answers = (
        Response.objects.filter(participant__study_id__in=list(data))
        .order_by("participant__study_id", "participant__unit__position", "participant_id", "position")
        .values_list(
            "participant__study_id",
            "participant_id",
            "item_id",
            "position",
            "raw_answer",
            "answer",
            _FLAGS,
            "duration_ms",
            "pk",
        )
        .iterator(chunk_size=_BATCH)
    )
    # per study, its answers' columns batch by batch, as arrays: no Python object per answer is kept
    parts: dict[int, list[AnswerBatch]] = defaultdict(list)
    texts: dict[str, int] = {}
    while batch := list(islice(answers, _BATCH)):
        columns = list(zip(*batch))
        studies, start = columns[0], 0
        while start < len(batch):
            stop = bisect_right(studies, studies[start], lo=start)
            parts[studies[start]].append(AnswerBatch.of([column[start:stop] for column in columns[1:]], texts))
            start = stop
    # the items answered that no unit of their study holds (attention checks), all studies' at once
    held = {item.id for study_data in data.values() for item in study_data.items.values()}
    answered = set().union(*(part.items for part in chain.from_iterable(parts.values())))
    others = {
        row["pk"]: ItemInfo(row["pk"], row["key"], row["gold"], row["meta"] or {}, row["is_attention_check"], (), 0)
        for row in Item.objects.filter(pk__in=answered - held).values("pk", "key", "gold", "meta", "is_attention_check")
    }
    text = objects(list(texts))
    for study_id, study_data in data.items():
        study_data.participants = infos[study_id]
        study_data.humans = HumanAnswers(
            _columns(study_data, parts.pop(study_id, []), people[study_id], infos[study_id], others, text)
        )


#: answers read per batch
_BATCH = 20_000

#: an answer's flags as one number, valid + 2·correct + 4·attention check + 8·marked by a researcher
#: + 16·marked correct, in text: a column Django hands over as the database gives it. Read as
#: booleans (or as a number), every row of the read would pass through Django's conversion of each
#: value, which costs more than the rest of the read.
_FLAGS = Cast(
    ExpressionWrapper(
        Cast("valid", IntegerField())
        + 2 * Cast("correct", IntegerField())
        + 4 * Cast("is_attention_check", IntegerField())
        + Case(
            When(verified_correct=True, then=Value(24)), When(verified_correct=False, then=Value(8)), default=Value(0)
        ),
        output_field=IntegerField(),
    ),
    TextField(),
)


def _columns(
    data: StudyData,
    parts: list[AnswerBatch],
    people: dict[int, int],
    participants: list[ParticipantInfo],
    others: dict[int, ItemInfo],
    text: np.ndarray,
) -> HumanColumns:
    if not parts:
        return HumanColumns.of([], data.items)
    items = list(data.items.values())
    item_of = {info.id: index for index, info in enumerate(items)}
    item = np.concatenate([part.item for part in parts])
    for other in sorted(set().union(*(part.items for part in parts)) - set(item_of)):
        item_of[other] = len(items)
        items.append(others[other])
    # the study's stored answers as codes into its own distinct answers
    stored = np.concatenate([part.answer for part in parts])
    distinct = np.flatnonzero(np.bincount(stored, minlength=text.size))
    code_of = np.zeros(text.size, dtype=np.int64)
    code_of[distinct] = np.arange(distinct.size)
    answer = code_of[stored]
    flag = np.concatenate([part.flag for part in parts])
    pk = np.concatenate([part.pk for part in parts])
    marked = np.flatnonzero(flag & 8)
    return HumanColumns(
        participants=tuple(participants),
        items=tuple(items),
        participant=positions_in(np.concatenate([part.participant for part in parts]), people),
        item=positions_in(item, item_of),
        answer=answer.reshape(-1),
        answers=tuple(text[distinct].tolist()),
        position=np.concatenate([part.position for part in parts]),
        valid=(flag & 1).astype(bool),
        correct=(flag & 2).astype(bool),
        is_attention_check=(flag & 4).astype(bool),
        duration_ms=np.concatenate([part.duration for part in parts]),
        raw_answer=text[np.concatenate([part.raw for part in parts])],
        scores=_scores(data, pk, dict(zip(pk[marked].tolist(), (flag[marked] & 16).astype(bool).tolist()))),
    )


def _scores(data: StudyData, pks: np.ndarray, marks: dict[int, bool]) -> np.ndarray | None:
    """Per answer, the scores attached to it: a researcher's mark (`Response.verified_correct`, as
    "verified"), and for a benchmark that executes written instructions its scorer's numbers in
    `Response.extra` (read only then: the other benchmarks keep nothing but free text there); None
    when no answer has any."""
    extras: dict[int, dict[str, Any]] = {}
    if data.study.definition.executes_instructions:
        extras = dict(Response.objects.filter(participant__study=data.study).values_list("pk", "extra"))
    if not extras and not marks:
        return None
    return objects(
        [
            {
                **{key: value for key, value in (extras.get(pk) or {}).items() if key in _SCORE_KEYS},
                **({"verified": marks[pk]} if pk in marks else {}),
            }
            for pk in pks.tolist()
        ]
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


def _load_runs(data: dict[int, StudyData]) -> None:
    # a run enters the results once it is done; its progress is the model-runs page's business
    runs = (
        ModelRun.objects.filter(study_id__in=list(data), status="done")
        .select_related("spec")
        .order_by("study_id", "spec__name", "pk")
    )
    for run in runs:
        study_data = data[run.study_id]
        setting = run.setting or {}
        study_data.runs.append(
            RunInfo(
                id=run.pk,
                model=str(run.spec),
                setting=setting,
                status=str(run.status),
                setting_label=setting_label(study_data.study, setting),
                model_id=run.spec.model,
                revision=run.spec.revision,
                dtype=run.spec.dtype,
                kind=run.spec.kind,
                identity=run.model_identity or {},
            )
        )


def _load_model_answers(data: dict[int, StudyData]) -> None:
    study_of = {run.id: pk for pk, study_data in data.items() for run in study_data.runs}
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
