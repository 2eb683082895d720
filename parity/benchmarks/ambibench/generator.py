"""Generating AmbiBench from a seed: sentences (G.1), 20-example episodes (Section 4.3, G.4) and the
three-example instruction prompts (Section 4.2, G.3), as items.

Reproducibility: every random draw comes from `seeded_rng` over (seed, what, number), so the same
seed gives byte-identical items on any machine and Python version, and episode n does not depend
on how many episodes are generated (only the balancing plan does).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..base import ItemData
from ..rows import seeded_rng
from .prompts import FORMATS
from .wordlists import (
    AFFIRMATIONS,
    ANIMALS,
    CONSTRUCTION_OF,
    CONSTRUCTIONS,
    FEATURE_VALUES,
    FEATURES,
    HUMANS,
    INDOOR,
    NEGATIONS,
    OUTDOOR,
    PRONOUNS,
    PROPER_NOUNS,
    RELIGIOUS_LEADERS,
    SECULAR_LEADERS,
    UNINFORMATIVE,
    informative_instruction,
    other_value,
)

EPISODE_LENGTH = 20
INSTRUCTION_LEVELS = ("inform", "uninform")


@dataclass(frozen=True)
class Example:
    sentence: str
    features: Mapping[str, str]
    label: str


def render(construction: str, features: Mapping[str, str], rng: random.Random) -> str:
    """The sentence of `construction` with these feature values; each word uniform from its list."""
    if construction == "subject_location":
        subject = rng.choice(HUMANS if features["subject"] == "human" else ANIMALS)
        location = rng.choice(INDOOR if features["location"] == "indoor" else OUTDOOR)
        return f"The {subject} is in the {location}."
    if construction == "religious_pronoun":
        leader = rng.choice(RELIGIOUS_LEADERS if features["religious"] == "religious" else SECULAR_LEADERS)
        place = rng.choice(INDOOR)
        return f"{PRONOUNS[features['pronoun']]} is in the {place} with the {leader}."
    if construction == "proper_noun_negation":
        noun = rng.choice(PROPER_NOUNS) if features["proper_noun"] == "proper" else "The " + rng.choice(HUMANS)
        verb = rng.choice(NEGATIONS if features["negation"] == "negated" else AFFIRMATIONS)
        place = rng.choice(INDOOR)
        return f"{noun} {verb} in the {place}."
    raise ValueError(f"unknown construction {construction!r}")


def label_for(features: Mapping[str, str], salient_feature: str, mapping: str) -> str:
    """`mapping` is the value of the salient feature that is labelled X."""
    return "X" if features[salient_feature] == mapping else "Y"


def draw_example(
    rng: random.Random, salient_feature: str, mapping: str, fixed: Mapping[str, str] | None = None
) -> Example:
    """Both features drawn independently with p = 1/2 each (unless fixed), then the words."""
    construction = CONSTRUCTION_OF[salient_feature]
    features = {
        feature: (fixed or {}).get(feature) or rng.choice(FEATURE_VALUES[feature])
        for feature in CONSTRUCTIONS[construction]
    }
    return Example(render(construction, features, rng), features, label_for(features, salient_feature, mapping))


def balanced_plan(
    rng: random.Random, count: int, features: Sequence[str] = FEATURES, formats: Sequence[str] = FORMATS
) -> list[tuple[str, str]]:
    """(salient feature, format) for `count` prompts: blocks holding every pair once, each shuffled."""
    pairs = [(feature, fmt) for feature in features for fmt in formats]
    plan: list[tuple[str, str]] = []
    while len(plan) < count:
        block = list(pairs)
        rng.shuffle(block)
        plan.extend(block)
    return plan[:count]


@dataclass(frozen=True)
class Episode:
    number: int
    salient_feature: str
    mapping: str
    format: str
    examples: tuple[Example, ...]

    @property
    def key(self) -> str:
        return f"ep-{self.number:04d}"

    @property
    def construction(self) -> str:
        return CONSTRUCTION_OF[self.salient_feature]


def generate_episodes(
    seed: int,
    count: int = 720,
    *,
    length: int = EPISODE_LENGTH,
    features: Sequence[str] = FEATURES,
    formats: Sequence[str] = FORMATS,
    namespace: str = "episode",
) -> list[Episode]:
    plan = balanced_plan(seeded_rng("ambibench", seed, namespace, "plan"), count, features, formats)
    episodes = []
    for number, (feature, fmt) in enumerate(plan, start=1):
        rng = seeded_rng("ambibench", seed, namespace, number)
        mapping = rng.choice(FEATURE_VALUES[feature])
        examples = tuple(draw_example(rng, feature, mapping) for _ in range(length))
        episodes.append(Episode(number, feature, mapping, fmt, examples))
    return episodes


def episode_items(episodes: Sequence[Episode]) -> list[ItemData]:
    """One item per position; the episode is the set of items sharing `prompt["episode"]`.

    Sentences are drawn with replacement, as the authors draw them (example_generation.py picks
    every word with `random.choice`), so a sentence can come back within an episode (seed 0: 222
    of 720 episodes, 16 of them back to back). Its label is then already on the screen, and in a
    model's prompt: meta `repeat_of` names the position it first appeared at (None otherwise)."""
    items = []
    for episode in episodes:
        first_seen: dict[str, int] = {}
        for position, example in enumerate(episode.examples, start=1):
            first = first_seen.setdefault(example.sentence, position)
            items.append(
                ItemData(
                    key=f"{episode.key}-{position:02d}",
                    split="episode",
                    prompt={
                        "episode": episode.key,
                        "position": position,
                        "sentence": example.sentence,
                        "instruction": UNINFORMATIVE,
                        "format": episode.format,
                    },
                    gold=example.label,
                    meta={
                        "episode": episode.key,
                        "construction": episode.construction,
                        "salient_feature": episode.salient_feature,
                        "mapping": episode.mapping,
                        "format": episode.format,
                        "features": dict(example.features),
                        "position": position,
                        "repeat_of": first if first != position else None,
                    },
                )
            )
    return items


