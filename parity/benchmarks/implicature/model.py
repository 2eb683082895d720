"""The model side of the implicature benchmark (Ruis et al., Section 3 and Appendix F.1).

Ranking (the paper's protocol): the coherent and the incoherent text share every token but the
final word, so an item is a ChoiceRequest over " yes" / " no" after the shared prefix, correct
when the gold word has the higher log-probability. k-shot: k dev examples drawn at random for each
test item (seeded, reproducible, without replacement), shown as coherent examples after the
template's k-shot header, exactly as the authors' `ExamplePrompt` lays a prompt out:

    {prompt_instruction_text}\\n\\n{shot 1}\\n\\n...{shot k}\\n\\n{example_instruction_text}\\n\\n{item}

Contrastive (Appendix F.1): both texts in one prompt as options A and B (assignment randomised,
seeded), "Question: Which of the above texts is coherent, A or B?\\nAnswer:", then " A" vs " B".
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from parity.engine.requests import ChoiceRequest

from ..base import ItemData, ModelAnswer, seeded_rng
from ..design import DesignOption
from .prompts import contrastive_block, other_label, prompt_prefix, ranking_context, sentence

K_SHOTS = (0, 1, 5, 10, 15, 30)
RANKING_TEMPLATES = tuple(range(1, 10))  # 1-6 of Table 4, 7-9 of Table 5
CONTRASTIVE_TEMPLATES = (1, 2)
CONTRASTIVE_K_SHOTS = (0, 1, 5)
VARIANTS = ("ranking", "contrastive")
LABELS = ("yes", "no")
OPTIONS = ("A", "B")

DEFAULT_SETTING: Mapping[str, Any] = {"variant": "ranking", "template": 2, "k": 0, "seed": 0}
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
    DesignOption("seed", "Seed", minimum=0, help="draws the examples (the same seed, the same draw)"),
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


def sweep_settings() -> list[dict[str, Any]]:
    """Templates 1-9 x k in {0, 1, 5, 10, 15, 30}, then the contrastive templates x k in {0, 1, 5}."""
    grid = [{"variant": "ranking", "template": t, "k": k, "seed": 0} for t in RANKING_TEMPLATES for k in K_SHOTS]
    grid += [
        {"variant": "contrastive", "template": t, "k": k, "seed": 0}
        for t in CONTRASTIVE_TEMPLATES
        for k in CONTRASTIVE_K_SHOTS
    ]
    return grid


def setting_label(setting: Mapping[str, Any]) -> str:
    kind = "" if setting.get("variant", "ranking") == "ranking" else "contrastive "
    return f"{kind}template {setting['template']}, k={setting['k']}"


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


def coherent_option(item_key: str, setting: Mapping[str, Any], role: str) -> int:
    """Which option (0 = A, 1 = B) holds the coherent text: random, reproducible per item and role."""
    return seeded_rng("implicature", "contrastive", setting.get("seed", 0), item_key, role).randrange(2)


def select_shots(item: ItemData, pool: Sequence[ItemData], k: int, seed: int = 0) -> list[ItemData]:
    """k distinct dev examples drawn for this item alone, in a random order (seeded)."""
    if k == 0:
        return []
    candidates = sorted(
        (other for other in pool if other.key != item.key and not other.is_attention_check), key=lambda other: other.key
    )
    if k > len(candidates):
        raise ValueError(f"{k} shots asked for, only {len(candidates)} dev examples are imported")
    return seeded_rng("implicature", "shots", seed, item.key, k).sample(candidates, k)


def item_request(
    item: ItemData, template: Mapping[str, str], shots: Sequence[ItemData], setting: Mapping[str, Any]
) -> ChoiceRequest:
    if setting["variant"] == "contrastive":
        shot_texts = [
            contrastive_block(template, shot, at) + " " + OPTIONS[at]
            for shot, at in ((shot, coherent_option(shot.key, setting, f"shot:{item.key}")) for shot in shots)
        ]
        context = prompt_prefix(template, shot_texts) + contrastive_block(
            template, item, coherent_option(item.key, setting, "item")
        )
        return ChoiceRequest(item.key, context, tuple(" " + option for option in OPTIONS))
    shot_texts = [sentence(template, shot.prompt, shot.gold) for shot in shots]
    context = prompt_prefix(template, shot_texts) + ranking_context(template, item.prompt)
    return ChoiceRequest(item.key, context, tuple(" " + label for label in LABELS))


def requests(
    items: Sequence[ItemData],
    assets: Mapping[str, Any],
    setting: Mapping[str, Any],
    *,
    pool: Sequence[ItemData] = (),
    prior: Mapping[str, Any] | None = None,
    kind: str = "causal",
) -> list[ChoiceRequest]:
    template = _template(assets, setting)
    k, seed = int(setting["k"]), int(setting.get("seed", 0))
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
        if setting["variant"] == "contrastive":
            coherent_at = coherent_option(item.key, setting, "item")
            chosen = OPTIONS[result.best]
            answer = item.gold if result.best == coherent_at else other_label(item.gold)
            scores = {"A": logprobs[0], "B": logprobs[1], "coherent_option": OPTIONS[coherent_at], "chosen": chosen}
            raw = chosen
        else:
            answer = LABELS[result.best]
            scores = {"yes": logprobs[0], "no": logprobs[1], "p_yes": _probabilities(logprobs)[0]}
            raw = answer
        found[item.key] = ModelAnswer(
            answer=answer,
            raw_answer=raw,
            valid=True,
            correct=answer == item.gold,
            scores=scores,
            truncated_tokens=result.truncated_tokens,
        )
    return found
