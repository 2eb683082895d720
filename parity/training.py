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
from dataclasses import dataclass, field
from typing import Any

#: a researcher writes this much at most: a training phase, not a second study
MAX_QUESTIONS = 20
MAX_CHARS = 2000


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
