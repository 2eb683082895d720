"""The model side of AmbiBench (Tamkin et al., Sections 4.2-4.3).

Example disambiguation (4.3): one MultiReadRequest per episode, all 20 labelled examples in one
text, reading the labels at each label position. Instruction disambiguation (4.2): a
ChoiceRequest after the query. `format` "item" keeps each item's own format; "arrow" or "qa"
renders every prompt in that format (the paper reports both and their mean: the sweep runs both).

Validity follows the authors' `MetricWrangler.check_accuracy` / `combine_keys`
(kunhanda/task_ambiguity, metric_wrangler.py): both spellings of a label, "X" and " X", are read
and their probabilities added; the answer is the most likely of merged X, merged Y and the model's
top next token. When that top token is neither label and outweighs both, the model said
something else: the answer is invalid, and wrong. A tie for the most likely is no answer, wrong.

`topk` chooses what is merged. "exact" (the default) adds the exact probabilities of both
spellings, however unlikely. "top4" is the authors' view: their API call asked for the top 4
tokens at each position (`logprobs=4`, api_access.py), so a spelling outside those 4 added
nothing; here a spelling counts when it is one token ranked 1-4 among the model's next tokens.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from parity.engine.requests import ChoiceRequest, MultiReadRequest, Read

from ..base import ItemData, ModelAnswer, ModelAsk
from ..design import DesignOption
from ..ties import TIE
from .prompts import FORMATS, LABELS, continuation, disambiguation_prompt, labelled_text, order_episode

SETTING_FORMATS = ("item",) + FORMATS
EXACT, TOP4 = "exact", "top4"
TOPK_RULES = (EXACT, TOP4)
#: how many of the next tokens the authors' API call listed (`logprobs=4`)
AUTHORS_TOP_K = 4
DEFAULT_SETTING: Mapping[str, Any] = {"format": "item", "topk": EXACT}
SETTING_OPTIONS: tuple[DesignOption, ...] = (
    DesignOption(
        "format",
        "Prompt format",
        kind="choice",
        choices=(("item", "each item's own format"), ("arrow", "arrow: sentence >X"), ("qa", "Q/A: Q: sentence A: X")),
        help="the paper reports arrow and qa and their mean (a sweep runs both)",
    ),
    DesignOption(
        "topk",
        "Label probabilities",
        kind="choice",
        choices=(
            (EXACT, "exact: both spellings of a label, however unlikely"),
            (TOP4, "the authors' top 4: a spelling outside the 4 likeliest tokens counts 0"),
        ),
        help="the authors' API listed the 4 likeliest next tokens (logprobs=4); exact is never lower",
    ),
)


def check_setting(setting: Mapping[str, Any]) -> None:
    if setting["format"] not in SETTING_FORMATS:
        raise ValueError(f"format must be one of {', '.join(SETTING_FORMATS)}, not {setting['format']!r}")
    if setting["topk"] not in TOPK_RULES:
        raise ValueError(f"topk must be one of {', '.join(TOPK_RULES)}, not {setting['topk']!r}")


def sweep_settings() -> list[dict[str, Any]]:
    return [{"format": fmt} for fmt in FORMATS]


def setting_label(setting: Mapping[str, Any]) -> str:
    """The format, and the label rule only when it is not the default (so exact runs read as before)."""
    rule = setting.get("topk", EXACT)
    return f"format={setting['format']}" + (f", topk={rule}" if rule != EXACT else "")


def _format(prompt: Mapping[str, Any], setting: Mapping[str, Any]) -> str:
    return prompt["format"] if setting.get("format", "item") == "item" else setting["format"]


def spellings(fmt: str) -> tuple[str, ...]:
    """The candidates read at a label position: X and Y as the format writes them, then with the
    leading space added or dropped ("X", "Y", " X", " Y" after ">"; " X", " Y", "X", "Y" after "A:")."""
    shown = tuple(continuation(label, fmt) for label in LABELS)
    return shown + tuple(text[1:] if text.startswith(" ") else " " + text for text in shown)


def is_label(token: str) -> str | None:
    """The label a token spells, spaces ignored as `combine_keys` ignores them; else None."""
    text = token.replace(" ", "")
    return text if text in LABELS else None


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
    shown = labelled_text(
        first["instruction"], [(item.prompt["sentence"], item.gold) for item in ordered], _format(first, setting)
    )
    candidates = spellings(_format(first, setting))
    return MultiReadRequest(first["episode"], shown.text, tuple(Read(offset, candidates) for offset in shown.offsets))


def requests(ask: ModelAsk) -> list[ChoiceRequest | MultiReadRequest]:
    items, setting = ask.items, ask.setting
    episodes: dict[str, list[ItemData]] = defaultdict(list)
    found: list[ChoiceRequest | MultiReadRequest] = []
    for item in items:
        if item.split == "episode":
            episodes[item.prompt["episode"]].append(item)
        else:
            fmt = _format(item.prompt, setting)
            prompt = disambiguation_prompt({**item.prompt, "format": fmt})
            found.append(ChoiceRequest(item.key, prompt.context, spellings(fmt)))
    found.extend(episode_request(episode, setting) for _, episode in sorted(episodes.items()))
    return found


def _counted(item: ItemData, scores: Sequence[Any], rule: str) -> list[bool]:
    """Which spellings' probabilities count: all of them, or (top4) those the authors' API listed."""
    if rule == EXACT:
        return [True] * len(scores)
    if any(score.rank is None for score in scores):
        raise ValueError(
            f"{item.key}: the authors' top-{AUTHORS_TOP_K} rule needs each label's rank among the next "
            "tokens, and these scores carry none (an API server with prompt log-probabilities reports only "
            "the top token); use topk=exact, a local model, or a server with top-k readouts"
        )
    return [score.n_tokens == 1 and score.rank <= AUTHORS_TOP_K for score in scores]


def _answer(
    item: ItemData, scores: Sequence[Any], truncated: int, extra: Mapping[str, Any], rule: str = EXACT
) -> ModelAnswer:
    """`scores`: the candidates of `spellings`, in that order."""
    top_token, top_logprob = scores[0].top_token, scores[0].top_logprob
    if top_token is None or top_logprob is None:
        raise ValueError(f"{item.key}: the scores carry no top token, needed to tell an invalid answer")
    texts = spellings(extra["format"])
    by_spelling = {text: score.logprob for text, score in zip(texts, scores, strict=True)}
    counted = dict(zip(texts, _counted(item, scores, rule)))
    merged = {
        label: sum(math.exp(value) for text, value in by_spelling.items() if is_label(text) == label)
        for label in LABELS
    }
    weight = {
        label: sum(math.exp(value) for text, value in by_spelling.items() if is_label(text) == label and counted[text])
        for label in LABELS
    }
    top_label = is_label(top_token)
    # the top token, when it is no label, stands for everything else the model might say
    contenders = dict(weight) if top_label is not None else {**weight, top_token: math.exp(top_logprob)}
    highest = max(contenders.values())
    winners = [name for name, value in contenders.items() if value == highest]
    said = winners[0] if len(winners) == 1 else TIE
    valid = said in LABELS
    return ModelAnswer(
        answer=said if valid else "",
        raw_answer=said,
        valid=valid,
        correct=valid and said == item.gold,
        scores={
            "logprob": {label: math.log(p) if p > 0 else None for label, p in merged.items()},
            "logprob_spellings": by_spelling,
            "p_correct": merged.get(item.gold, 0.0),
            "p_labels": sum(merged.values()),
            "top_token": top_token,
            "top_logprob": top_logprob,
            "top_is_label": top_label is not None,
            **(
                {"ranks": {text: score.rank for text, score in zip(texts, scores)}, "p_top4": weight}
                if rule == TOP4
                else {}
            ),
            **extra,
        },
        truncated_tokens=truncated,
    )


def answers(
    items: Sequence[ItemData],
    setting: Mapping[str, Any],
    results: Mapping[str, Any],
    *,
    assets: Mapping[str, Any] | None = None,
    kind: str = "causal",
) -> dict[str, ModelAnswer]:
    found: dict[str, ModelAnswer] = {}
    episodes: dict[str, list[ItemData]] = defaultdict(list)
    rule = str(setting.get("topk", EXACT))
    for item in items:
        if item.split == "episode":
            episodes[item.prompt["episode"]].append(item)
        else:
            result = results[item.key]
            found[item.key] = _answer(
                item, result.scores, result.truncated_tokens, {"format": _format(item.prompt, setting)}, rule
            )
    for episode, members in episodes.items():
        result = results[episode]
        for item, read in zip(order_episode(members), result.reads):
            found[item.key] = _answer(
                item,
                read.scores,
                result.truncated_tokens,
                {"position": int(item.prompt["position"]), "format": _format(item.prompt, setting)},
                rule,
            )
    return found
