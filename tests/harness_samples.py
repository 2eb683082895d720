"""lm-evaluation-harness `--log_samples` lines for the shipped example tasks, built as the harness
builds them: the example `lm_eval.evaluator.evaluate` logs per document (doc, target, arguments,
resps, filtered_resps, filter, metrics and their values, the three hashes), then written as
`EvaluationTracker.save_results_samples` writes it (arguments as gen_args_i/arg_j, every response
through the harness's own `sanitize_list`, the target as text). Nothing is downloaded."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from lm_eval.utils import hash_string, sanitize_list

from tests.paths import REPO

EXAMPLE = REPO / "parity" / "benchmarks" / "lm_eval" / "example"
#: the name the harness gives a samples file (`samples_<task>_<date_id>.jsonl`)
FILE_DATE = "2026-11-25T10-41-07.512309"


def docs(task_file: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (EXAMPLE / task_file).read_text().splitlines() if line.strip()]


def _argmax(values: Sequence[float]) -> int:
    return max(range(len(values)), key=lambda index: values[index])


def _written(example: dict[str, Any]) -> str:
    """One line as `save_results_samples` writes it."""
    arguments = {
        f"gen_args_{i}": {f"arg_{j}": value for j, value in enumerate(argument)}
        for i, argument in enumerate(example["arguments"])
    }
    example = {
        **example,
        "resps": sanitize_list(example["resps"]),
        "filtered_resps": sanitize_list(example["filtered_resps"]),
        "arguments": arguments,
        "target": str(example["target"]),
    }
    return json.dumps(example, ensure_ascii=False)


def choice_line(doc_id: int, doc: dict[str, Any], context: str, loglikelihoods: Sequence[float]) -> str:
    """A multiple-choice document (example_mc: choices, answer index) under the harness's default
    filter "none"; acc and acc_norm as the harness's `process_results` computes them."""
    choices = [str(choice) for choice in doc["choices"]]
    continuations = [f" {choice}" for choice in choices]
    pairs = [(value, False) for value in loglikelihoods]
    target = doc["answer"]
    normalised = [value / len(choice) for value, choice in zip(loglikelihoods, choices)]
    example = {
        "doc_id": doc_id,
        "doc": doc,
        "target": target,
        "arguments": [(context, continuation) for continuation in continuations],
        "resps": [[pair] for pair in pairs],
        "filtered_resps": pairs,
        "filter": "none",
        "metrics": ["acc", "acc_norm"],
        "doc_hash": hash_string(json.dumps(doc, indent=2, ensure_ascii=False)),
        "prompt_hash": hash_string(context),
        "target_hash": hash_string(str(target)),
        "acc": 1.0 if _argmax(loglikelihoods) == target else 0.0,
        "acc_norm": 1.0 if _argmax(normalised) == target else 0.0,
    }
    return _written(example)


def generation_line(doc_id: int, doc: dict[str, Any], context: str, generated: str) -> str:
    """A generation document (example_gen) under its filter "strip" (remove_whitespace, take_first),
    scored by exact_match on the filtered text."""
    arguments = {"until": ["\n"], "max_gen_toks": 8, "do_sample": False}
    example = {
        "doc_id": doc_id,
        "doc": doc,
        "target": doc["answer"],
        "arguments": [(context, arguments)],
        "resps": [[generated]],
        "filtered_resps": [generated.strip()],
        "filter": "strip",
        "metrics": ["exact_match"],
        "doc_hash": hash_string(json.dumps(doc, indent=2, ensure_ascii=False)),
        "prompt_hash": hash_string(context),
        "target_hash": hash_string(str(doc["answer"])),
        "exact_match": 1.0 if generated.strip() == doc["answer"] else 0.0,
    }
    return _written(example)


def file_name(task: str) -> str:
    return f"samples_{task}_{FILE_DATE}.jsonl"


def content(lines: Sequence[str]) -> bytes:
    return "".join(line + "\n" for line in lines).encode("utf-8")
