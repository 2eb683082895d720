"""The model-scoring engine (pure Python: no Django import; torch/transformers load lazily).

Public API:
- loaders: `load_causal_lm`, `load_seq2seq`, `load_embedder`, `load_nli` (alias, local dir or Hub id);
- `Engine(model, cache=...)` with `score_choices`, `score_reads`, `generate` and `stats`;
- request/result dataclasses (`requests.py`), `ScoreCache`, `bertscore` and `load_similarity`
  (greedy matching here, or the `bert-score` package's scorer), and the instruction-
  induction text rules and metrics (`metrics.py`).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from parity.engine import metrics
    from parity.engine.cache import ENGINE_VERSION, ScoreCache, cache_key
    from parity.engine.encoders import (
        DEFAULT_EMBEDDER,
        Embedder,
        NliModel,
        NliScore,
        contradiction_index,
        load_embedder,
        load_nli,
    )
    from parity.engine.engine import Engine, EngineStats, ProgressCallback
    from parity.engine.loading import (
        ALIASES,
        LoadedModel,
        ModelIdentity,
        ModelNotFound,
        load_causal_lm,
        load_seq2seq,
        model_cache_dir,
        resolve_source,
    )
    from parity.engine.requests import (
        ChoiceRequest,
        ChoiceResult,
        ContinuationScore,
        GenerationRequest,
        GenerationResult,
        MultiReadRequest,
        MultiReadResult,
        Read,
        ReadResult,
    )
    from parity.engine.similarity import (
        AUTO,
        PAPER_SIMILARITY_MODEL,
        SimilarityScore,
        bertscore,
        bertscore_many,
        load_similarity,
        resolve_similarity_model,
    )

#: where each name lives: a name is imported when first used (PEP 562), so that a program which
#: needs one part (the request dataclasses, which the benchmarks' model sides name at every start of
#: Django) does not load the engine, its loaders and its similarity scorers with it
#: (docs/performance.md, "Start-up"); `metrics` is a module, imported as one
_SOURCES = {
    "ALIASES": "loading",
    "AUTO": "similarity",
    "ChoiceRequest": "requests",
    "ChoiceResult": "requests",
    "ContinuationScore": "requests",
    "DEFAULT_EMBEDDER": "encoders",
    "ENGINE_VERSION": "cache",
    "Embedder": "encoders",
    "Engine": "engine",
    "EngineStats": "engine",
    "GenerationRequest": "requests",
    "GenerationResult": "requests",
    "LoadedModel": "loading",
    "ModelIdentity": "loading",
    "ModelNotFound": "loading",
    "MultiReadRequest": "requests",
    "MultiReadResult": "requests",
    "NliModel": "encoders",
    "NliScore": "encoders",
    "PAPER_SIMILARITY_MODEL": "similarity",
    "ProgressCallback": "engine",
    "Read": "requests",
    "ReadResult": "requests",
    "ScoreCache": "cache",
    "SimilarityScore": "similarity",
    "bertscore": "similarity",
    "bertscore_many": "similarity",
    "cache_key": "cache",
    "contradiction_index": "encoders",
    "load_causal_lm": "loading",
    "load_embedder": "encoders",
    "load_nli": "encoders",
    "load_seq2seq": "loading",
    "load_similarity": "similarity",
    "model_cache_dir": "loading",
    "resolve_similarity_model": "similarity",
    "resolve_source": "loading",
}


def __getattr__(name: str) -> object:
    if name == "metrics":
        return import_module(f"{__name__}.metrics")
    if name not in _SOURCES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{_SOURCES[name]}"), name)
    globals()[name] = value
    return value


__all__ = [
    "ALIASES",
    "AUTO",
    "ChoiceRequest",
    "ChoiceResult",
    "ContinuationScore",
    "DEFAULT_EMBEDDER",
    "ENGINE_VERSION",
    "Embedder",
    "Engine",
    "EngineStats",
    "GenerationRequest",
    "GenerationResult",
    "LoadedModel",
    "ModelIdentity",
    "ModelNotFound",
    "MultiReadRequest",
    "MultiReadResult",
    "NliModel",
    "NliScore",
    "PAPER_SIMILARITY_MODEL",
    "ProgressCallback",
    "Read",
    "ReadResult",
    "ScoreCache",
    "SimilarityScore",
    "bertscore",
    "bertscore_many",
    "cache_key",
    "contradiction_index",
    "load_causal_lm",
    "load_embedder",
    "load_nli",
    "load_seq2seq",
    "load_similarity",
    "metrics",
    "model_cache_dir",
    "resolve_similarity_model",
    "resolve_source",
]
