"""Scoring throughput: the engine against a naive loop and lm-evaluation-harness's HFLM.

    python perf/scoring.py --workload {implicature,ambibench,miqa} --model {tiny,smollm2} [--json] [--limit N]

The model is loaded once; every engine scores the identical (context, continuation) pairs:
- naive: one sequence per forward pass, full-vocabulary log-softmax, no batching;
- lm_eval_default: HFLM with its defaults (batch size 1);
- lm_eval_tuned: HFLM with batch size 32 and an fp32 softmax (`softmax_dtype="float32"`);
- ours: parity.engine.Engine.
Parity (ours against each of the others: max |delta log-prob|, decision flips) is printed first.
The work is split into rounds and each round runs every engine in turn (rotating the order), so
that load from other processes on a shared machine falls on all engines alike. Items/s counts
benchmark items (an implicature prompt, a MiQA question order, a 20-example episode); tokens/s
counts the same scored-text tokens for every engine (each item's text tokenized once), so the
two ratios agree. With --json the last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from parity.engine import (  # noqa: E402
    ChoiceRequest,
    Engine,
    LoadedModel,
    MultiReadRequest,
    Read,
    load_causal_lm,
)
from parity.engine.tokens import TextEncoder, continuation_spans  # noqa: E402

ENGINES = ("naive", "lm_eval_default", "lm_eval_tuned", "ours")
DEFAULT_LIMITS = {"implicature": 60, "ambibench": 6, "miqa": 40}
PARITY_TOLERANCE = 1e-4


@dataclass
class Item:
    """One benchmark item: one ChoiceRequest or one episode (MultiReadRequest)."""

    request: ChoiceRequest | MultiReadRequest
    #: the (context, continuation) pairs every engine scores, grouped into decisions
    decisions: list[list[tuple[str, str]]] = field(default_factory=list)

    @property
    def text(self) -> str:
        if isinstance(self.request, MultiReadRequest):
            return self.request.text
        return self.request.context + max(self.request.continuations, key=len)


# -- workloads ------------------------------------------------------------------------------------


def _choice_item(key: str, context: str, continuations: Sequence[str]) -> Item:
    request = ChoiceRequest(key, context, tuple(continuations))
    return Item(request, [[(context, c) for c in continuations]])


def implicature_items(datasets: Path, limit: int, ks: Sequence[int]) -> list[Item]:
    """Template 2, coherent vs incoherent ending (" yes"/" no"), k dev examples drawn per item."""
    from parity.benchmarks import get
    from parity.benchmarks.rows import seeded_rng

    bundle = get("implicature").load(datasets / "implicature")
    template = {asset.key: asset.data for asset in bundle.assets}["templates"]["2"]
    test = [item for item in bundle.items if item.split == "test"][:limit]
    dev = [item for item in bundle.items if item.split == "dev"]

    def filled(item: Any, answer: str) -> str:
        return template["example_template_text"] % (item.prompt["utterance"], item.prompt["response"], answer)

    items = []
    for item in test:
        for k in ks:  # interleaved, so that every round of the measurement holds both settings
            query = filled(item, "").rstrip()
            context = template["example_instruction_text"] + "\n\n" + query
            if k:
                shots = seeded_rng("perf-implicature", item.key, k).sample(dev, k)
                examples = "\n\n".join(filled(shot, shot.gold) for shot in shots)
                context = template["prompt_instruction_text"] + "\n\n" + examples + "\n\n" + context
            items.append(_choice_item(f"{item.key}-k{k}", context, (" yes", " no")))
    return items


def miqa_items(datasets: Path, limit: int) -> list[Item]:
    """Appendix A wording 3, every question in both option orders, options as continuations."""
    from parity.benchmarks import get
    from parity.benchmarks.miqa import both_orders

    bundle = get("miqa").load(datasets / "miqa")
    items = []
    for item in [item for item in bundle.items if item.split == "test"][:limit]:
        for order, prompt in both_orders(item, k=0, wording=3):
            items.append(
                _choice_item(
                    f"{item.key}-{''.join(order)}", prompt.context, [prompt.continuations[key] for key in order]
                )
            )
    return items


def ambibench_items(limit: int, fmt: str) -> list[Item]:
    """20-example episodes, uninformative instruction; one read per label position."""
    from parity.benchmarks.ambibench import UNINFORMATIVE, generate_episodes, labelled_text

    items = []
    for episode in generate_episodes(seed=0, count=limit, formats=(fmt,)):
        shown = labelled_text(UNINFORMATIVE, [(e.sentence, e.label) for e in episode.examples], fmt)
        candidates = (shown.candidates["X"], shown.candidates["Y"])
        request = MultiReadRequest(episode.key, shown.text, tuple(Read(offset, candidates) for offset in shown.offsets))
        items.append(Item(request, [[(shown.text[:offset], c) for c in candidates] for offset in shown.offsets]))
    return items


# -- models -----------------------------------------------------------------------------------------


def tiny_model(texts: Sequence[str], directory: Path) -> LoadedModel:
    """A random 4-layer Llama with a byte-level BPE tokenizer trained on the workload's texts."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=2000,
        special_tokens=["<bos>", "<eos>"],
        show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tokenizer.train_from_iterator(texts, trainer=trainer)
    wrapped = PreTrainedTokenizerFast(tokenizer_object=tokenizer, bos_token="<bos>", eos_token="<eos>")
    config = LlamaConfig(
        vocab_size=len(wrapped),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=4,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=4096,
        bos_token_id=wrapped.bos_token_id,
        eos_token_id=wrapped.eos_token_id,
    )
    torch.manual_seed(0)
    LlamaForCausalLM(config).save_pretrained(directory)
    wrapped.save_pretrained(directory)
    return load_causal_lm(str(directory), cache_dir=directory / "cache")


