"""Training before a study's items: practice questions answered with feedback, and a comprehension
check of the instructions that people must pass within a set number of tries.

Both are written by the researcher as plain text, one question per block, blocks apart by a blank
line:

    Esther asks "Are you coming to the party?" and Juan answers "I have to work". Does he mean yes or no?
    - yes
    - no
    = no
    Having to work means he cannot come.

The question's lines come first; lines that begin with "- " are the choices shown (none: a text box);
the line that begins with "= " is the right answer; the lines after it are the feedback shown once the
question is answered (practice only). Nothing here is counted in the results.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

#: a researcher writes this much at most: a training phase, not a second study
MAX_QUESTIONS = 20
MAX_CHARS = 2000
#: longer practice answers are cut: a practice answer is a word or a sentence
ANSWER_CHARS = 500


@dataclass(frozen=True)
class TrainingQuestion:
    text: str
    answer: str
    choices: tuple[str, ...] = ()
    feedback: str = ""

    def is_right(self, given: str) -> bool:
        """Right when it is the answer, spaces and case aside (a typed answer as a chosen one)."""
        return _plain(given) == _plain(self.answer)

    def as_json(self) -> dict[str, Any]:
        return {"text": self.text, "answer": self.answer, "choices": list(self.choices), "feedback": self.feedback}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TrainingQuestion:
        return cls(
            text=str(data["text"]),
            answer=str(data["answer"]),
            choices=tuple(str(choice) for choice in data.get("choices", ())),
            feedback=str(data.get("feedback", "")),
        )


@dataclass(frozen=True)
class Parsed:
    questions: list[TrainingQuestion] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def _plain(text: str) -> str:
    return " ".join(text.split()).casefold()


def parse(text: str, *, feedback: bool = True) -> Parsed:
    """The questions written in `text`, or what is wrong with it, by block number. `feedback`:
    whether lines after the answer are allowed (a comprehension check shows none)."""
    if len(text) > MAX_CHARS * MAX_QUESTIONS:
        return Parsed(errors=[f"the text is longer than {MAX_CHARS * MAX_QUESTIONS} characters"])
    blocks = [block for block in _blocks(text) if block]
    questions: list[TrainingQuestion] = []
    errors: list[str] = []
    if len(blocks) > MAX_QUESTIONS:
        errors.append(f"{len(blocks)} questions: at most {MAX_QUESTIONS}")
    for number, block in enumerate(blocks, start=1):
        question, problems = _question(block, feedback=feedback)
        errors.extend(f"question {number}: {problem}" for problem in problems)
        if question is not None:
            questions.append(question)
    return Parsed(questions=questions if not errors else [], errors=errors)


def _blocks(text: str) -> list[list[str]]:
    blocks: list[list[str]] = [[]]
    for line in text.replace("\r\n", "\n").split("\n"):
        if line.strip():
            blocks[-1].append(line.strip())
        elif blocks[-1]:
            blocks.append([])
    return blocks


def _question(lines: Sequence[str], *, feedback: bool) -> tuple[TrainingQuestion | None, list[str]]:
    text, choices, answers, after = [], [], [], []
    for line in lines:
        if line.startswith("= "):
            answers.append(line[2:].strip())
        elif answers:
            after.append(line)
        elif line.startswith("- "):
            choices.append(line[2:].strip())
        elif choices:
            return None, [f"the line {line!r} comes after the choices: the question's lines come first"]
        else:
            text.append(line)
    problems = []
    if not text:
        problems.append("no question before the choices and the answer")
    if len(answers) != 1:
        problems.append('give the right answer on one line that begins with "= "')
    elif choices and not any(_plain(answers[0]) == _plain(choice) for choice in choices):
        problems.append(f"the answer {answers[0]!r} is not one of the choices")
    if len(set(map(_plain, choices))) != len(choices):
        problems.append("a choice is given twice")
    if after and not feedback:
        problems.append("a comprehension question shows no feedback: nothing may follow its answer")
    if sum(map(len, lines)) > MAX_CHARS:
        problems.append(f"longer than {MAX_CHARS} characters")
    if problems:
        return None, problems
    return TrainingQuestion(
        text="\n".join(text), answer=answers[0], choices=tuple(choices), feedback="\n".join(after)
    ), []


def written(questions: Sequence[TrainingQuestion]) -> str:
    """The questions as the researcher writes them: `parse(written(q)).questions == q`."""
    blocks = []
    for question in questions:
        lines = [question.text, *(f"- {choice}" for choice in question.choices), f"= {question.answer}"]
        if question.feedback:
            lines.append(question.feedback)
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def all_right(questions: Sequence[TrainingQuestion], given: Sequence[str]) -> list[bool]:
    """For each question, whether the answer given to it is right."""
    return [question.is_right(answer) for question, answer in zip(questions, given, strict=True)]


# -- a participant's way through the training (the same for a participant and a researcher's preview) --

PRACTICE = "practice"
COMPREHENSION = "comprehension"
#: past the training: the items (or the end, for a study of no items)
AFTER = "after"
SCREENED_OUT = "screened_out"


@dataclass(frozen=True)
class Progress:
    """Where someone is in the training: the step, the practice answers given ({"answer", "correct"}),
    the practice questions whose feedback they have read, and their tries at the check."""

    step: str
    practice_answers: tuple[dict[str, Any], ...] = ()
    practice_read: int = 0
    tries: int = 0

    @property
    def finished(self) -> bool:
        return self.step in (AFTER, SCREENED_OUT)


def first_step(practice: Sequence[TrainingQuestion], check: Sequence[TrainingQuestion]) -> str:
    """The step after the instructions."""
    return PRACTICE if practice else COMPREHENSION if check else AFTER


def practice_answered(progress: Progress, practice: Sequence[TrainingQuestion], answer: str) -> Progress:
    """The answer to the current practice question kept, once: its feedback is shown next. Anything
    else (another step, a question already answered, an empty answer) changes nothing."""
    waiting = len(progress.practice_answers) == progress.practice_read < len(practice)
    if progress.step != PRACTICE or not waiting or not answer.strip():
        return progress
    answer = answer.strip()[:ANSWER_CHARS]
    given = {"answer": answer, "correct": practice[progress.practice_read].is_right(answer)}
    return replace(progress, practice_answers=(*progress.practice_answers, given))


def practice_read(
    progress: Progress, practice: Sequence[TrainingQuestion], check: Sequence[TrainingQuestion]
) -> Progress:
    """The feedback read: the next practice question, or the check, or past the training."""
    if progress.step != PRACTICE or len(progress.practice_answers) <= progress.practice_read:
        return progress
    read = progress.practice_read + 1
    step = PRACTICE if read < len(practice) else COMPREHENSION if check else AFTER
    return replace(progress, practice_read=read, step=step)


def check_tried(
    progress: Progress, check: Sequence[TrainingQuestion], answers: Sequence[str], *, attempt: int, allowed: int
) -> Progress:
    """One try at the check: all right, past the training; wrong with tries left, another try; wrong
    on the last, screened out. `attempt` is the tries the page was shown after: a try sent twice (a
    double click, a replay) counts once."""
    if progress.step != COMPREHENSION or len(answers) != len(check) or attempt != progress.tries:
        return progress
    tries = progress.tries + 1
    if all(all_right(check, [answer.strip() for answer in answers])):
        return replace(progress, tries=tries, step=AFTER)
    return replace(progress, tries=tries, step=SCREENED_OUT if tries >= allowed else COMPREHENSION)
