"""A study's human answers as columns: one array per field (`HumanColumns`), never one object per
answer; a `HumanAnswer` is built from a row only where one is read (`HumanAnswers`: exports, a
benchmark's own breakdowns). `results.loading.selectors` reads them."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, overload

import numpy as np

from studies.models import Participant
from studies.participants.quality import GivenAnswers, given_answer


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
    #: what the item shows (its text, where results list items by name); empty where not read
    prompt: Mapping[str, Any] = field(default_factory=dict)


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
class ParticipantInfo:
    """What results need of a participant who answered; never the Prolific identity."""

    annotator: str
    participant_id: int
    status: str
    excluded: bool
    is_imported: bool
    unit: str
    #: what a methods paragraph says of them (read with the rest; None for answers built in memory)
    started_at: datetime | None = None
    completed_at: datetime | None = None
    exclusion_reason: str = ""
    #: the review signals kept on the participant (`Participant.review_signals`): flag -> figures
    review_signals: Mapping[str, Any] = field(default_factory=dict, hash=False, compare=False)
    #: their answer to the closing question "seen_before" ("yes", "no"; "" when not answered)
    seen_before: str = ""
    #: their practice and comprehension check (None: they had none)
    training: Training | None = None

    @property
    def in_results(self) -> bool:
        """Complete and kept: their answers to real items are what the statistics use."""
        return not self.excluded and self.status == Participant.Status.COMPLETED


#: what `training_of` is read from, in its order
TRAINING_VALUES = ("training_started_at", "training_ended_at", "practice_answers", "comprehension_tries")


@dataclass(frozen=True)
class Training:
    """A participant's practice and comprehension check: how long they took (None: not finished),
    the practice answers given and right, and the tries at the check."""

    seconds: float | None
    practice_answered: int
    practice_right: int
    comprehension_tries: int


def training_of(
    started: datetime | None, ended: datetime | None, practice: list[dict] | None, tries: int
) -> Training | None:
    """A participant's training from the fields of `TRAINING_VALUES`."""
    if started is None:
        return None
    answers = practice or []
    return Training(
        seconds=(ended - started).total_seconds() if ended is not None else None,
        practice_answered=len(answers),
        practice_right=sum(1 for answer in answers if answer.get("correct")),
        comprehension_tries=tries,
    )


@dataclass(frozen=True)
class HumanColumns:
    """Human answers as columns: row r is ``participants[participant[r]]``'s answer to
    ``items[item[r]]``, stored as ``answers[answer[r]]``; rows in the order read (unit, participant,
    position). `take` cuts rows; the tuples of names stay shared."""

    participants: tuple[ParticipantInfo, ...]
    items: tuple[ItemInfo, ...]
    #: the distinct stored answers
    answers: tuple[str, ...]
    participant: np.ndarray
    item: np.ndarray
    answer: np.ndarray
    position: np.ndarray
    valid: np.ndarray
    correct: np.ndarray
    is_attention_check: np.ndarray
    duration_ms: np.ndarray
    #: the answers as typed or pressed (an object array of str)
    raw_answer: np.ndarray
    #: per row, the scores attached to the answer (`HumanAnswer.scores`, an object array); None when
    #: no row has any
    scores: np.ndarray | None = None

    def __len__(self) -> int:
        return int(self.participant.size)

    def take(self, rows: np.ndarray) -> HumanColumns:
        """The rows a boolean mask or an index array selects."""
        picked = np.flatnonzero(rows) if rows.dtype == bool else rows
        return HumanColumns(
            participants=self.participants,
            items=self.items,
            answers=self.answers,
            participant=self.participant[picked],
            item=self.item[picked],
            answer=self.answer[picked],
            position=self.position[picked],
            valid=self.valid[picked],
            correct=self.correct[picked],
            is_attention_check=self.is_attention_check[picked],
            duration_ms=self.duration_ms[picked],
            raw_answer=self.raw_answer[picked],
            scores=None if self.scores is None else self.scores[picked],
        )

    def per_participant(self, values: Sequence[Any], dtype: Any = None) -> np.ndarray:
        """A participant-level value (one per `participants`) for every row."""
        return np.asarray(values, dtype=dtype).reshape(-1)[self.participant]

    def per_item(self, values: Sequence[Any], dtype: Any = None) -> np.ndarray:
        """An item-level value (one per `items`) for every row."""
        return np.asarray(values, dtype=dtype).reshape(-1)[self.item]

    def given_answers(self) -> dict[int, GivenAnswers]:
        """Each participant's answers to study items (attention checks left out), as the review
        flags read them (`studies.participants.quality.answers_by_participant`), by participant id; imported
        participants are not judged by the flags and are left out."""
        imported = self.per_participant([info.is_imported for info in self.participants], bool)
        rows = np.flatnonzero(~self.is_attention_check & ~imported)
        rows = rows[np.argsort(self.participant[rows], kind="stable")]
        stored = np.array(self.answers, dtype=object)
        golds = np.array([info.gold.strip().lower() for info in self.items], dtype=object)
        answers = [
            given_answer(answer, raw) for answer, raw in zip(stored[self.answer[rows]], self.raw_answer[rows].tolist())
        ]
        durations = self.duration_ms[rows].tolist()
        gold = golds[self.item[rows]].tolist()
        ids = [info.participant_id for info in self.participants]
        owners, starts = np.unique(self.participant[rows], return_index=True)
        stops = [*starts[1:].tolist(), rows.size]
        return {
            ids[owner]: GivenAnswers(durations[start:stop], answers[start:stop], gold[start:stop])
            for owner, start, stop in zip(owners.tolist(), starts.tolist(), stops)
        }

    def row(self, r: int) -> HumanAnswer:
        person, item = self.participants[int(self.participant[r])], self.items[int(self.item[r])]
        return HumanAnswer(
            annotator=person.annotator,
            participant_id=person.participant_id,
            participant_status=person.status,
            excluded=person.excluded,
            is_imported=person.is_imported,
            unit=person.unit,
            item_id=item.id,
            item_key=item.key,
            gold=item.gold,
            meta=item.meta,
            position=int(self.position[r]),
            raw_answer=self.raw_answer[r],
            answer=self.answers[int(self.answer[r])],
            valid=bool(self.valid[r]),
            correct=bool(self.correct[r]),
            is_attention_check=bool(self.is_attention_check[r]),
            duration_ms=int(self.duration_ms[r]),
            scores=self.scores[r] if self.scores is not None else {},
        )

    @classmethod
    def of(cls, answers: Sequence[HumanAnswer], items: Mapping[str, ItemInfo]) -> HumanColumns:
        """The columns of answers given one by one (answers built in memory, not read)."""
        people: dict[int, ParticipantInfo] = {}
        known: dict[str, ItemInfo] = {}
        for h in answers:
            people.setdefault(
                h.participant_id,
                ParticipantInfo(h.annotator, h.participant_id, h.participant_status, h.excluded, h.is_imported, h.unit),
            )
            known.setdefault(
                h.item_key,
                items.get(h.item_key)
                or ItemInfo(h.item_id, h.item_key, h.gold, h.meta, h.is_attention_check, (h.unit,), h.position),
            )
        person_of = {pk: index for index, pk in enumerate(people)}
        item_of = {key: index for index, key in enumerate(known)}
        given: dict[str, int] = {}
        return cls(
            participants=tuple(people.values()),
            items=tuple(known.values()),
            participant=np.array([person_of[h.participant_id] for h in answers], dtype=np.int64),
            item=np.array([item_of[h.item_key] for h in answers], dtype=np.int64),
            answer=np.array([given.setdefault(h.answer, len(given)) for h in answers], dtype=np.int64),
            answers=tuple(given),
            position=np.array([h.position for h in answers], dtype=np.int64),
            valid=np.array([h.valid for h in answers], dtype=bool),
            correct=np.array([bool(h.correct) for h in answers], dtype=bool),
            is_attention_check=np.array([h.is_attention_check for h in answers], dtype=bool),
            duration_ms=np.array([h.duration_ms for h in answers], dtype=np.int64),
            raw_answer=object_array([h.raw_answer for h in answers]),
            scores=object_array([h.scores for h in answers]) if any(h.scores for h in answers) else None,
        )


