"""Instruction induction with one model as inducer and executor, on a reduced demo.

Runs what a study's model run and `score_instructions` run, without the database: the benchmark's
own requests and answers (`parity.benchmarks.instruction_induction.model`) answered by the worker's
`modelruns.scorers.Scorer`, so that each code version scores with its own engine and similarity
path. Per task it prints the execution accuracy of the model's instructions and of the gold
instructions (leave-one-out similarity), their reference similarity with its scorer, and Table 4's
in-context verification (the mean of the task's metric, and the share of full scores).

The published data holds no human instructions (the control group's were not released), so there
is no people's row.

    python -m perf.induction [--tasks antonyms,larger_animal] [--prompts 2] [--execute 5] [--in-context 5] [--json]

Runs in an older checkout too (copy it into that checkout's perf/ and run it there with
`python -m perf.induction`): it uses only names both versions have, and reads the similarity
scorer's fields where the version stores them.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

#: the reduced demo's tasks: two exact-match tasks a 135M model can do in part (a word's antonym,
#: the larger of two animals), one it cannot (spell a word letter by letter), and one F1 task, where
#: Table 4's mean F1 and its share of full scores differ
DEFAULT_TASKS = ("antonyms", "larger_animal", "letters_list", "common_concept")


def _setup_django(cache_dir: str) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ["PARITY_MODEL_CACHE"] = cache_dir
    import django

    django.setup()


def _scorer(model: str) -> Any:
    from modelruns.scorers import LoadKey, Scorer

    return Scorer(LoadKey(model, "", "float32", "cpu", "causal"))


def _staged(scorer: Any, items: Sequence[Any], assets: Mapping[str, Any], setting: Mapping[str, Any]) -> dict[str, Any]:
    """A model run's stages (induce, then execute and compare) with every request answered by `scorer`:
    with one model as inducer and executor, self-executed and executed-by-the-study's-executor agree."""
    from parity.benchmarks.base import ModelAsk
    from parity.benchmarks.instruction_induction import model as induction

    results: dict[str, Any] = {}
    for _ in range(5):
        new = [r for r in induction.requests(ModelAsk(items, assets, setting, prior=results)) if r.key not in results]
        if not new:
            break
        results.update(scorer.run(new))
    return induction.answers(items, setting, results, assets=assets)


def _scale(scores: Mapping[str, Any]) -> str:
    model = scores.get("similarity_model", "")
    scorer = scores.get("similarity_scorer")
    if scorer is None:  # before the scorer was stored: only the embedding model's name
        return f"{model} (scorer not stored)"
    layer = scores.get("similarity_layer")
    return f"{model}, {scorer}, layer {layer}, {'rescaled' if scores.get('similarity_rescaled') else 'raw'}"


