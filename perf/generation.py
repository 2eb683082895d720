"""Batched greedy generation: our engine against Hugging Face `generate` as lm-eval calls it.

lm-eval's `HFLM.generate_until` sorts the requests longest first, left-pads a batch of
`batch_size`, calls `model.generate(input_ids, attention_mask, max_length=context + max_gen_toks,
do_sample=False, stopping_criteria=its stop-sequence criteria)` and cuts each decoded text at the
first stop sequence. Ours (`Engine.generate`) sorts by length, batches by a token budget and
stops each row at EOS, its own limit, or once its first line is settled (instruction induction's
and MiQA's requests). So lm-eval gets every request with its own token limit and only EOS as a
stop, the way it would serve these prompts with no `until`; an output of ours must then be the
start of lm-eval's, and identical where neither stopped at a settled first line.

Workloads:
- `induce`: instruction-induction prompts (five demonstrations), 50 new tokens, no early stop;
- `execute`: gold instructions executed on execute inputs, up to 30 tokens, first-line stop;
- `miqa`: MiQA's generative questions (Section 5.2), up to 64 tokens, first-line stop.

    python -m perf.generation --model smollm2 --workload induce,execute,miqa --batch 1,16 [--json]

Prints per workload and batch: requests, wall seconds and generated tokens/s of each side, the
ratio of wall times (lm-eval / ours: how many times faster ours serves the same requests), and
whether the greedy outputs agree.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from parity.engine import Engine, GenerationRequest, LoadedModel, load_causal_lm  # noqa: E402

WORKLOADS = ("induce", "execute", "miqa")


def induce_requests(datasets: Path, tasks: Sequence[str], per_task: int) -> list[GenerationRequest]:
    from parity import benchmarks
    from parity.benchmarks.instruction_induction.prompts import INDUCTION_MAX_TOKENS

    bundle = benchmarks.get("instruction_induction").load(datasets / "instruction_induction")
    found = []
    for task in tasks:
        items = sorted((i for i in bundle.items if i.prompt["task"] == task), key=lambda i: int(i.meta["n"]))
        found += [
            GenerationRequest(f"{i.key}|induce", i.prompt["text"], INDUCTION_MAX_TOKENS, stop_at_newline=False)
            for i in items[:per_task]
        ]
    return found


def execute_requests(datasets: Path, tasks: Sequence[str], per_task: int, inputs: int) -> list[GenerationRequest]:
    from parity import benchmarks
    from parity.benchmarks.instruction_induction import model as induction

    bundle = benchmarks.get("instruction_induction").load(datasets / "instruction_induction")
    assets = {asset.key: asset.data for asset in bundle.assets}
    gold = [g for g in induction.gold_instructions(assets["references"], list(tasks)) if g.gold_index < per_task]
    requests = induction.baseline_requests(gold, assets, {"execute_limit": inputs, "similarity_model": "none"})
    return [r for r in requests if isinstance(r, GenerationRequest)]


def miqa_requests(datasets: Path, limit: int) -> list[GenerationRequest]:
    from parity import benchmarks
    from parity.benchmarks.miqa import model as miqa

    bundle = benchmarks.get("miqa").load(datasets / "miqa")
    items = [i for i in bundle.items if i.split == "test"]
    requests = miqa.requests(items, {}, {"wording": miqa.GENERATIVE, "k": 0})
    return [r for r in requests if isinstance(r, GenerationRequest)][:limit]


@dataclass(frozen=True)
class Side:
    seconds: float
    generated_tokens: int
    texts: list[str]

    @property
    def tokens_per_s(self) -> float:
        return self.generated_tokens / self.seconds if self.seconds else 0.0


def run_ours(loaded: LoadedModel, requests: Sequence[GenerationRequest], batch: int) -> Side:
    engine = Engine(loaded, cache=None, generation_batch_size=batch)
    started = time.perf_counter()
    results = engine.generate(list(requests))
    seconds = time.perf_counter() - started
    return Side(seconds, engine.stats.generated_tokens, [r.raw_text for r in results])


def run_lm_eval(loaded: LoadedModel, requests: Sequence[GenerationRequest], batch: int) -> Side:
    from lm_eval.api.instance import Instance
    from lm_eval.models.huggingface import HFLM

    lm = HFLM(
        pretrained=loaded.model,
        tokenizer=loaded.tokenizer,
        device=loaded.device,
        add_bos_token=loaded.add_bos,
        batch_size=batch,
    )
    instances = [
        Instance(
            "generate_until",
            {},
            (r.prompt, {"until": [], "max_gen_toks": r.max_new_tokens, "do_sample": False}),
            index,
        )
        for index, r in enumerate(requests)
    ]
    started = time.perf_counter()
    texts = lm.generate_until(instances, disable_tqdm=True)
    seconds = time.perf_counter() - started
    tokenizer = loaded.tokenizer
    tokens = sum(len(tokenizer(text, add_special_tokens=False)["input_ids"]) for text in texts)
    return Side(seconds, tokens, list(texts))


def agree(requests: Sequence[GenerationRequest], ours: Sequence[str], theirs: Sequence[str]) -> tuple[int, int]:
    """(same, differing) outputs: equal text, or, where ours stopped at a settled first line, the
    start of theirs with the same first line."""
    from parity.engine.metrics import normalize_output

    same = 0
    for request, mine, other in zip(requests, ours, theirs):
        if mine == other:
            same += 1
        elif request.stop_at_newline and other.startswith(mine) and normalize_output(mine) == normalize_output(other):
            same += 1
    return same, len(requests) - same


def tiny(requests: Sequence[GenerationRequest], directory: Path) -> LoadedModel:
    from perf.scoring import tiny_model

    return tiny_model([r.prompt for r in requests], directory)


def measure(args: argparse.Namespace) -> list[dict[str, Any]]:
    datasets = Path(args.datasets)
    rows = []
    workloads: dict[str, list[GenerationRequest]] = {}
    for name in args.workload:
        if name == "induce":
            workloads[name] = induce_requests(datasets, args.tasks, args.prompts)
        elif name == "execute":
            workloads[name] = execute_requests(datasets, args.tasks, args.gold, args.inputs)
        else:
            workloads[name] = miqa_requests(datasets, args.miqa)
    with tempfile.TemporaryDirectory() as scratch:
        if args.model == "tiny":
            loaded = tiny([r for found in workloads.values() for r in found], Path(scratch))
        else:
            loaded = load_causal_lm(args.model, cache_dir=args.cache or None)
        for name, requests in workloads.items():
            for batch in args.batch:
                theirs = run_lm_eval(loaded, requests, batch)
                ours = run_ours(loaded, requests, batch)
                same, differ = agree(requests, ours.texts, theirs.texts)
                rows.append(
                    {
                        "workload": name,
                        "batch": batch,
                        "requests": len(requests),
                        "lm_eval": {k: v for k, v in asdict(theirs).items() if k != "texts"}
                        | {"tokens_per_s": theirs.tokens_per_s},
                        "ours": {k: v for k, v in asdict(ours).items() if k != "texts"}
                        | {"tokens_per_s": ours.tokens_per_s},
                        "ratio": theirs.seconds / ours.seconds if ours.seconds else None,
                        "same_outputs": same,
                        "differing_outputs": differ,
                    }
                )
    return rows


def table(rows: Sequence[dict[str, Any]], model: str) -> str:
    lines = [
        f"model {model}",
        "| workload | batch | requests | lm-eval s | lm-eval tok/s | ours s | ours tok/s | lm-eval s / ours s "
        "| same outputs |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        lines.append(
            f"| {row['workload']} | {row['batch']} | {row['requests']} | {row['lm_eval']['seconds']:.1f} | "
            f"{row['lm_eval']['tokens_per_s']:.1f} | {row['ours']['seconds']:.1f} | "
            f"{row['ours']['tokens_per_s']:.1f} | "
            f"{row['ratio']:.2f}× | {row['same_outputs']}/{row['requests']} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--model", default="tiny", help="tiny (random, for tests), smollm2, or a path")
    parser.add_argument("--datasets", default=os.environ.get("DATASETS_DIR", str(REPO.parent / "shared" / "datasets")))
    parser.add_argument("--workload", type=lambda s: s.split(","), default=list(WORKLOADS))
    parser.add_argument("--batch", type=lambda s: [int(b) for b in s.split(",")], default=[1, 16])
    parser.add_argument("--tasks", type=lambda s: s.split(","), default=["antonyms", "larger_animal", "sentiment"])
    parser.add_argument("--prompts", type=int, default=4, help="induction prompts per task")
    parser.add_argument("--gold", type=int, default=2, help="gold instructions per task (execute)")
    parser.add_argument("--inputs", type=int, default=8, help="execute inputs per gold instruction")
    parser.add_argument("--miqa", type=int, default=16, help="MiQA generative questions")
    parser.add_argument("--cache", default="", help="model cache (the converted smollm2)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    for name in args.workload:
        if name not in WORKLOADS:
            parser.error(f"unknown workload {name!r}: one of {', '.join(WORKLOADS)}")
    rows = measure(args)
    print(table(rows, args.model))
    if args.json:
        print(json.dumps(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
