"""The OpenAI completions protocol's log-probabilities, read the way the local engine reads them.

A continuation is scored inside the echoed full text `context + continuation`, and its tokens are
found from the server's character offsets (`text_offset`) with the local engine's rule: the first
token that reaches into the continuation's characters starts it (tokens.py). So a leading space
glued to the next word belongs to the continuation, and a token merged across the boundary is
part of it, exactly as in a local run of the same weights.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..requests import ContinuationScore
from .config import ApiError


@dataclass(frozen=True)
class Echoed:
    """A prompt as the server tokenized and scored it (its own tokens only, none generated)."""

    text: str
    tokens: tuple[str, ...]
    logprobs: tuple[float | None, ...]  # None where the server gives none (the first token)
    offsets: tuple[int, ...]  # character offset of each token in `text`
    tops: tuple[dict[str, float] | None, ...]  # the top next tokens at each position

    def as_json(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "tokens": list(self.tokens),
            "logprobs": list(self.logprobs),
            "offsets": list(self.offsets),
            "tops": list(self.tops),
        }

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> Echoed:
        return cls(
            value["text"],
            tuple(value["tokens"]),
            tuple(value["logprobs"]),
            tuple(value["offsets"]),
            tuple(value["tops"]),
        )

    def end(self, index: int) -> int:
        return self.offsets[index + 1] if index + 1 < len(self.offsets) else len(self.text)

    def split_at(self, boundary: int) -> int:
        """Index of the first token that reaches into `text[boundary:]` (the local engine's rule)."""
        for index in range(len(self.tokens)):
            if self.end(index) > boundary or self.offsets[index] >= boundary:
                return index
        return len(self.tokens)


def echoed(server: str, text: str, choice: Mapping[str, Any]) -> Echoed:
    """The prompt part of a `/completions` choice made with `echo` and `logprobs`."""
    logprobs = choice.get("logprobs") or {}
    tokens = logprobs.get("tokens")
    values = logprobs.get("token_logprobs")
    offsets = logprobs.get("text_offset")
    if not tokens or values is None or offsets is None or not any(v is not None for v in values):
        raise ApiError(
            f"API server {server} echoed no prompt log-probabilities (it lacks the 'prompt_logprobs' feature)"
        )
    tops = logprobs.get("top_logprobs") or [None] * len(tokens)
    tokens, offsets = [str(t) for t in tokens], [int(o) for o in offsets]
    # A server that prints the BOS it added ("<s>", not in the text) and counts its characters
    # (vLLM) shifts every offset after it: take it back out.
    first = tokens[0]
    if (
        values[0] is None
        and first
        and not text.startswith(first)
        and len(offsets) > 1
        and offsets[1] == offsets[0] + len(first)
    ):
        tokens[0] = ""
        offsets = [offsets[0]] + [offset - len(first) for offset in offsets[1:]]
    # the echo is followed by what was generated, which starts at the end of the prompt
    count = 0
    while count < len(tokens) and offsets[count] < len(text):
        count += 1
    return Echoed(
        text,
        tuple(tokens[:count]),
        tuple(None if v is None else float(v) for v in values[:count]),
        tuple(offsets[:count]),
        tuple(None if top is None else {str(k): float(v) for k, v in top.items()} for top in tops[:count]),
    )


def _top(tops: Mapping[str, float] | None) -> tuple[str | None, float | None]:
    if not tops:
        return None, None
    token = max(tops, key=lambda name: tops[name])
    return token, tops[token]


def _rank(value: float, tops: Mapping[str, float] | None) -> int | None:
    """1 + the listed tokens likelier than `value`; None when every listed token is likelier (the
    token ranks somewhere below the list, how far is unknown). The list is keyed by text, so
    tokens that print alike count once: a rank here is never above the model's."""
    if not tops:
        return None
    likelier = sum(1 for other in tops.values() if other > value + 1e-6)
    return likelier + 1 if likelier < len(tops) else None


def continuation_score(server: str, echo: Echoed, boundary: int, continuation: str) -> ContinuationScore:
    """The log-likelihood of `echo.text[boundary:]` given what comes before it."""
    start = echo.split_at(boundary)
    if start == len(echo.tokens):
        raise ApiError(f"continuation {continuation!r} produced no token on API server {server}")
    for index in range(start, len(echo.tokens)):
        piece, offset = echo.tokens[index], echo.offsets[index]
        # OpenAI shows a token that splits a character as "bytes:\\x.."; anything else must sit where its offset says
        if piece and not piece.startswith("bytes:") and echo.text[offset : offset + len(piece)] != piece:
            raise ApiError(
                f"API server {server} gave text offsets that do not match the prompt ({piece!r} at "
                f"{offset} in {echo.text[max(0, offset - 20) : offset + 20]!r}): its continuation tokens "
                "cannot be found"
            )
    values = echo.logprobs[start:]
    if start == 0 or any(value is None for value in values):
        raise ApiError(
            f"API server {server} gives no log-probability for the first token of "
            f"{echo.text[:40]!r}: a continuation needs a non-empty context over the API"
        )
    greedy = True
    for value, tops in zip(values, echo.tops[start:]):
        _, best = _top(tops)
        greedy = greedy and best is not None and value >= best - 1e-6  # type: ignore[operator]
    top_token, top_logprob = _top(echo.tops[start])
    return ContinuationScore(
        text=continuation,
        logprob=float(sum(values)),  # type: ignore[arg-type]
        n_tokens=len(values),
        is_greedy=greedy,
        top_logprob=top_logprob,
        top_token=top_token,
        rank=_rank(values[0], echo.tops[start]),  # type: ignore[arg-type]
    )


def next_token_tops(server: str, choice: Mapping[str, Any]) -> dict[str, float]:
    """The top next-token log-probabilities of a `/completions` choice made with `logprobs`."""
    logprobs = choice.get("logprobs") or {}
    tops = logprobs.get("top_logprobs") or []
    if not tops or not tops[0]:
        raise ApiError(
            f"API server {server} returned no top log-probabilities for the next token "
            "(it lacks the 'top_logprobs' feature)"
        )
    return {str(k): float(v) for k, v in tops[0].items()}


def readout_score(tops: Mapping[str, float], continuation: str) -> ContinuationScore | None:
    """A single-token continuation read from the next token's top-k; None when it is not among them."""
    if continuation not in tops:
        return None
    top_token, top_logprob = _top(tops)
    value = tops[continuation]
    return ContinuationScore(
        text=continuation,
        logprob=value,
        n_tokens=1,
        is_greedy=top_logprob is not None and value >= top_logprob - 1e-6,
        top_logprob=top_logprob,
        top_token=top_token,
        rank=_rank(value, tops),
    )
