"""Score one shard: ask the benchmark what to run, run it, ask the benchmark what it means.

No writes here: the answers go back to the caller (`modelruns.shards.shard_complete` writes them).
What a benchmark is asked to run is built by `RequestInputs`, which `modelruns.prompts` uses too, so
the texts shown for an item (`manage.py show_prompt`, the results page's item view) are the ones a
run sends to the engine. A run with an executor (instruction induction) has the requests its
benchmark marks as executions answered by the executor's scorer, every other request by the run's own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from annotation.models import Item
from annotation.selectors import item_data
from modelruns import selectors
from modelruns.models import ModelRun, ModelShard
from parity import benchmarks
from parity.benchmarks.base import Benchmark, ItemData, ModelAnswer, answer_variants

if TYPE_CHECKING:
    from modelruns.scorers import Progress, Scorer

#: request stages a benchmark may chain (instruction induction uses two: generate, then execute)
MAX_STAGES = 5


@dataclass(frozen=True)
class RequestInputs:
    """What a benchmark builds a run's engine requests from: some items under one setting, for one
    kind of model, with the pool k-shot examples are drawn from and the benchmark's assets."""

    definition: Benchmark
    items: list[ItemData]
    setting: Mapping[str, Any]
    kind: str
    pool: list[ItemData]
    assets: Mapping[str, Any]

    def requests(self, prior: Mapping[str, Any]) -> list[Any]:
        """The engine requests for the items, given the results so far (`prior`, by request key)."""
        return self.definition.model_requests(
            self.items, self.assets, self.setting, pool=self.pool, prior=prior, kind=self.kind
        )


def request_inputs(
    benchmark: str,
    items: Sequence[Item],
    setting: Mapping[str, Any],
    kind: str,
    assets: Mapping[str, Any] | None = None,
) -> RequestInputs:
    definition = benchmarks.get(benchmark)
    split = definition.model_pool_split(setting)
    return RequestInputs(
        definition=definition,
        items=[item_data(item) for item in items],
        setting=setting,
        kind=kind,
        pool=selectors.pool_items(benchmark, split) if split else [],
        assets=selectors.benchmark_assets(benchmark) if assets is None else assets,
    )


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
    items = selectors.items_by_id(list(shard.item_ids))
    inputs = request_inputs(run.study.benchmark, items, run.setting, run.spec.scored_as, assets)
    definition = inputs.definition
    results: dict[str, Any] = {}
    for _ in range(MAX_STAGES):
        new = [request for request in inputs.requests(results) if request.key not in results]
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
    answers = definition.model_answers(inputs.items, inputs.setting, results, assets=inputs.assets, kind=inputs.kind)
    missing = [item.key for item in items if item.key not in answers]
    if missing:
        raise RuntimeError(f"{definition.name} gave no answer for {', '.join(missing[:5])}")
    return {item.pk: answer_variants(answers[item.key]) for item in items}
