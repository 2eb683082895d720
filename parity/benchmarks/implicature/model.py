"""The model side of the implicature benchmark (Ruis et al., Section 3 and Appendix F.1).

Ranking (the paper's protocol): the coherent and the incoherent text share every token but the
final word, so an item is a ChoiceRequest over " yes" / " no" after the shared prefix, correct
when the gold word has the higher log-probability; a tie is no answer, wrong (the authors count an
item correct only when the coherent text scores strictly better). k-shot: each test item's k dev
examples are the authors' draw for its row (`draws.example_rows`: numpy's `default_rng(0)`,
item after item), shown as coherent examples after the template's k-shot header, exactly as the
authors' `ExamplePrompt` lays a prompt out:

    {prompt_instruction_text}\\n\\n{shot 1}\\n\\n...{shot k}\\n\\n{example_instruction_text}\\n\\n{item}

Contrastive (Appendix F.1): both texts in one prompt as options A and B, the coherent one where the
authors' draw put it (`draws.coherent_options`), "Question: Which of the above texts is coherent,
A or B?\\nAnswer:", then " A" vs " B"; a tie is wrong here too.

`shots_seed` 0 is the authors' own draw; another seed replays their procedure with other draws.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from parity.engine.requests import ChoiceRequest

from ..base import ItemData, ModelAnswer, ModelAsk
from ..design import DesignOption
from ..ties import TIE, unique_best
from .draws import coherent_options, example_rows
from .prompts import contrastive_block, other_label, prompt_prefix, ranking_context, sentence

K_SHOTS = (0, 1, 5, 10, 15, 30)
RANKING_TEMPLATES = tuple(range(1, 10))  # 1-6 of Table 4, 7-9 of Table 5
CONTRASTIVE_TEMPLATES = (1, 2)
CONTRASTIVE_K_SHOTS = (0, 1, 5)
VARIANTS = ("ranking", "contrastive")
LABELS = ("yes", "no")
OPTIONS = ("A", "B")

DEFAULT_SETTING: Mapping[str, Any] = {"variant": "ranking", "template": 2, "k": 0, "shots_seed": 0}
#: the draws are replayed from the first test row in blocks of this many rows (one computation
#: covers the published 600)
_DRAW_BLOCK = 1024
SETTING_OPTIONS: tuple[DesignOption, ...] = (
    DesignOption(
        "variant",
        "Protocol",
        kind="choice",
        choices=(("ranking", "ranking: yes or no after the exchange"), ("contrastive", "contrastive: A or B")),
        help="ranking is the paper's protocol; contrastive is Appendix F.1's",
    ),
    DesignOption(
        "template",
        "Prompt template",
        kind="choice",
        choices=tuple((number, f"template {number}") for number in RANKING_TEMPLATES),
        help="ranking: 1-6 of Table 4, 7-9 of Table 5; contrastive: 1 or 2",
    ),
    DesignOption(
        "k", "Examples (k-shot)", minimum=0, help="dev examples before each item; the paper: 0, 1, 5, 10, 15 or 30"
    ),
    DesignOption(
        "shots_seed",
        "Seed of the examples' draw",
        minimum=0,
        help="which dev examples each item gets, and the contrastive A/B order: 0 is the authors' own draw; "
        "another seed draws again the same way",
    ),
)


def check_setting(setting: Mapping[str, Any]) -> None:
    variant = setting["variant"]
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {', '.join(VARIANTS)}, not {variant!r}")
    allowed = RANKING_TEMPLATES if variant == "ranking" else CONTRASTIVE_TEMPLATES
    if setting["template"] not in allowed:
        raise ValueError(
            f"{variant} template must be one of {', '.join(map(str, allowed))}, not {setting['template']!r}"
        )
    if setting["k"] < 0:
        raise ValueError(f"k must be 0 or more, not {setting['k']}")
    if setting.get("shots_seed", 0) < 0:
        raise ValueError(f"shots_seed must be 0 or more, not {setting['shots_seed']}")


def sweep_settings() -> list[dict[str, Any]]:
    """Templates 1-9 x k in {0, 1, 5, 10, 15, 30}, then the contrastive templates x k in {0, 1, 5}."""
    grid = [{"variant": "ranking", "template": t, "k": k, "shots_seed": 0} for t in RANKING_TEMPLATES for k in K_SHOTS]
    grid += [
        {"variant": "contrastive", "template": t, "k": k, "shots_seed": 0}
        for t in CONTRASTIVE_TEMPLATES
        for k in CONTRASTIVE_K_SHOTS
    ]
    return grid


def setting_label(setting: Mapping[str, Any]) -> str:
    kind = "" if setting.get("variant", "ranking") == "ranking" else "contrastive "
    seed = int(setting.get("shots_seed", 0))
    return f"{kind}template {setting['template']}, k={setting['k']}" + (f", shots seed {seed}" if seed else "")


# -- texts ----------------------------------------------------------------------------------


def _template(assets: Mapping[str, Any], setting: Mapping[str, Any]) -> Mapping[str, str]:
    number = int(setting["template"])
    if setting["variant"] == "contrastive":
        templates = assets.get("contrastive_templates") or []
        if not 1 <= number <= len(templates):
            raise ValueError(f"contrastive template {number} is not imported (found {len(templates)})")
        return templates[number - 1]
    templates = assets.get("templates") or {}
    if str(number) not in templates:
        raise ValueError(f"template {number} is not imported (found {', '.join(sorted(templates)) or 'none'})")
    return templates[str(number)]


def _row(item: ItemData) -> int:
    """The item's place in its published file (0-based), which the authors' draws are indexed by."""
    try:
        return int(item.meta["row"]) - 1
    except (KeyError, TypeError, ValueError):
        raise ValueError(f"{item.key}: no row of the published file, which the examples' draw needs") from None


def _rows_to_draw(row: int) -> int:
    return (row // _DRAW_BLOCK + 1) * _DRAW_BLOCK


def _refuse_earlier_draw(setting: Mapping[str, Any]) -> None:
    """A run started before the authors' draw was replayed has `seed` in its setting and was scored
    with Parity's earlier per-item draw: finishing it with another draw would mix two, so a run
    that draws anything is refused (k = 0 ranking draws nothing and goes on)."""
    if "shots_seed" not in setting and "seed" in setting and (int(setting["k"]) or setting["variant"] != "ranking"):
        raise ValueError(
            "this run was started with an earlier draw of examples (setting 'seed'); start it again, "
            "which draws as the authors did"
        )


def contrastive_options(item: ItemData, setting: Mapping[str, Any]) -> tuple[int, tuple[int, ...]]:
    """Which option (0 = A, 1 = B) holds the coherent text: the item's, and each of its k examples'.
    The authors ran both contrastive templates in one run, drawing template after template, so a
    template's options depend on how many there are (the published two)."""
    row = _row(item)
    drawn = coherent_options(
        int(setting["k"]), len(CONTRASTIVE_TEMPLATES), _rows_to_draw(row), int(setting.get("shots_seed", 0))
    )
    return drawn[row][int(setting["template"]) - 1]