class HumanAnswers(Sequence[HumanAnswer]):
    """`HumanColumns` read as a sequence of `HumanAnswer`, each built when it is read."""

    def __init__(self, columns: HumanColumns) -> None:
        self.columns = columns

    def __len__(self) -> int:
        return len(self.columns)

    @overload
    def __getitem__(self, index: int) -> HumanAnswer: ...
    @overload
    def __getitem__(self, index: slice) -> list[HumanAnswer]: ...
    def __getitem__(self, index: int | slice) -> HumanAnswer | list[HumanAnswer]:
        if isinstance(index, slice):
            return [self.columns.row(r) for r in range(len(self))[index]]
        return self.columns.row(range(len(self))[index])

    def __iter__(self) -> Iterator[HumanAnswer]:
        return (self.columns.row(r) for r in range(len(self)))


def object_array(values: Sequence[Any]) -> np.ndarray:
    """A one-dimensional object array of `values` (numpy would make a 2-D array of equal-length lists)."""
    array = np.empty(len(values), dtype=object)
    array[:] = values
    return array


@dataclass(frozen=True)
class AnswerBatch:
    """One batch of a study's answers as arrays; texts (raw and stored answers) as codes into the
    texts met so far, which repeat ("yes", "no")."""

    participant: np.ndarray
    item: np.ndarray
    position: np.ndarray
    raw: np.ndarray
    answer: np.ndarray
    flag: np.ndarray
    duration: np.ndarray
    pk: np.ndarray
    #: the items answered in the batch
    items: frozenset[int]

    @classmethod
    def of(cls, columns: list[tuple], texts: dict[str, int]) -> AnswerBatch:
        person, item, position, raw, answer, flags, duration, pk = columns
        return cls(
            participant=np.array(person, dtype=np.int64),
            item=np.array(item, dtype=np.int64),
            position=np.array(position, dtype=np.int64),
            raw=np.fromiter((texts.setdefault(t, len(texts)) for t in raw), dtype=np.int64, count=len(raw)),
            answer=np.fromiter((texts.setdefault(t, len(texts)) for t in answer), dtype=np.int64, count=len(answer)),
            flag=np.array(flags).astype(np.int8),
            duration=np.array(duration, dtype=np.int64),
            pk=np.array(pk, dtype=np.int64),
            items=frozenset(item),
        )


def positions_in(values: np.ndarray, index_of: Mapping[int, int]) -> np.ndarray:
    """`values` (ids, each a key of `index_of`) replaced by their index in `index_of`."""
    ids = np.array(sorted(index_of), dtype=np.int64)
    indices = np.array([index_of[pk] for pk in ids.tolist()], dtype=np.int64)
    return indices[np.searchsorted(ids, values)]
