"""lm-evaluation-harness tasks as items of the `custom` benchmark (not a benchmark of its own).

`records_for_task` turns a harness task (a name the harness knows, or the path of a task YAML) into
records of the custom-items contract, carrying the harness's own contexts and continuations.
"""

from __future__ import annotations

from .tasks import HARNESS_FEWSHOT_SEED, records_for_task

__all__ = ["HARNESS_FEWSHOT_SEED", "records_for_task"]
