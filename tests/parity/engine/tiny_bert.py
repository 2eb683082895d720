"""Tiny BERT models saved like hub models, and a Hugging Face cache folder holding one: the
similarity tests' stand-ins for DeBERTa-xlarge-MNLI (built from a config, never downloaded)."""

from __future__ import annotations

from pathlib import Path

WORDS = "write the opposite of word add two numbers give an antonym sum plural form".split()


def save_tiny_bert(directory: Path, layers: int) -> Path:
    """A randomly initialised BERT with a word-piece vocabulary, saved like a hub model."""
    import torch
    from transformers import BertConfig, BertModel, BertTokenizer

    directory.mkdir(parents=True, exist_ok=True)
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *sorted(set(WORDS))]
    (directory / "vocab.txt").write_text("\n".join(vocab) + "\n")
    BertTokenizer(str(directory / "vocab.txt"), model_max_length=64).save_pretrained(directory)
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=len(vocab),
        hidden_size=8,
        num_hidden_layers=layers,
        num_attention_heads=2,
        intermediate_size=16,
        max_position_embeddings=64,
    )
    BertModel(config).save_pretrained(directory)
    return directory


def hub_cache_with(root: Path, repo: str, source: Path | None) -> Path:
    """A Hugging Face cache folder holding `source`'s files as the snapshot of `repo` (only its
    config when `source` is None)."""
    folder = root / f"models--{repo.replace('/', '--')}"
    snapshot = folder / "snapshots" / "0123456789abcdef"
    snapshot.mkdir(parents=True)
    (folder / "refs").mkdir()
    (folder / "refs" / "main").write_text("0123456789abcdef")
    if source is None:
        (snapshot / "config.json").write_text("{}")
    else:
        for file in source.iterdir():
            (snapshot / file.name).write_bytes(file.read_bytes())
    return root
