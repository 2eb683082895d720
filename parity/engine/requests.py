"""What the engine is asked to do, and what it answers (plain frozen dataclasses, no torch).

Every request carries a caller-chosen `key` that comes back on its result; results are always
returned in request order, whatever order the engine ran them in.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ChoiceRequest:
    """Log-probability of each continuation given the context (yes/no pairs, MiQA options, A/B).

    Each continuation is scored inside the full text `context + continuation`, so word-boundary
    spaces belong where the text has them (`context="... which means"`, `continuations=(" yes", " no")`
    and `context="... which means "`, `continuations=("yes", "no")` score the same tokens).
    """

    key: str
    context: str
    continuations: tuple[str, ...]

    def __post_init__(self) -> None:
        if not self.continuations:
            raise ValueError(f"{self.key}: a ChoiceRequest needs at least one continuation")
        if any(not continuation for continuation in self.continuations):
            raise ValueError(f"{self.key}: empty continuation")


@dataclass(frozen=True)
class Read:
    """One read inside a MultiReadRequest: at character `offset` of the text, each candidate."""

    offset: int
    candidates: tuple[str, ...]


@dataclass(frozen=True)
class MultiReadRequest:
    """One forward pass over `text`, reading candidate log-probs at several character offsets.

    AmbiBench episodes: the 20 label positions of one prompt. The candidate that the text itself
    holds at an offset is read from the full-text tokenization; the others are scored as the
    tokens the text would have had with that candidate in its place.
    """

    key: str
    text: str
    reads: tuple[Read, ...]

    def __post_init__(self) -> None:
        for read in self.reads:
            if not 0 <= read.offset <= len(self.text):
                raise ValueError(f"{self.key}: read offset {read.offset} is outside the text")
            if not read.candidates or any(not candidate for candidate in read.candidates):
                raise ValueError(f"{self.key}: a read needs non-empty candidates")


@dataclass(frozen=True)
class GenerationRequest:
    """Greedy continuation of `prompt`; with `stop_at_newline`, stop once the first line is settled
    (a newline between non-blank text), which is all that instruction-induction scoring reads."""

    key: str
    prompt: str
    max_new_tokens: int
    stop_at_newline: bool = True


@dataclass(frozen=True)
class ContinuationScore:
    """The score of one continuation: sum of its tokens' log-probs (natural log)."""

    text: str
    logprob: float
    n_tokens: int
    is_greedy: bool  # every token of the continuation is the model's argmax at its position
    # The model's most likely token where the continuation starts, and its log-prob: what it
    # would have said instead (None from results made without them).
    top_logprob: float | None = None
    top_token: str | None = None
    # Where the continuation's first token ranks among the model's next tokens: 1 + the tokens
    # strictly likelier (1 = the top token); None where unknown (an API that lists fewer tokens).
    rank: int | None = None

    @property
    def mean_logprob(self) -> float:
        return self.logprob / self.n_tokens


@dataclass(frozen=True)
class ChoiceResult:
    key: str
    scores: tuple[ContinuationScore, ...]  # in the order of the request's continuations
    truncated_tokens: int  # context tokens cut on the left to fit the model's window

    @property
    def best(self) -> int:
        """Index of the most likely continuation (ties go to the first: a benchmark that counts a
        tie as no answer decides from the scores)."""
        values = [score.logprob for score in self.scores]
        return values.index(max(values))


@dataclass(frozen=True)
class ReadResult:
    offset: int
    scores: tuple[ContinuationScore, ...]  # in the order of the read's candidates

    @property
    def best(self) -> int:
        values = [score.logprob for score in self.scores]
        return values.index(max(values))


@dataclass(frozen=True)
class MultiReadResult:
    key: str
    reads: tuple[ReadResult, ...]  # in the order of the request's reads
    truncated_tokens: int


@dataclass(frozen=True)
class GenerationResult:
    key: str
    text: str  # the generated text, cut at the stop rule (newline not included)
    raw_text: str  # everything decoded, before the stop rule
    n_tokens: int  # tokens generated
    stop_reason: str  # "newline", "eos" or "length"
    truncated_tokens: int
