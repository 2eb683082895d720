"""Score one shard: ask the benchmark what to run, run it, ask the benchmark what it means.

No writes here: the answers go back to the caller (`modelruns.work.shard_complete` writes them).
A run with an executor (instruction induction) has the requests its benchmark marks as executions
answered by the executor's scorer, every other request by the run's own.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from annotation.selectors import item_data
from modelruns import selectors
from modelruns.models import ModelRun, ModelShard
from modelruns.scoring import Progress, Scorer
from parity.benchmarks.base import ModelAnswer, answer_variants

#: request stages a benchmark may chain (instruction induction uses two: generate, then execute)
MAX_STAGES = 5


def shard_answers(
    run: ModelRun,
    shard: ModelShard,
    scorer: Scorer,
    progress: Progress | None = None,
    assets: Mapping[str, Any] | None = None,
    executor: Scorer | None = None,
) -> dict[int, list[ModelAnswer]]:
    """Each of the shard's items (by item id) with its model answers (one per variant);
    `executor`: the scorer of the run's executor, when it is another model than the run's."""
    definition = run.study.definition
    setting = run.setting
    kind = run.spec.scored_as
    items = selectors.items_by_id(list(shard.item_ids))
    data = [item_data(item) for item in items]
    split = definition.model_pool_split(setting)
    pool = selectors.pool_items(run.study.benchmark, split) if split else []
    if assets is None:
        assets = selectors.benchmark_assets(run.study.benchmark)
    results: dict[str, Any] = {}
    for _ in range(MAX_STAGES):
        asked = definition.model_requests(data, assets, setting, pool=pool, prior=results, kind=kind)
        new = [request for request in asked if request.key not in results]
        if not new:
            break
        to_executor = [executor is not None and definition.model_request_executed(r) for r in new]
        own = [r for r, executed in zip(new, to_executor) if not executed]
        executed = [r for r, executed in zip(new, to_executor) if executed]
        if own:
            results.update(scorer.run(own, progress))
        if executed and executor is not None:
            results.update(executor.run(executed, progress))
    else:
        raise RuntimeError(f"{definition.name} still asked for new requests after {MAX_STAGES} stages")
    answers = definition.model_answers(data, setting, results, assets=assets, kind=kind)
    missing = [item.key for item in items if item.key not in answers]
    if missing:
        raise RuntimeError(f"{definition.name} gave no answer for {', '.join(missing[:5])}")
    return {item.pk: answer_variants(answers[item.key]) for item in items}
