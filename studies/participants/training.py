"""The participant's training before the items: the practice questions, answered with feedback, and
the comprehension check (`parity.training`). Nothing here is an answer of the study: the results never
read it, and it is kept on the participant only to report what the training was and how long it took.

Each step is written under the participant's row lock and only from the step it belongs to, so a
double click, a refresh or a replayed POST changes nothing twice."""

from __future__ import annotations

from collections.abc import Sequence

from django.db import transaction
from django.utils import timezone

from parity import training
from parity.training import TrainingQuestion
from studies.models import Participant, Study
from studies.participants.locks import participant_locked
from studies.results_token import results_changed

Step = Participant.Step

#: the training's steps (`parity.training`) as the participant's; past the training, the items
_STEPS = {
    training.PRACTICE: Step.PRACTICE,
    training.COMPREHENSION: Step.COMPREHENSION,
    training.SCREENED_OUT: Step.SCREENED_OUT,
}


def practice_questions(study: Study) -> list[TrainingQuestion]:
    return [TrainingQuestion.from_json(question) for question in study.practice_questions]


def comprehension_questions(study: Study) -> list[TrainingQuestion]:
    return [TrainingQuestion.from_json(question) for question in study.comprehension_questions]


def _step(participant: Participant, step: str) -> str:
    if step == training.AFTER:
        return Step.ITEMS if participant.sequence else Step.DONE
    return _STEPS[step]


def step_after_instructions(participant: Participant) -> str:
    """Where a participant goes from the instructions: the practice, the check, or the items."""
    study = participant.study
    return _step(participant, training.first_step(study.practice_questions, study.comprehension_questions))


def _progress(participant: Participant) -> training.Progress:
    steps: dict[str, str] = {str(value): key for key, value in _STEPS.items()}
    return training.Progress(
        step=steps.get(str(participant.step), training.AFTER),
        practice_answers=tuple(participant.practice_answers),
        practice_read=participant.practice_read,
        tries=participant.comprehension_tries,
    )


def _keep(participant: Participant, before: training.Progress, after: training.Progress) -> Participant:
    """Write what changed from `before` to `after`: the answers, the step, and the training's end."""
    if after == before:
        return participant
    now = timezone.now()
    participant.practice_answers = list(after.practice_answers)
    participant.practice_read = after.practice_read
    participant.comprehension_tries = after.tries
    participant.last_seen_at = now
    fields = ["practice_answers", "practice_read", "comprehension_tries", "last_seen_at"]
    if after.step != before.step:
        participant.step = _step(participant, after.step)
        fields.append("step")
        if after.finished:
            participant.training_ended_at = now
            fields.append("training_ended_at")
        if after.step == training.SCREENED_OUT:
            participant.status = Participant.Status.SCREENED_OUT
            fields.append("status")
            results_changed(study_ids=[participant.study_id])  # no longer working
    participant.save(update_fields=fields)
    return participant


@transaction.atomic
def practice_answer(*, participant: Participant, answer: str) -> Participant:
    """Keep the answer to the current practice question, once: its feedback is shown next."""
    participant = participant_locked(participant)
    before = _progress(participant)
    return _keep(participant, before, training.practice_answered(before, practice_questions(participant.study), answer))


@transaction.atomic
def practice_next(*, participant: Participant) -> Participant:
    """The feedback read: on to the next practice question, or past the practice."""
    participant = participant_locked(participant)
    study = participant.study
    before = _progress(participant)
    after = training.practice_read(before, practice_questions(study), comprehension_questions(study))
    return _keep(participant, before, after)


@transaction.atomic
def comprehension_submit(*, participant: Participant, answers: Sequence[str], attempt: int) -> Participant:
    """One try at the comprehension check: all right, on to the items; wrong with tries left, another
    try; wrong on the last try, the participant is asked to return the study (Prolific's rule: two
    tries, then return, never a rejection) and their place is freed. `attempt`: the tries the page
    was shown after; a try sent twice (a double click, a replay) counts once."""
    participant = participant_locked(participant)
    study = participant.study
    before = _progress(participant)
    after = training.check_tried(
        before, comprehension_questions(study), answers, attempt=attempt, allowed=study.comprehension_tries
    )
    return _keep(participant, before, after)
