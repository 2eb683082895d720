from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from parity.engine import ChoiceRequest, Engine, GenerationRequest, load_seq2seq


@pytest.fixture(scope="module")
def tiny_t5(tmp_path_factory: pytest.TempPathFactory, tokenizer_dir: Path, model_cache: Path) -> Any:
    import torch
    from transformers import AutoTokenizer, T5Config, T5ForConditionalGeneration

    directory = tmp_path_factory.mktemp("t5")
    tokenizer = AutoTokenizer.from_pretrained(tokenizer_dir)
    config = T5Config(
        vocab_size=len(tokenizer),
        d_model=32,
        d_ff=64,
        d_kv=8,
        num_layers=2,
        num_heads=4,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
        decoder_start_token_id=tokenizer.pad_token_id,
        n_positions=128,
    )
    torch.manual_seed(0)
    T5ForConditionalGeneration(config).save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return load_seq2seq(str(directory), cache_dir=model_cache)


def test_seq2seq_choices_are_the_decoder_log_probs_of_the_continuation(tiny_t5: Any) -> None:
    import torch

    requests = [ChoiceRequest("a", "which means", (" yes", " no maybe")), ChoiceRequest("b", "The cave is", (" dark",))]
    results = Engine(tiny_t5, token_budget=16).score_choices(requests)
    assert tiny_t5.kind == "seq2seq"
    for request, result in zip(requests, results):
        source = tiny_t5.tokenizer(request.context, return_tensors="pt")["input_ids"]
        for continuation, score in zip(request.continuations, result.scores):
            labels = tiny_t5.tokenizer(continuation, add_special_tokens=False, return_tensors="pt")["input_ids"]
            with torch.no_grad():
                logits = tiny_t5.model(input_ids=source, labels=labels).logits[0]
            expected = torch.log_softmax(logits, -1).gather(1, labels[0][:, None]).sum()
            assert score.logprob == pytest.approx(float(expected), abs=1e-5)
            assert score.n_tokens == labels.shape[1]


def test_seq2seq_generation_runs_greedy(tiny_t5: Any) -> None:
    [result] = Engine(tiny_t5).generate([GenerationRequest("g", "Input: cat\nOutput:", 4, stop_at_newline=False)])
    assert result.n_tokens <= 4 and result.stop_reason in {"length", "eos"}
