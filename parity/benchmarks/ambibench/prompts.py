"""How AmbiBench examples become text: the arrow and Q/A formats (Section 3.3), one-pass episode
texts for models (Section 4.3), the three-example prompts of Section 4.2, and the verbalisation
probe of Appendix A. Everything here is plain string work on prompts as stored in items.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..base import ChoicePrompt, ItemData

FORMATS: tuple[str, ...] = ("arrow", "qa")
LABELS: tuple[str, str] = ("X", "Y")
#: what precedes a sentence, and what precedes its label, in each format
QUERY_PREFIX = {"arrow": "", "qa": "Q: "}
ANSWER_PREFIX = {"arrow": ">", "qa": "A:"}
# "A: X" puts a space before the label, ">X" none; the space belongs to the label's token.
_LABEL_LEAD = {"arrow": "", "qa": " "}

VERBALISATION_QUESTIONS = {
    "best_guess": "What is your best guess for the [category withheld] above?",  # text-davinci-003
    "plain": "What is the [category withheld]?",  # text-davinci-002
}
#: how human raters categorise a verbalisation
VERBALISATION_CATEGORIES: tuple[str, ...] = ("correct task", "incorrect task", "other")


def _check_format(fmt: str) -> str:
    if fmt not in FORMATS:
        raise ValueError(f"unknown AmbiBench format {fmt!r}; known: {', '.join(FORMATS)}")
    return fmt


def continuation(label: str, fmt: str) -> str:
    """The text a model must produce for `label` right after the answer prefix."""
    return _LABEL_LEAD[_check_format(fmt)] + label


def candidates(fmt: str) -> dict[str, str]:
    return {label: continuation(label, fmt) for label in LABELS}


def query_block(sentence: str, fmt: str) -> str:
    """One example up to (not including) its label: `The duck is in the cave.\\n>`."""
    return f"{QUERY_PREFIX[_check_format(fmt)]}{sentence}\n{ANSWER_PREFIX[fmt]}"


@dataclass(frozen=True)
class EpisodeText:
    """All labelled examples in one text; `offsets[i]` is where the i-th label's continuation starts.

    `text[offsets[i]:offsets[i] + len(candidates[golds[i]])] == candidates[golds[i]]`, and
    `text[:offsets[i]]` is exactly the context of the i-th prediction, so one forward pass over
    `text` reads every label.
    """

    text: str
    offsets: tuple[int, ...]
    golds: tuple[str, ...]
    candidates: Mapping[str, str]

    def context(self, index: int) -> str:
        return self.text[: self.offsets[index]]


def labelled_text(instruction: str, examples: Sequence[tuple[str, str]], fmt: str) -> EpisodeText:
    """instruction, then each (sentence, label) in `fmt`, newline-separated, with label offsets."""
    text = instruction
    offsets: list[int] = []
    for sentence, label in examples:
        if label not in LABELS:
            raise ValueError(f"label must be X or Y, not {label!r}")
        text += "\n" + query_block(sentence, fmt)
        offsets.append(len(text))
        text += continuation(label, fmt)
    return EpisodeText(
        text=text, offsets=tuple(offsets), golds=tuple(label for _, label in examples), candidates=candidates(fmt)
    )


def order_episode(items: Sequence[ItemData]) -> list[ItemData]:
    """The items of one episode in position order; refuses mixed episodes and gaps."""
    if not items:
        raise ValueError("an episode needs at least one item")
    episodes = {item.prompt["episode"] for item in items}
    if len(episodes) != 1:
        raise ValueError(f"items from several episodes: {', '.join(sorted(episodes))}")
    ordered = sorted(items, key=lambda item: int(item.prompt["position"]))
    positions = [int(item.prompt["position"]) for item in ordered]
    if positions != list(range(1, len(ordered) + 1)):
        raise ValueError(
            f"episode {ordered[0].prompt['episode']} has positions {positions}, expected 1..{len(ordered)}"
        )
    return ordered


def episode_text(items: Sequence[ItemData]) -> EpisodeText:
    """The one-pass model text of an episode (its items in any order), labels = the items' golds."""
    ordered = order_episode(items)
    first = ordered[0].prompt
    return labelled_text(
        first["instruction"], [(item.prompt["sentence"], item.gold) for item in ordered], first["format"]
    )


def disambiguation_prompt(prompt: Mapping[str, Any]) -> ChoicePrompt:
    """Section 4.2: instruction, two labelled examples, the query; compare X and Y after it."""
    fmt = prompt["format"]
    shown = labelled_text(prompt["instruction"], [(sentence, label) for sentence, label in prompt["examples"]], fmt)
    context = shown.text + "\n" + query_block(prompt["query"], fmt)
    return ChoicePrompt(context=context, continuations=candidates(fmt))


def verbalisation_prompt(items: Sequence[ItemData], question: str = "best_guess") -> str:
    """Appendix A: the full labelled episode, a newline, then the question about the withheld category."""
    text = VERBALISATION_QUESTIONS.get(question, question)
    return episode_text(items).text + "\n" + text
