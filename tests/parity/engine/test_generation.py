from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from parity.engine import Engine, GenerationRequest
from parity.engine.generation import _stop_criteria
from parity.engine.metrics import first_line_settled

PROMPTS = [
    "Instruction: Write the plural form.\nInput: cat\nOutput:",
    "The hiker is in the cave.\n>",
    'Esther asked "Are you coming to the party?" and Juan responded',
    "Q:",
]


def greedy_reference(loaded: Any, prompt: str, max_new_tokens: int) -> list[int]:
    """One sequence, no padding, no cache: argmax token by token."""
    import torch

    ids = loaded.tokenizer(prompt, add_special_tokens=False)["input_ids"]
    generated: list[int] = []
    with torch.no_grad():
        for _ in range(max_new_tokens):
            token = int(loaded.model(input_ids=torch.tensor([ids + generated])).logits[0, -1].argmax())
            generated.append(token)
            if token == loaded.tokenizer.eos_token_id:
                break
    return generated


def test_batched_left_padded_generation_equals_one_sequence_greedy_decoding(tiny_lm: Any) -> None:
    requests = [GenerationRequest(f"g{i}", prompt, 6, stop_at_newline=False) for i, prompt in enumerate(PROMPTS)]
    results = Engine(tiny_lm).generate(requests)
    assert [r.key for r in results] == [r.key for r in requests]
    for request, result in zip(requests, results):
        tokens = greedy_reference(tiny_lm, request.prompt, 6)
        assert result.raw_text == tiny_lm.tokenizer.decode(tokens, skip_special_tokens=True)
        assert result.n_tokens == len(tokens)
        assert result.stop_reason in {"length", "eos"}


def test_the_stop_rule_ends_a_row_once_its_first_line_is_settled(tokenizer_dir: Path) -> None:
    import torch
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(tokenizer_dir)
    newline = tokenizer("\n", add_special_tokens=False)["input_ids"]
    word = tokenizer("cats", add_special_tokens=False)["input_ids"]
    rows = [
        newline + newline,
        newline + word,
        newline + word + newline,
        word + newline,
        word + newline + word,
        newline + word + newline + newline + word,
    ]
    width = max(len(r) for r in rows)
    batch = torch.tensor([r + [tokenizer.pad_token_id] * (width - len(r)) for r in rows])
    stop = _stop_criteria(tokenizer, 0, [50] * len(rows), [True] * len(rows), {tokenizer.eos_token_id})
    for length in range(1, width + 1):
        stop(batch[:, :length], None)
    # a newline after text stops a row only once more text follows it: its trailing spaces may count
    assert [at is not None for at in stop.finished_at] == [False, False, False, False, True, True]


def test_generated_text_is_whole_and_stops_once_the_first_line_is_settled(tiny_lm: Any) -> None:
    requests = [GenerationRequest(f"g{i}", prompt, 12) for i, prompt in enumerate(PROMPTS)]
    for result in Engine(tiny_lm).generate(requests):
        assert result.text == result.raw_text
        assert (result.stop_reason == "newline") == first_line_settled(result.raw_text)


def test_an_eos_token_stops_generation(tiny_lm: Any) -> None:
    prompt = PROMPTS[0]
    first = greedy_reference(tiny_lm, prompt, 1)[0]
    config = tiny_lm.model.generation_config
    saved = config.eos_token_id
    config.eos_token_id = first
    try:
        [result] = Engine(tiny_lm).generate([GenerationRequest("eos", prompt, 5)])
    finally:
        config.eos_token_id = saved
    assert (result.stop_reason, result.text, result.n_tokens) == ("eos", "", 1)


def test_a_long_prompt_is_cut_on_the_left_to_leave_room_for_the_answer(short_window_lm: Any) -> None:
    prompt = "The hiker is in the cave. " * 5
    [result] = Engine(short_window_lm).generate([GenerationRequest("long", prompt, 4, stop_at_newline=False)])
    n_prompt = len(short_window_lm.tokenizer(prompt, add_special_tokens=False)["input_ids"])
    assert result.truncated_tokens == n_prompt - (short_window_lm.max_length - 4)


def test_generations_are_cached(tiny_lm: Any, tmp_path: Path) -> None:
    requests = [GenerationRequest(f"g{i}", prompt, 5) for i, prompt in enumerate(PROMPTS)]
    first = Engine(tiny_lm, cache=tmp_path).generate(requests)
    engine = Engine(tiny_lm, cache=tmp_path)
    assert engine.generate(requests) == first
    assert engine.stats.cache_hits == len(requests) and engine.stats.batches == 0


def test_a_window_too_small_for_the_answer_is_refused(short_window_lm: Any) -> None:
    with pytest.raises(ValueError, match="leaves no room"):
        Engine(short_window_lm).generate([GenerationRequest("x", "a", 100)])
