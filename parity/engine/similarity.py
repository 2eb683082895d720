"""BERTScore F1 between a candidate and a set of references (max over the set), by one of two scorers.

- **The `bert-score` package's own scorer** (`BERTScorer`, Zhang et al. 2020) for the Hub models it
  knows a layer for (its `model2layers` table), baseline-rescaled with the baseline file it ships
  for that model. Honovich et al. use it with DeBERTa-xlarge-MNLI (`PAPER_SIMILARITY_MODEL`, layer
  40); their values are on the rescaled scale (Table 2 has negative scores, which raw cosines of
  that model never give).
- **Greedy matching here** for any other model (the packaged all-MiniLM-L6-v2 by default): the last
  layer's token vectors, precision averaging over the candidate's tokens the best cosine with any
  reference token and recall the other way round, no idf weighting and no rescaling.

Every score carries its model, scorer, layer and whether (and by which baseline) it was rescaled,
so a reader can tell which scale a figure is on. `AUTO` picks the paper's model where its weights
are in the local Hugging Face cache, else the packaged MiniLM: nothing is downloaded for it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from .encoders import DEFAULT_EMBEDDER, Embedder

#: the model of Honovich et al.'s BERTScore (footnote 5: bert-score 0.3.11 with DeBERTa-xl-MNLI)
PAPER_SIMILARITY_MODEL = "microsoft/deberta-xlarge-mnli"
#: the setting value that takes the paper's model where it is cached, else the packaged embedder
AUTO = "auto"
#: the scorer name recorded with a greedy-matching score computed here
GREEDY = "greedy token matching (parity)"
#: weight files any one of which makes a cached Hub model loadable
_WEIGHTS = ("model.safetensors", "pytorch_model.bin", "model.safetensors.index.json", "pytorch_model.bin.index.json")


@dataclass(frozen=True)
class SimilarityScore:
    f1: float
    precision: float
    recall: float
    reference_index: int  # which reference gave the best F1 (-1 when nothing could be compared)
    model_name: str
    #: GREEDY, or "bert-score <version>"
    scorer: str = GREEDY
    #: the layer whose token vectors were matched (counted from 1; the last one for GREEDY)
    layer: int | None = None
    #: (x - b) / (1 - b) with the scorer's baseline b: on the scale Honovich et al. report
    rescaled: bool = False
    #: the baseline F1 b subtracted, when rescaled
    baseline_f1: float | None = None


class SimilarityScorer(Protocol):
    def score_many(self, items: Sequence[tuple[str, Sequence[str]]]) -> list[SimilarityScore]: ...


# -- which scorer ----------------------------------------------------------------------------------


def hub_snapshot(name: str, cache_dir: str | Path | None = None) -> Path | None:
    """The local folder of a Hub model whose config and weights are in the Hugging Face cache
    (`cache_dir`, default the library's own), without any network call; None when it is not."""
    from huggingface_hub import try_to_load_from_cache

    try:
        config = try_to_load_from_cache(name, "config.json", cache_dir=cache_dir)
    except ValueError:  # not a valid repo id
        return None
    if not isinstance(config, str):
        return None
    for weights in _WEIGHTS:
        found = try_to_load_from_cache(name, weights, cache_dir=cache_dir)
        if isinstance(found, str):
            return Path(config).parent
    return None


def resolve_similarity_model(name: str, cache_dir: str | Path | None = None) -> str:
    """`AUTO` becomes the paper's model when it is in the local cache, else the packaged embedder;
    any other name stays as it is."""
    if name.strip() != AUTO:
        return name
    return PAPER_SIMILARITY_MODEL if hub_snapshot(PAPER_SIMILARITY_MODEL, cache_dir) else DEFAULT_EMBEDDER


def package_layer(name: str) -> int | None:
    """The layer the `bert-score` package uses for this Hub model (its `model2layers`); None when it
    knows none, or the package is not installed."""
    try:
        from bert_score.utils import model2layers
    except ImportError:
        return None
    layer = model2layers.get(name)
    return int(layer) if layer is not None else None


def uses_package(name: str) -> bool:
    """Whether `name` is scored by the `bert-score` package (a Hub model it knows a layer for)."""
    return package_layer(name) is not None


# -- greedy matching here ---------------------------------------------------------------------------


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
    """For each (candidate, references): the best F1 over the references (greedy matching here)."""
    texts: dict[str, int] = {}
    for candidate, references in items:
        for text in (candidate, *references):
            texts.setdefault(text, len(texts))
    ordered = list(texts)
    vectors = embedder.token_embeddings(ordered) if ordered else []
    layer = embedder.layer
    scores = []
    for candidate, references in items:
        best = SimilarityScore(0.0, 0.0, 0.0, -1, embedder.model_name, GREEDY, layer)
        for index, reference in enumerate(references):
            f1, precision, recall = _greedy_f1(vectors[texts[candidate]], vectors[texts[reference]])
            if best.reference_index < 0 or f1 > best.f1:
                best = SimilarityScore(f1, precision, recall, index, embedder.model_name, GREEDY, layer)
        scores.append(best)
    return scores


def bertscore(embedder: Embedder, candidate: str, references: Sequence[str]) -> SimilarityScore:
    return bertscore_many(embedder, [(candidate, references)])[0]


@dataclass
class GreedySimilarity:
    """`SimilarityScorer` over an embedder: greedy matching of its last layer, raw."""

    embedder: Embedder

    def score_many(self, items: Sequence[tuple[str, Sequence[str]]]) -> list[SimilarityScore]:
        return bertscore_many(self.embedder, items)


# -- the bert-score package ---------------------------------------------------------------------------


def package_version() -> str:
    from importlib.metadata import version

    return version("bert-score")


def package_baseline(name: str, lang: str = "en") -> Path | None:
    """The rescaling baseline the `bert-score` package ships for a Hub model (a table of P, R, F
    per layer); None when it ships none."""
    from importlib.util import find_spec

    spec = find_spec("bert_score")
    if spec is None or not spec.submodule_search_locations:
        return None
    for root in spec.submodule_search_locations:
        candidate = Path(root) / "rescale_baseline" / lang / f"{name}.tsv"
        if candidate.is_file():
            return candidate
    return None


@dataclass
class PackageSimilarity:
    """`SimilarityScorer` by the `bert-score` package's `BERTScorer` (idf off, as its default)."""

    scorer: Any  # bert_score.BERTScorer
    model_name: str
    layer: int
    rescaled: bool
    baseline_f1: float | None
    version: str

    @property
    def scorer_name(self) -> str:
        return f"bert-score {self.version}"

    def score_many(self, items: Sequence[tuple[str, Sequence[str]]]) -> list[SimilarityScore]:
        """Each candidate against each of its references, one pair at a time; the best F1 counts
        (the package's own multi-reference call takes the best of P, R and F separately)."""
        pairs = [(candidate, reference) for candidate, references in items for reference in references]
        found: list[tuple[float, float, float]] = []
        if pairs:
            precision, recall, f1 = self.scorer.score([c for c, _ in pairs], [r for _, r in pairs])
            found = list(zip(precision.tolist(), recall.tolist(), f1.tolist()))
        scores, start = [], 0
        for _, references in items:
            mine = found[start : start + len(references)]
            start += len(references)
            best = SimilarityScore(
                0.0, 0.0, 0.0, -1, self.model_name, self.scorer_name, self.layer, self.rescaled, self.baseline_f1
            )
            for index, (p, r, f) in enumerate(mine):
                if best.reference_index < 0 or f > best.f1:
                    best = SimilarityScore(
                        f, p, r, index, self.model_name, self.scorer_name, self.layer, self.rescaled, self.baseline_f1
                    )
            scores.append(best)
        return scores


def load_package_similarity(
    name: str,
    *,
    layer: int | None = None,
    rescale: bool = True,
    baseline_path: str | Path | None = None,
    device: str = "cpu",
    cache_dir: str | Path | None = None,
) -> PackageSimilarity:
    """The `bert-score` package's scorer for a Hub model (read from the local Hugging Face cache when
    it is there) or a local folder. `layer`: the package's own for a Hub model it knows; a local
    folder needs one. Rescaled with `baseline_path`, else with the baseline the package ships for
    the model; without either the scores stay raw (and say so)."""
    from bert_score import BERTScorer

    from .loading import ModelNotFound, hub_offline, resolve_device

    layer = layer or package_layer(name)
    if layer is None:
        raise ValueError(f"bert-score knows no layer for {name!r}; give the layer to score with")
    location = Path(name).expanduser()
    if location.is_dir():
        source = str(location.resolve())
    else:
        snapshot = hub_snapshot(name, cache_dir)
        if snapshot is None and hub_offline():
            raise ModelNotFound(
                name, [f"Hugging Face hub id {name!r} (HF_HUB_OFFLINE is set and it is not in the local cache)"]
            )
        source = str(snapshot) if snapshot is not None else name
    baseline = Path(baseline_path) if baseline_path is not None else package_baseline(name)
    rescaled = rescale and baseline is not None and baseline.is_file()
    scorer = BERTScorer(
        model_type=source,
        num_layers=layer,
        lang="en",
        rescale_with_baseline=rescaled,
        baseline_path=str(baseline) if rescaled else None,
        device=resolve_device(device),
    )
    # the baseline row of the layer: LAYER, P, R, F; the package keeps P, R, F
    baseline_f1 = float(scorer.baseline_vals[2]) if rescaled else None
    return PackageSimilarity(scorer, name, layer, rescaled, baseline_f1, package_version())


def load_similarity(
    name: str, *, device: str = "cpu", cache_dir: str | Path | None = None, hub_cache: str | Path | None = None
) -> SimilarityScorer:
    """The scorer for a setting's similarity model: `AUTO` resolved, a Hub model the `bert-score`
    package knows scored by it, anything else (the packaged embedder, a local folder) by greedy
    matching here. `cache_dir`: the engine's model cache (where the embedder's copy lives);
    `hub_cache`: the Hugging Face cache (default: the library's own)."""
    from .encoders import load_embedder

    name = resolve_similarity_model(name, hub_cache)
    if uses_package(name):
        return load_package_similarity(name, device=device, cache_dir=hub_cache)
    return GreedySimilarity(load_embedder(name, device=device, cache_dir=cache_dir))
