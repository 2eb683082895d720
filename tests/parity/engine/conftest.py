"""Tiny models built on the spot: a byte-level BPE tokenizer trained on a few sentences, and
random Llama / BERT / T5 models saved with `save_pretrained` and loaded through the real loaders.
No network: HF_HUB_OFFLINE is set for the whole session."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

CORPUS = [
    'Esther asked "Are you coming to the party?" and Juan responded "I have to work late.", which means no',
    'Esther asked "Did you like the film?" and Juan responded "It was unbelievable.", which means yes',
    "Output 'X' if the sentence contains a [category withheld] and 'Y' otherwise.",
    "The hiker is in the cave.\n>X\n\nThe bear is in the museum.\n>Y\n\nQ: The duck is in the canyon.\nA: X",
    'Q: "my friend has a loud voice". Which of the following two statements could that imply? (1) a (2) b A:',
    "unbelievable unbelievable unbelievably unbelievable believable unbelief yes no yes no maybe",
    "Instruction: Write the plural form.\nInput: cat\nOutput: cats\nInput: dog\nOutput: dogs",
    "The professor is in the laboratory with the rabbi. She is in the house with the CEO.",
]


def train_tokenizer(directory: Path) -> Any:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=400,
        special_tokens=["<bos>", "<eos>", "<pad>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(CORPUS * 20, trainer=trainer)
    wrapped = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer, bos_token="<bos>", eos_token="<eos>", pad_token="<pad>"
    )
    wrapped.save_pretrained(directory)
    return wrapped


@pytest.fixture(scope="session")
def tokenizer_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("tokenizer")
    train_tokenizer(directory)
    return directory


def _save_llama(directory: Path, tokenizer_dir: Path, *, seed: int, max_positions: int = 512) -> Path:
    import torch
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    tokenizer = AutoTokenizer.from_pretrained(tokenizer_dir)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=max_positions,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        initializer_range=0.3,
        tie_word_embeddings=False,
    )
    torch.manual_seed(seed)
    model = LlamaForCausalLM(config)
    model.save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory


@pytest.fixture(scope="session")
def llama_dir(tmp_path_factory: pytest.TempPathFactory, tokenizer_dir: Path) -> Path:
    return _save_llama(tmp_path_factory.mktemp("llama"), tokenizer_dir, seed=0)


@pytest.fixture(scope="session")
def model_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("model-cache")


@pytest.fixture(scope="session")
def tiny_lm(llama_dir: Path, model_cache: Path) -> Any:
    from parity.engine import load_causal_lm

    return load_causal_lm(str(llama_dir), cache_dir=model_cache)


@pytest.fixture(scope="session")
def short_window_lm(tmp_path_factory: pytest.TempPathFactory, tokenizer_dir: Path, model_cache: Path) -> Any:
    from parity.engine import load_causal_lm

    directory = _save_llama(tmp_path_factory.mktemp("llama-short"), tokenizer_dir, seed=1, max_positions=24)
    return load_causal_lm(str(directory), cache_dir=model_cache)


def full_text_logprobs(loaded: Any, ids: list[int]) -> list[float]:
    """log P(token i | tokens < i) for i >= 1, from one plain forward pass (the reference)."""
    import torch

    with torch.no_grad():
        logits = loaded.model(input_ids=torch.tensor([ids])).logits[0].float()
    logprobs = torch.log_softmax(logits, dim=-1)
    return [float(logprobs[i - 1, ids[i]]) for i in range(1, len(ids))]
