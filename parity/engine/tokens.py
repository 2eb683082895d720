"""Tokenize full texts once and find a continuation's tokens from character offsets.

A continuation is never tokenized on its own: the tokens of `context + continuation` are split at
the first token that reaches into the continuation's characters. So a leading space that the
tokenizer glues to the next word (" no") belongs to the continuation whichever side of the
boundary the text has it on, and BOS is added once, by policy, in front of the full text.

When the first continuation token also covers the end of the context (a merge such as
"...ab" + "cd" -> "abcd"), that token is part of the continuation span: the score is then
log P(all tokens from the merged one on | the tokens before it), so comparing two continuations
equals comparing the log-likelihoods of the two full texts. lm-eval instead splits by the token
count of the context tokenized alone and can drop or shift such a token; the engine does not.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Encoded:
    """Token ids of a whole text (with BOS when the policy adds it) and each token's char span."""

    ids: tuple[int, ...]
    starts: tuple[int, ...]
    ends: tuple[int, ...]
    n_special: int  # tokens in front of the text's own tokens (BOS), which have no characters

    def split_at(self, boundary: int) -> int:
        """Index of the first token that reaches into `text[boundary:]`.

        A token belongs to the continuation when it ends after the boundary or starts at/after it;
        the second test keeps whitespace tokens whose offsets a tokenizer trimmed to nothing.
        """
        for index in range(self.n_special, len(self.ids)):
            if self.ends[index] > boundary or self.starts[index] >= boundary:
                return index
        return len(self.ids)


class TextEncoder:
    """Batch tokenization with offsets under one model's BOS policy."""

    def __init__(self, tokenizer: Any, *, add_bos: bool, prefix_token_id: int) -> None:
        if not getattr(tokenizer, "is_fast", False):
            raise ValueError("character offsets need a fast tokenizer")
        self.tokenizer = tokenizer
        self.add_bos = add_bos
        self.prefix_token_id = prefix_token_id
        self.bos_token_id = tokenizer.bos_token_id

    def encode_many(self, texts: Sequence[str]) -> list[Encoded]:
        if not texts:
            return []
        batch = self.tokenizer(
            list(texts),
            add_special_tokens=False,
            return_offsets_mapping=True,
            return_attention_mask=False,
            return_token_type_ids=False,
        )
        encoded = []
        for ids, offsets in zip(batch["input_ids"], batch["offset_mapping"]):
            starts = tuple(start for start, _ in offsets)
            ends = tuple(end for _, end in offsets)
            if self.add_bos and self.bos_token_id is not None:
                encoded.append(Encoded((self.bos_token_id, *ids), (0, *starts), (0, *ends), 1))
            else:
                encoded.append(Encoded(tuple(ids), starts, ends, 0))
        return encoded

    def with_prefix(self, encoded: Encoded) -> Encoded:
        """A text with no token in front of its first scored token gets BOS (else EOS) as
        conditioning, as lm-eval does for an empty context."""
        return Encoded(
            (self.prefix_token_id, *encoded.ids), (0, *encoded.starts), (0, *encoded.ends), encoded.n_special + 1
        )


@dataclass(frozen=True)
class Span:
    """A continuation inside one full-text encoding: tokens[start:] up to `end`."""

    encoded: Encoded
    start: int  # index of the first continuation token (>= 1: something conditions it)
    end: int  # one past the last continuation token

    @property
    def prefix(self) -> tuple[int, ...]:
        return self.encoded.ids[: self.start]

    @property
    def tokens(self) -> tuple[int, ...]:
        return self.encoded.ids[self.start : self.end]


def continuation_spans(encoder: TextEncoder, context: str, continuations: Sequence[str]) -> list[Span]:
    """One span per continuation, each found inside the tokenization of `context + continuation`."""
    return continuation_spans_many(encoder, [(context, continuations)])[0]


def continuation_spans_many(encoder: TextEncoder, groups: Sequence[tuple[str, Sequence[str]]]) -> list[list[Span]]:
    """continuation_spans for many (context, continuations) at once: one batched tokenizer call."""
    texts = [context + continuation for context, continuations in groups for continuation in continuations]
    encodings = iter(encoder.encode_many(texts))
    spans_per_group = []
    for context, continuations in groups:
        spans = []
        for _ in continuations:
            encoded = next(encodings)
            start = encoded.split_at(len(context))
            if start == 0:
                encoded = encoder.with_prefix(encoded)
                start = 1
            if start == len(encoded.ids):
                raise ValueError(f"continuation of {context[-30:]!r} produced no token")
            spans.append(Span(encoded, start, len(encoded.ids)))
        spans_per_group.append(spans)
    return spans_per_group
