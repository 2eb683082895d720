"""The model-scoring engine (pure Python: no Django import; torch/transformers load lazily).

Public API:
- loaders: `load_causal_lm`, `load_seq2seq`, `load_embedder`, `load_nli` (alias, local dir or Hub id);
- `Engine(model, cache=...)` with `score_choices`, `score_reads`, `generate` and `stats`;
- request/result dataclasses (`requests.py`), `ScoreCache`, `bertscore` and `load_similarity`
  (greedy matching here, or the `bert-score` package's scorer), and the instruction-
  induction text rules and metrics (`metrics.py`).
"""

from __future__ import annotations

from . import metrics
from .cache import ENGINE_VERSION, ScoreCache, cache_key
from .encoders import DEFAULT_EMBEDDER, Embedder, NliModel, NliScore, contradiction_index, load_embedder, load_nli
from .engine import Engine, EngineStats, ProgressCallback
from .loading import (
    ALIASES,
    LoadedModel,
    ModelIdentity,
    ModelNotFound,
    load_causal_lm,
    load_seq2seq,
    model_cache_dir,
    resolve_source,
)
from .requests import (
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
from .similarity import (
    AUTO,
    PAPER_SIMILARITY_MODEL,
    SimilarityScore,
    bertscore,
    bertscore_many,
    load_similarity,
    resolve_similarity_model,
)

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
