"""BERTScore-style F1 between a candidate and a set of references (max over the set).

Greedy matching of contextual token vectors (Zhang et al. 2020): precision averages, over the
candidate's tokens, the best cosine with any reference token; recall the other way round; F1 is
their harmonic mean. No idf weighting and no baseline rescaling, so values are not on the
paper's rescaled scale; the embedding model's name is returned with every score.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .encoders import Embedder


@dataclass(frozen=True)
class SimilarityScore:
    f1: float
    precision: float
    recall: float
    reference_index: int  # which reference gave the best F1 (-1 when nothing could be compared)
    model_name: str


def _greedy_f1(candidate: Any, reference: Any) -> tuple[float, float, float]:
    if candidate.shape[0] == 0 or reference.shape[0] == 0:
        return 0.0, 0.0, 0.0
    similarity = candidate @ reference.T
    precision = float(similarity.max(dim=1).values.mean())
    recall = float(similarity.max(dim=0).values.mean())
    if precision + recall <= 0:
        return 0.0, precision, recall
    return 2 * precision * recall / (precision + recall), precision, recall


def bertscore_many(embedder: Embedder, items: Sequence[tuple[str, Sequence[str]]]) -> list[SimilarityScore]:
    """For each (candidate, references): the best F1 over the references."""
    texts: dict[str, int] = {}
    for candidate, references in items:
        for text in (candidate, *references):
            texts.setdefault(text, len(texts))
    ordered = list(texts)
    vectors = embedder.token_embeddings(ordered) if ordered else []
    scores = []
    for candidate, references in items:
        best = SimilarityScore(0.0, 0.0, 0.0, -1, embedder.model_name)
        for index, reference in enumerate(references):
            f1, precision, recall = _greedy_f1(vectors[texts[candidate]], vectors[texts[reference]])
            if best.reference_index < 0 or f1 > best.f1:
                best = SimilarityScore(f1, precision, recall, index, embedder.model_name)
        scores.append(best)
    return scores


def bertscore(embedder: Embedder, candidate: str, references: Sequence[str]) -> SimilarityScore:
    return bertscore_many(embedder, [(candidate, references)])[0]
