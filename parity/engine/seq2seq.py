"""Choice scoring for encoder-decoder models: the context is the encoder input, the continuation
the decoder's labels. As in lm-eval, the continuation is tokenized on its own here (the decoder
starts afresh, so no token straddles the two), after moving the context's trailing spaces onto it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .forward import RowScores, read_scores
from .loading import LoadedModel
from .requests import ChoiceRequest


@dataclass(frozen=True)
class Seq2SeqPair:
    source: tuple[int, ...]
    labels: tuple[int, ...]
    truncated: int


def prepare_pairs(loaded: LoadedModel, requests: Sequence[ChoiceRequest]) -> list[list[Seq2SeqPair]]:
    tokenizer = loaded.tokenizer
    contexts = [r.context.rstrip(" ") for r in requests]
    sources = tokenizer(contexts, add_special_tokens=True)["input_ids"]
    texts = [r.context[len(context) :] + c for r, context in zip(requests, contexts) for c in r.continuations]
    labels = tokenizer(texts, add_special_tokens=False)["input_ids"] if texts else []
    prepared: list[list[Seq2SeqPair]] = []
    cursor = 0
    for request, source in zip(requests, sources):
        cut = max(0, len(source) - loaded.max_length)
        pairs = []
        for _ in request.continuations:
            if not labels[cursor]:
                raise ValueError(f"{request.key}: a continuation produced no token")
            pairs.append(Seq2SeqPair(tuple(source[cut:]), tuple(labels[cursor]), cut))
            cursor += 1
        prepared.append(pairs)
    return prepared


def score_pairs(loaded: LoadedModel, pairs: Sequence[Seq2SeqPair]) -> list[RowScores]:
    """Per pair, per label token: (log-prob, is argmax, top log-prob, top id, rank); one host sync for the batch."""
    import torch

    pad = loaded.pad_token_id
    width = max(len(p.source) for p in pairs)
    label_width = max(len(p.labels) for p in pairs)
    input_ids = torch.full((len(pairs), width), pad, dtype=torch.long)
    attention = torch.zeros((len(pairs), width), dtype=torch.long)
    labels = torch.full((len(pairs), label_width), -100, dtype=torch.long)
    for row, pair in enumerate(pairs):
        input_ids[row, : len(pair.source)] = torch.tensor(pair.source)
        attention[row, : len(pair.source)] = 1
        labels[row, : len(pair.labels)] = torch.tensor(pair.labels)
    device = loaded.device
    with torch.inference_mode():
        logits = loaded.model(
            input_ids=input_ids.to(device), attention_mask=attention.to(device), labels=labels.to(device)
        ).logits
        mask = (labels != -100).to(logits.device)
        return read_scores(logits[mask], labels.to(logits.device)[mask], [len(pair.labels) for pair in pairs])
