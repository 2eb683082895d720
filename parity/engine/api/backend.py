"""The engine's request types answered by an OpenAI-compatible server.

- ChoiceRequest: with prompt log-probabilities, each `context + continuation` is echoed and the
  continuation's tokens summed (full log-likelihoods, any length); with only top-k next-token
  log-probabilities, each context is sent once and single-token continuations are read from the
  top k (yes/no, A/B, X/Y readouts); a continuation that is not among them fails the request.
- MultiReadRequest: each read is the choice of its candidates after `text[:offset]`.
- GenerationRequest: greedy (temperature 0) through `/completions`, else `/chat/completions`.

Answers are cached under the server's URL, the model's name and the exact request, so a second
run of the same work makes no HTTP request. Requests run `concurrency` at a time.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any

from ..cache import ScoreCache, cache_key
from ..engine import ProgressCallback
from ..generation import Generated
from ..loading import ModelIdentity
from ..metrics import first_line_settled
from ..requests import (
    ChoiceRequest,
    ChoiceResult,
    GenerationRequest,
    GenerationResult,
    MultiReadRequest,
    MultiReadResult,
    ReadResult,
)
from .client import ApiClient, Usage
from .config import CHAT, COMPLETIONS, PROMPT_LOGPROBS, TOP_LOGPROBS, ApiConfig, ApiError
from .protocol import Echoed, continuation_score, echoed, next_token_tops, readout_score

#: statuses with which a server says it does not take a request's form (not a passing failure)
REFUSALS = frozenset({400, 404, 405, 415, 422, 501})


@dataclass
class ApiStats:
    requests: int = 0  # engine requests answered
    http_requests: int = 0  # units of work sent to the server (retries count once)
    cache_hits: int = 0


class ApiBackend:
    def __init__(
        self, config: ApiConfig, *, cache: ScoreCache | None = None, sleep: Callable[[float], None] = time.sleep
    ) -> None:
        self.config = config
        self.cache = cache
        self.client = ApiClient(config, sleep=sleep)
        self.identity = ModelIdentity(model_id=config.model, revision=config.server, dtype="api")
        self.stats = ApiStats()
        self._features: tuple[str, ...] | None = tuple(config.features) or None
        self._checked = False

    @property
    def usage(self) -> Usage:
        return self.client.usage

    # -- capabilities ----------------------------------------------------------------------------
    def check(self) -> None:
        """Before any work: the key is there, the server knows the model, its features are known
        (the server is asked once per backend; the key is looked for every time)."""
        self.client.check_key()
        if self._checked:
            return
        try:
            served = [str(entry.get("id")) for entry in self.client.get("/models").get("data", [])]
        except ApiError as exc:
            if exc.status not in REFUSALS:
                raise
            served = []  # a server without a model list: the first request will tell
        if served and self.config.model not in served:
            raise ApiError(
                f"API server {self.config.server} does not serve {self.config.model!r} "
                f"(it serves {', '.join(served[:10])})"
            )
        self.features()
        self._checked = True

    def features(self) -> tuple[str, ...]:
        if self._features is None:
            self._features = self._discover()
        return self._features

    def _discover(self) -> tuple[str, ...]:
        """Ask the server, with one-token requests, what it can do."""
        found: list[str] = []
        probe: dict[str, Any] = {"model": self.config.model, "prompt": "Hello", "max_tokens": 1, "temperature": 0}
        for extra in ({"echo": True, "logprobs": 1}, {"logprobs": 1}, {}):
            try:
                answer = self.client.post("/completions", {**probe, **extra})
            except ApiError as exc:
                if exc.status not in REFUSALS:
                    raise
                continue
            found.append(COMPLETIONS)
            logprobs = (answer.get("choices") or [{}])[0].get("logprobs") or {}
            offsets, values = logprobs.get("text_offset") or [], logprobs.get("token_logprobs") or []
            if extra.get("echo") and any(v is not None and o < len(probe["prompt"]) for o, v in zip(offsets, values)):
                found.append(PROMPT_LOGPROBS)
            if any(logprobs.get("top_logprobs") or []):
                found.append(TOP_LOGPROBS)
            break
        try:
            self.client.post(
                "/chat/completions",
                {
                    "model": self.config.model,
                    "max_tokens": 1,
                    "temperature": 0,
                    "messages": [{"role": "user", "content": "Hello"}],
                },
            )
            found.append(CHAT)
        except ApiError as exc:
            if exc.status not in REFUSALS:
                raise
        if not found:
            raise ApiError(
                f"API server {self.config.server} answers neither /completions nor /chat/completions "
                f"for {self.config.model!r}"
            )
        return tuple(found)

    def _refuse(self, what: str, needs: str) -> ApiError:
        return ApiError(
            f"{what} needs {needs}; API server {self.config.server} ({self.config.model}) offers "
            f"{', '.join(self.features()) or 'none of them'}"
        )

    # -- public API (the local Engine's) ---------------------------------------------------------
    def score_choices(
        self, requests: Sequence[ChoiceRequest], progress: ProgressCallback | None = None
    ) -> list[ChoiceResult]:
        self.stats.requests += len(requests)
        features = self.features()
        if PROMPT_LOGPROBS in features:
            return self._choices_from_echo(requests, progress)
        if TOP_LOGPROBS in features:
            return self._choices_from_readout(requests, progress)
        raise self._refuse(
            "scoring continuations",
            "prompt log-probabilities (full log-likelihoods) or top-k "
            "next-token log-probabilities (single-token readouts)",
        )

    def score_reads(
        self, requests: Sequence[MultiReadRequest], progress: ProgressCallback | None = None
    ) -> list[MultiReadResult]:
        """Each read is the choice of its candidates after the text up to its offset."""
        choices = [
            ChoiceRequest(f"{request.key}#{index}", request.text[: read.offset], read.candidates)
            for request in requests
            for index, read in enumerate(request.reads)
        ]
        self.stats.requests -= len(choices) - len(requests)
        found = iter(self.score_choices(choices, progress))
        results = []
        for request in requests:
            reads = tuple(ReadResult(read.offset, next(found).scores) for read in request.reads)
            results.append(MultiReadResult(request.key, reads, 0))
        return results

    def generate(
        self, requests: Sequence[GenerationRequest], progress: ProgressCallback | None = None
    ) -> list[GenerationResult]:
        self.stats.requests += len(requests)
        features = self.features()
        endpoint = COMPLETIONS if COMPLETIONS in features else CHAT if CHAT in features else None
        if endpoint is None:
            raise self._refuse("generation", "/completions or /chat/completions")
        tokens = endpoint == COMPLETIONS and TOP_LOGPROBS in features
        payloads = [
            [r.prompt, r.max_new_tokens, "first-line-settled" if r.stop_at_newline else False, endpoint]
            for r in requests
        ]
        found = self._fetch(
            "api-generate", payloads, lambda payload: self._generate_one(payload, tokens).as_json(), progress
        )
        return [
            GenerationResult(r.key, g["text"], g["raw_text"], g["n_tokens"], g["stop_reason"], 0)
            for r, g in zip(requests, found)
        ]

    # -- choices ---------------------------------------------------------------------------------
    def _choices_from_echo(
        self, requests: Sequence[ChoiceRequest], progress: ProgressCallback | None
    ) -> list[ChoiceResult]:
        texts = list(dict.fromkeys(r.context + c for r in requests for c in r.continuations))
        echoes = dict(
            zip(
                texts,
                (
                    Echoed.from_json(value)
                    for value in self._fetch("api-echo", [[text, 1] for text in texts], self._echo_one, progress)
                ),
            )
        )
        server = self.config.server
        return [
            ChoiceResult(
                r.key,
                tuple(continuation_score(server, echoes[r.context + c], len(r.context), c) for c in r.continuations),
                0,
            )
            for r in requests
        ]

    def _choices_from_readout(
        self, requests: Sequence[ChoiceRequest], progress: ProgressCallback | None
    ) -> list[ChoiceResult]:
        k = self.config.top_k
        contexts = list(dict.fromkeys(r.context for r in requests))
        tops = dict(
            zip(contexts, self._fetch("api-next", [[context, k] for context in contexts], self._next_one, progress))
        )
        results = []
        for request in requests:
            scores = []
            for continuation in request.continuations:
                score = readout_score(tops[request.context], continuation)
                if score is None:
                    raise ApiError(
                        f"{request.key}: {continuation!r} is not among the {k} most likely next tokens that API "
                        f"server {self.config.server} returned. Without prompt log-probabilities only single-token "
                        "continuations that rank in the top k can be scored; this run needs a server with prompt "
                        "log-probabilities (echo with logprobs, or vLLM) or a larger top k"
                    )
                scores.append(score)
            results.append(ChoiceResult(request.key, tuple(scores), 0))
        return results

    def _completion(self, body: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        answer = self.client.post("/completions", {"model": self.config.model, "temperature": 0, **body})
        choices = answer.get("choices") or []
        if not choices:
            raise ApiError(f"API server {self.config.server} answered /completions without choices")
        return choices[0], answer

    def _echo_one(self, payload: list[Any]) -> dict[str, Any]:
        text, logprobs = payload
        # one token is generated and ignored: some servers refuse max_tokens=0
        choice, _ = self._completion({"prompt": text, "max_tokens": 1, "echo": True, "logprobs": logprobs})
        return echoed(self.config.server, text, choice).as_json()

    def _next_one(self, payload: list[Any]) -> dict[str, float]:
        context, k = payload
        choice, _ = self._completion({"prompt": context, "max_tokens": 1, "logprobs": k})
        return next_token_tops(self.config.server, choice)

    # -- generation ------------------------------------------------------------------------------
    def _generate_one(self, payload: list[Any], tokens: bool) -> Generated:
        prompt, max_new, rule, endpoint = payload
        if endpoint == COMPLETIONS:
            choice, answer = self._completion(
                {"prompt": prompt, "max_tokens": max_new, **({"logprobs": 1} if tokens and rule else {})}
            )
            text = choice.get("text") or ""
        else:
            answer = self.client.post(
                "/chat/completions",
                {
                    "model": self.config.model,
                    "temperature": 0,
                    "max_tokens": max_new,
                    "messages": [{"role": "user", "content": prompt}],
                },
            )
            choice = (answer.get("choices") or [{}])[0]
            text = (choice.get("message") or {}).get("content") or ""
        pieces = (choice.get("logprobs") or {}).get("tokens") if endpoint == COMPLETIONS else None
        used = int((answer.get("usage") or {}).get("completion_tokens") or len(pieces or ()) or 0)
        if rule:
            cut = _first_line(text, pieces)
            if cut is not None:
                return Generated(cut[0], text, cut[1] or used, "newline")
        reason = "eos" if choice.get("finish_reason") == "stop" else "length"
        if reason == "length" and rule and first_line_settled(text):
            reason = "newline"
        return Generated(text, text, used, reason)

    # -- the cache and the pool ------------------------------------------------------------------
    def _fetch(
        self,
        kind: str,
        payloads: Sequence[list[Any]],
        fetch_one: Callable[[list[Any]], Any],
        progress: ProgressCallback | None,
    ) -> list[Any]:
        """One value per payload: from the cache, else fetched `concurrency` at a time (and cached)."""
        keys = [cache_key(self.identity, kind, payload) for payload in payloads]
        found = self.cache.get_many(keys) if self.cache is not None else {}
        values: list[Any] = [found.get(key) for key in keys]
        pending = [i for i, key in enumerate(keys) if key not in found]
        self.stats.cache_hits += len(keys) - len(pending)
        total = len(keys)

        def report() -> None:
            if progress is not None:
                progress(total - len(pending) + done, total)

        done = 0
        report()
        if not pending:
            return values
        with ThreadPoolExecutor(max_workers=self.config.concurrency) as pool:
            futures = {pool.submit(fetch_one, list(payloads[i])): i for i in pending}
            remaining = set(futures)
            while remaining:
                finished, remaining = wait(remaining, return_when=FIRST_COMPLETED)
                for future in finished:
                    if future.exception() is not None:
                        for other in remaining:
                            other.cancel()
                        raise future.exception()  # type: ignore[misc]
                fresh = {keys[futures[f]]: f.result() for f in finished}
                for future in finished:
                    values[futures[future]] = future.result()
                if self.cache is not None:
                    self.cache.put_many(fresh)
                self.stats.http_requests += len(finished)
                done += len(finished)
                report()
        return values


def _first_line(text: str, pieces: Sequence[str] | None) -> tuple[str, int | None] | None:
    """The text up to where its first line is settled (the local engine's stop rule), and the
    tokens that took; by the server's tokens when it gave them, else by characters."""
    if pieces:
        so_far = ""
        for count, piece in enumerate(pieces, start=1):
            so_far += piece
            if first_line_settled(so_far):
                return so_far, count
        return None
    for end in range(1, len(text) + 1):
        if first_line_settled(text[:end]):
            return text[:end], None
    return None
