"""What a rater reads: the consent and the instructions for grading an answer (the question itself
is MiQA's generative question, built by `miqa.prompts.generative_prompt`)."""

from __future__ import annotations

from ..consent import RECORDED_ON_THE_PAGE

CONSENT = (
    "You are invited to take part in a research study on how well computer programs answer everyday "
    "questions. You will read a question and an answer someone gave, and rate the answer. "
    "Taking part is voluntary; you may stop at any time by returning the study on Prolific. "
    "Your answers are stored under a pseudonym and used only for research; your Prolific ID is kept "
    "only to pay you and is never published." + RECORDED_ON_THE_PAGE
)
INSTRUCTIONS = (
    "Each screen shows a question and an answer to it. Read the first paragraph of the answer and rate it:\n"
    "Correct: the answer is right, in everyday, common-sense terms.\n"
    "Ambiguous: the answer could be read as right or as wrong, or it avoids the question.\n"
    "Wrong: the answer is wrong.\n"
    "You cannot go back to change a rating. Keyboard: 1 = correct, 2 = ambiguous, 3 = wrong."
)