def _dev_examples(item: ItemData, pool: Sequence[ItemData]) -> list[ItemData]:
    """The pool in the published dev file's order; a dev item scored itself is left out of its own
    examples (the authors drew only for test items)."""
    return sorted(
        (other for other in pool if other.key != item.key and not other.is_attention_check),
        key=lambda other: (int(other.meta.get("row", 0)), other.key),
    )


def select_shots(item: ItemData, pool: Sequence[ItemData], k: int, seed: int = 0) -> list[ItemData]:
    """The k dev examples the authors' iterator draws for the item's row, in the drawn order."""
    if k == 0:
        return []
    candidates = _dev_examples(item, pool)
    if k > len(candidates):
        raise ValueError(f"{k} shots asked for, only {len(candidates)} dev examples are imported")
    row = _row(item)
    return [candidates[index] for index in example_rows(k, len(candidates), _rows_to_draw(row), seed)[row]]


def item_request(
    item: ItemData, template: Mapping[str, str], shots: Sequence[ItemData], setting: Mapping[str, Any]
) -> ChoiceRequest:
    if setting["variant"] == "contrastive":
        at_item, at_shots = contrastive_options(item, setting)
        shot_texts = [contrastive_block(template, shot, at) + " " + OPTIONS[at] for shot, at in zip(shots, at_shots)]
        context = prompt_prefix(template, shot_texts) + contrastive_block(template, item, at_item)
        return ChoiceRequest(item.key, context, tuple(" " + option for option in OPTIONS))
    shot_texts = [sentence(template, shot.prompt, shot.gold) for shot in shots]
    context = prompt_prefix(template, shot_texts) + ranking_context(template, item.prompt)
    return ChoiceRequest(item.key, context, tuple(" " + label for label in LABELS))


def requests(ask: ModelAsk) -> list[ChoiceRequest]:
    items, assets, setting, pool = ask.items, ask.assets, ask.setting, ask.pool
    _refuse_earlier_draw(setting)
    template = _template(assets, setting)
    k, seed = int(setting["k"]), int(setting.get("shots_seed", 0))
    return [item_request(item, template, select_shots(item, pool, k, seed), setting) for item in items]


# -- answers --------------------------------------------------------------------------------


def _probabilities(logprobs: Sequence[float]) -> list[float]:
    top = max(logprobs)
    weights = [math.exp(value - top) for value in logprobs]
    return [weight / sum(weights) for weight in weights]


def answers(
    items: Sequence[ItemData],
    setting: Mapping[str, Any],
    results: Mapping[str, Any],
    *,
    assets: Mapping[str, Any] | None = None,
    kind: str = "causal",
) -> dict[str, ModelAnswer]:
    found: dict[str, ModelAnswer] = {}
    for item in items:
        result = results[item.key]
        logprobs = [score.logprob for score in result.scores]
        best = unique_best(logprobs)
        if setting["variant"] == "contrastive":
            coherent_at = contrastive_options(item, setting)[0]
            chosen = TIE if best is None else OPTIONS[best]
            answer = "" if best is None else item.gold if best == coherent_at else other_label(item.gold)
            scores = {"A": logprobs[0], "B": logprobs[1], "coherent_option": OPTIONS[coherent_at], "chosen": chosen}
            raw = chosen
        else:
            answer = "" if best is None else LABELS[best]
            scores = {"yes": logprobs[0], "no": logprobs[1], "p_yes": _probabilities(logprobs)[0]}
            raw = answer or TIE
        found[item.key] = ModelAnswer(
            answer=answer,
            raw_answer=raw,
            valid=best is not None,
            correct=answer == item.gold,
            scores=scores,
            truncated_tokens=result.truncated_tokens,
        )
    return found
