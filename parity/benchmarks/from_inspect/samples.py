"""What an item imported from an Inspect sample carries of it, read back by the log import.

An Inspect sample is (id, input, choices, target, metadata). The item keeps, among its extra fields
(all named here):
the task's name (`inspect_task`), the sample's id as Inspect writes it (`inspect_sample_id`), the
letters its choices were shown with (`inspect_letters`, choice items) and a fingerprint of what it
asks (`inspect_fingerprint`: the sha256 of its input, choices and target as canonical JSON). A log
whose sample has another fingerprint was run on another revision of the dataset: the answer is to
another question, and the import refuses it by name.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

TASK, SAMPLE_ID, LETTERS, FINGERPRINT = "inspect_task", "inspect_sample_id", "inspect_letters", "inspect_fingerprint"
#: what the task's import also keeps: what `inspect eval` takes and the task's arguments (how Parity
#: runs the task), the scorer whose rule scores a person's written answer, the target as JSON, the
#: sample's metadata as JSON, and the Inspect version that built the model's prompt
TASK_SPEC, TASK_ARGS, SCORER, TARGET, METADATA, INSPECT_VERSION = (
    "inspect_task_spec",
    "inspect_task_args",
    "inspect_scorer",
    "inspect_target",
    "inspect_metadata",
    "inspect_version",
)
#: Inspect's letters for choices (`inspect_ai.solver.multiple_choice` answers with them)
ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def sample_key(sample_id: str | int) -> str:
    """The sample's id as an item's id: Inspect's ids are text or whole numbers (1, 2, ... when the
    dataset gives none), written the same way by the task and by its logs."""
    return str(sample_id)


def letters(count: int) -> list[str]:
    if count > len(ALPHABET):
        raise ValueError(f"{count} choices: Inspect letters at most {len(ALPHABET)}")
    return list(ALPHABET[:count])


def _plain(value: Any) -> Any:
    """A sample's input as plain JSON: text as it is; chat messages as (role, text) pairs."""
    if isinstance(value, str) or value is None:
        return value
    if isinstance(value, Mapping):
        if "role" in value:  # a chat message (`ChatMessage.model_dump()`)
            return {"role": value.get("role"), "content": _plain(value.get("content"))}
        if value.get("type") == "text":  # a part of a message's content
            return value.get("text")
        return {"type": value.get("type")}
    if isinstance(value, Sequence):
        return [_plain(part) for part in value]
    return str(value)


def sample_input(value: Any) -> Any:
    """A sample's input as `fingerprint` takes it: text, or its chat messages as mappings."""
    return value if isinstance(value, str) else [message.model_dump() for message in value]


def fingerprint(input_: Any, choices: Sequence[str] | None, target: str | Sequence[str]) -> str:
    """The sha256 of what a sample asks and expects, the same whether read from the task or from a
    log. `input_` is text or a list of messages as plain mappings (role, content)."""
    target_list = [target] if isinstance(target, str) else list(target)
    canonical = json.dumps(
        {"input": _plain(input_), "choices": list(choices or []), "target": target_list},
        ensure_ascii=False,
        sort_keys=True,
        separators=(",", ":"),
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()
