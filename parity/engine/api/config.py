"""What the engine needs to know about a model behind an OpenAI-compatible server."""

from __future__ import annotations

import re
from dataclasses import dataclass

#: the server echoes a prompt with each token's log-probability (`/completions` with `echo` and
#: `logprobs`): full log-likelihoods of any continuation
PROMPT_LOGPROBS = "prompt_logprobs"
#: the server returns the top-k log-probabilities of the next token: single-token readouts only
TOP_LOGPROBS = "top_logprobs"
#: `/completions` (a raw text prompt)
COMPLETIONS = "completions"
#: `/chat/completions` (the prompt as one user message)
CHAT = "chat"
FEATURES = (PROMPT_LOGPROBS, TOP_LOGPROBS, COMPLETIONS, CHAT)

#: the key's variable must look like an API key's name, so that a spec cannot send the worker's
#: other secrets (database URL, Django secret key) to a server as a bearer token
KEY_ENV_PATTERN = re.compile(r"^[A-Z][A-Z0-9_]*_API_KEY$")


class ApiError(RuntimeError):
    """A server refused, failed, or cannot serve what a run needs; says which server and why."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class ApiConfig:
    base_url: str  # up to and including the version, e.g. https://api.openai.com/v1
    model: str  # the server's name for the model
    key_env: str = ""  # the NAME of the variable that holds the key; blank: no key is sent
    concurrency: int = 4  # requests in flight at once
    features: tuple[str, ...] = ()  # what the server can do; empty: found out by asking it
    top_k: int = 20  # next-token log-probabilities asked for in a readout
    timeout: float = 120.0  # seconds per HTTP request
    max_retries: int = 6  # on 429, 5xx and connection errors
    backoff_seconds: float = 1.0  # first wait; doubles on each retry (a Retry-After header wins)
    max_backoff_seconds: float = 60.0

    def __post_init__(self) -> None:
        if not self.base_url.startswith(("http://", "https://")):
            raise ValueError(f"API base URL must start with http:// or https://, not {self.base_url!r}")
        if self.key_env and not KEY_ENV_PATTERN.match(self.key_env):
            raise ValueError(
                f"the API key variable must be named like OPENAI_API_KEY (capitals, ending in "
                f"_API_KEY), not {self.key_env!r}"
            )
        unknown = sorted(set(self.features) - set(FEATURES))
        if unknown:
            raise ValueError(f"unknown API features {', '.join(unknown)}; known: {', '.join(FEATURES)}")
        if self.concurrency < 1 or self.top_k < 1:
            raise ValueError("API concurrency and top_k must be at least 1")

    @property
    def server(self) -> str:
        return self.base_url.rstrip("/")