@dataclass(frozen=True)
class DisambiguationPrompt:
    """Section 4.2: two examples that agree on a grouping of the two features, and a query breaking it."""

    number: int
    salient_feature: str
    mapping: str
    format: str
    grouping: tuple[Mapping[str, str], Mapping[str, str]]
    examples: tuple[Example, Example]
    query: Example

    @property
    def construction(self) -> str:
        return CONSTRUCTION_OF[self.salient_feature]


def generate_disambiguation(seed: int, count: int = 720) -> list[DisambiguationPrompt]:
    plan = balanced_plan(seeded_rng("ambibench", seed, "instruction", "plan"), count)
    prompts = []
    for number, (feature, fmt) in enumerate(plan, start=1):
        rng = seeded_rng("ambibench", seed, "instruction", number)
        construction = CONSTRUCTION_OF[feature]
        first, second = CONSTRUCTIONS[construction]
        mapping = rng.choice(FEATURE_VALUES[feature])
        partner = dict(zip(FEATURE_VALUES[first], rng.sample(FEATURE_VALUES[second], 2)))
        grouping = [{first: value, second: partner[value]} for value in FEATURE_VALUES[first]]
        rng.shuffle(grouping)
        examples = tuple(draw_example(rng, feature, mapping, fixed=group) for group in grouping)
        query_first = rng.choice(FEATURE_VALUES[first])
        query = draw_example(
            rng, feature, mapping, fixed={first: query_first, second: other_value(second, partner[query_first])}
        )
        prompts.append(
            DisambiguationPrompt(
                number, feature, mapping, fmt, (grouping[0], grouping[1]), (examples[0], examples[1]), query
            )
        )
    return prompts


def disambiguation_items(
    prompts: Sequence[DisambiguationPrompt], levels: Sequence[str] = INSTRUCTION_LEVELS
) -> list[ItemData]:
    """Each prompt once per instruction level: the levels differ only in the instruction."""
    items = []
    for level in levels:
        if level not in INSTRUCTION_LEVELS:
            raise ValueError(f"unknown instruction level {level!r}")
        for prompt in prompts:
            instruction = (
                informative_instruction(prompt.salient_feature, prompt.mapping) if level == "inform" else UNINFORMATIVE
            )
            items.append(
                ItemData(
                    key=f"dis-{level}-{prompt.number:04d}",
                    split="instruction",
                    prompt={
                        "instruction": instruction,
                        "examples": [[example.sentence, example.label] for example in prompt.examples],
                        "query": prompt.query.sentence,
                        "format": prompt.format,
                    },
                    gold=prompt.query.label,
                    meta={
                        "construction": prompt.construction,
                        "salient_feature": prompt.salient_feature,
                        "mapping": prompt.mapping,
                        "format": prompt.format,
                        "features": dict(prompt.query.features),
                        "instruction_level": level,
                        "grouping": [dict(group) for group in prompt.grouping],
                        "examples_features": [dict(example.features) for example in prompt.examples],
                    },
                )
            )
    return items
