"""Between a ModelSpec and the engine: load a model once per process and answer any request type.

A spec of kind `api` is answered by `parity.engine.api.ApiBackend` (a model behind an
OpenAI-compatible server) through the same calls, cache and progress as a local model.

A worker keeps what it loaded (keyed by what makes a load distinct), so the shards of a run that
land on the same worker pay for loading once. Scores are cached by content under
MODEL_CACHE_DIR/scores, shared by every worker that sees that directory.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from django.conf import settings

from parity.benchmarks.base import PairRequest, SimilarityRequest
from parity.engine import (
    ENGINE_VERSION,
    ChoiceRequest,
    Engine,
    GenerationRequest,
    MultiReadRequest,
    ScoreCache,
    load_causal_lm,
    load_nli,
    load_seq2seq,
    load_similarity,
)
from parity.engine.api import ApiBackend, ApiConfig, Usage

if TYPE_CHECKING:
    from modelruns.models import ModelSpec

#: called as progress(requests finished, requests in the current engine call)
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class LoadKey:
    model: str
    revision: str
    dtype: str
    device: str
    kind: str
    api: ApiConfig | None = None  # kind "api" only: the server and how to reach it


def load_key(spec: ModelSpec) -> LoadKey:
    """What makes a spec's load distinct (for an api spec: the server and how to reach it)."""
    api = None
    if spec.is_api:
        api = ApiConfig(
            base_url=spec.api_base_url,
            model=spec.model,
            key_env=spec.api_key_env,
            concurrency=spec.api_concurrency,
            features=tuple(spec.api_features),
            top_k=spec.api_top_k,
        )
    return LoadKey(spec.model, spec.revision, spec.dtype, spec.device, spec.kind, api)


def score_cache_dir() -> Path:
    return Path(settings.MODEL_CACHE_DIR) / "scores"


