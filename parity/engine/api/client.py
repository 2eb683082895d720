"""HTTP to an OpenAI-compatible server: the bearer key from the environment, retries with
exponential backoff on 429, 5xx and connection errors (a Retry-After header wins), a timeout, and
the token usage the server reports, summed.

The key is read from the environment when a request is made and goes into the Authorization
header only: it is never part of an error, a log line or a cache key.
"""

from __future__ import annotations

import email.utils
import http.client
import json
import logging
import os
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from .config import ApiConfig, ApiError

logger = logging.getLogger(__name__)

#: statuses worth another try: rate limits, timeouts and server-side failures
RETRY_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504, 520, 522, 524, 529})


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    requests: int = 0  # HTTP requests answered (retries of one request count once)

    def __sub__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens - other.prompt_tokens,
            self.completion_tokens - other.completion_tokens,
            self.requests - other.requests,
        )


def retry_after_seconds(value: str | None) -> float | None:
    """A Retry-After header as seconds to wait: a number of seconds or an HTTP date."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


class _RefuseRedirects(urllib.request.HTTPRedirectHandler):
    """A redirect is answered as the error it is: urllib would send the request, key included, on
    to whatever address the answer names, past the allow-list of servers."""

    def redirect_request(self, req: Any, fp: Any, code: int, msg: str, headers: Any, newurl: str) -> None:
        raise urllib.error.HTTPError(
            req.full_url,
            code,
            f"redirected to {newurl} (not followed: API requests go to the configured server only)",
            headers,
            fp,
        )


_OPENER = urllib.request.build_opener(_RefuseRedirects)


def _error_text(body: bytes) -> str:
    try:
        data = json.loads(body)
    except ValueError:
        return body.decode("utf-8", "replace")[:500]
    error = data.get("error", data) if isinstance(data, dict) else data
    if isinstance(error, dict):
        return str(error.get("message") or error)[:500]
    return str(error)[:500]


class ApiClient:
    def __init__(self, config: ApiConfig, *, sleep: Callable[[float], None] = time.sleep) -> None:
        self.config = config
        self.sleep = sleep
        self._lock = threading.Lock()
        self._usage = Usage()

    @property
    def usage(self) -> Usage:
        with self._lock:
            return self._usage

    def check_key(self) -> None:
        """Raise when the spec names a key variable that this process does not have."""
        self._headers()

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        name = self.config.key_env
        if name:
            key = os.environ.get(name, "")
            if not key:
                raise ApiError(
                    f"the environment variable {name}, which holds the API key for "
                    f"{self.config.server}, is not set on this worker"
                )
            headers["Authorization"] = f"Bearer {key}"
        return headers

    def get(self, path: str) -> dict[str, Any]:
        return self._call("GET", path, None)

    def post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        return self._call("POST", path, body)

    def _call(self, method: str, path: str, body: dict[str, Any] | None) -> dict[str, Any]:
        url = self.config.server + path
        data = json.dumps(body).encode() if body is not None else None
        where = f"API server {self.config.server} ({method} {path})"
        for attempt in range(self.config.max_retries + 1):
            wait = min(self.config.max_backoff_seconds, self.config.backoff_seconds * 2**attempt)
            request = urllib.request.Request(url, data=data, method=method, headers=self._headers())
            try:
                with _OPENER.open(request, timeout=self.config.timeout) as response:
                    answer = json.loads(response.read() or b"{}")
            except urllib.error.HTTPError as exc:
                text = str(exc.reason) if 300 <= exc.code < 400 else _error_text(exc.read())
                if exc.code not in RETRY_STATUSES or attempt == self.config.max_retries:
                    raise ApiError(f"{where}: HTTP {exc.code}: {text}", status=exc.code) from None
                after = retry_after_seconds(exc.headers.get("Retry-After")) if exc.headers is not None else None
                if after is not None:
                    wait = min(self.config.max_backoff_seconds, after)
                logger.warning("%s: HTTP %s, retrying in %.1f s (%s)", where, exc.code, wait, text[:200])
            except (urllib.error.URLError, http.client.HTTPException, OSError) as exc:
                reason = getattr(exc, "reason", exc)
                if attempt == self.config.max_retries:
                    raise ApiError(f"{where}: no answer after {attempt + 1} tries: {reason}") from None
                logger.warning("%s: %s, retrying in %.1f s", where, reason, wait)
            except ValueError as exc:
                raise ApiError(f"{where}: the answer is not JSON: {exc}") from None
            else:
                self._count(answer)
                return answer
            self.sleep(wait)
        raise AssertionError("unreachable")

    def _count(self, answer: dict[str, Any]) -> None:
        usage = answer.get("usage") if isinstance(answer, dict) else None
        usage = usage if isinstance(usage, dict) else {}
        with self._lock:
            self._usage = Usage(
                self._usage.prompt_tokens + int(usage.get("prompt_tokens") or 0),
                self._usage.completion_tokens + int(usage.get("completion_tokens") or 0),
                self._usage.requests + 1,
            )
