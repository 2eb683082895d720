"""Finetuning data of Section 4.4 (G.5, H): ambiguous or control prompts of 4-20 examples on the
four tasks of two constructions, evaluated on the two tasks of the held-out construction.

Counts follow the paper: 68 prompts per task (2 per length 4..20 and per format), 272 in all;
240 evaluation episodes of 20 examples on the held-out tasks.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..rows import seeded_rng
from .generator import Episode, draw_example, generate_episodes
from .prompts import FORMATS, continuation, labelled_text, query_block
from .wordlists import CONSTRUCTION_OF, CONSTRUCTIONS, FEATURE_VALUES, UNINFORMATIVE

FINETUNE_LENGTHS = tuple(range(4, 21))
KINDS = ("ambiguous", "control")


@dataclass(frozen=True)
class FinetuneRecord:
    """`prompt` ends where the last label is due; `completion` is that label (with its leading space)."""

    prompt: str
    completion: str
    meta: Mapping[str, Any]

    def as_json(self) -> dict[str, str]:
        return {"prompt": self.prompt, "completion": self.completion}


def training_features(held_out: str) -> list[str]:
    if held_out not in CONSTRUCTIONS:
        raise ValueError(f"unknown construction {held_out!r}; known: {', '.join(CONSTRUCTIONS)}")
    return [feature for name, pair in CONSTRUCTIONS.items() if name != held_out for feature in pair]


def finetune_records(
    seed: int,
    held_out: str,
    kind: str = "ambiguous",
    *,
    per_length: int = 2,
    lengths: Sequence[int] = FINETUNE_LENGTHS,
    formats: Sequence[str] = FORMATS,
) -> list[FinetuneRecord]:
    """Prompts for the tasks not in `held_out`. Unlike Section 4.3, each prompt is drawn afresh.

    control: one of the construction's two features (chosen at random, as is its value) stays
    constant over the prompt while the other varies, so no prompt is ambiguous between the two.
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
    records = []
    for feature in training_features(held_out):
        pair = CONSTRUCTIONS[CONSTRUCTION_OF[feature]]
        for length in lengths:
            for fmt in formats:
                for copy in range(1, per_length + 1):
                    rng = seeded_rng("ambibench", seed, "finetune", kind, feature, length, fmt, copy)
                    mapping = rng.choice(FEATURE_VALUES[feature])
                    fixed: dict[str, str] = {}
                    if kind == "control":
                        constant = rng.choice(pair)
                        fixed[constant] = rng.choice(FEATURE_VALUES[constant])
                    examples = [draw_example(rng, feature, mapping, fixed=fixed) for _ in range(length)]
                    shown = labelled_text(UNINFORMATIVE, [(e.sentence, e.label) for e in examples[:-1]], fmt)
                    last = examples[-1]
                    records.append(
                        FinetuneRecord(
                            prompt=shown.text + "\n" + query_block(last.sentence, fmt),
                            completion=continuation(last.label, fmt),
                            meta={
                                "salient_feature": feature,
                                "mapping": mapping,
                                "length": length,
                                "format": fmt,
                                "kind": kind,
                                "held_out": held_out,
                                "constant": fixed,
                            },
                        )
                    )
    return records


def finetune_eval_episodes(seed: int, held_out: str, count: int = 240) -> list[Episode]:
    """Evaluation episodes on the held-out construction's two tasks, balanced over tasks and formats."""
    training_features(held_out)
    return generate_episodes(seed, count, features=CONSTRUCTIONS[held_out], namespace=f"finetune-eval-{held_out}")


def write_jsonl(path: Path, records: Iterable[FinetuneRecord]) -> int:
    """prompt/completion JSONL, one record a line; returns how many were written."""
    count = 0
    with Path(path).open("w", encoding="utf-8", newline="\n") as handle:
        for record in records:
            handle.write(json.dumps(record.as_json(), ensure_ascii=False, sort_keys=True) + "\n")
            count += 1
    return count
