"""A study's human answers read as columns: one query for the participants, one for their answers
(in batches, each kept as arrays, never one Python object per answer), one for the items answered
outside the units, and for studies whose answers carry scores one for those."""

from __future__ import annotations

from bisect import bisect_right
from collections import defaultdict
from itertools import chain, islice
from typing import Any

import numpy as np
from django.db.models import Case, ExpressionWrapper, IntegerField, TextField, Value, When
from django.db.models.functions import Cast

from annotation.models import Item
from results.loading.columns import (
    TRAINING_VALUES,
    AnswerBatch,
    HumanAnswers,
    HumanColumns,
    ItemInfo,
    ParticipantInfo,
    object_array,
    positions_in,
    training_of,
)
from results.loading.study_data import StudyData
from studies.models import Participant, Response


def load_humans(data: dict[int, StudyData]) -> None:
    """Every study's human answers as columns: one query for the participants, one for the answers
    (and, for studies whose answers carry scores, one for those)."""
    people: dict[int, dict[int, int]] = defaultdict(dict)
    infos: dict[int, list[ParticipantInfo]] = defaultdict(list)
    for (
        pk,
        study_id,
        pseudonym,
        status,
        excluded,
        is_imported,
        unit,
        started,
        completed,
        reason,
        signals,
        seen,
        *trained,
    ) in (
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
            "closing_answers__seen_before",
            *TRAINING_VALUES,
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
                seen_before=seen if isinstance(seen, str) else "",
                training=training_of(*trained),
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
    text = object_array(list(texts))
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
    return object_array(
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
