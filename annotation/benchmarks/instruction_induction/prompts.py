"""Instruction induction texts and scoring rules (Honovich et al., Section 3-4, Appendix A).

The induction prompt (Figure 1), the execution prompt, the in-context verification prompt, the
clean-up of a generated instruction, and the execution metrics per task.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from typing import Sequence

INDUCTION_PREFIX = (
    "I gave a friend an instruction and five inputs. The friend read the instruction and wrote an output "
    "for every one of the inputs.\nHere are the input-output pairs:\n\n"
)
INDUCTION_SUFFIX = "\n\nThe instruction was"
DEMONSTRATION_SEPARATOR = "\n\n"
#: generation settings of the paper (greedy decoding)
INDUCTION_MAX_TOKENS = 50
EXECUTION_MAX_TOKENS = 30

#: task -> execution metric; every other task uses exact match
TASK_METRICS: dict[str, str] = {
    "common_concept": "f1",
    "informal_to_formal": "f1",
    "orthography_starts_with": "exact_set",
    "taxonomy_animal": "exact_set",
    "synonyms": "contains",
}
METRICS = ("exact", "f1", "exact_set", "contains")
_LEAD_INS = ("probably:", "most likely:", "probably", "most likely")


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


def normalise_instruction(generated: str) -> str:
    """A generated instruction as it is scored and executed: without a leading ':' or lead-in
    ("probably", "most likely", "to"), its first line, unwrapped when it is wholly a long quote."""
    text = generated.strip()
    if text.startswith(":"):
        text = text[1:].strip()
    for lead_in in _LEAD_INS:
        if text.startswith(lead_in):
            text = text[len(lead_in):].strip()
    text = re.sub(r"^to\b", "", text).strip()
    text = text.split("\n")[0].strip()
    quoted = re.findall(r'"([^"\n]+)"', text)
    if quoted and len(quoted[0].split()) > 3:
        text = quoted[0]
    return text.replace('"', "").strip()


def normalise_output(text: str) -> str:
    """An execution output before comparison: first line, text before the first '.', lower-case,
    '-' to space, punctuation and the connective ' and ' and 'Sentence 1/2:' markers removed."""
    text = text.replace(" and ", " ").replace("Sentence 1:", " ").replace("Sentence 2:", " ").strip()
    text = text.split("\n")[0].split(".")[0].lower().replace("-", " ")
    text = text.translate(str.maketrans("", "", string.punctuation))
    return " ".join(text.split())


def _f1(prediction: str, answer: str) -> float:
    predicted, expected = normalise_output(prediction).split(), normalise_output(answer).split()
    common = sum((Counter(predicted) & Counter(expected)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(predicted), common / len(expected)
    return 2 * precision * recall / (precision + recall)


def _single(metric: str, prediction: str, answer: str) -> float:
    if metric == "exact":
        return float(normalise_output(prediction) == normalise_output(answer))
    if metric == "f1":
        return _f1(prediction, answer)
    if metric == "exact_set":
        return float(set(normalise_output(prediction).split()) == set(normalise_output(answer).split()))
    if metric == "contains":
        expected = normalise_output(answer)
        return float(bool(expected) and re.search(rf"\b{re.escape(expected)}\b", normalise_output(prediction)) is not None)
    raise ValueError(f"unknown metric {metric!r}; known: {', '.join(METRICS)}")


def execution_score(task: str, prediction: str, answers: Sequence[str]) -> float:
    """The task's metric against every acceptable answer; the best one counts."""
    if not answers:
        raise ValueError("no acceptable answers given")
    metric = TASK_METRICS.get(task, "exact")
    return max(_single(metric, prediction, answer) for answer in answers)
