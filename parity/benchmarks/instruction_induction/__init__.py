"""Instruction induction (Honovich et al., "Instruction Induction: From Few Examples to Natural
Language Task Descriptions").

24 tasks; 100 ready induction prompts per task are the items (split `induce`, key `antonyms-001`,
gold empty); the 186 gold instructions (asset `references`), the execute sets with every
acceptable answer (asset `execute`) and each task's metric (asset `metrics`) come with them.
"""

from __future__ import annotations

from .benchmark import PROMPTS_PER_TASK, TASKS, InstructionInduction, execute_entries
from .prompts import (
    EXECUTION_MAX_TOKENS,
    INDUCTION_MAX_TOKENS,
    TASK_METRICS,
    execution_prompt,
    in_context_prompt,
    induction_prompt,
)

__all__ = [
    "EXECUTION_MAX_TOKENS",
    "INDUCTION_MAX_TOKENS",
    "InstructionInduction",
    "PROMPTS_PER_TASK",
    "TASKS",
    "TASK_METRICS",
    "execute_entries",
    "execution_prompt",
    "in_context_prompt",
    "induction_prompt",
]
