"""The model side of AmbiBench (Tamkin et al., Sections 4.2-4.3).

Example disambiguation (4.3): one MultiReadRequest per episode, all 20 labelled examples in one
text, reading X and Y at each label position; the answer at a position is the likelier of X/Y and
P(correct label) is recorded. Instruction disambiguation (4.2): a ChoiceRequest, X vs Y after the
query. `format` "item" keeps each item's own format; "arrow" or "qa" renders every prompt in that
format (the paper reports both and their mean: the sweep runs both).
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any, Mapping, Sequence

from modelruns.engine.requests import ChoiceRequest, MultiReadRequest, Read

from ..base import ItemData, ModelAnswer
from .prompts import FORMATS, LABELS, disambiguation_prompt, labelled_text, order_episode

SETTING_FORMATS = ("item",) + FORMATS
DEFAULT_SETTING: Mapping[str, Any] = {"format": "item"}


def check_setting(setting: Mapping[str, Any]) -> None:
    if setting["format"] not in SETTING_FORMATS:
        raise ValueError(f"format must be one of {', '.join(SETTING_FORMATS)}, not {setting['format']!r}")


def sweep_settings() -> list[dict[str, Any]]:
    return [{"format": fmt} for fmt in FORMATS]


def _format(prompt: Mapping[str, Any], setting: Mapping[str, Any]) -> str:
    return prompt["format"] if setting.get("format", "item") == "item" else setting["format"]


def groups(items: Sequence[ItemData]) -> list[list[str]]:
    """An episode's positions stay together (one prompt reads them all); other items go alone."""
    episodes: dict[str, list[str]] = defaultdict(list)
    single: list[list[str]] = []
    for item in items:
        if item.split == "episode":
            episodes[item.prompt["episode"]].append(item.key)
        else:
            single.append([item.key])
    return [keys for _, keys in sorted(episodes.items())] + single


def episode_request(episode: Sequence[ItemData], setting: Mapping[str, Any]) -> MultiReadRequest:
    ordered = order_episode(episode)
    first = ordered[0].prompt
    shown = labelled_text(first["instruction"], [(item.prompt["sentence"], item.gold) for item in ordered],
                          _format(first, setting))
    candidates = tuple(shown.candidates[label] for label in LABELS)
    return MultiReadRequest(first["episode"], shown.text, tuple(Read(offset, candidates) for offset in shown.offsets))


def requests(items: Sequence[ItemData], setting: Mapping[str, Any]) -> list[ChoiceRequest | MultiReadRequest]:
    episodes: dict[str, list[ItemData]] = defaultdict(list)
    found: list[ChoiceRequest | MultiReadRequest] = []
    for item in items:
        if item.split == "episode":
            episodes[item.prompt["episode"]].append(item)
        else:
            prompt = disambiguation_prompt({**item.prompt, "format": _format(item.prompt, setting)})
            found.append(ChoiceRequest(item.key, prompt.context, tuple(prompt.continuations[label] for label in LABELS)))
    found.extend(episode_request(episode, setting) for _, episode in sorted(episodes.items()))
    return found


def _answer(item: ItemData, scores: Sequence[Any], truncated: int, extra: Mapping[str, Any]) -> ModelAnswer:
    logprobs = {label: score.logprob for label, score in zip(LABELS, scores)}
    answer = max(LABELS, key=lambda label: (logprobs[label], label == LABELS[0]))
    probabilities = {label: math.exp(value) for label, value in logprobs.items()}
    return ModelAnswer(
        answer=answer, raw_answer=answer, valid=True, correct=answer == item.gold,
        scores={"logprob": logprobs, "p_correct": probabilities.get(item.gold, 0.0),
                "p_labels": sum(probabilities.values()),
                # the model's own top token is X or Y (else its mass went to some other token)
                "top_is_label": any(score.is_greedy for score in scores), **extra},
        truncated_tokens=truncated,
    )


def answers(items: Sequence[ItemData], setting: Mapping[str, Any], results: Mapping[str, Any]) -> dict[str, ModelAnswer]:
    found: dict[str, ModelAnswer] = {}
    episodes: dict[str, list[ItemData]] = defaultdict(list)
    for item in items:
        if item.split == "episode":
            episodes[item.prompt["episode"]].append(item)
        else:
            result = results[item.key]
            found[item.key] = _answer(item, result.scores, result.truncated_tokens,
                                      {"format": _format(item.prompt, setting)})
    for episode, members in episodes.items():
        result = results[episode]
        for item, read in zip(order_episode(members), result.reads):
            found[item.key] = _answer(item, read.scores, result.truncated_tokens,
                                      {"position": int(item.prompt["position"]), "format": _format(item.prompt, setting)})
    return found
