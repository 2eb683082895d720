"""The participant's training before the items: the practice questions, answered with feedback, and
the comprehension check (`parity.training`). Nothing here is an answer of the study: the results never
read it, and it is kept on the participant only to report what the training was and how long it took.

Each step is written under the participant's row lock and only from the step it belongs to, so a
double click, a refresh or a replayed POST changes nothing twice."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils import timezone

from parity.training import TrainingQuestion, all_right, parse, written
from studies.errors import StudyError
from studies.models import Participant, Study
from studies.results_versions import results_changed

Step = Participant.Step

#: Prolific asks for two tries; more than a few turns a check into guessing
MAX_TRIES = 5
#: longer answers are cut: a practice answer is a word or a sentence
ANSWER_CHARS = 500


def practice_questions(study: Study) -> list[TrainingQuestion]:
    return [TrainingQuestion.from_json(question) for question in study.practice_questions]


def comprehension_questions(study: Study) -> list[TrainingQuestion]:
    return [TrainingQuestion.from_json(question) for question in study.comprehension_questions]


def _locked(participant: Participant) -> Participant:
    return Participant.objects.select_for_update().select_related("study").get(pk=participant.pk)


def step_after_instructions(participant: Participant) -> str:
    """Where a participant goes from the instructions: the practice, the check, or the items."""
    study = participant.study
    if study.practice_questions:
        return Step.PRACTICE
    if study.comprehension_questions:
        return Step.COMPREHENSION
    return Step.ITEMS if participant.sequence else Step.DONE


def _after_training(participant: Participant) -> str:
    return Step.ITEMS if participant.sequence else Step.DONE


@transaction.atomic
def practice_answer(*, participant: Participant, answer: str) -> Participant:
    """Keep the answer to the current practice question, once: its feedback is shown next."""
    participant = _locked(participant)
    questions = practice_questions(participant.study)
    waiting = len(participant.practice_answers) == participant.practice_read < len(questions)
    if participant.step != Step.PRACTICE or not waiting or not answer.strip():
        return participant
    question = questions[participant.practice_read]
    answer = answer.strip()[:ANSWER_CHARS]
    participant.practice_answers = [
        *participant.practice_answers,
        {"answer": answer, "correct": question.is_right(answer)},
    ]
    participant.last_seen_at = timezone.now()
    participant.save(update_fields=["practice_answers", "last_seen_at"])
    return participant


@transaction.atomic
def practice_next(*, participant: Participant) -> Participant:
    """The feedback read: on to the next practice question, or past the practice."""
    participant = _locked(participant)
    if participant.step != Step.PRACTICE or len(participant.practice_answers) <= participant.practice_read:
        return participant
    participant.practice_read += 1
    fields = ["practice_read", "last_seen_at"]
    if participant.practice_read >= len(participant.study.practice_questions):
        if participant.study.comprehension_questions:
            participant.step = Step.COMPREHENSION
        else:
            participant.step = _after_training(participant)
            participant.training_ended_at = timezone.now()
            fields.append("training_ended_at")
        fields.append("step")
    participant.last_seen_at = timezone.now()
    participant.save(update_fields=fields)
    return participant


@dataclass(frozen=True)
class CheckResult:
    participant: Participant
    #: for each question, whether this try answered it right (empty: nothing was tried)
    right: list[bool]

    @property
    def tries_left(self) -> int:
        return max(0, self.participant.study.comprehension_tries - self.participant.comprehension_tries)


@transaction.atomic
def comprehension_submit(*, participant: Participant, answers: Sequence[str], attempt: int) -> CheckResult:
    """One try at the comprehension check: all right, on to the items; wrong with tries left, another
    try; wrong on the last try, the participant is asked to return the study (Prolific's rule: two
    tries, then return, never a rejection) and their place is freed. `attempt`: the tries the page
    was shown after; a try sent twice (a double click, a replay) counts once."""
    participant = _locked(participant)
    questions = comprehension_questions(participant.study)
    stale = attempt != participant.comprehension_tries
    if participant.step != Step.COMPREHENSION or len(answers) != len(questions) or stale:
        return CheckResult(participant, [])
    right = all_right(questions, [answer.strip() for answer in answers])
    participant.comprehension_tries += 1
    now = timezone.now()
    participant.last_seen_at = now
    fields = ["comprehension_tries", "last_seen_at"]
    if all(right):
        participant.step = _after_training(participant)
        participant.training_ended_at = now
        fields += ["step", "training_ended_at"]
    elif participant.comprehension_tries >= participant.study.comprehension_tries:
        participant.step = Step.SCREENED_OUT
        participant.status = Participant.Status.SCREENED_OUT
        participant.training_ended_at = now
        fields += ["step", "status", "training_ended_at"]
        results_changed(study_ids=[participant.study_id])  # no longer working
    participant.save(update_fields=fields)
    return CheckResult(participant, right)


def training_fields(fields: dict[str, Any]) -> dict[str, Any]:
    """`fields` with the practice and comprehension questions as stored: a researcher's text is parsed
    (`parity.training`), a list of questions checked the same way; StudyError says what is wrong."""
    problems = []
    for name, feedback in (("practice_questions", True), ("comprehension_questions", False)):
        value = fields.get(name)
        if value is None:
            continue
        text = value if isinstance(value, str) else written([TrainingQuestion.from_json(q) for q in value])
        parsed = parse(text, feedback=feedback)
        problems += [f"{name.replace('_', ' ')}: {error}" for error in parsed.errors]
        fields[name] = [question.as_json() for question in parsed.questions]
    tries = fields.get("comprehension_tries")
    if tries is not None and not 1 <= int(tries) <= MAX_TRIES:
        problems.append(f"comprehension tries: give 1 to {MAX_TRIES}")
    if problems:
        raise StudyError("; ".join(problems))
    return fields
