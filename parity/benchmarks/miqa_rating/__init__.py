"""Rating MiQA's generative answers (Comsa et al., Section 5.2): people grade each answer correct,
ambiguous or wrong on MiQA's one grade scale (`miqa.RATING_SCALE`); agreement is ICC(2,k)."""

from __future__ import annotations

from .benchmark import SPLIT, MiQARating, generative_questions, rating_item, rating_key

__all__ = ["SPLIT", "MiQARating", "generative_questions", "rating_item", "rating_key"]
