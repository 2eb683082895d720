"""Models behind an OpenAI-compatible API (hosted providers, or vLLM / llama.cpp / TGI servers).

`ApiBackend(ApiConfig(...), cache=...)` answers the local Engine's request types over HTTP
(`score_choices`, `score_reads`, `generate`), with the same results and the same score cache.
Pure Python (urllib), no Django.
"""

from __future__ import annotations

from .backend import ApiBackend, ApiStats
from .client import ApiClient, Usage, retry_after_seconds
from .config import CHAT, COMPLETIONS, FEATURES, KEY_ENV_PATTERN, PROMPT_LOGPROBS, TOP_LOGPROBS, ApiConfig, ApiError

__all__ = [
    "CHAT",
    "COMPLETIONS",
    "FEATURES",
    "KEY_ENV_PATTERN",
    "PROMPT_LOGPROBS",
    "TOP_LOGPROBS",
    "ApiBackend",
    "ApiClient",
    "ApiConfig",
    "ApiError",
    "ApiStats",
    "Usage",
    "retry_after_seconds",
]
