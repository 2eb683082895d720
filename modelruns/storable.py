"""What a model generates, made storable in every supported database.

PostgreSQL's text and jsonb types cannot hold the NUL character, which a model may generate (tiny
or badly tuned models do); SQLite can. Each NUL becomes U+FFFD (the replacement character) so the
shard's answers are written on both, keep their length, and show where the model emitted it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from modelruns.models import ModelResponse, ModelRun
    from parity.benchmarks.base import ModelAnswer

NUL, REPLACEMENT = "\x00", "\ufffd"


def storable(value: Any) -> Any:
    """`value` with NUL replaced in every string, through lists, tuples and dict keys and values."""
    if isinstance(value, str):
        return value.replace(NUL, REPLACEMENT) if NUL in value else value
    if isinstance(value, dict):
        return {storable(key): storable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [storable(item) for item in value]
    return value


def stored_answer(run: ModelRun, item_id: int, answer: ModelAnswer, scores: Mapping[str, Any]) -> ModelResponse:
    """The row of a model's `answer` to an item (unsaved), every text made storable."""
    from modelruns.models import ModelResponse

    return ModelResponse(
        run=run,
        item_id=item_id,
        variant=answer.variant,
        raw_answer=storable(answer.raw_answer),
        answer=storable(answer.answer),
        valid=answer.valid,
        correct=answer.correct,
        scores=storable(dict(scores)),
        truncated_tokens=answer.truncated_tokens,
    )
