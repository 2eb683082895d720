"""The researcher's preview: the study walked as a participant would, kept in the browser session only.

Nothing of a preview is written to the database: no participant, no answer, no pseudonym, no slot.
The walk lives under one session key per study (its step, the item sequence, the answers given) and
is scored, refused and shown by the same benchmark code as a participant's, so the preview shows
the attention checks and the AmbiBench feedback as they will appear. Results, exports and the API
read the database only, so a preview can never be counted.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any

from django.http import HttpRequest

from annotation.models import Item
from annotation.selectors import item_data
from parity import training
from studies.models import Study, Unit
from studies.participants.answer_tokens import answer_token_matches, preview_owner
from studies.participants.entry import participant_sequence
from studies.participants.training import comprehension_questions, practice_questions

SESSION_PREFIX = "parity:preview:"
STEPS = ("consent", "instructions", "practice", "comprehension", "items", "done", "declined", "screened_out")


@dataclass
class Walk:
    """One preview in progress: where the researcher is and what they answered."""

    step: str = "consent"
    sequence: list[int] = field(default_factory=list)
    answers: list[dict[str, Any]] = field(default_factory=list)
    viewer: str = ""
    failures: int = 0
    #: the training (`parity.training`): practice answers, feedback read, tries at the check
    practice_answers: list[dict[str, Any]] = field(default_factory=list)
    practice_read: int = 0
    comprehension_tries: int = 0

    @property
    def answered(self) -> int:
        return len(self.answers)

    @property
    def total(self) -> int:
        return len(self.sequence)


def _key(study: Study) -> str:
    return f"{SESSION_PREFIX}{study.pk}"


def walk_for(request: HttpRequest, study: Study) -> Walk:
    """The preview of `study` in this session, a new one when there is none."""
    stored = request.session.get(_key(study))
    if stored:
        return Walk(**stored)
    return walk_start(request, study)


def walk_start(request: HttpRequest, study: Study) -> Walk:
    """A fresh walk through the study's first unit, with its attention checks at random positions."""
    unit = Unit.objects.filter(study=study).order_by("position").first()
    viewer = f"preview-{secrets.token_hex(6)}"
    sequence = participant_sequence(study=study, unit=unit, seed=viewer) if unit else []
    walk = Walk(sequence=sequence, viewer=viewer)
    walk_save(request, study, walk)
    return walk


def walk_save(request: HttpRequest, study: Study, walk: Walk) -> None:
    request.session[_key(study)] = vars(walk).copy()


def current_item(walk: Walk) -> Item | None:
    if walk.step != "items" or walk.answered >= walk.total:
        return None
    return Item.objects.get(pk=walk.sequence[walk.answered])


def screen(study: Study, walk: Walk, item: Item):
    return study.definition.screen(item.key, item.prompt, study.design, viewer=walk.viewer)


def walk_consent(walk: Walk, agree: bool) -> Walk:
    if walk.step == "consent":
        walk.step = "instructions" if agree else "declined"
    return walk


def walk_begin(study: Study, walk: Walk) -> Walk:
    if walk.step == "instructions":
        _follow(walk, training.first_step(study.practice_questions, study.comprehension_questions))
    return walk


def _follow(walk: Walk, step: str) -> None:
    walk.step = ("items" if walk.sequence else "done") if step == training.AFTER else step


def _progress(walk: Walk) -> training.Progress:
    return training.Progress(
        step=walk.step if walk.step in (training.PRACTICE, training.COMPREHENSION) else training.AFTER,
        practice_answers=tuple(walk.practice_answers),
        practice_read=walk.practice_read,
        tries=walk.comprehension_tries,
    )


def _moved(walk: Walk, progress: training.Progress) -> Walk:
    before = _progress(walk)
    if progress != before:
        walk.practice_answers = list(progress.practice_answers)
        walk.practice_read, walk.comprehension_tries = progress.practice_read, progress.tries
        if progress.step != before.step:
            _follow(walk, progress.step)
    return walk


def walk_practice_answer(study: Study, walk: Walk, answer: str) -> Walk:
    return _moved(walk, training.practice_answered(_progress(walk), practice_questions(study), answer))


def walk_practice_next(study: Study, walk: Walk) -> Walk:
    progress = training.practice_read(_progress(walk), practice_questions(study), comprehension_questions(study))
    return _moved(walk, progress)


def walk_comprehension(study: Study, walk: Walk, answers: list[str], attempt: int) -> Walk:
    progress = training.check_tried(
        _progress(walk), comprehension_questions(study), answers, attempt=attempt, allowed=study.comprehension_tries
    )
    return _moved(walk, progress)


def walk_answer(study: Study, walk: Walk, *, item_token: str, position: int, raw: str) -> str:
    """Score an answer to the current item as `response_submit` would; returns the refusal message
    ("" when the answer was taken). A stale or replayed form is ignored."""
    item = current_item(walk)
    if (
        item is None
        or position != walk.answered + 1
        or not answer_token_matches(item_token, preview_owner(study.pk), position, item.pk)
    ):
        return ""
    definition = study.definition
    data = item_data(item)
    scored = definition.score(screen(study, walk, item).answer_for(raw), item.gold, study.design, item=data)
    message = definition.refusal(raw, scored, study.design, item=data)
    if message:
        return message
    walk.answers.append(
        {
            "item": item.pk,
            "raw_answer": raw,
            "answer": scored.answer or "",
            "correct": scored.correct,
            "attention_check": item.is_attention_check,
        }
    )
    if item.is_attention_check and not scored.correct:
        walk.failures += 1
    if walk.answered >= walk.total:
        walk.step = "done"
    return ""


def history(study: Study, walk: Walk, item: Item) -> list[dict[str, Any]]:
    """The earlier answers the page shows (AmbiBench: each sentence with its correct label)."""
    if not study.definition.shows_history:
        return []
    items = Item.objects.in_bulk([entry["item"] for entry in walk.answers])
    answered = [
        {
            "prompt": items[entry["item"]].prompt,
            "gold": items[entry["item"]].gold,
            "raw_answer": entry["raw_answer"],
            "answer": entry["answer"],
            "correct": entry["correct"],
        }
        for entry in walk.answers
    ]
    return study.definition.history(answered, item.prompt)


def excluded(study: Study, walk: Walk) -> bool:
    return bool(study.exclude_at and walk.failures >= study.exclude_at)