# -- engines ------------------------------------------------------------------------------------


def run_naive(loaded: LoadedModel, items: Sequence[Item]) -> list[float]:
    """Each pair on its own: tokenize the full text, run it, log-softmax every position."""
    import torch

    encoder = TextEncoder(loaded.tokenizer, add_bos=loaded.add_bos, prefix_token_id=loaded.prefix_token_id)
    scores = []
    with torch.inference_mode():
        for item in items:
            for decision in item.decisions:
                for context, continuation in decision:
                    [span] = continuation_spans(encoder, context, [continuation])
                    ids = torch.tensor([span.encoded.ids[: span.end - 1]])
                    logprobs = torch.log_softmax(loaded.model(input_ids=ids).logits[0].float(), dim=-1)
                    positions = torch.arange(span.start - 1, span.end - 1)
                    scores.append(float(logprobs[positions, torch.tensor(span.tokens)].sum()))
    return scores


def lm_eval_runner(loaded: LoadedModel, **options: Any) -> Callable[[LoadedModel, Sequence[Item]], list[float]]:
    from lm_eval.api.instance import Instance
    from lm_eval.models.huggingface import HFLM

    lm = HFLM(
        pretrained=loaded.model,
        tokenizer=loaded.tokenizer,
        device=loaded.device,
        add_bos_token=loaded.add_bos,
        **options,
    )

    def run(_: LoadedModel, items: Sequence[Item]) -> list[float]:
        pairs = [pair for item in items for decision in item.decisions for pair in decision]
        instances = [Instance("loglikelihood", {}, pair, index) for index, pair in enumerate(pairs)]
        return [float(logprob) for logprob, _ in lm.loglikelihood(instances, disable_tqdm=True)]

    return run


def ours_runner(loaded: LoadedModel, token_budget: int | None) -> Callable[[LoadedModel, Sequence[Item]], list[float]]:
    engine = Engine(loaded, token_budget=token_budget)

    def run(_: LoadedModel, items: Sequence[Item]) -> list[float]:
        choices = [item.request for item in items if isinstance(item.request, ChoiceRequest)]
        reads = [item.request for item in items if isinstance(item.request, MultiReadRequest)]
        by_key: dict[str, list[float]] = {}
        for result in engine.score_choices(choices):
            by_key[result.key] = [score.logprob for score in result.scores]
        for result in engine.score_reads(reads):
            by_key[result.key] = [score.logprob for read in result.reads for score in read.scores]
        return [value for item in items for value in by_key[item.request.key]]

    return run


# -- measurement --------------------------------------------------------------------------------


def parity(reference: Sequence[float], other: Sequence[float], items: Sequence[Item]) -> tuple[float, int]:
    """Max |delta| over all pairs and the number of decisions whose argmax differs."""
    diff = max((abs(a - b) for a, b in zip(reference, other)), default=0.0)
    flips, cursor = 0, 0
    for item in items:
        for decision in item.decisions:
            mine = list(reference[cursor : cursor + len(decision)])
            theirs = list(other[cursor : cursor + len(decision)])
            flips += mine.index(max(mine)) != theirs.index(max(theirs))
            cursor += len(decision)
    return diff, flips


