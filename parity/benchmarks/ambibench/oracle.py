"""The Bayesian oracle of AmbiBench's example-disambiguation setting (Tamkin et al.).

The oracle knows the task family: in an episode of one sentence construction, the task is
one of its two features, and which value of that feature gets label 'X' is unknown. That is
2 × 2 = 4 hypotheses under a uniform prior. After the labels of positions 1..i-1 it keeps
the hypotheses consistent with all of them; its accuracy at position i is the share of those
that predict the true label of position i.

With a uniform prior and deterministic hypotheses this share is the posterior probability of
the true label, and it is also the expected accuracy of the Bayes decision: after the first
label exactly one mapping per feature survives, so at most two hypotheses remain and the
split is 2–0 (certain) or 1–1 (a coin flip, 0.5); at position 1 all four split 2–2 (0.5).
This is the paper's "perfect once the examples disambiguate, chance otherwise".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from parity.stats.bootstrap import DEFAULT_CONFIDENCE, DEFAULT_SEED

from .positions import PositionAnswer, PositionCurve, position_curve

LABELS = ("X", "Y")

FeatureValue = bool | str
Example = tuple[Mapping[str, FeatureValue], str]


@dataclass(frozen=True)
class OracleEpisode:
    # The construction's two binary features, e.g. ("subject", "location").
    features: tuple[str, str]
    # In order: (feature values of the example, its true label 'X' or 'Y').
    examples: Sequence[Example]


@dataclass(frozen=True)
class _Hypothesis:
    feature: str
    # Predict 'X' iff (value == reference) == x_when_reference.
    reference: FeatureValue
    x_when_reference: bool

    def predict(self, values: Mapping[str, FeatureValue]) -> str:
        return "X" if (values[self.feature] == self.reference) == self.x_when_reference else "Y"


def _hypotheses(features: Sequence[str], examples: Sequence[Example]) -> list[_Hypothesis]:
    hypotheses = []
    for feature in features:
        seen = list(dict.fromkeys(values[feature] for values, _ in examples))
        if len(seen) > 2:
            raise ValueError(f"feature {feature!r} is not binary in this episode: {seen}")
        # Binary feature: "X iff value == first seen value" and its negation cover both
        # mappings, whether the values are booleans or strings, seen once or both.
        reference = seen[0]
        hypotheses += [
            _Hypothesis(feature, reference, True),
            _Hypothesis(feature, reference, False),
        ]
    return hypotheses


def oracle_accuracy(features: Sequence[str], examples: Sequence[Example]) -> list[float]:
    """The oracle's accuracy at positions 1..len(examples) of one episode."""
    if len(features) != 2 or features[0] == features[1]:
        raise ValueError(f"an episode has exactly two distinct features, got {features!r}")
    if not examples:
        return []
    for values, label in examples:
        if label not in LABELS:
            raise ValueError(f"labels are 'X' or 'Y', got {label!r}")
        missing = [f for f in features if f not in values]
        if missing:
            raise ValueError(f"example lacks feature values for {missing}")
    alive = _hypotheses(features, examples)
    accuracy = []
    for position, (values, label) in enumerate(examples, start=1):
        right = [h for h in alive if h.predict(values) == label]
        if not right:
            # Outside the task family (mislabelled or mis-featured example): the oracle's
            # numbers would be meaningless from here on, so stop instead of scoring 0.
            raise ValueError(f"no hypothesis explains the labels up to position {position}")
        accuracy.append(len(right) / len(alive))
        alive = right
    return accuracy


def oracle_curve(
    episodes: Iterable[OracleEpisode],
    *,
    n_boot: int = 0,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
) -> PositionCurve:
    """The oracle's accuracy per position averaged over episodes.

    No CI by default: the oracle is exact given its episodes. Pass ``n_boot`` to see how much
    the curve depends on which episodes were drawn.
    """
    answers = [
        PositionAnswer(episode=str(index), position=position, score=score)
        for index, episode in enumerate(episodes)
        for position, score in enumerate(oracle_accuracy(episode.features, episode.examples), start=1)
    ]
    return position_curve(answers, n_boot=n_boot, seed=seed, confidence=confidence)
