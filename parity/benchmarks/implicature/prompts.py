"""What the implicature benchmark shows: the participant's consent, instructions and attention
checks, and the texts a model reads (the template filled with an exchange, the contrastive pair
and the k-shot prefix), laid out as the authors' `ExamplePrompt` does."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..base import ItemData
from ..consent import RECORDED_ON_THE_PAGE

CONTRASTIVE_QUESTION = "Question: Which of the above texts is coherent, A or B?\nAnswer:"

# Written for the platform in Prolific's allowed form: the instruction is inside the question
# itself and the response plainly says yes, so there is no implicature to resolve.
ATTENTION_CHECKS: tuple[tuple[str, str], ...] = (
    ("This is an attention check: for this question, please choose 'yes'. Will you choose yes?", "Yes, I will."),
    ("To show you are reading carefully, please answer 'yes' here. Are you paying attention?", "Yes, I am."),
    ("Please select 'yes' for this question. Is this the question where you select yes?", "Yes, it is."),
    ("For this item the correct answer is 'yes'; please pick it. Can you pick yes?", "Yes, I can."),
    ("Attention check: choose 'yes'. Did you read this instruction?", "Yes, I did."),
)

CONSENT = (
    "You are invited to take part in a research study on how people interpret what others mean. "
    "You will read short exchanges between two people and say whether the answer means yes or no. "
    "Taking part is voluntary; you may stop at any time by returning the study on Prolific. "
    "Your answers are stored under a pseudonym and used only for research; your Prolific ID is kept "
    "only to pay you and is never published." + RECORDED_ON_THE_PAGE
)
INSTRUCTIONS = (
    "Each screen shows a short exchange: Esther asks Juan a question, and Juan answers without saying "
    "yes or no directly. Decide whether Juan's answer means yes or no, and choose that answer. "
    "There are no trick questions, and you cannot go back to change an answer. "
    "Some screens check that you are reading carefully; they tell you what to answer. "
    "Keyboard: press Y or 1 for yes, N or 2 for no."
)


def sentence(template: Mapping[str, str], prompt: Mapping[str, Any], label: str) -> str:
    """The template filled with an item and a final word: the coherent text when `label` is gold."""
    return template["example_template_text"] % (prompt["utterance"], prompt["response"], label)


def ranking_context(template: Mapping[str, str], prompt: Mapping[str, Any]) -> str:
    """The shared prefix of the two texts, without the space before the final word."""
    before = template["example_template_text"].rpartition("%s")[0]
    return (before % (prompt["utterance"], prompt["response"])).rstrip(" ")


def other_label(label: str) -> str:
    return "no" if label == "yes" else "yes"


def contrastive_block(template: Mapping[str, str], item: ItemData, coherent_at: int) -> str:
    """Both texts as options A/B and the question, up to (not including) the answer."""
    texts = [sentence(template, item.prompt, item.gold), sentence(template, item.prompt, other_label(item.gold))]
    first, second = (texts[0], texts[1]) if coherent_at == 0 else (texts[1], texts[0])
    return f"A: {first}\nB: {second}\n{CONTRASTIVE_QUESTION}"


def prompt_prefix(template: Mapping[str, str], shot_texts: Sequence[str]) -> str:
    text = ""
    if shot_texts:
        text += template["prompt_instruction_text"] + "\n\n" + "\n\n".join(shot_texts) + "\n\n"
    if template["example_instruction_text"]:
        text += template["example_instruction_text"] + "\n\n"
    return text