def _mean(values: Sequence[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return statistics.fmean(kept) if kept else None


def measure(args: argparse.Namespace) -> dict[str, Any]:
    from parity import benchmarks
    from parity.benchmarks.instruction_induction import model as induction

    definition = benchmarks.get("instruction_induction")
    bundle = definition.load(Path(args.source))
    assets = {asset.key: asset.data for asset in bundle.assets}
    tasks = list(args.tasks)
    by_task: dict[str, list[Any]] = {task: [] for task in tasks}
    for item in bundle.items:
        task = item.prompt["task"]
        if task in by_task:
            by_task[task].append(item)
    for task in tasks:
        by_task[task].sort(key=lambda item: int(item.meta["n"]))
    induce_items = [item for task in tasks for item in by_task[task][: args.prompts]]
    context_items = [item for task in tasks for item in by_task[task][: args.in_context]]
    base = dict(definition.model_setting({}))
    base["execute_limit"] = args.execute
    setting = {**base, "mode": "induce"}
    if "executor" in setting:
        # the study's executor, as `score_instructions --executor MODEL` makes it: the same model here
        setting["executor"] = args.model
        from parity.engine import resolve_similarity_model

        setting["similarity_model"] = resolve_similarity_model(str(setting["similarity_model"]))
    scorer = _scorer(args.model)
    started = time.perf_counter()
    model_answers = _staged(scorer, induce_items, assets, setting)
    induced_s = time.perf_counter() - started
    started = time.perf_counter()
    gold = induction.gold_instructions(assets.get("references") or {}, tasks)
    gold_scores = induction.baseline_scores(
        gold, assets, setting, scorer.run(induction.baseline_requests(gold, assets, setting))
    )
    gold_s = time.perf_counter() - started
    started = time.perf_counter()
    in_context = _staged(scorer, context_items, assets, {**base, "mode": "in_context"})
    context_s = time.perf_counter() - started
    rows = []
    for task in tasks:
        mine = [model_answers[item.key] for item in induce_items if item.prompt["task"] == task]
        golds = [gold_scores[g.key] for g in gold if g.task == task]
        context = [
            in_context[item.key].scores["execution_accuracy"] for item in context_items if item.prompt["task"] == task
        ]
        rows.append(
            {
                "task": task,
                "model_instructions": [a.answer for a in mine],
                "model_accuracy": _mean([a.scores["execution_accuracy"] for a in mine]),
                "model_similarity": _mean([a.scores["reference_f1"] if a.valid else None for a in mine]),
                "gold_n": len(golds),
                "gold_accuracy": _mean([s["execution_accuracy"] for s in golds]),
                "gold_similarity": _mean([s["reference_similarity"] for s in golds]),
                "in_context_mean": _mean(context),
                "in_context_full": _mean([1.0 if s == 1.0 else 0.0 for s in context]),
            }
        )
    first = next((a.scores for a in model_answers.values() if a.valid), {})
    return {
        "model": args.model,
        "setting": {k: v for k, v in setting.items()},
        "tasks": tasks,
        "prompts_per_task": args.prompts,
        "execute_inputs": args.execute,
        "in_context_prompts_per_task": args.in_context,
        "similarity": _scale(first),
        "seconds": {"model_run": induced_s, "gold": gold_s, "in_context": context_s},
        "engine": {
            key: getattr(scorer.engine().stats, key)
            for key in ("requests", "batches", "generated_tokens", "seconds", "cache_hits")
        },
        "rows": rows,
    }


def _pct(value: float | None) -> str:
    return "" if value is None else f"{100 * value:.1f}"


def _sim(value: float | None) -> str:
    return "" if value is None else f"{value:.3f}"


def table(report: Mapping[str, Any]) -> str:
    lines = [
        f"model {report['model']} inducing and executing; {report['prompts_per_task']} induction prompts and "
        f"{report['in_context_prompts_per_task']} in-context prompts per task, {report['execute_inputs']} execute "
        f"inputs per instruction; similarity: {report['similarity']}",
        "| task | model acc % | model sim | gold acc % (n) | gold sim | in-context mean % | in-context full % |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in report["rows"]:
        lines.append(
            f"| {row['task']} | {_pct(row['model_accuracy'])} | {_sim(row['model_similarity'])} | "
            f"{_pct(row['gold_accuracy'])} ({row['gold_n']}) | {_sim(row['gold_similarity'])} | "
            f"{_pct(row['in_context_mean'])} | {_pct(row['in_context_full'])} |"
        )
    seconds = report["seconds"]
    lines.append(
        f"seconds: model run {seconds['model_run']:.0f}, gold {seconds['gold']:.0f}, in-context "
        f"{seconds['in_context']:.0f}; engine {report['engine']}"
    )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="smollm2")
    parser.add_argument("--source", default=str(Path(os.environ.get("DATASETS_DIR", "")) / "instruction_induction"))
    parser.add_argument("--tasks", type=lambda s: s.split(","), default=list(DEFAULT_TASKS))
    parser.add_argument("--prompts", type=int, default=2, help="induction prompts per task")
    parser.add_argument("--in-context", type=int, default=5, help="in-context prompts per task (Table 4)")
    parser.add_argument("--execute", type=int, default=5, help="execute inputs per instruction")
    parser.add_argument("--cache", default="", help="model and score cache (default: a new temporary folder)")
    parser.add_argument("--json", action="store_true", help="also print the report as JSON on the last line")
    args = parser.parse_args(argv)
    cache = args.cache or tempfile.mkdtemp(prefix="parity-induction-")
    _setup_django(cache)
    report = measure(args)
    print(table(report))
    if args.json:
        print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