class Scorer:
    """Everything one spec needs: its engine (LMs) or its NLI model, plus any similarity scorer asked for."""

    def __init__(self, key: LoadKey) -> None:
        self.key = key
        self._engine: Any = None
        self._api: ApiBackend | None = None
        self._nli: Any = None
        self._similarity_scorers: dict[str, Any] = {}

    # -- loading -------------------------------------------------------------------------------
    def load(self) -> None:
        """Load the spec's model now (a worker does this before it claims any work)."""
        if self.key.kind in ("causal", "seq2seq"):
            self.engine()
        elif self.key.kind == "nli":
            self.nli()
        elif self.key.kind == "api":
            self.api().check()

    def api(self) -> ApiBackend:
        if self._api is None:
            if self.key.api is None:
                raise ValueError(f"the api model {self.key.model} has no server configured")
            self._api = ApiBackend(self.key.api, cache=ScoreCache(score_cache_dir()))
        return self._api

    def usage(self) -> Usage:
        """Tokens and requests the API server counted so far (zero for local models)."""
        return self._api.usage if self._api is not None else Usage()

    def engine(self) -> Any:
        if self._engine is None:
            loader = load_causal_lm if self.key.kind == "causal" else load_seq2seq
            loaded = loader(
                self.key.model,
                revision=self.key.revision or None,
                dtype=self.key.dtype,
                device=self.key.device,
                cache_dir=settings.MODEL_CACHE_DIR,
            )
            self._engine = Engine(loaded, cache=ScoreCache(score_cache_dir()))
        return self._engine

    def nli(self) -> Any:
        if self._nli is None:
            self._nli = load_nli(
                self.key.model,
                revision=self.key.revision or None,
                dtype=self.key.dtype,
                device=self.key.device,
                cache_dir=settings.MODEL_CACHE_DIR,
            )
        return self._nli

    def similarity(self, name: str) -> Any:
        """The similarity scorer a request names (`parity.engine.load_similarity`), loaded once."""
        if name not in self._similarity_scorers:
            self._similarity_scorers[name] = load_similarity(
                name, device=self.key.device, cache_dir=settings.MODEL_CACHE_DIR
            )
        return self._similarity_scorers[name]

    def identity(self) -> dict[str, str | list[str]]:
        """What was loaded, as recorded on the run (never the API key, only its variable's name)."""
        if self._api is not None:
            config = self._api.config
            return {
                "model_id": config.model,
                "api_base_url": config.server,
                "api_features": list(self._api.features()),
                "api_key_env": config.key_env,
                "engine_version": ENGINE_VERSION,
            }
        if self._engine is not None:
            identity, device = self._engine.model.identity, self._engine.model.device
        elif self._nli is not None:
            identity, device = self._nli.identity, self._nli.device
        else:
            return {}
        return {
            "model_id": identity.model_id,
            "revision": identity.revision,
            "dtype": identity.dtype,
            "device": device,
            "engine_version": ENGINE_VERSION,
        }

    # -- scoring -------------------------------------------------------------------------------
    def run(self, requests: Sequence[Any], progress: Progress | None = None) -> dict[str, Any]:
        """Results by request key, whatever mix of request types `requests` holds."""
        by_type: dict[type, list[Any]] = {}
        for request in requests:
            by_type.setdefault(type(request), []).append(request)
        results: dict[str, Any] = {}
        for kind, batch in by_type.items():
            if kind is ChoiceRequest:
                found = self._lm("choice scoring").score_choices(batch, progress=progress)
            elif kind is MultiReadRequest:
                found = self._lm("multi-read scoring").score_reads(batch, progress=progress)
            elif kind is GenerationRequest:
                found = self._lm("generation").generate(batch, progress=progress)
            elif kind is PairRequest:
                found = self._pairs(batch)
            elif kind is SimilarityRequest:
                found = self._similarities(batch)
            else:
                raise TypeError(f"no scorer for {kind.__name__}")
            for request, result in zip(batch, found):
                results[request.key] = result
        return results

    def _lm(self, what: str) -> Any:
        if self.key.kind == "api":
            return self.api()
        if self.key.kind not in ("causal", "seq2seq"):
            raise ValueError(f"{what} needs a causal or seq2seq model; {self.key.model} is a {self.key.kind} model")
        return self.engine()

    def _pairs(self, batch: Sequence[PairRequest]) -> list[Any]:
        if self.key.kind != "nli":
            raise ValueError(f"NLI scoring needs an nli model; {self.key.model} is a {self.key.kind} model")
        return self.nli().score([(request.premise, request.hypothesis) for request in batch])

    def _similarities(self, batch: Sequence[SimilarityRequest]) -> list[Any]:
        results: list[Any] = [None] * len(batch)
        by_model: dict[str, list[int]] = {}
        for index, request in enumerate(batch):
            by_model.setdefault(request.model, []).append(index)
        for name, indices in by_model.items():
            scores = self.similarity(name).score_many([(batch[i].candidate, batch[i].references) for i in indices])
            for index, score in zip(indices, scores):
                results[index] = score
        return results


_LOADED: dict[LoadKey, Scorer] = {}
_LOCK = threading.Lock()


def scorer_for(key: LoadKey, *, alongside: Sequence[LoadKey] = ()) -> Scorer:
    """The process's scorer for a spec. Only the latest spec stays loaded, with the specs named
    `alongside` (a run's executor beside its model): a GPU worker that moves on to another model
    must not keep the previous one's weights in memory."""
    with _LOCK:
        keep = {key, *alongside}
        for stale in [loaded for loaded in _LOADED if loaded not in keep]:
            del _LOADED[stale]
        scorer = _LOADED.get(key)
        if scorer is None:
            scorer = _LOADED[key] = Scorer(key)
        return scorer


def scorer_of(spec: ModelSpec, *, alongside: Sequence[ModelSpec] = ()) -> Scorer:
    return scorer_for(load_key(spec), alongside=[load_key(other) for other in alongside])
