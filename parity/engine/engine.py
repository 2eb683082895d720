"""The scoring engine: requests in, results out (in request order), with a content-addressed cache.

    engine = Engine(load_causal_lm("smollm2"), cache=ScoreCache("/var/cache/parity"))
    results = engine.score_choices([ChoiceRequest("item-1", context, (" yes", " no"))])

Work is planned into forward rows (see plan.py), rows already in the cache are skipped, the rest
run in token-budget batches; each finished batch is written to the cache at once, so a killed
worker loses at most one batch.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .cache import ScoreCache, cache_key
from .forward import RowRunner, RowScores, make_batches
from .generation import Generated, generate_batch, prepare_prompts
from .loading import LoadedModel
from .plan import Row, RowBook, Slot, plan_choices, plan_reads
from .requests import (
    ChoiceRequest,
    ChoiceResult,
    ContinuationScore,
    GenerationRequest,
    GenerationResult,
    MultiReadRequest,
    MultiReadResult,
    ReadResult,
)
from .tokens import TextEncoder

#: called as progress(requests finished, requests in the call)
ProgressCallback = Callable[[int, int], None]


@dataclass
class EngineStats:
    requests: int = 0
    rows: int = 0  # distinct forward rows planned
    rows_run: int = 0  # rows that went through the model (the rest came from the cache)
    cache_hits: int = 0  # rows and generations answered by the cache
    tokens_processed: int = 0  # real tokens run through the model
    shared_prefix_tokens: int = 0  # tokens saved by running a batch's common prefix once
    padded_tokens: int = 0  # tokens including padding
    batches: int = 0
    generated_tokens: int = 0
    seconds: float = 0.0  # time spent in the model


class _Progress:
    """Counts a request as finished once every row it needs has scores."""

    def __init__(self, request_rows: Sequence[Sequence[int]], callback: ProgressCallback | None) -> None:
        self.callback = callback
        self.total = len(request_rows)
        self.waiting: dict[int, list[int]] = {}
        self.remaining = [len(set(rows)) for rows in request_rows]
        for request, rows in enumerate(request_rows):
            for row in set(rows):
                self.waiting.setdefault(row, []).append(request)
        self.done = sum(1 for count in self.remaining if count == 0)

    def finished(self, rows: Sequence[int]) -> None:
        for row in rows:
            for request in self.waiting.pop(row, []):
                self.remaining[request] -= 1
                self.done += self.remaining[request] == 0
        if self.callback is not None:
            self.callback(self.done, self.total)


class Engine:
    def __init__(
        self,
        model: LoadedModel,
        *,
        cache: ScoreCache | str | Path | None = None,
        token_budget: int | None = None,
        max_batch_rows: int = 64,
        max_padding: float | None = None,
        generation_batch_size: int = 32,
        progress: ProgressCallback | None = None,
    ) -> None:
        self.model = model
        self.cache = ScoreCache(cache) if isinstance(cache, (str, Path)) else cache
        on_gpu = model.device.startswith("cuda")
        # on a CPU, large batches buy little and every padded token costs real time; a GPU wants
        # its batches full and pays for padding mostly in memory
        self.token_budget = token_budget or (32768 if on_gpu else 1024)
        self.max_padding = max_padding if max_padding is not None else (0.25 if on_gpu else 0.1)
        self.max_batch_rows = max_batch_rows
        self.generation_batch_size = generation_batch_size
        self.progress = progress
        self.stats = EngineStats()
        self._encoder: TextEncoder | None = None
        self._runner: RowRunner | None = None
        self._decoded: dict[int, str] = {}

    # -- public API ----------------------------------------------------------------------------
    def score_choices(
        self, requests: Sequence[ChoiceRequest], progress: ProgressCallback | None = None
    ) -> list[ChoiceResult]:
        """Log-prob of every continuation of every request, in request order."""
        self.stats.requests += len(requests)
        if self.model.kind == "seq2seq":
            return self._score_choices_seq2seq(requests, progress)
        book = RowBook(self.model.max_length)
        planned = plan_choices(self._text_encoder(), book, requests)
        scores = self._scores(book.rows, [p.rows for p in planned], progress)
        results = []
        for request, plan in zip(requests, planned):
            results.append(
                ChoiceResult(
                    key=request.key,
                    scores=tuple(
                        _continuation(text, slot, scores, self._decode)
                        for text, slot in zip(request.continuations, plan.slots)
                    ),
                    truncated_tokens=max(book.rows[row].truncated for row in plan.rows),
                )
            )
        return results

    def score_reads(
        self, requests: Sequence[MultiReadRequest], progress: ProgressCallback | None = None
    ) -> list[MultiReadResult]:
        """Every read of every request from (normally) one forward pass per request."""
        if self.model.kind != "causal":
            raise ValueError("multi-read scoring needs a causal (decoder-only) model")
        self.stats.requests += len(requests)
        book = RowBook(self.model.max_length)
        planned = plan_reads(self._text_encoder(), book, requests)
        scores = self._scores(book.rows, [p.rows for p in planned], progress)
        results = []
        for request, plan in zip(requests, planned):
            reads = tuple(
                ReadResult(
                    read.offset,
                    tuple(
                        _continuation(text, slot, scores, self._decode) for text, slot in zip(read.candidates, slots)
                    ),
                )
                for read, slots in zip(request.reads, plan.reads)
            )
            truncated = max((book.rows[row].truncated for row in plan.rows), default=0)
            results.append(MultiReadResult(request.key, reads, truncated))
        return results

    def generate(
        self, requests: Sequence[GenerationRequest], progress: ProgressCallback | None = None
    ) -> list[GenerationResult]:
        """Greedy continuations, batched; cached by prompt tokens and settings."""
        self.stats.requests += len(requests)
        prompts = prepare_prompts(self.model, requests)
        # the stop rule is named in the key: outputs cut at the bare first newline are not reused
        keys = [
            cache_key(
                self.model.identity,
                "generate",
                [list(p.ids), r.max_new_tokens, "first-line-settled" if r.stop_at_newline else False],
            )
            for p, r in zip(prompts, requests)
        ]
        found = self.cache.get_many(keys) if self.cache is not None else {}
        outputs: list[Generated | None] = [Generated(**found[key]) if key in found else None for key in keys]
        self.stats.cache_hits += sum(output is not None for output in outputs)
        tracker = _Progress([[i] for i in range(len(requests))], progress or self.progress)
        tracker.finished([i for i, output in enumerate(outputs) if output is not None])
        pending = [i for i, output in enumerate(outputs) if output is None]
        lengths = [len(prompts[i].ids) + requests[i].max_new_tokens for i in pending]
        for batch in make_batches(lengths, token_budget=self.token_budget, max_rows=self.generation_batch_size):
            members = [pending[i] for i in batch.rows]
            started = time.perf_counter()
            generated = generate_batch(self.model, [prompts[i] for i in members], [requests[i] for i in members])
            self.stats.seconds += time.perf_counter() - started
            self.stats.batches += 1
            self.stats.tokens_processed += sum(len(prompts[i].ids) for i in members)
            self.stats.generated_tokens += sum(g.n_tokens for g in generated)
            for i, output in zip(members, generated):
                outputs[i] = output
            if self.cache is not None:
                self.cache.put_many({keys[i]: output.as_json() for i, output in zip(members, generated)})
            tracker.finished(members)
        return [
            GenerationResult(r.key, o.text, o.raw_text, o.n_tokens, o.stop_reason, p.truncated)
            for r, o, p in zip(requests, outputs, prompts)
            if o is not None
        ]

    # -- internals -------------------------------------------------------------------------------
    def _decode(self, token_id: int) -> str:
        text = self._decoded.get(token_id)
        if text is None:
            text = self._decoded[token_id] = self.model.tokenizer.decode([token_id])
        return text

    def _text_encoder(self) -> TextEncoder:
        if self._encoder is None:
            self._encoder = TextEncoder(
                self.model.tokenizer, add_bos=self.model.add_bos, prefix_token_id=self.model.prefix_token_id
            )
        return self._encoder

    def _scores(
        self, rows: Sequence[Row], request_rows: Sequence[Sequence[int]], progress: ProgressCallback | None
    ) -> list[RowScores]:
        """Scores of every row: from the cache where possible, else from the model."""
        self.stats.rows += len(rows)
        keys = (
            [cache_key(self.model.identity, "rows", [list(r.tokens), list(r.positions), list(r.targets)]) for r in rows]
            if self.cache is not None
            else [""] * len(rows)
        )
        found = self.cache.get_many(keys) if self.cache is not None else {}
        scores: list[RowScores | None] = [_cached(found[key]) if key in found else None for key in keys]
        self.stats.cache_hits += sum(s is not None for s in scores)
        tracker = _Progress(request_rows, progress or self.progress)
        tracker.finished([i for i, s in enumerate(scores) if s is not None])
        pending = [i for i, s in enumerate(scores) if s is None]
        if self._runner is None:
            self._runner = RowRunner(self.model.model, device=self.model.device, pad_token_id=self.model.pad_token_id)
        batches = make_batches(
            [len(rows[i].tokens) for i in pending],
            token_budget=self.token_budget,
            max_rows=self.max_batch_rows,
            max_padding=self.max_padding,
        )
        for batch in batches:
            members = [pending[i] for i in batch.rows]
            started = time.perf_counter()
            batch_scores = self._runner.run_batch([rows[i] for i in members])
            self.stats.seconds += time.perf_counter() - started
            self.stats.batches += 1
            self.stats.rows_run += len(members)
            saved = self._runner.last_shared * (len(members) - 1)
            self.stats.shared_prefix_tokens += saved
            self.stats.tokens_processed += sum(len(rows[i].tokens) for i in members) - saved
            self.stats.padded_tokens += batch.width * len(members) - saved
            for i, row_scores in zip(members, batch_scores):
                scores[i] = row_scores
            if self.cache is not None:
                self.cache.put_many(
                    {keys[i]: [list(pair) for pair in row_scores] for i, row_scores in zip(members, batch_scores)}
                )
            tracker.finished(members)
        return [s if s is not None else [] for s in scores]

    def _score_choices_seq2seq(
        self, requests: Sequence[ChoiceRequest], progress: ProgressCallback | None
    ) -> list[ChoiceResult]:
        from .seq2seq import prepare_pairs, score_pairs

        prepared = prepare_pairs(self.model, requests)
        flat = [pair for pairs in prepared for pair in pairs]
        keys = [cache_key(self.model.identity, "seq2seq", [list(p.source), list(p.labels)]) for p in flat]
        found = self.cache.get_many(keys) if self.cache is not None else {}
        scores: list[RowScores | None] = [_cached(found[key]) if key in found else None for key in keys]
        self.stats.cache_hits += sum(s is not None for s in scores)
        request_rows, cursor = [], 0
        for pairs in prepared:
            request_rows.append(list(range(cursor, cursor + len(pairs))))
            cursor += len(pairs)
        tracker = _Progress(request_rows, progress or self.progress)
        tracker.finished([i for i, s in enumerate(scores) if s is not None])
        pending = [i for i, s in enumerate(scores) if s is None]
        lengths = [len(flat[i].source) + len(flat[i].labels) for i in pending]
        for batch in make_batches(
            lengths, token_budget=self.token_budget, max_rows=self.max_batch_rows, max_padding=self.max_padding
        ):
            members = [pending[i] for i in batch.rows]
            started = time.perf_counter()
            batch_scores = score_pairs(self.model, [flat[i] for i in members])
            self.stats.seconds += time.perf_counter() - started
            self.stats.batches += 1
            self.stats.rows_run += len(members)
            self.stats.tokens_processed += sum(lengths[i] for i in batch.rows)
            for i, row_scores in zip(members, batch_scores):
                scores[i] = row_scores
            if self.cache is not None:
                self.cache.put_many({keys[i]: [list(p) for p in s] for i, s in zip(members, batch_scores)})
            tracker.finished(members)
        results = []
        cursor = 0
        for request, pairs in zip(requests, prepared):
            items = []
            for text in request.continuations:
                token_scores = scores[cursor] or []
                items.append(_score(text, token_scores, self._decode))
                cursor += 1
            results.append(ChoiceResult(request.key, tuple(items), max(p.truncated for p in pairs)))
        return results


def _cached(value: Sequence[Sequence[Any]]) -> RowScores:
    return [(float(lp), bool(greedy), float(top), int(top_id), int(rank)) for lp, greedy, top, top_id, rank in value]


def _score(
    text: str, token_scores: Sequence[tuple[float, bool, float, int, int]], decode: Callable[[int], str]
) -> ContinuationScore:
    first = token_scores[0] if token_scores else None
    return ContinuationScore(
        text=text,
        logprob=sum(score[0] for score in token_scores),
        n_tokens=len(token_scores),
        is_greedy=all(score[1] for score in token_scores),
        top_logprob=first[2] if first else None,
        top_token=decode(first[3]) if first else None,
        rank=first[4] if first else None,
    )


def _continuation(
    text: str, slot: Slot, scores: Sequence[RowScores], decode: Callable[[int], str]
) -> ContinuationScore:
    return _score(text, [scores[row][read] for row, read in slot], decode)
