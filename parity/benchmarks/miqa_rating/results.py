"""The results of rating MiQA's generative answers: no breakdown beside the graded section (ICC(2,k)
per block and each model's generative score), which the results code draws for every study whose
benchmark has an answer scale; the grades are MiQA's one scale (`miqa.RATING_SCALE`)."""

from __future__ import annotations

from ..base import ResultsInput
from ..miqa import RATING_SCALE
from ..sections import Sections

ANSWER_SCALE = RATING_SCALE


def breakdowns(results: ResultsInput) -> Sections:
    return Sections()
