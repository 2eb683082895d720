"""MiQA (Comsa et al., "MiQA: A Benchmark for Inference on Metaphorical Questions"): the definition
(`benchmark`), what people and models read (`prompts`), the model side (`model`) and Table 3 by
wording and k (`results`)."""

from __future__ import annotations

from .benchmark import (
    DIRECTIONS,
    FILENAME,
    RATING_SCALE,
    GenerativeAnswer,
    MiQA,
    MiqaRow,
    generative_question_id,
    option_order,
    parse_generative_answers,
    question_key,
    question_order,
    rating_value,
    read_rows,
    row_items,
)
from .model import GENERATIVE, both_orders, select_shots
from .prompts import (
    BASELINES,
    OPTION_KEYS,
    WORDINGS,
    choice_prompt,
    generative_prompt,
    nli_pairs,
    question_text,
    solved_text,
)

__all__ = [
    "BASELINES",
    "DIRECTIONS",
    "FILENAME",
    "GENERATIVE",
    "OPTION_KEYS",
    "RATING_SCALE",
    "WORDINGS",
    "GenerativeAnswer",
    "MiQA",
    "MiqaRow",
    "both_orders",
    "choice_prompt",
    "generative_prompt",
    "generative_question_id",
    "nli_pairs",
    "option_order",
    "parse_generative_answers",
    "question_key",
    "question_order",
    "question_text",
    "rating_value",
    "read_rows",
    "row_items",
    "select_shots",
    "solved_text",
]
