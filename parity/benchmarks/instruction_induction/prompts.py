"""Instruction induction texts (Honovich et al., Section 3-4, Appendix A): the induction prompt
(Figure 1), the execution prompt and the in-context verification prompt. The execution metrics
and the clean-up of generated text live with the engine (`parity.engine.metrics`); its
task -> metric table is stored with an import as the `metrics` asset.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from parity.engine import metrics

INDUCTION_PREFIX = (
    "I gave a friend an instruction and five inputs. The friend read the instruction and wrote an output "
    "for every one of the inputs.\nHere are the input-output pairs:\n\n"
)
INDUCTION_SUFFIX = "\n\nThe instruction was"
DEMONSTRATION_SEPARATOR = "\n\n"
#: generation settings of the paper (greedy decoding)
INDUCTION_MAX_TOKENS = 50
EXECUTION_MAX_TOKENS = 30

#: task -> execution metric (every other task: exact match); the engine scores with this one map
TASK_METRICS = metrics.TASK_METRICS


def demonstration(x: str, y: str) -> str:
    return f"Input: {x}\nOutput: {y}"


def induction_prompt(demonstrations: Sequence[Sequence[str]]) -> str:
    """The prompt models complete and humans answer, around five input-output pairs."""
    body = DEMONSTRATION_SEPARATOR.join(demonstration(x, y) for x, y in demonstrations)
    return INDUCTION_PREFIX + body + INDUCTION_SUFFIX


def parse_demonstrations(body: str) -> list[list[str]]:
    """`Input: x\\nOutput: y` blocks separated by blank lines; raises ValueError on anything else."""
    pairs = []
    for block in body.split(DEMONSTRATION_SEPARATOR):
        match = re.fullmatch(r"Input: (.*)\nOutput: (.*)", block)
        if match is None:
            raise ValueError(f"not an 'Input: ...\\nOutput: ...' block: {block[:80]!r}")
        pairs.append([match.group(1), match.group(2)])
    return pairs


def execution_prompt(instruction: str, x: str) -> str:
    return f"Instruction: {instruction}\nInput: {x}\nOutput:"


def in_context_prompt(demonstrations: Sequence[Sequence[str]], x: str) -> str:
    """Verification without an instruction (Table 4): the demonstrations, then the test input."""
    body = DEMONSTRATION_SEPARATOR.join(demonstration(dx, dy) for dx, dy in demonstrations)
    return body + DEMONSTRATION_SEPARATOR + f"Input: {x}\nOutput:"