def measure(
    loaded: LoadedModel, items: list[Item], runners: dict[str, Callable[..., list[float]]], rounds: int
) -> tuple[dict[str, list[float]], dict[str, float], dict[str, float]]:
    for run in runners.values():  # warm-up: first-call kernel set-up is not charged to anyone
        run(loaded, items[:1])
    scores: dict[str, list[float]] = {name: [] for name in runners}
    seconds = {name: 0.0 for name in runners}
    cpu = {name: 0.0 for name in runners}
    size = -(-len(items) // rounds)
    names = list(runners)
    for index, start in enumerate(range(0, len(items), size)):
        chunk = items[start : start + size]
        for name in names[index % len(names) :] + names[: index % len(names)]:
            began, began_cpu = time.perf_counter(), time.process_time()
            scores[name].extend(runners[name](loaded, chunk))
            seconds[name] += time.perf_counter() - began
            cpu[name] += time.process_time() - began_cpu
    return scores, seconds, cpu


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workload", choices=("implicature", "ambibench", "miqa"), required=True)
    parser.add_argument("--model", choices=("tiny", "smollm2"), default="tiny")
    parser.add_argument("--limit", type=int, help=f"benchmark items to draw (default: {DEFAULT_LIMITS})")
    parser.add_argument("--json", action="store_true", help="end with one JSON line")
    parser.add_argument("--k", default="0,5", help="implicature shots, comma-separated (default 0,5)")
    parser.add_argument("--format", default="arrow", choices=("arrow", "qa"), help="AmbiBench format")
    parser.add_argument("--rounds", type=int, default=4, help="interleaved rounds (default 4)")
    parser.add_argument("--token-budget", type=int, help="the engine's batch token budget")
    parser.add_argument("--engines", default=",".join(ENGINES), help="subset to run (ours is always run)")
    parser.add_argument(
        "--datasets", type=Path, default=Path(os.environ.get("DATASETS_DIR") or REPO.parent / "shared" / "datasets")
    )
    args = parser.parse_args(argv)

    logging.disable(logging.WARNING)
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    warnings.filterwarnings("ignore")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    limit = args.limit or DEFAULT_LIMITS[args.workload]
    if args.workload == "implicature":
        items = implicature_items(args.datasets, limit, [int(k) for k in args.k.split(",")])
    elif args.workload == "miqa":
        items = miqa_items(args.datasets, limit)
    else:
        items = ambibench_items(limit, args.format)

    with tempfile.TemporaryDirectory() as scratch:
        started = time.perf_counter()
        loaded = (
            load_causal_lm("smollm2")
            if args.model == "smollm2"
            else tiny_model([item.text for item in items], Path(scratch))
        )
        load_seconds = time.perf_counter() - started
        wanted = set(args.engines.split(",")) | {"ours"}
        runners: dict[str, Callable[..., list[float]]] = {}
        if "naive" in wanted:
            runners["naive"] = run_naive
        if "lm_eval_default" in wanted:
            runners["lm_eval_default"] = lm_eval_runner(loaded)
        if "lm_eval_tuned" in wanted:
            runners["lm_eval_tuned"] = lm_eval_runner(loaded, batch_size=32, softmax_dtype="float32")
        runners["ours"] = ours_runner(loaded, args.token_budget)
        scores, seconds, cpu = measure(loaded, items, runners, max(1, min(args.rounds, len(items))))

    n_tokens = sum(
        len(ids) for ids in loaded.tokenizer([item.text for item in items], add_special_tokens=False)["input_ids"]
    )
    n_pairs = sum(len(d) for item in items for d in item.decisions)
    checks = {name: parity(scores["ours"], scores[name], items) for name in runners if name != "ours"}
    max_diff = max((diff for diff, _ in checks.values()), default=0.0)
    flips = sum(flip for _, flip in checks.values())
    ok = max_diff <= PARITY_TOLERANCE and flips == 0
    engines = {
        name: {"items_per_s": len(items) / seconds[name], "tokens_per_s": n_tokens / seconds[name]} for name in runners
    }

    def ratio(other: str) -> float | None:
        return seconds[other] / seconds["ours"] if other in seconds else None

    ratios = {
        "ours/naive": ratio("naive"),
        "ours/lm_eval_default": ratio("lm_eval_default"),
        "ours/lm_eval_tuned": ratio("lm_eval_tuned"),
    }

    print(
        f"workload={args.workload} model={args.model} ({loaded.identity.model_id}, loaded in {load_seconds:.1f}s) "
        f"items={len(items)} pairs={n_pairs} tokens={n_tokens} threads={_threads()}"
    )
    for name, (diff, flip) in checks.items():
        print(f"parity ours vs {name:<16} max|dlogp|={diff:.2e} flips={flip}")
    print(f"parity: {'OK' if ok else 'FAILED'} (tolerance {PARITY_TOLERANCE:g})")
    # CPU seconds are printed beside wall time: on a shared machine they show the work itself
    print(f"{'engine':<16}{'seconds':>10}{'cpu_s':>10}{'items/s':>10}{'tokens/s':>11}")
    for name in runners:
        print(
            f"{name:<16}{seconds[name]:>10.2f}{cpu[name]:>10.2f}{engines[name]['items_per_s']:>10.2f}"
            f"{engines[name]['tokens_per_s']:>11.1f}"
        )
    print("  ".join(f"{key}={value:.2f}x" for key, value in ratios.items() if value is not None))
    if args.json:
        print(
            json.dumps(
                {"parity": {"ok": ok, "max_abs_diff": max_diff, "flips": flips}, "engines": engines, "ratios": ratios}
            )
        )
    return 0 if ok else 1


def _threads() -> int:
    import torch

    return torch.get_num_threads()


if __name__ == "__main__":
    sys.exit(main())
