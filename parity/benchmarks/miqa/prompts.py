"""What MiQA shows: the question a participant reads, the consent, instructions and attention
checks, and the texts a model reads (Appendix A wordings 1-4, the two baselines, k-shot prefixes,
NLI pairs and the generative question of Section 5.2)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..base import ChoicePrompt, ItemData
from ..consent import RECORDED_ON_THE_PAGE
from ..rows import seeded_rng

OPTION_KEYS = ("a", "b")

HUMAN_QUESTIONS = {
    "implies": '"{statement}". Which of the following statements could that imply?',
    "implied-by": '"{statement}" is implied by which of the following?',
}
# Appendix A, prompts 1-4 for "implies"; "similar prompts were used with implied-by": the same four
# shapes around the README's "is implied by which of the following" wording.
WORDINGS: dict[str, dict[int, str]] = {
    "implies": {
        1: '"{statement}". Which of the following two statements could that imply? {first} or {second}?',
        2: '"{statement}". Which of the following two statements could that imply? (1) {first} (2) {second}',
        3: 'Q: "{statement}". Which of the following two statements could that imply? (1) {first} (2) {second} A:',
        4: 'Question: "{statement}". Which of the following two statements could that imply? (1) {first} '
        "(2) {second} Answer: It could imply",
    },
    "implied-by": {
        1: '"{statement}" is implied by which of the following two statements? {first} or {second}?',
        2: '"{statement}" is implied by which of the following two statements? (1) {first} (2) {second}',
        3: 'Q: "{statement}" is implied by which of the following two statements? (1) {first} (2) {second} A:',
        4: 'Question: "{statement}" is implied by which of the following two statements? (1) {first} '
        "(2) {second} Answer: It could be implied by",
    },
}
# The two baselines (Table 3 calls them "no choices" and "no questions").
BASELINES = {"empty": "", "pick": "Pick between the following statements: (1) {first} (2) {second}"}
SHOT_SEPARATOR = "\n\n"
GENERATIVE_PROMPT = '"{premise}". Could that imply that "{conclusion}"?'

CONSENT = (
    "You are invited to take part in a research study on how people draw conclusions from everyday "
    "statements. You will read a statement and choose which of two other statements it relates to. "
    "Taking part is voluntary; you may stop at any time by returning the study on Prolific. "
    "Your answers are stored under a pseudonym and used only for research; your Prolific ID is kept "
    "only to pay you and is never published." + RECORDED_ON_THE_PAGE
)
INSTRUCTIONS = (
    "Each screen shows a statement and a question with two possible answers. Choose the answer that "
    "makes the most sense in everyday, common-sense terms. There are no trick questions, and you cannot "
    "go back to change an answer. Keyboard: press 1 for the first answer, 2 for the second."
)
ATTENTION_CHECKS: tuple[tuple[str, str, str], ...] = (
    (
        'This is an attention check. Please choose "I am reading carefully".',
        "I am reading carefully",
        "The moon is a cheese",
    ),
    (
        'To show you are paying attention, choose the statement "Apples are fruit".',
        "Apples are fruit",
        "Apples are furniture",
    ),
    ('Attention check: please select "I read the instructions".', "I read the instructions", "Tables can swim"),
)


def _check_order(order: Sequence[str]) -> tuple[str, str]:
    if sorted(order) != list(OPTION_KEYS):
        raise ValueError(f"order must be a permutation of {OPTION_KEYS}, not {tuple(order)!r}")
    return order[0], order[1]


def question_text(prompt: Mapping[str, Any], wording: int | str = 3, order: Sequence[str] = OPTION_KEYS) -> str:
    """Appendix A wording 1-4, or a baseline ("empty", "pick"), with the options in `order`."""
    first, second = (prompt["options"][key] for key in _check_order(order))
    if wording in BASELINES:
        template = BASELINES[str(wording)]
    else:
        try:
            template = WORDINGS[prompt["direction"]][int(wording)]
        except (KeyError, ValueError):
            raise ValueError(f"unknown MiQA wording {wording!r}; use 1-4, 'empty' or 'pick'") from None
    return template.format(statement=prompt["statement"], first=first, second=second)


def _continuation(context: str, option: str) -> str:
    return option if not context or context.endswith(("\n", " ")) else " " + option


def solved_text(
    prompt: Mapping[str, Any], gold: str, wording: int | str = 3, order: Sequence[str] = OPTION_KEYS
) -> str:
    """A question followed by its correct answer: one shot of a k-shot prefix."""
    context = question_text(prompt, wording, order)
    return context + _continuation(context, prompt["options"][gold])


def choice_prompt(
    prompt: Mapping[str, Any],
    wording: int | str = 3,
    order: Sequence[str] = OPTION_KEYS,
    shots: Sequence[ItemData] = (),
    seed: int = 0,
) -> ChoicePrompt:
    """Context (shots, then the question with options in `order`) and each option as continuation.

    Each shot shows its options in a seeded random order, so the prefix does not teach a position.
    """
    prefix = ""
    for shot in shots:
        shot_order = seeded_rng("miqa", "shot-order", seed, shot.key).sample(OPTION_KEYS, 2)
        prefix += solved_text(shot.prompt, shot.gold, wording, shot_order) + SHOT_SEPARATOR
    context = prefix + question_text(prompt, wording, order)
    return ChoicePrompt(
        context=context, continuations={key: _continuation(context, prompt["options"][key]) for key in OPTION_KEYS}
    )


def nli_pairs(prompt: Mapping[str, Any]) -> dict[str, tuple[str, str]]:
    """(premise, hypothesis) per option for an NLI cross-encoder, scored as 1 - P(contradiction)."""
    statement = prompt["statement"]
    if prompt["direction"] == "implies":
        return {key: (statement, option) for key, option in prompt["options"].items()}
    return {key: (option, statement) for key, option in prompt["options"].items()}


def generative_prompt(implies_prompt: Mapping[str, Any]) -> str:
    """Section 5.2: "M_p". Could that imply that "L_c"? (the adversarial literal reading)."""
    if implies_prompt["direction"] != "implies":
        raise ValueError("the generative question is built from an 'implies' question")
    return GENERATIVE_PROMPT.format(premise=implies_prompt["statement"], conclusion=implies_prompt["options"]["a"])
