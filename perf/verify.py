"""The database check after a load (the benchmark's and the serving fault test's): what the
simulated participants were told against the rows the study holds."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from perf.load import Answer, Outcome


@dataclass
class Verification:
    """The database after a load, against what the participants were told."""

    acknowledged: int
    stored: int
    missing: list[Answer]
    stored_twice: list[Answer]
    duplicate_positions: list[tuple]
    wrong_items: list[tuple[str, int]]
    completed_not_stored: list[str]
    unit_completed: dict[int, int]
    unit_capacity: dict[int, int]
    over_capacity: list[int]
    problems: list[str]

    @property
    def ok(self) -> bool:
        return not self.problems


Query = Callable[[str], list[tuple]]
_SLUG = re.compile(r"^[-A-Za-z0-9_]+$")


def _key(answer: Answer) -> tuple[str, int, str]:
    return answer.pid, answer.position, answer.answer


def verify(query: Query, *, link: str, outcomes: Iterable[Outcome], exact: bool) -> Verification:
    """Check the study's rows: every acknowledged answer stored exactly once (same item, same answer),
    no (participant, position) twice, every participant who saw the done page stored as completed
    with all their answers, no unit past its capacity, and with `exact` (the participants fill the
    study) the same number completed in every unit. `query(sql)` runs plain SQL on the database."""
    if not _SLUG.match(link):
        raise ValueError(f"not a study link: {link!r}")
    outcomes = list(outcomes)
    study = f"(SELECT id FROM studies_study WHERE link = '{link}')"
    rows = query(
        "SELECT p.prolific_pid, r.position, r.item_id, r.raw_answer FROM annotation_response r "
        f"JOIN studies_participant p ON p.id = r.participant_id WHERE p.study_id = {study}"
    )
    # an acknowledged answer is matched by who, where and what; the form names its item by an opaque
    # token, so the stored item is checked against the participant's sequence instead
    stored = Counter((pid, int(position), answer) for pid, position, _item, answer in rows)
    positions = Counter((pid, int(position)) for pid, position, _item, _answer in rows)
    acknowledged = [answer for outcome in outcomes for answer in outcome.acknowledged]
    missing = [answer for answer in acknowledged if stored[_key(answer)] == 0]
    twice = [answer for answer in acknowledged if stored[_key(answer)] > 1]
    duplicate_positions = [key for key, count in positions.items() if count > 1]
    sequences = {
        pid: sequence if isinstance(sequence, list) else json.loads(sequence)
        for pid, sequence in query(f"SELECT prolific_pid, sequence FROM studies_participant WHERE study_id = {study}")
    }
    wrong_items = sorted(
        (pid, int(position))
        for pid, position, item, _answer in rows
        if not 0 < int(position) <= len(sequences.get(pid, [])) or sequences[pid][int(position) - 1] != int(item)
    )

    people = {
        pid: (status, step, int(answered))
        for pid, status, step, answered in query(
            f"SELECT prolific_pid, status, step, answered FROM studies_participant WHERE study_id = {study}"
        )
    }
    per_pid = Counter(pid for pid, _position in positions.elements())
    completed_not_stored = [
        outcome.pid
        for outcome in outcomes
        if outcome.completed
        and (
            people.get(outcome.pid, ("", "", 0))[:2] != ("completed", "done")
            or per_pid[outcome.pid] != people[outcome.pid][2]
        )
    ]

    units = query(
        "SELECT u.id, u.capacity, "
        "SUM(CASE WHEN p.status = 'completed' THEN 1 ELSE 0 END), "
        "SUM(CASE WHEN p.status = 'active' OR (p.status = 'completed' AND NOT p.excluded) THEN 1 ELSE 0 END) "
        f"FROM studies_unit u LEFT JOIN studies_participant p ON p.unit_id = u.id WHERE u.study_id = {study} "
        "GROUP BY u.id, u.capacity ORDER BY u.id"
    )
    unit_completed = {int(unit): int(done or 0) for unit, _capacity, done, _held in units}
    unit_capacity = {int(unit): int(capacity) for unit, capacity, _done, _held in units}
    over = [int(unit) for unit, capacity, _done, held in units if int(held or 0) > int(capacity)]

    problems = []
    if missing:
        problems.append(f"{len(missing)} acknowledged answers are not stored, e.g. {missing[:3]}")
    if twice:
        problems.append(f"{len(twice)} acknowledged answers are stored twice, e.g. {twice[:3]}")
    if wrong_items:
        problems.append(
            f"{len(wrong_items)} answers stored on an item other than their position's, e.g. {wrong_items[:3]}"
        )
    if duplicate_positions:
        problems.append(f"{len(duplicate_positions)} (participant, position) pairs stored twice")
    if completed_not_stored:
        problems.append(f"{len(completed_not_stored)} participants saw the done page but are not stored complete")
    if over:
        problems.append(f"units past their capacity: {over}")
    if exact and len(set(unit_completed.values())) > 1:
        problems.append(f"completed per unit differ: {sorted(unit_completed.values())}")
    return Verification(
        len(acknowledged),
        len(rows),
        missing,
        twice,
        duplicate_positions,
        wrong_items,
        completed_not_stored,
        unit_completed,
        unit_capacity,
        over,
        problems,
    )
