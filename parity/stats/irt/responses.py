"""The respondents' answers in long form and a fitted item-response model's estimates."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy import special

IrtModel = Literal["1pl", "2pl"]


@dataclass(frozen=True)
class Responses:
    """Answers in long form: respondent ``respondent[k]`` scored ``score[k]`` (in [0, 1]) on item
    ``item[k]``; respondents and items index `n_respondents` and `n_items`."""

    respondent: np.ndarray
    item: np.ndarray
    score: np.ndarray
    n_respondents: int
    n_items: int


@dataclass(frozen=True)
class IrtFit:
    model: IrtModel
    #: every respondent's WLE (people first), in the people population's SDs from its mean
    ability: np.ndarray
    #: the SE from the respondent's own answers only, 1/√I(θ̂)
    ability_se: np.ndarray
    #: the SE with the items' uncertainty added (delta method); what a CI should use
    ability_se_total: np.ndarray
    difficulty: np.ndarray
    difficulty_se: np.ndarray
    #: None in the 1PL (every item's is `scale_logits`)
    discrimination: np.ndarray | None
    #: the common discrimination of the 1PL: the people's SD in logits; None in the 2PL
    scale_logits: float | None
    #: the number of respondents (the first ones) whose answers define the scale
    people: int
    converged: bool
    iterations: int
    #: how the CI is formed: "normal" (estimate ± z·ability_se_total) or "noncentral-t" (the
    #: standardised-mean interval of the 1PL's people scaling, with `effective_people`)
    interval: str = "normal"
    #: per respondent, σ² / Var(α̂ − μ̂): the number of people whose mean would be as precise as the
    #: respondent's difference from the people's mean (the noncentral t's n); None with "normal"
    effective_people: np.ndarray | None = None

    def slopes(self) -> np.ndarray:
        """Every item's discrimination (the common one repeated in the 1PL)."""
        if self.discrimination is not None:
            return self.discrimination
        return np.full(self.difficulty.size, self.scale_logits if self.scale_logits is not None else 1.0)

    def probabilities(self, respondent: np.ndarray, item: np.ndarray) -> np.ndarray:
        """The fitted probability of a right answer of each (respondent, item) pair."""
        return special.expit(self.slopes()[item] * (self.ability[respondent] - self.difficulty[item]))
